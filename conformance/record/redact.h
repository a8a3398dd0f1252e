/*
 * redact.h: what `ock record` takes out before anything reaches the disk.
 *
 * Secrets are collected as the exchanges are read: the values of the credential headers
 * (Authorization, x-api-key, x-goog-api-key, api-key, cookies, ...) and of the key parameters
 * of query strings (key=, api_key=, ...). Those headers and parameters are written as
 * "[redacted]", the user's JSON paths (--redact) are replaced in every JSON body, and, last, every
 * text written is scrubbed of every collected secret wherever it appears (a key echoed in a
 * body, a URL, an error message).
 */
#ifndef OCK_RECORD_REDACT_H
#define OCK_RECORD_REDACT_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/buf.h"

#define REC_REDACTED "[redacted]"

struct rec_secrets {
  char **items;
  size_t n;
  size_t cap;
};

void ock__rec_secrets_free(struct rec_secrets *s);

/* ock__rec_is_secret_header: a header whose value is a credential (name in any case). */
int ock__rec_is_secret_header(const char *name);

/* ock__rec_redact_headers replaces the credential headers' values of an object of headers with
 * REC_REDACTED, adding each value (and its token after "Bearer ") to s. */
void ock__rec_redact_headers(cJSON *headers, struct rec_secrets *s);

/* ock__rec_redact_query: a copy of a query string with the key parameters' values replaced,
 * each value added to s. NULL in: NULL out. */
char *ock__rec_redact_query(const char *query, struct rec_secrets *s);

/* ock__rec_redact_path replaces what a JSON path names in doc with REC_REDACTED: "$", then
 * ".name", "['name']" or "[N]" or "[*]" steps. Each value replaced (a string, or another
 * value as JSON text) is added to s (may be NULL), so it is scrubbed wherever else it shows.
 * Returns how many values were replaced, or -1 for a path that is not that grammar. */
int ock__rec_redact_path(cJSON *doc, const char *path, struct rec_secrets *s);

/* ock__rec_path_valid: the path is in that grammar. */
int ock__rec_path_valid(const char *path);

/* ock__rec_scrub replaces every occurrence of every secret in b with REC_REDACTED. */
int ock__rec_scrub(struct ock_buf *b, const struct rec_secrets *s);

#endif
