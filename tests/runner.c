/* runner.c: the shared CUnit runner (see runner.h). */
#include "runner.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>

/* CUnit keeps each failure message's pointer until the run ends: they live here and are
 * freed after the registry is cleaned up. */
#define MAX_KEPT 4096
static char *kept_messages[MAX_KEPT];
static size_t n_kept;

void ock_test_fail(int line, const char *file, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char *kept = n_kept < MAX_KEPT ? strdup(msg) : NULL;
  if (kept)
    kept_messages[n_kept++] = kept;
  CU_assertImplementation(CU_FALSE, (unsigned)line, kept ? kept : "assertion failed", file, "",
                          CU_FALSE);
}

const char *ock_test_path(const char *rel) {
  static char buf[4096];
  const char *root = getenv("OCK_ROOT");
  snprintf(buf, sizeof buf, "%s/%s", root && *root ? root : ".", rel);
  return buf;
}

char *ock_test_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t len = 0, cap = 8192;
  char *text = malloc(cap);
  while (text) {
    len += fread(text + len, 1, cap - len - 1, f);
    if (len < cap - 1)
      break; /* end of file, or a read error */
    char *grown = realloc(text, cap *= 2);
    if (!grown)
      free(text);
    text = grown;
  }
  fclose(f);
  if (text)
    text[len] = '\0';
  return text;
}

int ock_test_sh(const char *cmd) {
  int status = system(cmd);
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int ock_test_tmpdir(char dir[64], const char *name) {
  snprintf(dir, 64, "/tmp/ock-%s-XXXXXX", name);
  return mkdtemp(dir) ? 0 : 1;
}

int ock_test_rmdir(const char *dir) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return ock_test_sh(cmd) == 0 ? 0 : 1;
}

/* print_failures: each failed assertion again in one line after the summary, so the tail of a
 * long CI log names what failed without scrolling back through the run. */
static void print_failures(const char *program) {
  for (CU_pFailureRecord f = CU_get_failure_list(); f; f = f->pNext)
    fprintf(stderr, "%s: FAILED %s:%s %s:%u: %s\n", program, f->pSuite ? f->pSuite->pName : "?",
            f->pTest ? f->pTest->pName : "(suite setup or cleanup)",
            f->strFileName ? f->strFileName : "?", f->uiLineNumber,
            f->strCondition ? f->strCondition : "");
}

int ock_test_main(const struct ock_suite *const *suites, int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  for (int s = 0; suites[s]; s++) {
    const struct ock_suite *su = suites[s];
    size_t len = only ? strcspn(only, ":") : 0;
    if (only && (strlen(su->name) != len || strncmp(su->name, only, len)))
      continue;
    CU_pSuite cs = CU_add_suite(su->name, su->init, su->cleanup);
    if (!cs)
      return 2;
    const char *test = only && only[len] == ':' ? only + len + 1 : NULL;
    for (int t = 0; su->tests[t].name; t++) {
      if (test && strcmp(test, su->tests[t].name))
        continue;
      if (!CU_add_test(cs, su->tests[t].name, su->tests[t].fn))
        return 2;
    }
  }
  CU_basic_set_mode(CU_BRM_NORMAL);
  CU_basic_run_tests();
  unsigned ran = CU_get_number_of_tests_run();
  unsigned failed = CU_get_number_of_tests_failed() + CU_get_number_of_suites_failed();
  print_failures(argv[0]);
  CU_cleanup_registry();
  for (size_t i = 0; i < n_kept; i++)
    free(kept_messages[i]);
  n_kept = 0;
  if (ran == 0) {
    fprintf(stderr, "no test ran%s%s\n", only ? " for " : "", only ? only : "");
    return 1;
  }
  return failed ? 1 : 0;
}
