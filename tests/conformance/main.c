/* main.c: the harness's tests. */
#include "runner.h"

extern const struct ock_suite suite_grammar;

int main(int argc, char **argv) {
  const struct ock_suite *const suites[] = {&suite_grammar, NULL};
  return ock_test_main(suites, argc, argv);
}
