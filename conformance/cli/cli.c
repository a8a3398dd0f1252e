/*
 * cli.c: what the subcommands share (see cli.h): where the fixtures are, making output
 * directories, and whether to colour. Here, not in main.c, so that libockconf.a is whole
 * without the command line's entry point (a program of its own can link it).
 */
#include "cli/cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ock__cli_make_dirs(const char *dir) {
  char path[4300];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      mkdir(path, 0755);
      *p = '/';
    }
  mkdir(path, 0755);
}

int ock__use_color(FILE *f) {
  return isatty(fileno(f)) && !getenv("NO_COLOR");
}

const char *ock__default_fixtures_dir(void) {
  static char path[PATH_MAX + 64];
  const char *env = getenv("OCK_FIXTURES");
  if (env && *env)
    return env;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      struct stat st;
      snprintf(path, sizeof path, "%s/../share/ock/fixtures", exe);
      if (!stat(path, &st) && S_ISDIR(st.st_mode))
        return path;
      snprintf(path, sizeof path, "%s/../../fixtures", exe); /* build/bin in the source tree */
      if (!stat(path, &st) && S_ISDIR(st.st_mode))
        return path;
    }
  }
  return "fixtures";
}

int ock__cli_fixtures_missing(const char *dir, char *err, size_t n) {
  struct stat st;
  if (!stat(dir, &st) && S_ISDIR(st.st_mode))
    return 0;
  if (strcmp(dir, ock__default_fixtures_dir())) /* named by --fixtures: the loader says why */
    return 0;
  const char *env = getenv("OCK_FIXTURES");
  char exe[PATH_MAX], cwd[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[len > 0 ? len : 0] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash)
    *slash = '\0';
  if (!getcwd(cwd, sizeof cwd))
    snprintf(cwd, sizeof cwd, ".");
  if (env && *env)
    snprintf(err, n,
             "no fixtures: OCK_FIXTURES is %s, which is not a directory; set it (or give "
             "--fixtures DIR) to the scenarios, share/ock/fixtures of an installed kit",
             env);
  else
    snprintf(err, n,
             "no fixtures found: OCK_FIXTURES is not set, and none of %s/../share/ock/fixtures, "
             "%s/../../fixtures, %s/fixtures is a directory; give the scenarios with --fixtures "
             "DIR or OCK_FIXTURES=DIR",
             exe, exe, cwd);
  return -1;
}
