/*
 * journal.c: the append-only, capped, thread-safe journal (see journal.h).
 *
 * The harness trusts this record more than anything the SUT says about itself, so it must
 * never lose order: one mutex around seq assignment and storage, nothing clever.
 */
#include "journal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ock/status.h"

struct mock_journal {
  pthread_mutex_t lock;
  cJSON **items; /* kept entries, in seq order */
  size_t len;
  size_t cap;
  size_t max;         /* keep at most this many */
  size_t bytes;       /* the kept entries' estimated size */
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
    cJSON_Delete(j->items[i]);
  free(j->items);
  pthread_mutex_destroy(&j->lock);
  free(j);
}

void ock__journal_reset_epoch(struct mock_journal *j) {
  pthread_mutex_lock(&j->lock);
  clock_gettime(CLOCK_MONOTONIC, &j->t0);
  pthread_mutex_unlock(&j->lock);
}

static double elapsed_ms(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  double ms =
      (double)(now.tv_sec - t0->tv_sec) * 1000.0 + (double)(now.tv_nsec - t0->tv_nsec) / 1e6;
  /* Round to microseconds: the printed number stays short and still orders events. */
  return (double)(long long)(ms * 1000.0 + 0.5) / 1000.0;
}

/* framed builds {"seq","t_ms","kind", then entry's members}; consumes entry. */
static cJSON *framed(long long seq, double t_ms, const char *kind, cJSON *entry) {
  cJSON *o = cJSON_CreateObject();
  if (!o || !cJSON_AddNumberToObject(o, "seq", (double)seq) ||
      !cJSON_AddNumberToObject(o, "t_ms", t_ms) || !cJSON_AddStringToObject(o, "kind", kind)) {
    cJSON_Delete(o);
    cJSON_Delete(entry);
    return NULL;
  }
  while (entry && entry->child) {
    cJSON *m = cJSON_DetachItemViaPointer(entry, entry->child);
    const char *key = m->string;
    m->string = NULL;
    cJSON_AddItemToObject(o, key, m);
    cJSON_free((void *)key);
  }
  cJSON_Delete(entry);
  return o;
}

/* estimate: about the bytes an entry holds (its strings and a little per node), so a SUT
 * that sends 8 MiB bodies in a loop cannot grow the journal past its byte cap. */
static size_t estimate(const cJSON *v) {
  size_t n = 0;
  for (; v; v = v->next) {
    n += 48 + (v->string ? strlen(v->string) : 0) + (v->valuestring ? strlen(v->valuestring) : 0);
    if (v->child)
      n += estimate(v->child);
  }
  return n;
}

long long ock__journal_append(struct mock_journal *j, const char *kind, cJSON *entry) {
  pthread_mutex_lock(&j->lock);
  long long seq = ++j->seq;
  cJSON *o = framed(seq, elapsed_ms(&j->t0), kind, entry);
  if (!o) {
    pthread_mutex_unlock(&j->lock);
    return 0;
  }
  size_t size = estimate(o->child);
  if (j->len >= j->max || size > j->max_bytes - j->bytes) {
    j->dropped++;
    cJSON_Delete(o);
    pthread_mutex_unlock(&j->lock);
    return seq;
  }
  if (j->len == j->cap) {
    size_t cap = j->cap ? j->cap * 2 : 256;
    cJSON **p = realloc(j->items, cap * sizeof *p);
    if (!p) {
      cJSON_Delete(o);
      pthread_mutex_unlock(&j->lock);
      return 0;
    }
    j->items = p;
    j->cap = cap;
  }
  j->items[j->len++] = o;
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
    cJSON *copy = cJSON_Duplicate(j->items[i], 1);
    if (!copy || !cJSON_AddItemToArray(arr, copy)) {
      cJSON_Delete(copy);
      cJSON_Delete(arr);
      arr = NULL;
      break;
    }
  }
  pthread_mutex_unlock(&j->lock);
  return arr;
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
  for (size_t i = 0; i < j->len && !rc; i++) {
    char *line = cJSON_PrintUnformatted(j->items[i]);
    if (!line) {
      rc = OCK_ENOMEM;
      break;
    }
    if (fputs(line, f) == EOF || fputc('\n', f) == EOF)
      rc = OCK_EIO;
    cJSON_free(line);
  }
  pthread_mutex_unlock(&j->lock);
  if (!rc && fflush(f))
    rc = OCK_EIO;
  return rc;
}
