/* main.c: the allocation-failure tests of the core and the mock's request path. */
#include "runner.h"

extern const struct ock_suite suite_alloc_core, suite_alloc_mock;

int main(int argc, char **argv) {
  const struct ock_suite *const suites[] = {&suite_alloc_core, &suite_alloc_mock, NULL};
  return ock_test_main(suites, argc, argv);
}
