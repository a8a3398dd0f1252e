/*
 * replay.c: a fuzz target without libFuzzer. Built with the ordinary compiler into a test
 * binary, it runs the target over its seeds and over every input a fuzzing run ever crashed
 * on (fuzz/regressions/<target>/), so `make test` keeps each fixed crash fixed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.')
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    FILE *f = fopen(path, "rb");
    if (!f)
      continue;
    struct ock_buf b;
    ock_buf_init(&b, (size_t)64 << 20);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
      if (ock_buf_append(&b, chunk, n))
        break;
    fclose(f);
    LLVMFuzzerTestOneInput((const uint8_t *)(b.data ? b.data : ""), b.len);
    ock_buf_free(&b);
    (*count)++;
  }
  closedir(d);
  return 0;
}

int main(int argc, char **argv) {
  const char *root = getenv("OCK_ROOT") ? getenv("OCK_ROOT") : ".";
  int count = 0;
  char dir[4096];
  static const char *const kinds[] = {"seeds", "regressions"};
  for (int k = 0; k < 2; k++) {
    snprintf(dir, sizeof dir, "%s/fuzz/%s/%s", root, kinds[k], FUZZ_TARGET);
    run_dir(dir, &count);
  }
  for (int i = 1; i < argc; i++)
    run_dir(argv[i], &count);
  if (!strcmp(FUZZ_TARGET, "fixture")) {
    snprintf(dir, sizeof dir, "%s/fixtures", root);
    run_dir(dir, &count);
  }
  /* Reaching here means no input crashed the target. */
  printf("fuzz replay %s: %d passed, 0 failed\n", FUZZ_TARGET, count);
  return count ? 0 : 1;
}
