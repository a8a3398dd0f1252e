/* main.c: the mutants' tests: the history edits, the hooks, the gate, and other-texts (a SUT
 * with other wording passes every MUST). */
#include "runner.h"

extern const struct ock_suite suite_wire_edit, suite_mutations, suite_gate, suite_other_texts;

int main(int argc, char **argv) {
  const struct ock_suite *const suites[] = {&suite_wire_edit, &suite_mutations, &suite_gate,
                                            &suite_other_texts, NULL};
  return ock_test_main(suites, argc, argv);
}
