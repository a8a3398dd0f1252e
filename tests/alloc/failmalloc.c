/*
 * failmalloc.c: the failing allocator and the loop over k (see failmalloc.h).
 *
 * Two switches: `armed` counts allocations and fails the fail_at-th one; `tracking` counts the
 * allocations alive (allocated minus freed through here), which is the leak check of a run
 * that needs no sanitizer. LeakSanitizer, in make check-asan, checks the same runs again.
 */
#include "failmalloc.h"

#include <execinfo.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#if defined(__SANITIZE_ADDRESS__)
#endif

#include "runner.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void __real_free(void *p);

static atomic_int armed;     /* count allocations, fail the fail_at-th */
static atomic_long n_allocs; /* allocations since armed */
static atomic_long fail_at;  /* 0: none fails */
static atomic_int injected;  /* the failure happened */
static atomic_int tracking;  /* count the allocations alive */
static atomic_long live;

/* refuse: whether this allocation is the one to fail. */
static int refuse(void) {
  if (!atomic_load(&armed))
    return 0;
  long k = atomic_fetch_add(&n_allocs, 1) + 1;
  if (k != atomic_load(&fail_at))
    return 0;
  atomic_store(&injected, 1);
  const char *trace = getenv("OCK_FAILMALLOC_TRACE");
  if (trace && strtol(trace, NULL, 10) == k) {
    void *frames[16];
    backtrace_symbols_fd(frames, backtrace(frames, 16), 2);
  }
  return 1;
}

static void *born(void *p) {
  if (p && atomic_load(&tracking))
    atomic_fetch_add(&live, 1);
  return p;
}

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
void __wrap_free(void *p);

void *__wrap_malloc(size_t n) {
  return refuse() ? NULL : born(__real_malloc(n));
}

void *__wrap_calloc(size_t n, size_t size) {
  return refuse() ? NULL : born(__real_calloc(n, size));
}

void *__wrap_realloc(void *p, size_t n) {
  if (!p)
    return __wrap_malloc(n);
  if (n == 0) {
    __wrap_free(p);
    return NULL;
  }
  return refuse() ? NULL : __real_realloc(p, n); /* one block still: live does not change */
}

char *__wrap_strdup(const char *s) {
  return refuse() ? NULL : born(__real_strdup(s));
}

char *__wrap_strndup(const char *s, size_t n) {
  return refuse() ? NULL : born(__real_strndup(s, n));
}

void __wrap_free(void *p) {
  if (p && atomic_load(&tracking))
    atomic_fetch_sub(&live, 1);
  __real_free(p);
}

void failmalloc_init(void) {
  cJSON_Hooks hooks = {__wrap_malloc, __wrap_free};
  cJSON_InitHooks(&hooks);
}

/* one_run: setup, run with the k-th allocation failing (k = 0: none), teardown. Returns run's
 * status; *count is the allocations run made, *failed whether the k-th failed, *leaked the
 * allocations still alive after teardown. */
static int one_run(const struct alloc_op *op, long k, long *count, int *failed, long *leaked) {
  atomic_store(&live, 0);
  atomic_store(&tracking, 1);
  void *input = op->setup ? op->setup() : NULL;
  atomic_store(&n_allocs, 0);
  atomic_store(&fail_at, k);
  atomic_store(&injected, 0);
  atomic_store(&armed, 1);
  int rc = op->run(input);
  atomic_store(&armed, 0);
  if (op->teardown)
    op->teardown(input);
  atomic_store(&tracking, 0);
  *count = atomic_load(&n_allocs);
  *failed = atomic_load(&injected);
  *leaked = atomic_load(&live);
  return rc;
}

/* judge: the failures of one run with the k-th allocation failing, as assertions. */
static int judge(const struct alloc_op *op, long k, long n, int rc, int failed, long leaked) {
  int bad = 0;
  if (failed && rc == 0 && !(op->may_end & MAY_SUCCEED)) {
    ock_test_fail(__LINE__, __FILE__, "%s: allocation %ld of %ld failed, and it returned OCK_OK",
                  op->name, k, n);
    bad = 1;
  } else if (failed && rc != 0 && (rc > 0 || rc < -31 || !(op->may_end & FAILS_WITH(rc)))) {
    ock_test_fail(__LINE__, __FILE__, "%s: allocation %ld of %ld failed, and it returned %d",
                  op->name, k, n, rc);
    bad = 1;
  } else if (!failed && rc != 0) {
    ock_test_fail(__LINE__, __FILE__, "%s: no allocation failed (k = %ld), and it returned %d",
                  op->name, k, rc);
    bad = 1;
  }
  if (leaked != 0) {
    ock_test_fail(__LINE__, __FILE__,
                  "%s: with allocation %ld of %ld failing, %ld allocation(s) were not freed",
                  op->name, k, n, leaked);
    bad = 1;
  }
  return bad;
}

long failmalloc_check(const struct alloc_op *op) {
  long n = 0, leaked = 0, count;
  int failed;
  int rc = one_run(op, 0, &n, &failed, &leaked);
  if (rc != 0 || n == 0) {
    ock_test_fail(__LINE__, __FILE__, "%s: the counting run returned %d after %ld allocations",
                  op->name, rc, n);
    return n;
  }
  int bad = 0;
  for (long k = 1; k <= n && bad < 5; k++) {
    rc = one_run(op, k, &count, &failed, &leaked);
    bad += judge(op, k, n, rc, failed, leaked);
  }
  if (!bad)
    CU_PASS(op->name);
  printf("  %s: %ld allocations, each failed once\n", op->name, n);
  return n;
}
