/* main.c: the harness's tests. */
#include "runner.h"

extern const struct ock_suite suite_grammar, suite_sut, suite_checks, suite_scenarios;

int main(int argc, char **argv) {
  const struct ock_suite *const suites[] = {&suite_grammar, &suite_sut, &suite_checks, &suite_scenarios, NULL};
  return ock_test_main(suites, argc, argv);
}
