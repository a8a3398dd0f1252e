/* main.c: the reference orchestrator's test binary: every suite of tests/reference/. */
#include <curl/curl.h>

#include "runner.h"

extern const struct ock_suite orchestrator_suite, retry_suite, routing_suite, session_suite,
    cli_suite, integration_suite, plain_http_suite;

int main(int argc, char **argv) {
  static const struct ock_suite *const suites[] = {
      &orchestrator_suite, &retry_suite,      &routing_suite,     &session_suite,
      &cli_suite,          &plain_http_suite, &integration_suite, NULL};
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int rc = ock_test_main(suites, argc, argv);
  curl_global_cleanup();
  return rc;
}
