/*
 * json.h: safe access to JSON (cJSON) whose errors name the place and what was expected.
 *
 * Fixtures, session documents, events and provider bodies all come from outside. Every getter
 * here takes the JSON path of the object it reads from ("$.session.providers[0]") and, on a
 * failure, fills an ock_jerr with the full path of the offending member and a sentence a user
 * can act on: `$.session.providers[0].api: expected one of "openai", "anthropic", got "gpt"`.
 * A getter that fails leaves its output untouched. Nothing here allocates except the parse
 * and print helpers, whose results the caller frees (cJSON_Delete, free).
 */
#ifndef OCK_JSON_H
#define OCK_JSON_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/buf.h"

#define OCK_JSON_PATH_MAX 256
#define OCK_JSON_INT_MAX                                                                           \
  9007199254740991.0 /* 2^53 - 1: the largest integer JSON readers agree on */

/* What went wrong, and where. `where` is a JSON path, optionally prefixed by "file: ". */
struct ock_jerr {
  char where[OCK_JSON_PATH_MAX + 256];
  char what[512];
};

enum ock_jneed { OCK_OPTIONAL = 0, OCK_REQUIRED = 1 };

/* ock_jerr_set fills err (when not NULL) and returns code, so callers can `return
 * ock_jerr_set(...)`. */
int ock_jerr_set(struct ock_jerr *err, int code, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ock_jerr_format writes "where: what" into out (always NUL-terminated). */
void ock_jerr_format(const struct ock_jerr *err, char *out, size_t n);

/* ock_json_parse parses len bytes. On a syntax error it reports the line and column. It also
 * refuses what cJSON would read otherwise than other JSON readers do, naming the JSON path: a
 * string or member name that holds U+0000 (cJSON's C strings end there, so "a\u0000b" would
 * read as "a"), an object with a member name given twice (cJSON's lookups see the first,
 * Python's and JavaScript's the last), and anything but white space after the value (cJSON
 * stops after it). Returns OCK_OK (*out owned by the caller:
 * cJSON_Delete), OCK_EJSON or OCK_ENOMEM. */
int ock_json_parse(const char *text, size_t len, cJSON **out, struct ock_jerr *err);

/* ock_json_check_read: what ock_json_parse refuses beyond syntax, for v, the value cJSON read
 * from text[0..len) (len: up to the end of that value). Returns OCK_OK, OCK_EJSON (U+0000 in a
 * string), OCK_ETYPE (a repeated member name) or OCK_ENOMEM, err naming the path. */
int ock_json_check_read(const char *text, size_t len, const cJSON *v, struct ock_jerr *err);

/* ock_json_parse_file reads and parses a file of at most max bytes; errors name the file.
 * Returns OCK_OK, OCK_EIO (unreadable), OCK_ETOOBIG, or OCK_EJSON. */
int ock_json_parse_file(const char *path, size_t max, cJSON **out, struct ock_jerr *err);

/* ock_json_check_unique_keys: no object within value (path: its JSON path) has two members of
 * the same name. cJSON keeps both members of `{"a":1,"a":2}` and lookups see only the first,
 * so in a document a person wrote (a fixture, a manifest) the second would be silently
 * ignored. Returns OCK_OK, or OCK_ETYPE naming the repeated key's path, or OCK_ENOMEM. */
int ock_json_check_unique_keys(const cJSON *value, const char *path, struct ock_jerr *err);

/* Path building: out = "<path>.<key>" or "<path>[<i>]"; always NUL-terminated (truncated). */
void ock_jpath_key(char *out, size_t n, const char *path, const char *key);
void ock_jpath_index(char *out, size_t n, const char *path, int i);

/* Typed getters. obj must be an object (its path is `path`); key names the member.
 * A missing member is OCK_EMISSING when required, else OCK_OK with *out untouched.
 * A member of the wrong type is OCK_ETYPE. */
int ock_jget_string(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                    const char **out, struct ock_jerr *err);
int ock_jget_nonempty(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                      const char **out, struct ock_jerr *err);
int ock_jget_int(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                 long long lo, long long hi, long long *out, struct ock_jerr *err);
int ock_jget_number(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                    double lo, double hi, double *out, struct ock_jerr *err);
int ock_jget_bool(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                  int *out, struct ock_jerr *err);
int ock_jget_object(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                    const cJSON **out, struct ock_jerr *err);
int ock_jget_array(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                   const cJSON **out, struct ock_jerr *err);
/* ock_jget_enum: a string member that must be one of the NULL-terminated choices; *out is the
 * index of the match. */
int ock_jget_enum(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                  const char *const *choices, int *out, struct ock_jerr *err);

/* ock_jcheck_object: value must be a JSON object (else OCK_ETYPE naming path). */
int ock_jcheck_object(const cJSON *value, const char *path, struct ock_jerr *err);

/* ock_jcheck_keys: every member of obj must be one of the NULL-terminated allowed names, so a
 * typo in a fixture ("promts") is an error, not a silent default; the message lists the
 * allowed names. */
int ock_jcheck_keys(const cJSON *obj, const char *path, const char *const *allowed,
                    struct ock_jerr *err);

/* Loose readers for JSON the program built itself or already validated: NULL/dflt if absent
 * (ock_json_int also when the number is outside the range of long long). */
const char *ock_json_str(const cJSON *obj, const char *key);
long long ock_json_int(const cJSON *obj, const char *key, long long dflt);
double ock_json_num(const cJSON *obj, const char *key, double dflt);
int ock_json_bool(const cJSON *obj, const char *key, int dflt);

/* ock_json_write appends the compact text of value (the bytes cJSON_PrintUnformatted prints)
 * to out (json_write.c). Returns OCK_OK, ock_buf_append's error, or OCK_EINVAL for a value
 * cJSON would not print either. */
int ock_json_write(struct ock_buf *out, const cJSON *value);

/* ock_json_write_string appends s as a JSON string (NULL: null). Same returns. */
int ock_json_write_string(struct ock_buf *out, const char *s);

/* ock_json_write_int appends v in decimal. Same returns. */
int ock_json_write_int(struct ock_buf *out, long long v);

/* ock_json_print prints compactly, like ock_json_write; caller frees with free(). NULL when out
 * of memory, or value is NULL or unprintable. */
char *ock_json_print(const cJSON *value);

/* ock_json_type_name names a value's JSON type ("string", "object", "missing" for NULL). */
const char *ock_json_type_name(const cJSON *value);

#endif
