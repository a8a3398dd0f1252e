/*
 * proves.c: the check ids behind each fixture's "proves" sentence (see proves.h), one row per
 * fixture in fixture order. A row lists the checks of the requirements the fixture names that
 * judge what its sentence claims and that a mutation makes FAIL in that scenario; timing checks
 * whose proof depends on the machine's load are left out.
 */
#include "proves.h"

#include <string.h>

static const struct proves_row table[] = {
    {"anthropic-cancel-during-tool", "cancel.closing-message cancel.results-kept cancel.status "
                                     "expect.last-request orphan.context-valid proc.sigint"},
    {"anthropic-deny-tool-pre",
     "expect.last-request expect.tool-calls hook.deny-tool-pre orphan.result-for-every-call "
     "orphan.results-adjacent tool.event-fields"},
    {"anthropic-error-overloaded", "complete.error-object error.provider-error"},
    {"anthropic-fail-fast-tool", "error.fail-fast expect.last-request expect.tool-calls "
                                 "orphan.context-valid tool.endpoint-failure"},
    {"anthropic-inject-during-round", "expect.last-request hook.inject-kept hook.inject-placement "
                                      "orphan.result-for-every-call orphan.results-adjacent"},
    {"anthropic-invalid-arguments",
     "expect.last-request orphan.call-kept orphan.result-for-every-call tool.invalid-arguments"},
    {"anthropic-iter-max",
     "iter.reminder-not-stored iter.status iter.wrap-up orphan.result-for-every-call"},
    {"anthropic-multi-round",
     "complete.turn-count expect.last-request expect.llm-requests expect.turn-count "
     "orphan.call-kept orphan.result-for-every-call orphan.results-adjacent tool.input"},
    {"anthropic-parallel-out-of-order",
     "expect.last-request orphan.call-order orphan.result-for-every-call orphan.results-adjacent "
     "parallel.group-id parallel.overlap parallel.result-order"},
    {"anthropic-retry-529", "complete.turn-count error.backoff error.retry expect.turn-count"},
    {"anthropic-stream-cut", "error.provider-error stream.fault-is-error"},
    {"anthropic-stream-text", "expect.events-present order.response-matches stream.deltas-add-up "
                              "stream.events stream.requested"},
    {"anthropic-stream-tool-split", "expect.tool-input order.response-matches "
                                    "stream.arguments-reassembled stream.deltas-add-up tool.input"},
    {"anthropic-system-injection", "expect.last-request hook.inject-kept"},
    {"anthropic-text", "complete.once complete.turn-count expect.turn-count "
                       "order.request-before-llm order.response-matches"},
    {"anthropic-tool-single-call",
     "complete.turn-count expect.last-request expect.tool-input expect.turn-count "
     "order.tool-pairing order.tool-pre-before-run orphan.call-kept orphan.result-for-every-call "
     "orphan.results-adjacent tool.input tool.result-content"},
    {"anthropic-unknown-tool", "expect.last-request orphan.call-order orphan.context-valid "
                               "orphan.result-for-every-call orphan.results-adjacent tool.unknown"},
    {"cancel-after-prompt-complete", "cancel.ignored expect.status"},
    {"cancel-before-first-request",
     "cancel.closing-message cancel.events cancel.status complete.turn-count expect.last-request "
     "expect.llm-requests expect.turn-count proc.sigint"},
    {"cancel-between-executes", "expect.exit-code expect.llm-requests expect.status proc.executes "
                                "proc.exit proc.prompt-order proc.sigint"},
    {"cancel-between-turns",
     "cancel.closing-message cancel.events cancel.results-kept cancel.round-stopped cancel.status "
     "expect.last-request expect.llm-requests orphan.context-valid proc.sigint"},
    {"cancel-during-denied-prompt", "cancel.ignored hook.deny-submit"},
    {"cancel-during-empty-prompt", "cancel.ignored valid.empty-prompt"},
    {"cancel-during-execution-end", "cancel.ignored expect.status"},
    {"cancel-during-final-answer",
     "cancel.closing-message cancel.events cancel.status expect.status"},
    {"cancel-during-llm",
     "cancel.closing-message cancel.events cancel.no-new-work cancel.status complete.status "
     "complete.turn-count expect.last-request expect.llm-requests expect.turn-count order.grammar "
     "order.request-closed proc.sigint"},
    {"cancel-during-parallel-tools",
     "cancel.closing-message cancel.events cancel.results-kept cancel.round-stopped cancel.status "
     "complete.turn-count expect.last-request expect.llm-requests "
     "expect.turn-count orphan.call-order orphan.context-valid parallel.group-id"},
    {"cancel-during-retry-backoff", "cancel.status error.retry"},
    {"cancel-during-sequential-round",
     "cancel.events cancel.results-kept cancel.round-stopped cancel.status cancel.tool-abandoned "
     "expect.tool-calls orphan.call-kept"},
    {"cancel-during-stream",
     "cancel.abandoned-not-stored cancel.closing-message cancel.events cancel.no-new-work "
     "cancel.status expect.last-request expect.llm-requests proc.sigint stream.requested"},
    {"cancel-during-streamed-tool",
     "cancel.closing-message cancel.results-kept orphan.call-arguments"},
    {"cancel-during-tool",
     "cancel.closing-message cancel.events cancel.results-kept cancel.round-stopped cancel.status "
     "complete.last complete.once expect.events-present expect.last-request expect.llm-requests "
     "order.grammar orphan.context-valid proc.sigint proc.signal"},
    {"cancel-second-sigint", "cancel.events cancel.once"},
    {"cancel-stream-finishes-during-hold", "cancel.status order.response-matches"},
    {"error-400-continue",
     "complete.error-object complete.turn-count error.provider-error expect.turn-count"},
    {"error-500-fail-fast",
     "complete.error-object complete.last complete.once error.provider-error expect.status "
     "order.prompt-complete order.request-closed"},
    {"error-after-tool-round", "complete.turn-count error.provider-error expect.last-request "
                               "expect.turn-count orphan.call-kept orphan.context-valid"},
    {"error-drop-connection", "error.provider-error expect.status"},
    {"error-fail-fast-invalid-arguments",
     "complete.error-object error.fail-fast expect.error-type expect.last-request "
     "expect.llm-requests orphan.context-valid tool.invalid-arguments"},
    {"error-fail-fast-late-failure", "error.fail-fast-unstarted expect.tool-calls"},
    {"error-fail-fast-parallel",
     "error.fail-fast expect.last-request expect.llm-requests orphan.call-order "
     "orphan.context-valid parallel.group-id parallel.result-order"},
    {"error-fail-fast-soft-failures",
     "expect.last-request hook.deny-tool-pre orphan.call-order tool.failure-result tool.unknown"},
    {"error-fail-fast-tool",
     "complete.error-object complete.last complete.once error.fail-fast expect.error-type "
     "expect.last-request expect.llm-requests expect.tool-calls order.grammar "
     "order.prompt-complete orphan.context-valid orphan.result-for-every-call "
     "tool.endpoint-failure"},
    {"error-malformed-reply", "error.provider-error expect.status"},
    {"error-request-timeout",
     "complete.turn-count error.provider-error expect.status expect.turn-count"},
    {"fallback-all-fail", "complete.error-object complete.turn-count error.fallback "
                          "error.provider-error expect.llm-requests expect.turn-count"},
    {"fallback-cross-wire",
     "complete.turn-count error.fallback expect.last-request expect.llm-requests expect.turn-count "
     "orphan.call-kept orphan.result-for-every-call proc.event-model proc.request-model"},
    {"fallback-later-turns", "error.fallback-sticks"},
    {"fallback-non-retryable", "complete.turn-count error.fallback error.no-retry "
                               "expect.events-absent expect.llm-requests expect.turn-count"},
    {"fallback-second-provider",
     "complete.turn-count error.fallback error.retry expect.events-present expect.llm-requests "
     "expect.turn-count order.grammar proc.event-model proc.request-model"},
    {"gemini-cancel-during-tool", "cancel.closing-message cancel.results-kept cancel.status "
                                  "expect.last-request orphan.context-valid"},
    {"gemini-deny-tool-pre",
     "expect.last-request expect.tool-calls hook.deny-tool-pre orphan.result-for-every-call "
     "orphan.results-adjacent tool.event-fields"},
    {"gemini-error-overloaded", "complete.error-object error.provider-error"},
    {"gemini-fail-fast-tool", "error.fail-fast expect.last-request expect.tool-calls "
                              "orphan.context-valid tool.endpoint-failure"},
    {"gemini-inject-during-round", "expect.last-request hook.inject-kept hook.inject-placement "
                                   "orphan.result-for-every-call orphan.results-adjacent"},
    {"gemini-invalid-arguments",
     "expect.last-request orphan.call-kept orphan.result-for-every-call tool.invalid-arguments"},
    {"gemini-iter-max",
     "iter.reminder-not-stored iter.status iter.wrap-up orphan.result-for-every-call"},
    {"gemini-multi-round",
     "complete.turn-count expect.last-request expect.llm-requests expect.turn-count "
     "orphan.call-kept orphan.result-for-every-call orphan.results-adjacent tool.input"},
    {"gemini-parallel-out-of-order",
     "expect.last-request orphan.call-order orphan.result-for-every-call orphan.results-adjacent "
     "parallel.group-id parallel.overlap parallel.result-order"},
    {"gemini-retry-503", "complete.turn-count error.backoff error.retry expect.turn-count"},
    {"gemini-stream-cut", "error.provider-error stream.fault-is-error"},
    {"gemini-stream-text", "expect.events-present order.response-matches stream.deltas-add-up "
                           "stream.events"},
    {"gemini-stream-tool-split", "expect.tool-input order.response-matches "
                                 "stream.arguments-reassembled stream.deltas-add-up tool.input"},
    {"gemini-system-injection", "expect.last-request hook.inject-kept"},
    {"gemini-text", "complete.once complete.turn-count expect.turn-count order.request-before-llm "
                    "order.response-matches"},
    {"gemini-tool-single-call",
     "complete.turn-count expect.last-request expect.tool-input expect.turn-count "
     "order.tool-pairing order.tool-pre-before-run orphan.call-kept orphan.result-for-every-call "
     "orphan.results-adjacent tool.input tool.result-content"},
    {"gemini-unknown-tool", "expect.last-request orphan.call-order orphan.context-valid "
                            "orphan.result-for-every-call orphan.results-adjacent tool.unknown"},
    {"hook-ask-user-prompt-submit", "complete.status-matches complete.turn-count expect.reason "
                                    "expect.status expect.turn-count order.prompt-complete"},
    {"hook-ask-user-provider-request",
     "complete.status-matches expect.reason expect.status order.prompt-complete"},
    {"hook-ask-user-selecting", "expect.tool-calls hook.ask-user-tool-not-run hook.selecting-deny"},
    {"hook-ask-user-tool-pre",
     "expect.events-present expect.last-request expect.tool-calls hook.ask-user "
     "hook.ask-user-tool-not-run orphan.result-for-every-call tool.event-fields"},
    {"hook-deny-prompt-submit",
     "complete.last complete.once complete.status-matches complete.turn-count expect.llm-requests "
     "expect.reason expect.status expect.turn-count hook.deny-submit hook.deny-submit-not-stored "
     "order.prompt-complete"},
    {"hook-deny-provider-request",
     "complete.once complete.turn-count expect.last-request expect.llm-requests expect.turn-count "
     "hook.deny-request order.grammar order.prompt-complete order.request-before-llm "
     "orphan.context-valid"},
    {"hook-deny-provider-request-first",
     "complete.status-matches complete.turn-count expect.llm-requests expect.reason expect.status "
     "expect.turn-count hook.deny-request order.request-before-llm"},
    {"hook-deny-tool-pre",
     "expect.events-absent expect.events-present expect.last-request expect.tool-calls "
     "hook.deny-tool-pre orphan.result-for-every-call tool.event-fields"},
    {"hook-deny-tool-pre-one-of-two",
     "expect.last-request expect.tool-calls hook.deny-tool-pre order.tool-pairing "
     "orphan.call-order orphan.result-for-every-call"},
    {"hook-inject-during-round",
     "expect.last-request hook.inject-kept hook.inject-placement orphan.call-order "
     "orphan.result-for-every-call orphan.results-adjacent"},
    {"hook-inject-ephemeral", "hook.inject-ephemeral orphan.result-for-every-call"},
    {"hook-inject-ephemeral-tool-post",
     "hook.inject-ephemeral hook.inject-placement orphan.results-adjacent"},
    {"hook-inject-kept", "expect.last-request hook.inject-kept hook.inject-placement "
                         "orphan.context-valid orphan.results-adjacent"},
    {"hook-inject-prompt-submit", "expect.last-request hook.inject-kept"},
    {"hook-modify-tool-pre", "expect.tool-input hook.modify-tool-pre order.tool-pairing "
                             "orphan.call-kept tool.event-fields"},
    {"hook-modify-tool-pre-repairs-arguments", "expect.tool-input tool.invalid-arguments"},
    {"hook-selecting-deny",
     "expect.last-request expect.tool-calls hook.selecting-deny hook.selecting-order order.grammar "
     "order.tool-pairing orphan.result-for-every-call"},
    {"hook-selecting-events", "expect.events-present hook.selecting-order order.tool-pairing "
                              "proc.events-well-formed tool.event-fields tool.input"},
    {"hook-selecting-modify",
     "expect.last-request expect.tool-calls expect.tool-input hook.selecting-modify "
     "hook.selecting-order order.tool-pairing orphan.call-kept"},
    {"hook-selecting-modify-unknown-tool", "hook.selecting-modify tool.unknown"},
    {"iter-answer-on-last-turn", "complete.turn-count expect.turn-count order.request-before-llm"},
    {"iter-limit-exact-history", "expect.last-request"},
    {"iter-limit-exact-requests", "expect.llm-requests"},
    {"iter-limit-exact-tool-runs", "expect.tool-calls"},
    {"iter-limit-exact-turns", "expect.turn-count"},
    {"iter-max-iterations",
     "complete.last complete.once complete.turn-count expect.last-request expect.llm-requests "
     "expect.tool-calls expect.turn-count iter.reminder-not-stored iter.status iter.wrap-up "
     "orphan.context-valid orphan.result-for-every-call"},
    {"iter-wrapup-ephemeral",
     "hook.inject-ephemeral hook.inject-placement iter.reminder-not-stored iter.wrap-up"},
    {"iter-wrapup-error",
     "complete.error-object complete.turn-count error.provider-error expect.turn-count"},
    {"iter-wrapup-tool-calls",
     "expect.last-request expect.llm-requests expect.tool-calls iter.limit iter.status "
     "iter.wrap-up-calls-discarded orphan.call-kept orphan.context-valid "
     "orphan.result-for-every-call"},
    {"lifecycle-cancelled", "cancel.events lifecycle.execution-events lifecycle.stage "
                            "lifecycle.terminal lifecycle.transitions trace.id"},
    {"lifecycle-denied", "hook.deny-submit hook.deny-submit-not-stored lifecycle.execution-events "
                         "lifecycle.stage lifecycle.terminal lifecycle.transitions trace.id"},
    {"lifecycle-error", "error.provider-error lifecycle.execution-events lifecycle.stage "
                        "lifecycle.terminal lifecycle.transitions trace.id"},
    {"lifecycle-fallback",
     "error.fallback expect.llm-requests lifecycle.execution-events lifecycle.resolve "
     "lifecycle.routing-deterministic lifecycle.routing-priority lifecycle.stage "
     "lifecycle.terminal lifecycle.transitions"},
    {"lifecycle-invalid-input",
     "lifecycle.execution-events lifecycle.stage lifecycle.terminal lifecycle.transitions trace.id "
     "valid.empty-prompt valid.not-stored"},
    {"lifecycle-max-iterations", "iter.status lifecycle.execution-events lifecycle.stage "
                                 "lifecycle.terminal lifecycle.transitions trace.header"},
    {"lifecycle-priority-tie",
     "lifecycle.resolve lifecycle.routing-deterministic lifecycle.routing-priority"},
    {"lifecycle-routing-determinism",
     "lifecycle.resolve lifecycle.routing-deterministic lifecycle.routing-priority trace.id"},
    {"lifecycle-tool-round",
     "complete.orchestrator expect.events-present lifecycle.execution-events lifecycle.resolve "
     "lifecycle.routing-priority lifecycle.stage lifecycle.terminal lifecycle.transitions "
     "proc.event-fields proc.events-well-formed trace.header trace.id"},
    {"parallel-mixed-outcomes", "order.tool-pairing orphan.call-order parallel.group-id "
                                "parallel.result-order tool.endpoint-failure tool.unknown"},
    {"parallel-out-of-order",
     "expect.last-request order.grammar order.tool-pairing order.tool-pre-before-run "
     "orphan.call-order orphan.result-for-every-call parallel.group-id parallel.overlap "
     "parallel.result-order tool.input"},
    {"parallel-two-rounds",
     "orphan.call-kept orphan.call-order parallel.group-id parallel.overlap parallel.result-order"},
    {"responses-cancel-during-tool", "cancel.closing-message cancel.results-kept cancel.status "
                                     "expect.last-request orphan.context-valid proc.sigint"},
    {"responses-deny-tool-pre", "expect.last-request expect.tool-calls hook.deny-tool-pre "
                                "orphan.result-for-every-call tool.event-fields"},
    {"responses-error-500", "complete.error-object error.provider-error"},
    {"responses-fail-fast-tool", "error.fail-fast expect.last-request expect.tool-calls "
                                 "orphan.context-valid tool.endpoint-failure"},
    {"responses-multi-round", "complete.turn-count expect.last-request expect.llm-requests "
                              "expect.turn-count orphan.result-for-every-call tool.input"},
    {"responses-parallel-out-of-order",
     "expect.last-request orphan.call-order orphan.result-for-every-call parallel.group-id "
     "parallel.overlap parallel.result-order"},
    {"responses-retry-429", "complete.turn-count error.backoff error.retry expect.turn-count"},
    {"responses-stream-text", "expect.events-present order.response-matches stream.deltas-add-up "
                              "stream.events stream.requested"},
    {"responses-stream-tool-split", "expect.tool-input order.response-matches "
                                    "stream.arguments-reassembled stream.deltas-add-up tool.input"},
    {"responses-text", "complete.once complete.turn-count expect.turn-count "
                       "order.request-before-llm order.response-matches"},
    {"responses-tool-single-call", "complete.turn-count expect.last-request expect.tool-input "
                                   "expect.turn-count order.tool-pairing order.tool-pre-before-run "
                                   "orphan.result-for-every-call tool.input tool.result-content"},
    {"responses-unknown-tool", "expect.last-request orphan.call-order orphan.context-valid "
                               "orphan.result-for-every-call tool.unknown"},
    {"retry-400-not-retried", "complete.error-object error.no-retry error.provider-error "
                              "expect.events-absent expect.llm-requests expect.status"},
    {"retry-401-not-retried", "complete.error-object error.no-retry error.provider-error "
                              "expect.events-absent expect.llm-requests expect.status"},
    {"retry-429-retry-after-ms",
     "complete.turn-count error.provider-error error.retry error.retry-after expect.events-present "
     "expect.timing expect.turn-count order.grammar"},
    {"retry-429-retry-after-seconds",
     "complete.turn-count error.retry error.retry-after expect.timing expect.turn-count"},
    {"retry-after-capped", "error.retry error.retry-after expect.timing"},
    {"retry-after-ms-wins", "error.retry"},
    {"retry-after-shorter-than-backoff", "error.retry error.retry-after error.retry-same-history"},
    {"retry-backoff",
     "complete.turn-count error.backoff error.retry error.retry-same-history expect.timing "
     "expect.turn-count order.grammar"},
    {"retry-backoff-cap", "complete.turn-count error.backoff error.retry expect.turn-count"},
    {"retry-budget-per-turn", "complete.turn-count error.retry expect.turn-count orphan.call-kept"},
    {"retry-connection-drop", "complete.turn-count error.backoff error.retry expect.turn-count"},
    {"retry-exhausted",
     "complete.error-object complete.orchestrator complete.turn-count error.provider-error "
     "error.retry error.retry-count expect.llm-requests expect.turn-count"},
    {"retry-malformed-reply-not-retried", "error.provider-error expect.status"},
    {"retry-request-denied", "error.retry hook.deny-request"},
    {"retry-stream-cut", "complete.turn-count error.retry error.retry-same-history "
                         "expect.turn-count orphan.result-for-every-call stream.fault-is-error"},
    {"retry-stream-error-event", "complete.turn-count error.retry expect.turn-count "
                                 "orphan.result-for-every-call stream.fault-is-error"},
    {"retry-stream-malformed-chunk",
     "complete.turn-count expect.turn-count orphan.result-for-every-call stream.fault-is-error"},
    {"stream-cut", "complete.once error.provider-error expect.status order.prompt-complete "
                   "stream.fault-is-error"},
    {"stream-drop-connection",
     "error.provider-error expect.status order.prompt-complete stream.fault-is-error"},
    {"stream-error-mid-stream",
     "error.provider-error expect.status order.prompt-complete stream.fault-is-error"},
    {"stream-fault-anthropic-cut-in-arguments-continue",
     "error.provider-error expect.events-absent expect.llm-requests expect.status "
     "order.prompt-complete stream.fault-is-error"},
    {"stream-fault-anthropic-cut-in-arguments-retry",
     "complete.turn-count error.retry expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-fault-anthropic-cut-in-text-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-anthropic-cut-in-text-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-anthropic-drop-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-anthropic-drop-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-anthropic-error-event-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-anthropic-error-event-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-anthropic-malformed-after-call-continue",
     "error.provider-error expect.events-absent expect.llm-requests expect.status "
     "order.prompt-complete stream.fault-is-error"},
    {"stream-fault-anthropic-malformed-after-call-retry",
     "complete.turn-count error.retry expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-fault-anthropic-no-terminator-continue",
     "error.provider-error expect.events-absent expect.llm-requests expect.status "
     "expect.tool-calls order.prompt-complete stream.fault-is-error"},
    {"stream-fault-anthropic-no-terminator-retry",
     "complete.turn-count error.retry expect.tool-calls expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-fault-gemini-cut-before-call-continue", "error.provider-error expect.status "
                                                     "order.prompt-complete stream.fault-is-error"},
    {"stream-fault-gemini-cut-before-call-retry",
     "complete.turn-count error.retry expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-fault-gemini-cut-in-text-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-gemini-cut-in-text-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-gemini-drop-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-gemini-drop-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-gemini-error-event-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-gemini-error-event-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-gemini-malformed-after-call-continue",
     "error.provider-error expect.events-absent expect.llm-requests expect.status "
     "order.prompt-complete stream.fault-is-error"},
    {"stream-fault-gemini-malformed-after-call-retry",
     "complete.turn-count error.retry expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-fault-gemini-no-finish-reason-continue",
     "error.provider-error expect.events-absent expect.llm-requests expect.status "
     "expect.tool-calls order.prompt-complete stream.fault-is-error"},
    {"stream-fault-gemini-no-finish-reason-retry",
     "complete.turn-count error.retry expect.tool-calls expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-fault-openai-cut-in-arguments-continue",
     "error.provider-error expect.events-absent expect.llm-requests expect.status "
     "order.prompt-complete stream.fault-is-error"},
    {"stream-fault-openai-cut-in-arguments-retry",
     "complete.turn-count error.retry expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-fault-openai-cut-in-text-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-openai-cut-in-text-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-openai-drop-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-openai-drop-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-openai-error-event-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-openai-error-event-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-openai-malformed-after-call-continue",
     "error.provider-error expect.events-absent expect.llm-requests expect.status "
     "order.prompt-complete stream.fault-is-error"},
    {"stream-fault-openai-malformed-after-call-retry",
     "complete.turn-count error.retry expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-fault-openai-no-terminator-continue",
     "error.provider-error expect.events-absent expect.llm-requests expect.status "
     "expect.tool-calls order.prompt-complete stream.fault-is-error"},
    {"stream-fault-openai-no-terminator-retry",
     "complete.turn-count error.retry expect.tool-calls expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-fault-responses-cut-in-arguments-continue",
     "error.provider-error expect.events-absent expect.llm-requests expect.status "
     "order.prompt-complete stream.fault-is-error"},
    {"stream-fault-responses-cut-in-arguments-retry",
     "complete.turn-count error.retry expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-fault-responses-cut-in-text-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-responses-cut-in-text-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-responses-drop-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-responses-drop-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-responses-error-event-continue",
     "complete.status-matches error.provider-error expect.status order.prompt-complete "
     "stream.fault-is-error"},
    {"stream-fault-responses-error-event-retry",
     "complete.turn-count error.retry expect.llm-requests expect.turn-count order.response-matches "
     "stream.fault-is-error"},
    {"stream-fault-responses-malformed-after-call-continue",
     "error.provider-error expect.events-absent expect.llm-requests expect.status "
     "order.prompt-complete stream.fault-is-error"},
    {"stream-fault-responses-malformed-after-call-retry",
     "complete.turn-count error.retry expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-fault-responses-no-terminator-continue",
     "error.provider-error expect.events-absent expect.llm-requests expect.status "
     "expect.tool-calls order.prompt-complete stream.fault-is-error"},
    {"stream-fault-responses-no-terminator-retry",
     "complete.turn-count error.retry expect.tool-calls expect.turn-count order.response-matches "
     "orphan.result-for-every-call stream.fault-is-error"},
    {"stream-malformed-chunk",
     "error.provider-error expect.status order.prompt-complete stream.fault-is-error"},
    {"stream-text", "expect.events-present order.request-closed order.response-matches "
                    "stream.deltas-add-up stream.events stream.requested"},
    {"stream-text-and-tools", "order.response-matches orphan.call-order "
                              "stream.arguments-reassembled stream.deltas-add-up stream.events"},
    {"stream-tool-call-split",
     "expect.tool-input order.response-matches stream.arguments-reassembled stream.deltas-add-up "
     "stream.requested tool.input"},
    {"stream-tool-token-limit", "tool.token-limit"},
    {"stream-unicode", "order.response-matches stream.deltas-add-up stream.events"},
    {"text-answer",
     "complete.last complete.once complete.orchestrator complete.status expect.events-present "
     "expect.exit-code expect.status order.grammar order.prompt-complete order.request-before-llm "
     "order.request-closed order.response-matches order.submit-first proc.event-fields "
     "proc.events-well-formed proc.exit proc.prompt-order proc.session proc.signal"},
    {"text-empty-reply",
     "complete.turn-count expect.turn-count order.prompt-complete order.response-matches"},
    {"text-large-output", "complete.once order.prompt-complete order.response-matches"},
    {"text-two-prompts",
     "complete.once complete.turn-count expect.turn-count order.submit-first proc.prompt-order"},
    {"text-unicode", "complete.turn-count expect.turn-count order.response-matches "
                     "order.submit-first proc.prompt-order"},
    {"tool-arguments-not-object",
     "expect.last-request orphan.result-for-every-call tool.invalid-arguments"},
    {"tool-empty-arguments", "expect.tool-input order.tool-pairing tool.input"},
    {"tool-endpoint-404", "order.tool-pre-before-run tool.endpoint-failure"},
    {"tool-endpoint-500", "expect.last-request order.tool-pre-before-run "
                          "orphan.result-for-every-call tool.endpoint-failure"},
    {"tool-endpoint-502-success-body", "order.tool-pre-before-run tool.endpoint-failure"},
    {"tool-failure-no-message", "expect.events-absent order.tool-pairing tool.failure-result"},
    {"tool-failure-result",
     "expect.events-absent expect.events-present expect.last-request expect.status "
     "order.tool-pairing orphan.result-for-every-call tool.failure-result"},
    {"tool-failure-with-output", "expect.last-request tool.failure-reported"},
    {"tool-invalid-arguments", "expect.last-request orphan.call-kept orphan.result-for-every-call "
                               "tool.event-fields tool.invalid-arguments"},
    {"tool-large-output",
     "expect.last-request orphan.result-for-every-call tool.input tool.result-content"},
    {"tool-multi-round",
     "complete.turn-count expect.last-request expect.llm-requests expect.tool-calls "
     "expect.turn-count order.tool-pairing order.tool-pre-before-run orphan.call-kept "
     "orphan.no-duplicates orphan.result-for-every-call tool.input tool.result-content"},
    {"tool-output-json", "order.tool-pairing orphan.call-kept orphan.call-order tool.input"},
    {"tool-same-tool-twice",
     "expect.last-request expect.tool-input order.tool-pairing orphan.call-order "
     "orphan.no-duplicates orphan.result-for-every-call tool.input tool.result-content"},
    {"tool-single-call",
     "complete.turn-count expect.last-request expect.tool-input expect.turn-count "
     "order.tool-pairing order.tool-pre-before-run orphan.call-kept orphan.no-duplicates "
     "orphan.no-result-without-call orphan.result-for-every-call orphan.results-adjacent "
     "tool.event-fields tool.input tool.result-content"},
    {"tool-slow", "complete.turn-count expect.last-request expect.turn-count "
                  "order.tool-pre-before-run tool.input tool.result-content"},
    /* order.tool-post-after-run is proven here only when the mutant's late tool:error lands
     * after the timed-out tool's tool_end, which a loaded sanitizer build does not always
     * give; other scenarios prove that check id. */
    {"tool-timeout", "complete.turn-count expect.turn-count order.tool-pre-before-run "
                     "tool.timeout"},
    {"tool-token-limit", "expect.tool-calls tool.token-limit"},
    {"tool-two-prompts",
     "complete.turn-count expect.last-request expect.llm-requests expect.tool-calls "
     "expect.turn-count orphan.call-kept orphan.context-valid orphan.no-duplicates tool.input"},
    {"tool-unknown", "expect.last-request order.tool-pairing orphan.call-kept orphan.context-valid "
                     "orphan.result-for-every-call tool.event-fields tool.unknown"},
    {"valid-empty-prompt",
     "complete.error-object complete.last complete.once complete.status complete.turn-count "
     "expect.error-type expect.last-request expect.llm-requests expect.turn-count "
     "order.prompt-complete valid.empty-prompt valid.next-prompt valid.not-stored"},
    {"valid-no-provider", "complete.error-object expect.error-type expect.exit-code proc.exit "
                          "proc.prompt-order valid.no-provider"},
    {"valid-unicode-space-prompt", "valid.empty-prompt"},
    {"valid-whitespace-prompt",
     "complete.error-object expect.error-type expect.llm-requests proc.executes proc.prompt-order "
     "valid.empty-prompt valid.next-prompt valid.not-stored"},
};

size_t proves_count(void) {
  return sizeof table / sizeof table[0];
}

const struct proves_row *proves_at(size_t i) {
  return i < proves_count() ? &table[i] : NULL;
}

const struct proves_row *proves_find(const char *fixture) {
  for (size_t i = 0; fixture && i < proves_count(); i++)
    if (!strcmp(table[i].fixture, fixture))
      return &table[i];
  return NULL;
}
