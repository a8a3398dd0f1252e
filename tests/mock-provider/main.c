/* main.c: the mock provider's test binary; one suite per module. */
#include "runner.h"

extern const struct ock_suite mock_fixture_suite;
extern const struct ock_suite mock_script_suite;
extern const struct ock_suite mock_validate_suite;
extern const struct ock_suite mock_faults_suite;
extern const struct ock_suite mock_journal_suite;
extern const struct ock_suite mock_server_suite;
extern const struct ock_suite mock_cli_suite;
extern const struct ock_suite mock_guard_suite;
extern const struct ock_suite mock_mcp_suite;
extern const struct ock_suite mock_responses_suite;
extern const struct ock_suite mock_gemini_suite;
extern const struct ock_suite mock_stored_suite;
extern const struct ock_suite suite_http_request;

int main(int argc, char **argv) {
  static const struct ock_suite *const suites[] = {&mock_fixture_suite,  &mock_script_suite,
                                                   &mock_validate_suite, &mock_faults_suite,
                                                   &mock_journal_suite,  &mock_server_suite,
                                                   &mock_cli_suite,      &mock_guard_suite,
                                                   &mock_mcp_suite,      &mock_responses_suite,
                                                   &mock_gemini_suite,   &mock_stored_suite,
                                                   &suite_http_request,  NULL};
  return ock_test_main(suites, argc, argv);
}
