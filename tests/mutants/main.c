/* main.c: the mutants' tests: the history edits, the hooks, and the gate. */
#include "runner.h"

extern const struct ock_suite suite_wire_edit, suite_mutations, suite_gate;

int main(int argc, char **argv) {
  const struct ock_suite *const suites[] = {&suite_wire_edit, &suite_mutations, &suite_gate, NULL};
  return ock_test_main(suites, argc, argv);
}
