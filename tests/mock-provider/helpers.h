/*
 * helpers.h: what the mock-provider tests share: fixtures from tests/mock-provider/fixtures,
 * a mock started on 127.0.0.1 port 0, libcurl requests that keep the raw reply, an SSE
 * splitter, and journal look-ups.
 */
#ifndef OCK_TEST_MOCK_HELPERS_H
#define OCK_TEST_MOCK_HELPERS_H

#include <cJSON.h>

#include "ock/buf.h"
#include "ock/mock.h"

struct http_reply {
  int curl_rc; /* CURLcode: 0, or e.g. 18 when the server cut the body short */
  long status;
  struct ock_buf head; /* status line and headers, raw */
  struct ock_buf body; /* the body as received */
  double seconds;      /* total time */
};

/* fixture_load parses tests/mock-provider/fixtures/NAME; NULL (and a test failure) if it
 * cannot. Caller cJSON_Deletes. */
cJSON *fixture_load(const char *name);

/* mock_from starts a mock for a fixture (file name, or JSON text when it starts with '{')
 * with options opt (may be NULL). NULL and a test failure when it cannot. */
ock_mock *mock_from(const char *fixture, const struct ock_mock_options *opt);

/* http_post / http_get: url is the mock's URL plus path. header may be NULL (one extra
 * header line). The reply must be freed with http_reply_free. */
void http_post(ock_mock *m, const char *path, const char *body, const char *header,
               struct http_reply *out);
void http_get(ock_mock *m, const char *path, struct http_reply *out);
void http_reply_free(struct http_reply *r);

/* reply_header: the value of header name (case-insensitive) in r's head, copied into buf;
 * NULL when absent. */
const char *reply_header(const struct http_reply *r, const char *name, char *buf, size_t n);

/* sse_split: the SSE events of a body as a JSON array of {"event": NAME|null, "data": TEXT}.
 * Caller cJSON_Deletes. */
cJSON *sse_split(const char *body);

/* journal_nth: a deep copy of the nth (0-based) journal entry of kind (NULL: any kind);
 * NULL when there is none. journal_count counts entries of kind. */
cJSON *journal_nth(ock_mock *m, const char *kind, int nth);
int journal_count(ock_mock *m, const char *kind);

/* journal_without_time: the journal with every t_ms removed, printed (caller frees). */
char *journal_without_time(ock_mock *m);

#endif
