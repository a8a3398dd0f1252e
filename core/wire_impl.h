/*
 * wire_impl.h: what wire.c shares with the two wire files (private to core/wire*.c).
 *
 * The stream decoder's state: text so far, tool calls in "slots" in the order they first
 * appear (the slot's ordinal is the tool_index of its deltas and its place in the reply),
 * and the Anthropic content blocks seen (block index -> slot). wire.c owns the state and its
 * bookkeeping; wire_openai.c and wire_anthropic.c map their events onto it.
 */
#ifndef OCK_WIRE_IMPL_H
#define OCK_WIRE_IMPL_H

#include "ock/wire.h"

#define OCK__WIRE_MAX_SLOTS 256
#define OCK__WIRE_MAX_INDEX 1000000

struct ock__wire_slot {
  int key; /* OpenAI tool_calls[].index, or the Anthropic block index */
  char *id;
  char *name;
  struct ock_buf args; /* concatenated argument fragments */
  char *initial;       /* Anthropic: a non-empty input given whole in content_block_start */
};

enum { OCK__BLOCK_TEXT = -1, OCK__BLOCK_OTHER = -2 };

struct ock__wire_block {
  int index; /* the Anthropic content block index */
  int slot;  /* a slot ordinal, OCK__BLOCK_TEXT or OCK__BLOCK_OTHER */
};

struct ock_wire_stream {
  const struct ock_wire_ops *ops;
  size_t max, used; /* bytes of text and arguments held, against the cap */
  struct ock_buf text;
  int has_text;
  struct ock__wire_slot slots[OCK__WIRE_MAX_SLOTS];
  size_t n_slots;
  struct ock__wire_block *blocks;
  size_t n_blocks;
  char *id, *finish;
  long long in_tokens, out_tokens;
  int done, failed;
  ock_delta_fn on_delta; /* of the event being mapped */
  void *user;
};

/* ock__wire_fail marks the stream failed and fills err ("cancelled" for OCK_ECANCELLED, else
 * "stream_error"); returns code. */
int ock__wire_fail(ock_wire_stream *s, struct ock_wire_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* ock__wire_set keeps the first non-NULL value of a string field. */
int ock__wire_set(char **dst, const char *s);
/* ock__wire_replace sets a string field to a copy of s (the last value wins). */
int ock__wire_replace(char **dst, const char *s);
/* ock__wire_text adds a text fragment and reports it. */
int ock__wire_text(ock_wire_stream *s, const char *t, struct ock_wire_error *err);
/* ock__wire_slot finds the slot with key, or makes one (create) in order of first appearance. */
int ock__wire_slot(ock_wire_stream *s, int key, int create, struct ock_wire_error *err,
                   size_t *ordinal);
/* ock__wire_call records a fragment of call `ordinal` (id, name may be NULL) and reports it. */
int ock__wire_call(ock_wire_stream *s, size_t ordinal, const char *id, const char *name,
                   const char *args, struct ock_wire_error *err);
/* ock__wire_error_event fails the stream for an "error" object sent inside it. */
int ock__wire_error_event(ock_wire_stream *s, const cJSON *error, struct ock_wire_error *err);
/* ock__wire_index reads an "index" member as a small non-negative integer; dflt when absent;
 * -1 when it is not one (a fraction, 1e300, -1): a malformed chunk. */
int ock__wire_index(const cJSON *obj, int dflt);

/* ock__wire_status: what a text encoder returns after writing to out as one chain of ||:
 * OCK_OK, or the status the buffer died with (OCK_ENOMEM, OCK_ETOOBIG). */
int ock__wire_status(const struct ock_buf *out, int failed);

/* Building a JSON tree fails closed: each step of a tree is checked and a tree that lost a
 * member is never printed, so an encoder either writes its exact bytes or says OCK_ENOMEM. */
/* ock__wire_add attaches item (taken) to obj as member key, or as the array's next item when
 * key is NULL; when item is NULL or cannot be attached it is freed. Returns 1 when attached,
 * 0 when out of memory (cJSON's convention, so a tree is built as one chain of &&). */
int ock__wire_add(cJSON *obj, const char *key, cJSON *item);
/* ock__wire_add_str adds a string member, or null when s is NULL. 1, or 0 when out of memory. */
int ock__wire_add_str(cJSON *obj, const char *key, const char *s);
/* ock__wire_built: v when ok, else NULL with v deleted (the end of a chain of additions). */
cJSON *ock__wire_built(cJSON *v, int ok);
/* ock__wire_print_to prints v compactly, appends it to out, and deletes v (NULL: OCK_ENOMEM,
 * for a failed cJSON_Create*). */
int ock__wire_print_to(struct ock_buf *out, cJSON *v);
/* ock__wire_event prints data (taken) as one SSE event named name (NULL: no event line). */
int ock__wire_event(struct ock_chunks *out, const char *name, cJSON *data);
/* ock__wire_fragments calls emit for each piece of s cut every chunk_size characters. */
int ock__wire_fragments(const char *s, long long chunk_size,
                        int (*emit)(void *ctx, const char *frag, size_t len), void *ctx);
/* ock__wire_schema: a copy of the tool's input schema, or {"type":"object"} without one (NULL
 * when out of memory). */
cJSON *ock__wire_schema(const struct ock_tool_spec *t);
/* ock__wire_strn: a cJSON string of the first len bytes of p (NULL when out of memory). */
cJSON *ock__wire_strn(const char *p, size_t len);

/* ock__wire_reply_names copies a decoded reply's id and finish reason (each may be NULL) into
 * r; when out of memory it clears r and returns OCK_ENOMEM, never a reply that lost one. */
int ock__wire_reply_names(struct ock_reply *r, const char *id, const char *finish);

/* ock__wire_str: the string member key of o, "" when absent or not a string. */
const char *ock__wire_str(const cJSON *o, const char *key);
/* ock__wire_messages: the body's "messages" when it is an array, else NULL. */
cJSON *ock__wire_messages(const cJSON *body);

#endif
