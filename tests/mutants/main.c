/* main.c: the mutants' tests: the hooks, the gate, other-texts (a SUT with other wording
 * passes every MUST), and causes (one fault reads as one cause). The history edits are core's,
 * tested in tests/core/test_wire_edit.c. */
#include "runner.h"

extern const struct ock_suite suite_mutations, suite_gate, suite_other_texts, suite_causes;

int main(int argc, char **argv) {
  const struct ock_suite *const suites[] = {&suite_mutations, &suite_gate, &suite_other_texts,
                                            &suite_causes, NULL};
  return ock_test_main(suites, argc, argv);
}
