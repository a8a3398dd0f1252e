/*
 * runner.h: the shared CUnit runner for every part's tests.
 *
 * Each tests/<part>/test_<module>.c defines one `const struct ock_suite` from a table of
 * tests; tests/<part>/main.c lists the suites and calls ock_test_main, which runs each suite in
 * a child process with a timeout. The assertion macros below print both values on failure,
 * which CUnit's own CU_ASSERT_EQUAL does not; a test or suite that cannot run says why with
 * OCK_SKIP or ock_test_skip, and is counted as skipped, never as passed.
 */
#ifndef OCK_TEST_RUNNER_H
#define OCK_TEST_RUNNER_H

#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <cJSON.h>

struct ock_test {
  const char *name;
  void (*fn)(void);
};

struct ock_suite {
  const char *name;
  const struct ock_test *tests; /* ends with {NULL, NULL} */
  int (*init)(void);            /* may be NULL */
  int (*cleanup)(void);         /* may be NULL */
  unsigned timeout_s;           /* its time limit, when longer than the default; 0: default */
};

/* ock_test_main runs the NULL-terminated suites (all, or the one named by argv[1] as "suite" or
 * "suite:test"), each in a child process in its own process group, killed with its group after
 * OCK_SUITE_TIMEOUT seconds (default: the suite's timeout_s, else 300, times OCK_TIME_SCALE). A
 * suite that crashes, times out or exits non-zero is FAILED with the test it was running. The
 * output ends with the counts and every skip and failure, one per line. Returns 0 when nothing
 * failed. */
int ock_test_main(const struct ock_suite *const *suites, int argc, char **argv);

/* ock_test_path joins the source root (OCK_ROOT, else ".") and rel into a static buffer. */
const char *ock_test_path(const char *rel);

/* ock_test_registry_config_defaults: {option: default} for every option of the registry's
 * session config, read from core/requirements.json under OCK_ROOT (not the copy built into
 * the binaries), so a test compares a part's defaults with the one source. NULL (and a test
 * failure) when it cannot be read; the caller frees with cJSON_Delete. */
cJSON *ock_test_registry_config_defaults(void);

/* OCK_ASSERT_REGISTRY_DEFAULTS(config, who): config (a JSON object) holds every option of the
 * registry's session config with the registry's default, and nothing else; each difference
 * fails the test naming the option, both values and who (the part whose defaults these are). */
#define OCK_ASSERT_REGISTRY_DEFAULTS(config, who)                                                  \
  ock_test_registry_defaults_(__LINE__, __FILE__, (config), (who))
void ock_test_registry_defaults_(int line, const char *file, const cJSON *config, const char *who);

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

/* ock_test_fail records a failed assertion of the running test (in a suite's init or cleanup:
 * fails the suite). */
void ock_test_fail(int line, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ock_test_fatal is ock_test_fail that also ends the running test at once (CUnit jumps out
 * of it, from any function the test called). */
void ock_test_fatal(int line, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ock_test_skip marks the running test as skipped, with the reason (the test then returns
 * without asserting: OCK_SKIP does both); called in a suite's init, which then returns 0, it
 * skips the whole suite. */
void ock_test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define OCK_SKIP(...)                                                                              \
  do {                                                                                             \
    ock_test_skip(__VA_ARGS__);                                                                    \
    return;                                                                                        \
  } while (0)

#define OCK_ASSERT_INT_EQ(actual, expected)                                                        \
  do {                                                                                             \
    long long a_ = (long long)(actual), e_ = (long long)(expected);                                \
    if (a_ != e_)                                                                                  \
      ock_test_fail(__LINE__, __FILE__, "%s is %lld, expected %lld (%s)", #actual, a_, e_,         \
                    #expected);                                                                    \
    else                                                                                           \
      CU_PASS(#actual);                                                                            \
  } while (0)

/* The other relations of two integers: OCK_ASSERT_INT_LT(a, b) passes when a < b. */
#define OCK_ASSERT_INT_REL_(actual, op, expected)                                                  \
  do {                                                                                             \
    long long a_ = (long long)(actual), e_ = (long long)(expected);                                \
    if (!(a_ op e_))                                                                               \
      ock_test_fail(__LINE__, __FILE__, "%s is %lld, expected %s %lld (%s)", #actual, a_, #op, e_, \
                    #expected);                                                                    \
    else                                                                                           \
      CU_PASS(#actual);                                                                            \
  } while (0)
#define OCK_ASSERT_INT_NE(actual, expected) OCK_ASSERT_INT_REL_(actual, !=, expected)
#define OCK_ASSERT_INT_LT(actual, expected) OCK_ASSERT_INT_REL_(actual, <, expected)
#define OCK_ASSERT_INT_LE(actual, expected) OCK_ASSERT_INT_REL_(actual, <=, expected)
#define OCK_ASSERT_INT_GT(actual, expected) OCK_ASSERT_INT_REL_(actual, >, expected)
#define OCK_ASSERT_INT_GE(actual, expected) OCK_ASSERT_INT_REL_(actual, >=, expected)

/* |actual - expected| <= tolerance. */
#define OCK_ASSERT_DOUBLE_EQ(actual, expected, tolerance)                                          \
  do {                                                                                             \
    double a_ = (double)(actual), e_ = (double)(expected), t_ = (double)(tolerance);               \
    if (!(a_ - e_ <= t_ && e_ - a_ <= t_))                                                         \
      ock_test_fail(__LINE__, __FILE__, "%s is %.17g, expected %.17g (%s) within %g", #actual, a_, \
                    e_, #expected, t_);                                                            \
    else                                                                                           \
      CU_PASS(#actual);                                                                            \
  } while (0)

/* The relations of two doubles: OCK_ASSERT_DOUBLE_GE(a, b) passes when a >= b. */
#define OCK_ASSERT_DOUBLE_REL_(actual, op, expected)                                               \
  do {                                                                                             \
    double a_ = (double)(actual), e_ = (double)(expected);                                         \
    if (!(a_ op e_))                                                                               \
      ock_test_fail(__LINE__, __FILE__, "%s is %g, expected %s %g (%s)", #actual, a_, #op, e_,     \
                    #expected);                                                                    \
    else                                                                                           \
      CU_PASS(#actual);                                                                            \
  } while (0)
#define OCK_ASSERT_DOUBLE_LT(actual, expected) OCK_ASSERT_DOUBLE_REL_(actual, <, expected)
#define OCK_ASSERT_DOUBLE_LE(actual, expected) OCK_ASSERT_DOUBLE_REL_(actual, <=, expected)
#define OCK_ASSERT_DOUBLE_GT(actual, expected) OCK_ASSERT_DOUBLE_REL_(actual, >, expected)
#define OCK_ASSERT_DOUBLE_GE(actual, expected) OCK_ASSERT_DOUBLE_REL_(actual, >=, expected)

#define OCK_ASSERT_TRUE(expr)                                                                      \
  do {                                                                                             \
    if (!(expr))                                                                                   \
      ock_test_fail(__LINE__, __FILE__, "%s is false, expected true", #expr);                      \
    else                                                                                           \
      CU_PASS(#expr);                                                                              \
  } while (0)

#define OCK_ASSERT_FALSE(expr)                                                                     \
  do {                                                                                             \
    if (expr)                                                                                      \
      ock_test_fail(__LINE__, __FILE__, "%s is true, expected false", #expr);                      \
    else                                                                                           \
      CU_PASS(#expr);                                                                              \
  } while (0)

#define OCK_ASSERT_NULL(ptr)                                                                       \
  do {                                                                                             \
    const void *p_ = (ptr);                                                                        \
    if (p_)                                                                                        \
      ock_test_fail(__LINE__, __FILE__, "%s is %p, expected NULL", #ptr, p_);                      \
    else                                                                                           \
      CU_PASS(#ptr);                                                                               \
  } while (0)

#define OCK_ASSERT_NOT_NULL(ptr)                                                                   \
  do {                                                                                             \
    if (!(ptr))                                                                                    \
      ock_test_fail(__LINE__, __FILE__, "%s is NULL", #ptr);                                       \
    else                                                                                           \
      CU_PASS(#ptr);                                                                               \
  } while (0)

/* As OCK_ASSERT_NOT_NULL, and the test ends there when ptr is NULL (ock_test_fatal), also
 * from a helper function the test called. */
#define OCK_ASSERT_NOT_NULL_FATAL(ptr)                                                             \
  do {                                                                                             \
    if (!(ptr))                                                                                    \
      ock_test_fatal(__LINE__, __FILE__, "%s is NULL", #ptr);                                      \
    else                                                                                           \
      CU_PASS(#ptr);                                                                               \
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
