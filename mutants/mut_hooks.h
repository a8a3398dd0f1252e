/*
 * mut_hooks.h: the hook functions of the mutation table (private to mutants/).
 *
 * mutations.c names them in its table; mut_events.c (events and hook replies), mut_traffic.c
 * (LLM and tool requests and replies) and mut_process.c (the session document, the exit)
 * define them. Each does one small rewrite; see the table for what each one is for.
 */
#ifndef OCK_MUTANTS_MUT_HOOKS_H
#define OCK_MUTANTS_MUT_HOOKS_H

#include "mutant.h"

#define MUT_REMINDER                                                                               \
  "<system-reminder source=\"orchestrator-loop-limit\">\nYou have reached the maximum number "     \
  "of iterations for this turn. Please provide a response to the user now, summarizing your "      \
  "progress and noting what remains to be done.\n</system-reminder>"
#define MUT_REMINDER_MARK "orchestrator-loop-limit"
#define MUT_CANCELLED_TEXT "The previous operation was cancelled."

/* Helpers the hook files share (mut_events.c). */
const char *ock__mut_event_name(const struct mutant_exchange *x);
cJSON *ock__mut_event_data(const struct mutant_exchange *x);
const char *ock__mut_str(const cJSON *o, const char *key);
void ock__mut_set_str(cJSON *o, const char *key, const char *value);
void ock__mut_answer_continue(struct mutant_exchange *x);
void ock__mut_post_after(struct mutant_exchange *x, cJSON *event);  /* takes event */
void ock__mut_post_before(struct mutant_exchange *x, cJSON *event); /* takes event */
void ock__mut_flush_held(struct mutant_state *s, struct mutant_exchange *x, int after);

/* Events, before they are forwarded. */
void ock__mut_complete_dropped_on_error(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_complete_never(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_complete_twice(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_event_after_complete(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_complete_orchestrator_empty(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_response_rewritten(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_other_deny_response(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_end_response_rewritten(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_orchestrator_name_varies(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_retryable_as_will_retry(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_stream_iteration_one(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_wrap_up_iteration_repeated(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_attempt_reset_at_fallback(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_event_model_kept(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_complete_status_done(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_turn_count_plus_one(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_incomplete_as_success(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_success_as_incomplete(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_tool_error_sticks(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_cancelled_as_post(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_provider_error_as_string(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_cancel_turn_count_as_string(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_limit_reason_renamed(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_error_object_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_event_before_submit(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_provider_response_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_tool_post_twice(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_prompt_complete_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_provider_request_held(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_tool_pre_held(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_retry_without_error(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_retry_announced_not_made(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_fail_fast_type_generic(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_response_content_changed(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_abandoned_as_failure(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_not_found_mislabelled(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_failed_result_as_error(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_endpoint_failure_mislabelled(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_invalid_arguments_mislabelled(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_denied_type_renamed(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_tool_name_changed(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_tool_id_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_tool_selected_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_limit_status_success(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_stream_delta_altered(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_stream_error_as_response(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_stream_events_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_group_id_per_call(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_execution_end_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_first_request_stage_route(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_resolve_repeated(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_terminal_stage_wrong(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_resolve_reason_empty(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_routing_varies(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_fallback_wrong(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_trace_id_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_provider_error_fields_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_retry_unannounced(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_cancelled_as_error(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_ignored_sigint_cancels(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_cancel_requested_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_ignored_sigint_announced(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_cancel_completed_twice(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_cancelled_step_failed(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_aggregate_too_early(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_cancel_requested_twice(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_work_after_cancel(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_request_after_cancel(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_failure_reported(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_unstarted_calls_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_retry_after_as_floor(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_note_failed_output(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_failed_output_fed_back(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_denied_prompt_kept(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_result_without_call(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_timeout_as_failure(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_note_stream(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_partial_stream_stored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_note_attempts(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_retry_prompt_repeated(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_partial_reply_stored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_sigint_at_next_turn(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_invalid_input_mislabelled(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_no_provider_mislabelled(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_stop_after_first_execute(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_prompt_altered(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_malformed_event(struct mutant_state *s, struct mutant_exchange *x);

/* Hook replies, before the SUT sees them. */
void ock__mut_deny_submit_ignored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_deny_request_ignored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_deny_tool_pre_ignored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_token_limit_call_run(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_kept_injection_ignored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_ephemeral_injection_ignored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_modify_tool_pre_ignored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_ask_user_ignored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_ask_user_tool_runs(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_deny_selecting_ignored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_modify_selecting_ignored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_stop_after_invalid(struct mutant_state *s, struct mutant_exchange *x);

/* LLM requests and replies, tool requests and replies (mut_traffic.c). */
void ock__mut_result_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_wrap_up_call_stored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_failure_hidden(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_result_wrong_id(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_message_between_call_and_results(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_result_duplicated(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_results_reversed(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_call_id_rewritten(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_call_arguments_altered(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_call_name_rewritten(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_fallback_forgotten(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_fallback_keeps_model(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_final_answer_altered(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_empty_reply_stored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_context_left_broken(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_result_text_replaced(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_failure_text_changed(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_other_texts(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_injection_between_call_and_results(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_reminder_as_system(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_reminder_stored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_reminder_stored_other_words(struct mutant_state *s, struct mutant_exchange *x);
/* One text of SPEC.md 2.15 in other words (other_texts' wording), the rest kept. */
void ock__mut_unknown_tool_other_words(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_denied_other_words(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_invalid_arguments_other_words(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_cancelled_other_words(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_skipped_other_words(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_failure_other_words(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_closing_other_words(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_reminder_other_words(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_stream_false(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_trace_header_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_finished_results_lost(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_closing_message_dropped(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_release_held(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_non_retryable_as_retryable(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_retry_after_ignored(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_tool_input_altered(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_streamed_arguments_truncated(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_wrap_up_sent(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_wrap_up_call_announced(struct mutant_state *s, struct mutant_exchange *x); /* event */
void ock__mut_blank_prompt_kept(struct mutant_state *s,
                                struct mutant_exchange *x); /* an event hook */
void ock__mut_blank_prompt_stored(struct mutant_state *s, struct mutant_exchange *x);

/* The session document and the exit (mut_process.c). */
void ock__mut_max_iterations_raised(struct mutant_state *s, cJSON *doc);
void ock__mut_max_iterations_lowered(struct mutant_state *s, cJSON *doc);
void ock__mut_streaming_ignored(struct mutant_state *s, cJSON *doc);
void ock__mut_unicode_space_as_text(struct mutant_state *s, cJSON *doc);
void ock__mut_tools_serialized(struct mutant_state *s, cJSON *doc);
void ock__mut_backoff_zero(struct mutant_state *s, cJSON *doc);
void ock__mut_fallback_as_retry(struct mutant_state *s, cJSON *doc);
void ock__mut_fail_fast_continues(struct mutant_state *s, cJSON *doc);
void ock__mut_retry_budget_raised(struct mutant_state *s, cJSON *doc);
void ock__mut_event_before_session(struct mutant_state *s, struct mutant_exchange *x);
void ock__mut_custom_event_before_session(struct mutant_state *s, struct mutant_exchange *x);
int ock__mut_exit_one(const struct mutant_state *s, int ended);
int ock__mut_exit_sigsegv(const struct mutant_state *s, int ended);

#endif
