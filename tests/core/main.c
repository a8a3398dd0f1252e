/* main.c: the core's unit tests. */
#include "runner.h"

extern const struct ock_suite suite_buf, suite_json, suite_message, suite_registry, suite_events,
    suite_utf8, suite_grammar, suite_grammar_model, suite_sse, suite_wire_openai,
    suite_wire_anthropic, suite_wire_responses, suite_wire_stream, suite_wire_round_trip,
    suite_wire_edit, suite_options, suite_wire_request, suite_process, suite_wire_gemini,
    suite_config;

int main(int argc, char **argv) {
  const struct ock_suite *const suites[] = {
      &suite_buf,         &suite_json,           &suite_message,
      &suite_registry,    &suite_events,         &suite_utf8,
      &suite_grammar,     &suite_grammar_model,  &suite_sse,
      &suite_wire_openai, &suite_wire_anthropic, &suite_wire_responses,
      &suite_wire_gemini, &suite_wire_stream,    &suite_wire_round_trip,
      &suite_wire_edit,   &suite_options,        &suite_wire_request,
      &suite_process,     &suite_config,         NULL};
  return ock_test_main(suites, argc, argv);
}
