/*
 * mutations.c: the table of mutants, one deliberate lie each, at least one per requirement of
 * the registry (the gate checks that).
 *
 * Each row: the command-line name, the requirement the lie must make FAIL, the scenarios that
 * show it ("@OCK-X-NNN" = every scenario naming that requirement; a glob matches scenario
 * ids; NULL = "@" + the requirement itself), one line saying what the lie is, and the hook(s)
 * that tell it. A lie is as small as it can be: it breaks its rule and as little else as the
 * rule allows. The hooks live in mut_events.c, mut_traffic.c and mut_process.c.
 */
#include <stdio.h>
#include <string.h>

#include "mut_hooks.h"

static const struct mutation table[] = {
    /* COMPLETE */
    {.name = "complete-dropped-on-error", .requirement = "OCK-COMPLETE-001",
     .cases = "@OCK-VALID-001 @OCK-VALID-002 @OCK-ERROR-001",
     .what = "orchestrator:complete is not sent when the status is error",
     .event = mut_complete_dropped_on_error},
    {.name = "complete-twice", .requirement = "OCK-COMPLETE-001",
     .what = "orchestrator:complete is sent twice", .event = mut_complete_twice},
    {.name = "event-after-complete", .requirement = "OCK-COMPLETE-002",
     .what = "an event follows orchestrator:complete", .event = mut_event_after_complete},
    {.name = "orchestrator-name-empty", .requirement = "OCK-COMPLETE-003",
     .what = "orchestrator:complete carries orchestrator \"\"",
     .event = mut_complete_orchestrator_empty},
    {.name = "status-done", .requirement = "OCK-COMPLETE-004",
     .what = "orchestrator:complete carries status \"done\"", .event = mut_complete_status_done},
    {.name = "turn-count-plus-one", .requirement = "OCK-COMPLETE-005",
     .what = "turn_count is one more than the turns made", .event = mut_turn_count_plus_one},
    {.name = "incomplete-as-success", .requirement = "OCK-COMPLETE-006",
     .cases = "@OCK-HOOK-001 @OCK-HOOK-002 @OCK-ITER-003 @OCK-COMPLETE-006",
     .what = "status incomplete is reported as success",
     .event = mut_incomplete_as_success},
    {.name = "error-object-dropped", .requirement = "OCK-COMPLETE-007",
     .cases = "@OCK-COMPLETE-007 @OCK-VALID-001 @OCK-ERROR-001",
     .what = "orchestrator:complete with status error has no error object",
     .event = mut_error_object_dropped},

    /* ORDER */
    {.name = "event-before-submit", .requirement = "OCK-ORDER-001",
     .what = "execution:start is sent before the first prompt:submit",
     .event = mut_event_before_submit},
    {.name = "provider-response-dropped", .requirement = "OCK-ORDER-002",
     .what = "provider:response is never sent: requests stay open",
     .event = mut_provider_response_dropped},
    {.name = "tool-post-twice", .requirement = "OCK-ORDER-003",
     .what = "tool:post is sent twice for a call", .event = mut_tool_post_twice},
    {.name = "prompt-complete-dropped", .requirement = "OCK-ORDER-004",
     .what = "prompt:complete is never sent", .event = mut_prompt_complete_dropped},
    {.name = "provider-request-late", .requirement = "OCK-ORDER-005",
     .what = "provider:request reaches the mock only after the LLM request it announces",
     .event = mut_provider_request_held, .llm_reply = mut_release_held},
    {.name = "tool-pre-late", .requirement = "OCK-ORDER-006",
     .what = "tool:pre reaches the mock only after the tool ran",
     .event = mut_tool_pre_held, .tool_reply = mut_release_held},
    {.name = "retry-without-error", .requirement = "OCK-ORDER-007",
     .what = "a provider:retry follows the first provider:response, with no error before it",
     .event = mut_retry_without_error},
    {.name = "response-content-changed", .requirement = "OCK-ORDER-008",
     .what = "provider:response content differs from what the provider sent",
     .event = mut_response_content_changed},

    /* ORPHAN */
    {.name = "result-dropped", .requirement = "OCK-ORPHAN-001",
     .what = "the last tool result is left out of the next LLM request",
     .llm_request = mut_result_dropped},
    {.name = "result-wrong-id", .requirement = "OCK-ORPHAN-002",
     .what = "a tool result carries an id no call issued", .llm_request = mut_result_wrong_id},
    {.name = "message-between-call-and-results", .requirement = "OCK-ORPHAN-003",
     .what = "a user message sits between a tool call and its results",
     .llm_request = mut_message_between_call_and_results},
    {.name = "result-duplicated", .requirement = "OCK-ORPHAN-004",
     .what = "a tool result is sent twice", .llm_request = mut_result_duplicated},
    {.name = "results-reversed", .requirement = "OCK-ORPHAN-005",
     .cases = "@OCK-ORPHAN-005 @OCK-PARALLEL-003",
     .what = "the results of one response come in reverse call order",
     .llm_request = mut_results_reversed},
    {.name = "call-id-rewritten", .requirement = "OCK-ORPHAN-006",
     .what = "the stored tool call (and its result) carries another id than the model's",
     .llm_request = mut_call_id_rewritten},
    {.name = "context-left-broken", .requirement = "OCK-ORPHAN-007",
     .what = "the first request of a later execute lacks a result of an earlier one",
     .llm_request = mut_context_left_broken},

    /* TOOL */
    {.name = "not-found-mislabelled", .requirement = "OCK-TOOL-001",
     .what = "an unknown tool is reported as tool:error execution_failed",
     .event = mut_not_found_mislabelled},
    {.name = "failed-result-as-error", .requirement = "OCK-TOOL-002",
     .what = "a ToolResult with success false is reported as tool:error, not tool:post",
     .event = mut_failed_result_as_error},
    {.name = "endpoint-failure-mislabelled", .requirement = "OCK-TOOL-003",
     .what = "a failing tool endpoint is reported as tool:error not_found",
     .event = mut_endpoint_failure_mislabelled},
    {.name = "tool-input-altered", .requirement = "OCK-TOOL-004",
     .what = "the tool receives an input the model did not send",
     .tool_request = mut_tool_input_altered},
    {.name = "invalid-arguments-mislabelled", .requirement = "OCK-TOOL-005",
     .what = "arguments that are not JSON are reported as tool:error execution_failed",
     .event = mut_invalid_arguments_mislabelled},
    {.name = "result-text-replaced", .requirement = "OCK-TOOL-006",
     .what = "the tool result sent back to the model does not carry the tool's output",
     .llm_request = mut_result_text_replaced},
    {.name = "tool-name-changed", .requirement = "OCK-TOOL-007",
     .what = "tool:pre names another tool than the call's", .event = mut_tool_name_changed},

    /* HOOK */
    {.name = "deny-submit-ignored", .requirement = "OCK-HOOK-001",
     .what = "a deny on prompt:submit is taken as continue",
     .event_reply = mut_deny_submit_ignored},
    {.name = "deny-request-ignored", .requirement = "OCK-HOOK-002",
     .what = "a deny on provider:request is taken as continue",
     .event_reply = mut_deny_request_ignored},
    {.name = "deny-tool-pre-ignored", .requirement = "OCK-HOOK-003",
     .what = "a deny on tool:pre is taken as continue",
     .event_reply = mut_deny_tool_pre_ignored},
    {.name = "kept-injection-ignored", .requirement = "OCK-HOOK-004",
     .what = "a non-ephemeral inject_context is taken as continue",
     .event_reply = mut_kept_injection_ignored},
    {.name = "ephemeral-injection-ignored", .requirement = "OCK-HOOK-005",
     .what = "an ephemeral inject_context is taken as continue",
     .event_reply = mut_ephemeral_injection_ignored},
    {.name = "modify-tool-pre-ignored", .requirement = "OCK-HOOK-006",
     .what = "a modify on tool:pre is taken as continue",
     .event_reply = mut_modify_tool_pre_ignored},
    {.name = "injection-between-call-and-results", .requirement = "OCK-HOOK-007",
     .what = "a stored injection is placed between a tool call and its results",
     .llm_request = mut_injection_between_call_and_results},
    {.name = "ask-user-ignored", .requirement = "OCK-HOOK-008",
     .what = "an ask_user reply is taken as continue", .event_reply = mut_ask_user_ignored},
    {.name = "tool-selected-dropped", .requirement = "OCK-HOOK-010",
     .what = "tool:selected is never sent", .event = mut_tool_selected_dropped},
    {.name = "deny-selecting-ignored", .requirement = "OCK-HOOK-011",
     .what = "a deny on tool:selecting is taken as continue",
     .event_reply = mut_deny_selecting_ignored},
    {.name = "modify-selecting-ignored", .requirement = "OCK-HOOK-012",
     .what = "a modify on tool:selecting is taken as continue",
     .event_reply = mut_modify_selecting_ignored},

    /* ITER */
    {.name = "max-iterations-raised", .requirement = "OCK-ITER-001",
     .what = "the SUT runs with max_iterations one higher than the session's",
     .session = mut_max_iterations_raised},
    {.name = "reminder-as-system", .requirement = "OCK-ITER-002",
     .what = "the wrap-up reminder is sent as a system message",
     .llm_request = mut_reminder_as_system},
    {.name = "limit-status-success", .requirement = "OCK-ITER-003",
     .what = "an execute ended by the iteration limit reports status success",
     .event = mut_limit_status_success},
    {.name = "reminder-stored", .requirement = "OCK-ITER-004",
     .what = "the wrap-up reminder stays in the context after the wrap-up request",
     .llm_request = mut_reminder_stored},

    /* STREAM */
    {.name = "stream-false", .requirement = "OCK-STREAM-001",
     .what = "requests say \"stream\": false although the session asks for streaming",
     .llm_request = mut_stream_false},
    {.name = "stream-delta-altered", .requirement = "OCK-STREAM-002",
     .what = "provider:stream deltas do not add up to the response",
     .event = mut_stream_delta_altered},
    {.name = "streamed-arguments-truncated", .requirement = "OCK-STREAM-003",
     .what = "a streamed call's arguments lose their last member on reassembly",
     .tool_request = mut_streamed_arguments_truncated},
    {.name = "stream-error-as-response", .requirement = "OCK-STREAM-004",
     .what = "a broken stream is reported as an empty provider:response",
     .event = mut_stream_error_as_response},
    {.name = "stream-events-dropped", .requirement = "OCK-STREAM-005",
     .what = "provider:stream is never sent", .event = mut_stream_events_dropped},

    /* PARALLEL */
    {.name = "group-id-per-call", .requirement = "OCK-PARALLEL-001",
     .what = "each call of a response gets its own parallel_group_id",
     .event = mut_group_id_per_call},
    {.name = "tools-serialized", .requirement = "OCK-PARALLEL-002",
     .what = "the SUT runs with parallel_tools false", .session = mut_tools_serialized},
    {.name = "parallel-results-reversed", .requirement = "OCK-PARALLEL-003",
     .what = "the results of one response come in reverse call order",
     .llm_request = mut_results_reversed},

    /* LIFECYCLE, TRACE */
    {.name = "execution-end-dropped", .requirement = "OCK-LIFECYCLE-001",
     .what = "execution:end is never sent", .event = mut_execution_end_dropped},
    {.name = "request-stage-route", .requirement = "OCK-LIFECYCLE-002",
     .what = "the first provider:request of an execute carries stage route",
     .event = mut_first_request_stage_route},
    {.name = "resolve-repeated", .requirement = "OCK-LIFECYCLE-003",
     .what = "provider:resolve is sent again after the first provider:response",
     .event = mut_resolve_repeated},
    {.name = "terminal-stage-wrong", .requirement = "OCK-LIFECYCLE-004",
     .what = "orchestrator:complete carries the terminal stage of another status",
     .event = mut_terminal_stage_wrong},
    {.name = "resolve-reason-empty", .requirement = "OCK-LIFECYCLE-005",
     .what = "provider:resolve carries reason \"\"", .event = mut_resolve_reason_empty},
    {.name = "routing-varies", .requirement = "OCK-LIFECYCLE-006",
     .what = "provider:resolve gives another reason in each execute",
     .event = mut_routing_varies},
    {.name = "fallback-wrong", .requirement = "OCK-LIFECYCLE-007",
     .what = "provider:resolve names the wrong fallback", .event = mut_fallback_wrong},
    {.name = "trace-id-dropped", .requirement = "OCK-TRACE-001",
     .what = "events carry no trace_id", .event = mut_trace_id_dropped},
    {.name = "trace-header-dropped", .requirement = "OCK-TRACE-002",
     .what = "LLM and tool requests carry no X-OCK-Trace-Id",
     .llm_request = mut_trace_header_dropped, .tool_request = mut_trace_header_dropped},

    /* ERROR */
    {.name = "provider-error-fields-dropped", .requirement = "OCK-ERROR-001",
     .what = "provider:error lacks retryable and status_code",
     .event = mut_provider_error_fields_dropped},
    {.name = "retry-unannounced", .requirement = "OCK-ERROR-002",
     .what = "provider:retry is never sent", .event = mut_retry_unannounced},
    {.name = "non-retryable-retried", .requirement = "OCK-ERROR-003",
     .what = "a permanent provider error (400, 401, 403, 404, 413, 422) is taken as 503",
     .llm_reply = mut_non_retryable_as_retryable},
    {.name = "backoff-zero", .requirement = "OCK-ERROR-004",
     .what = "the SUT runs with retry_base_delay_ms 0", .session = mut_backoff_zero},
    {.name = "retry-after-ignored", .requirement = "OCK-ERROR-005",
     .what = "retry-after and retry-after-ms headers never reach the SUT",
     .llm_reply = mut_retry_after_ignored},
    {.name = "fallback-as-retry", .requirement = "OCK-ERROR-006",
     .what = "the SUT runs error_strategy retry where the session says fallback",
     .session = mut_fallback_as_retry},
    {.name = "fail-fast-continues", .requirement = "OCK-ERROR-007",
     .what = "the SUT runs error_strategy continue where the session says fail_fast",
     .session = mut_fail_fast_continues},
    {.name = "retry-budget-raised", .requirement = "OCK-ERROR-008",
     .what = "the SUT runs with max_retries one higher than the session's",
     .session = mut_retry_budget_raised},

    /* CANCEL */
    {.name = "cancelled-as-error", .requirement = "OCK-CANCEL-001",
     .what = "a cancelled execute reports status error",
     .event = mut_cancelled_as_error},
    {.name = "cancel-requested-dropped", .requirement = "OCK-CANCEL-002",
     .what = "cancel:requested is never sent", .event = mut_cancel_requested_dropped},
    {.name = "finished-results-lost", .requirement = "OCK-CANCEL-003",
     .what = "after a cancel, finished tool results are sent as \"Error: cancelled\"",
     .llm_request = mut_finished_results_lost},
    {.name = "work-after-cancel", .requirement = "OCK-CANCEL-004",
     .what = "the last tool or LLM request is sent once more after cancel:requested",
     .event = mut_work_after_cancel},
    {.name = "closing-message-dropped", .requirement = "OCK-CANCEL-005",
     .what = "the closing assistant message of a cancelled execute is left out",
     .llm_request = mut_closing_message_dropped},

    /* VALID */
    {.name = "invalid-input-mislabelled", .requirement = "OCK-VALID-001",
     .what = "an empty prompt ends with error.type bad_input",
     .event = mut_invalid_input_mislabelled},
    {.name = "no-provider-mislabelled", .requirement = "OCK-VALID-002",
     .what = "a session without providers ends with error.type invalid_input",
     .event = mut_no_provider_mislabelled},
    {.name = "stop-after-invalid", .requirement = "OCK-VALID-003",
     .what = "the SUT stops (exit 0) after an execute that ended on invalid input",
     .event = mut_stop_after_invalid},

    /* PROC */
    {.name = "prompt-altered", .requirement = "OCK-PROC-001",
     .what = "prompt:submit carries another prompt than the session's",
     .event = mut_prompt_altered},
    {.name = "exit-one", .requirement = "OCK-PROC-002",
     .what = "the SUT exits 1 after the last prompt", .exit = mut_exit_one},
    {.name = "sigsegv-at-exit", .requirement = "OCK-PROC-003",
     .what = "the SUT dies of SIGSEGV after the last prompt", .exit = mut_exit_sigsegv},
    {.name = "dies-on-sigint", .requirement = "OCK-PROC-004",
     .cases = "@OCK-PROC-004 @OCK-CANCEL-001",
     .what = "SIGINT ends the SUT instead of cancelling the execute", .dies_on_sigint = 1},
    {.name = "malformed-event", .requirement = "OCK-PROC-005",
     .what = "an event without its data object is posted after the first prompt:submit",
     .event = mut_malformed_event},
};

#define N_MUTATIONS (sizeof table / sizeof table[0])

size_t mutant_count(void) {
  return N_MUTATIONS;
}

const struct mutation *mutant_at(size_t i) {
  return i < N_MUTATIONS ? &table[i] : NULL;
}

/* "none" tells no lie: the gate runs it to show that the proxy itself changes nothing. */
static const struct mutation transparent = {
    .name = "none", .requirement = "", .cases = "*",
    .what = "no lie: everything is forwarded unchanged (the proxy's own fidelity check)"};

const struct mutation *mutant_find(const char *name) {
  if (name && !strcmp(name, transparent.name))
    return &transparent;
  for (size_t i = 0; name && i < N_MUTATIONS; i++)
    if (!strcmp(table[i].name, name))
      return &table[i];
  return NULL;
}

const char *mutant_cases(const struct mutation *m, char *buf, size_t n) {
  if (m->cases)
    return m->cases;
  snprintf(buf, n, "@%s", m->requirement);
  return buf;
}
