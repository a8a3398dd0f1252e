/* main.c: the mock provider's test binary; one suite per module. */
#include "runner.h"

extern const struct ock_suite mock_validate_suite;

int main(int argc, char **argv) {
  static const struct ock_suite *const suites[] = {&mock_validate_suite, NULL};
  return ock_test_main(suites, argc, argv);
}
