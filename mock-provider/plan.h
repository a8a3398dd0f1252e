/*
 * plan.h: one HTTP reply, decided completely before the first byte goes out.
 *
 * The endpoint handlers (session.c, events.c, tools.c, llm.c) are pure: they read a request,
 * update the mock's state, journal what arrived, and fill a plan: status, headers, the body
 * as pieces (one per SSE event when streaming), how long to wait before the first byte and
 * between pieces, where to drop the connection, and the journal entry to add when the reply
 * has really gone out (or another when it was abandoned). mock.c then plays the plan over
 * libmicrohttpd.
 */
#ifndef OCK_MOCK_PLAN_H
#define OCK_MOCK_PLAN_H

#include <cJSON.h>

#include "wire.h"

#define MOCK_PLAN_HEADERS 8

struct mock_header {
  char name[48];
  char value[208];
};

struct mock_plan {
  int status;
  const char *content_type; /* static text */
  struct mock_header headers[MOCK_PLAN_HEADERS];
  size_t n_headers;
  struct ock_chunks body;   /* the body: one piece, or one per SSE event */
  int body_json;            /* 1: the one piece is a whole JSON document the mock printed */
  int stream;               /* 1: chunked, each piece flushed on its own; 0: Content-Length */
  long long delay_ms;       /* before the first byte (the status line) */
  long long chunk_delay_ms; /* between pieces */
  long long drop_after;     /* >= 0: close the connection after this many body bytes (0:
                               before the status line) */
  int close;                /* close the connection after this reply */
  char *deferred; /* owned: the entry (a compact JSON object), journaled as the reply's last
                     bytes go out */
  cJSON *(*deferred_gone)(const cJSON *sent); /* makes the entry journaled instead when the
                               reply is abandoned (the client went away, or the mock stopped),
                               from the deferred entry parsed back */
  const char *deferred_kind;
  int cancel; /* a cancel trigger fired on this request's arrival */
};

void ock__plan_init(struct mock_plan *p);
void ock__plan_free(struct mock_plan *p);

/* ock__plan_header adds a header (name and value copied, each cut to its field); extra
 * headers past MOCK_PLAN_HEADERS are refused with OCK_ETOOBIG. */
int ock__plan_header(struct mock_plan *p, const char *name, const char *value);

/* ock__plan_json sets status, content type application/json and the body: v printed
 * compactly (v is taken and deleted). */
int ock__plan_json(struct mock_plan *p, int status, cJSON *v);

/* ock__plan_bytes sets status, content type and a one-piece body (copied). */
int ock__plan_bytes(struct mock_plan *p, int status, const char *content_type, const char *data,
                    size_t len);

/* ock__plan_defer sets the entry to journal as the reply goes out (taken, and printed now),
 * and how to make from it the entry to journal if the reply is abandoned (gone may be NULL:
 * then nothing is journaled for an abandoned reply). Most replies go out, so gone runs only
 * when needed. Returns OCK_OK or OCK_ENOMEM (entry NULL, or printing it failed). */
int ock__plan_defer(struct mock_plan *p, const char *kind, cJSON *entry,
                    cJSON *(*gone)(const cJSON *sent));

/* ock__plan_defer_text is ock__plan_defer of an entry already printed: text, a compact JSON
 * object, is taken (freed with free()). */
void ock__plan_defer_text(struct mock_plan *p, const char *kind, char *text,
                          cJSON *(*gone)(const cJSON *sent));

#endif
