/*
 * failmalloc.h: allocation-failure testing, as nghttp2's tests/malloc_wrapper and failmalloc do.
 *
 * An operation is run once to count its allocations N, then once for every k in 1..N with the
 * k-th allocation failing: each run must end in the operation's documented error (or, for an
 * operation documented to degrade, in success), without a crash, and must leave no allocation
 * alive that it made. The allocator is the test binary's own: the binary links the core and
 * mock objects with -Wl,--wrap=malloc (and calloc, realloc, strdup, strndup, free), and
 * failmalloc_init routes cJSON, a shared library, through it with cJSON_InitHooks.
 *
 * To find where a run went wrong: OCK_FAILMALLOC_TRACE=k prints the backtrace of each k-th
 * allocation that is made to fail (addr2line -e build/tests/test-alloc names the offsets).
 */
#ifndef OCK_TEST_FAILMALLOC_H
#define OCK_TEST_FAILMALLOC_H

/* The results a run may end in after its failed allocation: FAILS_WITH(OCK_ENOMEM) | ... ;
 * MAY_SUCCEED for an operation documented to go on without what it could not allocate. */
#define FAILS_WITH(status) (1u << (unsigned)-(status))
#define MAY_SUCCEED 1u

struct alloc_op {
  const char *name;
  void *(*setup)(void);          /* makes the input (no failure injected); may be NULL */
  int (*run)(void *input);       /* the operation: OCK_OK or an error status */
  void (*teardown)(void *input); /* frees the input and what a successful run made */
  unsigned may_end;              /* FAILS_WITH(...) | MAY_SUCCEED */
};

/* failmalloc_init routes cJSON's allocations through the failing allocator (call once). */
void failmalloc_init(void);

/* failmalloc_check runs op as described above and reports each failing k as a failed
 * assertion of the running test. Returns N. */
long failmalloc_check(const struct alloc_op *op);

#endif
