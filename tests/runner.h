/*
 * runner.h: the shared CUnit runner for every part's tests.
 *
 * Each tests/<part>/test_<module>.c defines one `const struct ock_suite` from a table of
 * tests; tests/<part>/main.c lists the suites and calls ock_test_main. The assertion macros
 * below print both values on failure, which CUnit's own CU_ASSERT_EQUAL does not.
 */
#ifndef OCK_TEST_RUNNER_H
#define OCK_TEST_RUNNER_H

#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

struct ock_test {
  const char *name;
  void (*fn)(void);
};

struct ock_suite {
  const char *name;
  const struct ock_test *tests; /* ends with {NULL, NULL} */
  int (*init)(void);            /* may be NULL */
  int (*cleanup)(void);         /* may be NULL */
};

/* ock_test_main registers the NULL-terminated suites and runs them (all, or those named by
 * argv[1] as "suite" or "suite:test"). Returns 0 when every test passed. */
int ock_test_main(const struct ock_suite *const *suites, int argc, char **argv);

/* ock_test_path joins the source root (OCK_ROOT, else ".") and rel into a static buffer. */
const char *ock_test_path(const char *rel);

/* ock_test_read_file returns the whole file, NUL-terminated (caller frees), or NULL when it
 * cannot be read. */
char *ock_test_read_file(const char *path);

/* ock_test_sh runs cmd through /bin/sh and returns its exit code (-1 if it did not exit). */
int ock_test_sh(const char *cmd);

/* ock_test_tmpdir creates a fresh directory /tmp/ock-NAME-XXXXXX into dir (64 bytes);
 * ock_test_rmdir removes it and everything in it. Both return 0 on success, 1 otherwise (a
 * suite's init and cleanup can return them as they are). */
int ock_test_tmpdir(char dir[64], const char *name);
int ock_test_rmdir(const char *dir);

void ock_test_fail(int line, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define OCK_ASSERT_INT_EQ(actual, expected)                                                        \
  do {                                                                                             \
    long long a_ = (long long)(actual), e_ = (long long)(expected);                                \
    if (a_ != e_)                                                                                  \
      ock_test_fail(__LINE__, __FILE__, "%s is %lld, expected %lld (%s)", #actual, a_, e_,         \
                    #expected);                                                                    \
    else                                                                                           \
      CU_PASS(#actual);                                                                            \
  } while (0)

#define OCK_ASSERT_STR_EQ(actual, expected)                                                        \
  do {                                                                                             \
    const char *a_ = (actual), *e_ = (expected);                                                   \
    if (!a_ || !e_ || strcmp(a_, e_))                                                              \
      ock_test_fail(__LINE__, __FILE__, "%s is \"%s\", expected \"%s\"", #actual,                  \
                    a_ ? a_ : "(null)", e_ ? e_ : "(null)");                                       \
    else                                                                                           \
      CU_PASS(#actual);                                                                            \
  } while (0)

#define OCK_ASSERT_CONTAINS(haystack, needle)                                                      \
  do {                                                                                             \
    const char *h_ = (haystack), *n_ = (needle);                                                   \
    if (!h_ || !strstr(h_, n_))                                                                    \
      ock_test_fail(__LINE__, __FILE__, "%s is \"%.300s\", expected it to contain \"%s\"",         \
                    #haystack, h_ ? h_ : "(null)", n_);                                            \
    else                                                                                           \
      CU_PASS(#haystack);                                                                          \
  } while (0)

#define OCK_ASSERT_OK(expr)                                                                        \
  do {                                                                                             \
    int rc_ = (expr);                                                                              \
    if (rc_ != 0)                                                                                  \
      ock_test_fail(__LINE__, __FILE__, "%s returned %d, expected 0", #expr, rc_);                 \
    else                                                                                           \
      CU_PASS(#expr);                                                                              \
  } while (0)

#endif
