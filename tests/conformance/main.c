/* main.c: the harness's tests. */
#include "runner.h"

extern const struct ock_suite suite_grammar_check, suite_sut, suite_checks, suite_scenarios;
extern const struct ock_suite suite_escape, suite_report, suite_report_golden;
extern const struct ock_suite suite_hostile, suite_cli, suite_examples, suite_blackbox;
extern const struct ock_suite suite_diff;
extern const struct ock_suite suite_checks_safety, suite_causes;
extern const struct ock_suite suite_record, suite_payload;

int main(int argc, char **argv) {
  const struct ock_suite *const suites[] = {&suite_grammar_check,
                                            &suite_sut,
                                            &suite_checks,
                                            &suite_scenarios,
                                            &suite_escape,
                                            &suite_report,
                                            &suite_report_golden,
                                            &suite_hostile,
                                            &suite_cli,
                                            &suite_examples,
                                            &suite_blackbox,
                                            &suite_diff,
                                            &suite_checks_safety,
                                            &suite_causes,
                                            &suite_record,
                                            &suite_payload,
                                            NULL};
  return ock_test_main(suites, argc, argv);
}
