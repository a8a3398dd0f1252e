/*
 * journal.c: the append-only, capped, thread-safe journal (see journal.h).
 *
 * The harness trusts this record more than anything the SUT says about itself, so it must
 * never lose order: one mutex around seq assignment and storage, nothing clever. Each entry is
 * kept as its compact JSON line, one allocation (a tree of the same entry costs six times the
 * memory and most of a busy mock's allocator time); it is parsed back only when a snapshot is
 * asked for, once per scenario. The entry is printed before the lock is taken; under it, only
 * the seq and the time are written in front of it.
 */
#include "journal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ock/contract.h"
#include "ock/json.h"
#include "ock/status.h"

#define FRAME_MAX 96                         /* {"seq":N,"t_ms":T,"kind":"" without the kind */
#define KIND_MEMBER ",\"" OCK_F_KIND "\":\"" /* what precedes the kind in a line */

struct mock_journal {
  pthread_mutex_t lock;
  char **lines; /* kept entries, in seq order: compact JSON, no newline */
  size_t len;
  size_t cap;
  size_t max;         /* keep at most this many */
  size_t bytes;       /* the kept entries' memory, about */
  size_t max_bytes;   /* keep at most this much */
  size_t dropped;     /* appended past max or max_bytes */
  long long seq;      /* the last seq handed out */
  struct timespec t0; /* the epoch of t_ms */
};

int ock__journal_new(size_t max, size_t max_bytes, struct mock_journal **out) {
  struct mock_journal *j = calloc(1, sizeof *j);
  if (!j)
    return OCK_ENOMEM;
  if (pthread_mutex_init(&j->lock, NULL)) {
    free(j);
    return OCK_ENOMEM;
  }
  j->max = max;
  j->max_bytes = max_bytes;
  clock_gettime(CLOCK_MONOTONIC, &j->t0);
  *out = j;
  return OCK_OK;
}

void ock__journal_free(struct mock_journal *j) {
  if (!j)
    return;
  for (size_t i = 0; i < j->len; i++)
    free(j->lines[i]);
  free(j->lines);
  pthread_mutex_destroy(&j->lock);
  free(j);
}

void ock__journal_reset_epoch(struct mock_journal *j) {
  pthread_mutex_lock(&j->lock);
  clock_gettime(CLOCK_MONOTONIC, &j->t0);
  pthread_mutex_unlock(&j->lock);
}

/* elapsed_us: whole microseconds since t0 (t_ms is printed from it: short, and still ordering
 * entries). */
static long long elapsed_us(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  long long ns = (long long)(now.tv_sec - t0->tv_sec) * 1000000000LL + (now.tv_nsec - t0->tv_nsec);
  return (ns + 500) / 1000;
}

/* frame appends {"seq":S,"t_ms":T,"kind":"K" to line, which has the room. T is whole
 * microseconds printed as milliseconds with up to three decimals: the digits cJSON's "%1.15g"
 * gives for such a number, without printf. Returns ock_buf_append's status. */
static int frame(struct ock_buf *line, long long seq, long long t_us, const char *kind) {
  char frac[5] = {'.', (char)('0' + t_us % 1000 / 100), (char)('0' + t_us % 100 / 10),
                  (char)('0' + t_us % 10), '\0'};
  for (int i = 3; i > 0 && frac[i] == '0'; i--)
    frac[i] = '\0';
  int rc =
      ock_buf_puts(line, "{\"" OCK_F_SEQ "\":"); /* a dead buffer repeats its status: |= keeps it */
  rc |= ock_json_write_int(line, seq);
  rc |= ock_buf_puts(line, ",\"" OCK_F_T_MS "\":");
  rc |= ock_json_write_int(line, t_us / 1000);
  if (frac[1])
    rc |= ock_buf_puts(line, frac);
  rc |= ock_buf_puts(line, KIND_MEMBER);
  rc |= ock_buf_puts(line, kind);
  return rc | ock_buf_puts(line, "\"");
}

/* compose appends the whole line: the frame, then the members and the tail. */
static int compose(struct ock_buf *line, long long seq, long long t_us, const char *kind,
                   const char *members, size_t members_len, const char *tail, size_t tail_len) {
  int rc = frame(line, seq, t_us, kind);
  if (members_len)
    rc |= ock_buf_puts(line, ",") | ock_buf_append(line, members, members_len);
  if (tail_len)
    rc |= ock_buf_puts(line, ",") | ock_buf_append(line, tail, tail_len);
  return rc | ock_buf_puts(line, "}");
}

/* grow makes room for one more line; caller holds the lock. */
static int grow(struct mock_journal *j) {
  if (j->len < j->cap)
    return OCK_OK;
  size_t cap = j->cap ? j->cap * 2 : 256;
  char **p = realloc(j->lines, cap * sizeof *p);
  if (!p)
    return OCK_ENOMEM;
  j->lines = p;
  j->cap = cap;
  return OCK_OK;
}

long long ock__journal_append(struct mock_journal *j, const char *kind, cJSON *entry) {
  struct ock_buf text;
  ock_buf_init(&text, (size_t)-1 / 2);
  int failed = entry && ock_json_write(&text, entry);
  cJSON_Delete(entry);
  long long seq = failed ? 0 : ock__journal_append_text(j, kind, text.data, NULL);
  ock_buf_free(&text);
  return seq;
}

long long ock__journal_append_text(struct mock_journal *j, const char *kind, const char *object,
                                   const char *tail) {
  /* The members follow the frame: ..."kind":"K",members,tail} or ..."kind":"K"}. */
  const char *members = object && object[0] == '{' && object[1] != '}' ? object + 1 : "}";
  size_t members_len = strlen(members) - 1; /* without its closing brace */
  size_t tail_len = tail ? strlen(tail) : 0;
  struct ock_buf line;
  ock_buf_init(&line, (size_t)-1 / 2);
  /* All the room now, so nothing below allocates while the lock is held. */
  if (ock_buf_reserve(&line, FRAME_MAX + strlen(kind) + members_len + tail_len + 4))
    return 0;
  pthread_mutex_lock(&j->lock);
  long long seq = ++j->seq;
  if (grow(j) ||
      compose(&line, seq, elapsed_us(&j->t0), kind, members, members_len, tail, tail_len)) {
    pthread_mutex_unlock(&j->lock);
    ock_buf_free(&line);
    return 0;
  }
  size_t line_len = line.len;
  size_t size = line_len + 1 + 16 + sizeof *j->lines; /* the line, malloc's header, its slot */
  if (j->len >= j->max || size > j->max_bytes - j->bytes) {
    j->dropped++;
    pthread_mutex_unlock(&j->lock);
    ock_buf_free(&line);
    return seq;
  }
  char *kept = ock_buf_take(&line);
  char *fit = realloc(kept, line_len + 1); /* the buffer grew by doubling: keep only the line */
  if (fit)
    kept = fit;
  j->lines[j->len++] = kept;
  j->bytes += size;
  pthread_mutex_unlock(&j->lock);
  return seq;
}

cJSON *ock__journal_snapshot(struct mock_journal *j) {
  cJSON *arr = cJSON_CreateArray();
  if (!arr)
    return NULL;
  pthread_mutex_lock(&j->lock);
  for (size_t i = 0; i < j->len; i++) {
    cJSON *e = cJSON_Parse(j->lines[i]);
    if (!e || !cJSON_AddItemToArray(arr, e)) {
      cJSON_Delete(e);
      cJSON_Delete(arr);
      arr = NULL;
      break;
    }
  }
  pthread_mutex_unlock(&j->lock);
  return arr;
}

/* kind_is: does a kept line (which starts {"seq":N,"t_ms":T,"kind":"K") have kind K? */
static int kind_is(const char *line, const char *kind) {
  const char *k = strstr(line, KIND_MEMBER);
  if (!k || k - line > FRAME_MAX)
    return 0;
  k += sizeof KIND_MEMBER - 1;
  size_t n = strlen(kind);
  return !strncmp(k, kind, n) && k[n] == '"';
}

cJSON *ock__journal_select(struct mock_journal *j, const char *const *kinds) {
  cJSON *arr = cJSON_CreateArray();
  if (!arr)
    return NULL;
  pthread_mutex_lock(&j->lock);
  for (size_t i = 0; i < j->len && arr; i++) {
    int wanted = 0;
    for (size_t k = 0; kinds[k] && !wanted; k++)
      wanted = kind_is(j->lines[i], kinds[k]);
    if (!wanted)
      continue;
    cJSON *e = cJSON_Parse(j->lines[i]);
    if (!e || !cJSON_AddItemToArray(arr, e)) {
      cJSON_Delete(e);
      cJSON_Delete(arr);
      arr = NULL;
    }
  }
  pthread_mutex_unlock(&j->lock);
  return arr;
}

int ock__journal_array_text(struct mock_journal *j, struct ock_buf *out) {
  pthread_mutex_lock(&j->lock);
  int rc = ock_buf_append(out, "[", 1);
  for (size_t i = 0; i < j->len && !rc; i++) {
    if (i)
      rc = ock_buf_append(out, ",", 1);
    if (!rc)
      rc = ock_buf_puts(out, j->lines[i]);
  }
  pthread_mutex_unlock(&j->lock);
  return rc ? rc : ock_buf_append(out, "]", 1);
}

size_t ock__journal_dropped(struct mock_journal *j) {
  pthread_mutex_lock(&j->lock);
  size_t n = j->dropped;
  pthread_mutex_unlock(&j->lock);
  return n;
}

int ock__journal_write(struct mock_journal *j, FILE *f) {
  int rc = OCK_OK;
  pthread_mutex_lock(&j->lock);
  for (size_t i = 0; i < j->len && !rc; i++)
    if (fputs(j->lines[i], f) == EOF || fputc('\n', f) == EOF)
      rc = OCK_EIO;
  pthread_mutex_unlock(&j->lock);
  if (!rc && fflush(f))
    rc = OCK_EIO;
  return rc;
}
