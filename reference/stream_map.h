/*
 * stream_map.h: streamed LLM replies, event by event, into deltas and one reply (no I/O).
 *
 * Feed it the SSE events of one streamed reply (sse.h gives them): for OpenAI the
 * chat.completion.chunk objects ending with "[DONE]", whose tool calls arrive as fragments by
 * index; for Anthropic message_start, content_block_start/delta/stop (text_delta,
 * input_json_delta), message_delta and message_stop, with ping and unknown events ignored. It
 * reports every text or tool-call fragment as an ock_delta, in order, and at the end gives the
 * reply: the concatenated text (exactly the text deltas), the tool calls with their
 * reassembled arguments, the finish reason and usage. A chunk that is not JSON, an error
 * event, or a stream that stops before its end marker is an error (kind OCK_LLM_STREAM), never
 * a partial reply.
 */
#ifndef OCK_REF_STREAM_MAP_H
#define OCK_REF_STREAM_MAP_H

#include "ock/orchestrator.h"

typedef struct ock__stream_map ock__stream_map;

/* ock__stream_map_new: a mapper for one reply on that wire, holding at most max bytes of text
 * and arguments in all. */
int ock__stream_map_new(enum ock_wire wire, size_t max, ock__stream_map **out);
void ock__stream_map_free(ock__stream_map *m); /* NULL is a no-op */

/* ock__stream_map_event maps one SSE event (name may be "" or NULL; data as sent) and calls
 * on_delta (may be NULL) for each delta it yields. Returns OCK_OK; OCK_EPROTO for a malformed
 * chunk or an error event, OCK_ETOOBIG past the cap, OCK_ECANCELLED when on_delta returned
 * non-zero; then *err (kind, type, message) says what happened and the mapper is unusable.
 * Events after the end marker are ignored. */
int ock__stream_map_event(ock__stream_map *m, const char *name, const char *data,
                          ock_delta_fn on_delta, void *user, struct ock_llm_error *err);

/* ock__stream_map_done: 1 once the end marker ([DONE] / message_stop) was seen. */
int ock__stream_map_done(const ock__stream_map *m);

/* ock__stream_map_finish gives the reply (*out initialised by the caller; moved in on
 * success). OCK_EPROTO with *err when the end marker never came (a cut stream). */
int ock__stream_map_finish(ock__stream_map *m, struct ock_reply *out, struct ock_llm_error *err);

#endif
