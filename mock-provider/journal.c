/*
 * journal.c: the append-only, capped, thread-safe journal (see journal.h).
 *
 * The harness trusts this record more than anything the SUT says about itself, so it must
 * never lose order: one mutex around seq assignment and storage, nothing clever. Each entry is
 * kept as its compact JSON line (a tree of the same entry costs six times the memory and most of
 * a busy mock's allocator time); it is parsed back only when a snapshot is asked for, once per
 * scenario. The entry is printed before the lock is taken; under it, only the seq and the time
 * are written in front of it, and the line is copied to the end of the newest block.
 *
 * The llm_request entry, the largest, is printed only when the journal is read (once per
 * scenario): it is kept as the request's bytes, which are smaller than its printed form, and
 * printing it was a third of a request's work (ock__journal_append_later).
 *
 * Lines live in blocks (blocks.h): a busy mock keeps about 2 KB a request.
 */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#include "journal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blocks.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/status.h"

#define FRAME_MAX 96                         /* {"seq":N,"t_ms":T,"kind":"" without the kind */
#define KIND_MEMBER ",\"" OCK_F_KIND "\":\"" /* what precedes the kind in a line */
#define ALIGN OCK_BLOCKS_ALIGN

/* An entry printed when it is read: its frame's numbers and the copies it is printed from, all
 * in a block. */
struct later {
  long long seq;
  long long t_us;
  ock_journal_print_fn print;
  const char *kind;
  const char *tail; /* or NULL */
  const void *blob;
};

/* One kept entry: its line (compact JSON, no newline), or what prints it. Both in a block. */
struct entry {
  const char *line; /* NULL when later prints it */
  const struct later *later;
};

struct mock_journal {
  pthread_mutex_t lock;
  struct entry *entries; /* the kept entries, in seq order */
  struct blocks kept;    /* every line, and what prints the later ones */
  size_t len;
  size_t cap;
  size_t max;         /* keep at most this many */
  size_t bytes;       /* the kept entries' memory, about */
  size_t max_bytes;   /* keep at most this much */
  size_t dropped;     /* appended past max or max_bytes */
  long long seq;      /* the last seq handed out */
  struct timespec t0; /* the epoch of t_ms */
};

int ock__lock_init(pthread_mutex_t *lock) {
  pthread_mutexattr_t attr;
  if (pthread_mutexattr_init(&attr))
    return OCK_ENOMEM;
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
  int rc = pthread_mutex_init(lock, &attr);
  pthread_mutexattr_destroy(&attr);
  return rc ? OCK_ENOMEM : OCK_OK;
}

int ock__journal_new(size_t max, size_t max_bytes, struct mock_journal **out) {
  struct mock_journal *j = calloc(1, sizeof *j);
  if (!j)
    return OCK_ENOMEM;
  if (ock__lock_init(&j->lock)) {
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
  ock__blocks_free(&j->kept);
  free(j->entries);
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

/* grow makes room for one more entry; caller holds the lock. */
static int grow(struct mock_journal *j) {
  if (j->len < j->cap)
    return OCK_OK;
  size_t cap = j->cap ? j->cap * 2 : 256;
  struct entry *p = realloc(j->entries, cap * sizeof *p);
  if (!p)
    return OCK_ENOMEM;
  j->entries = p;
  j->cap = cap;
  return OCK_OK;
}

/* object_members: the members of a compact object's text "{...}", without the braces. */
static const char *object_members(const char *object, size_t *len) {
  const char *members = object && object[0] == '{' && object[1] != '}' ? object + 1 : "}";
  *len = strlen(members) - 1; /* without its closing brace */
  return members;
}

long long ock__journal_append(struct mock_journal *j, const char *kind, cJSON *entry) {
  struct ock_buf text;
  ock_buf_init(&text, OCK_MAX_OWN_TEXT);
  int failed = entry && ock_json_write(&text, entry);
  cJSON_Delete(entry);
  long long seq = failed ? 0 : ock__journal_append_text(j, kind, text.data, NULL);
  ock_buf_free(&text);
  return seq;
}

long long ock__journal_append_text(struct mock_journal *j, const char *kind, const char *object,
                                   const char *tail) {
  /* The members follow the frame: ..."kind":"K",members,tail} or ..."kind":"K"}. */
  size_t members_len;
  const char *members = object_members(object, &members_len);
  size_t tail_len = tail ? strlen(tail) : 0;
  struct ock_buf line;
  ock_buf_init(&line, OCK_MAX_OWN_TEXT);
  /* All the room now: under the lock, only a new block allocates, once in 4 MiB of lines. */
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
  size_t size = line.len + 1 + sizeof *j->entries; /* the line, its NUL, its slot */
  int keep = j->len < j->max && size <= j->max_bytes - j->bytes;
  char *kept = keep ? ock__blocks_copy(&j->kept, line.data, line.len) : NULL;
  if (kept) {
    j->entries[j->len++] = (struct entry){kept, NULL};
    j->bytes += size;
  } else if (keep) {
    seq = 0; /* out of memory */
  } else {
    j->dropped++;
  }
  pthread_mutex_unlock(&j->lock);
  ock_buf_free(&line);
  return seq;
}

/* keep_later stores a later entry; caller holds the lock. 1 when kept, 0 out of memory. */
static int keep_later(struct mock_journal *j, const struct later *l, size_t blob_len) {
  struct later *kept = ock__blocks_room(&j->kept, sizeof *kept);
  void *blob = kept ? ock__blocks_room(&j->kept, blob_len ? blob_len : 1) : NULL;
  if (blob)
    memcpy(blob, l->blob, blob_len);
  const char *kind = blob ? ock__blocks_copy(&j->kept, l->kind, strlen(l->kind)) : NULL;
  const char *tail = l->tail ? ock__blocks_copy(&j->kept, l->tail, strlen(l->tail)) : "";
  if (!kind || !tail)
    return 0;
  *kept = *l;
  kept->blob = blob;
  kept->kind = kind;
  kept->tail = l->tail ? tail : NULL;
  j->entries[j->len++] = (struct entry){NULL, kept};
  return 1;
}

long long ock__journal_append_later(struct mock_journal *j, const char *kind,
                                    ock_journal_print_fn print, const void *blob, size_t blob_len,
                                    const char *tail) {
  size_t size = sizeof(struct later) + blob_len + strlen(kind) + (tail ? strlen(tail) : 0) +
                3 * ALIGN + sizeof *j->entries;
  pthread_mutex_lock(&j->lock);
  long long seq = ++j->seq;
  struct later l = {seq, elapsed_us(&j->t0), print, kind, tail, blob};
  if (grow(j)) {
    seq = 0;
  } else if (j->len >= j->max || size > j->max_bytes - j->bytes) {
    j->dropped++;
  } else if (keep_later(j, &l, blob_len)) {
    j->bytes += size;
  } else {
    seq = 0;
  }
  pthread_mutex_unlock(&j->lock);
  return seq;
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

/* entry_text appends entry i's line to out, printing it when it is kept for later. Caller
 * holds the lock. Returns OCK_OK or ock_buf_append's error. */
static int entry_text(const struct mock_journal *j, size_t i, struct ock_buf *out) {
  const struct entry *e = &j->entries[i];
  if (e->line)
    return ock_buf_puts(out, e->line);
  const struct later *l = e->later;
  struct ock_buf object;
  ock_buf_init(&object, OCK_MAX_OWN_TEXT);
  int rc = l->print(l->blob, &object);
  size_t members_len, tail_len = l->tail ? strlen(l->tail) : 0;
  const char *members = object_members(object.data, &members_len);
  if (!rc)
    rc = compose(out, l->seq, l->t_us, l->kind, members, members_len, l->tail, tail_len);
  ock_buf_free(&object);
  return rc;
}

/* entry_kind_is: has entry i the kind? */
static int entry_kind_is(const struct mock_journal *j, size_t i, const char *kind) {
  const struct entry *e = &j->entries[i];
  return e->line ? kind_is(e->line, kind) : !strcmp(e->later->kind, kind);
}

/* entry_tree parses entry i, printed into scratch; NULL when out of memory. */
static cJSON *entry_tree(const struct mock_journal *j, size_t i, struct ock_buf *scratch) {
  ock_buf_reset(scratch);
  return entry_text(j, i, scratch) ? NULL : cJSON_ParseWithLength(scratch->data, scratch->len);
}

/* trees: the kept entries of the kinds (NULL: all) as an array of trees; NULL when out of
 * memory. */
static cJSON *trees(struct mock_journal *j, const char *const *kinds) {
  cJSON *arr = cJSON_CreateArray();
  struct ock_buf scratch;
  ock_buf_init(&scratch, OCK_MAX_OWN_TEXT);
  pthread_mutex_lock(&j->lock);
  for (size_t i = 0; i < j->len && arr; i++) {
    int wanted = !kinds;
    for (size_t k = 0; kinds && kinds[k] && !wanted; k++)
      wanted = entry_kind_is(j, i, kinds[k]);
    if (!wanted)
      continue;
    cJSON *e = entry_tree(j, i, &scratch);
    if (!e || !cJSON_AddItemToArray(arr, e)) {
      cJSON_Delete(e);
      cJSON_Delete(arr);
      arr = NULL;
    }
  }
  pthread_mutex_unlock(&j->lock);
  ock_buf_free(&scratch);
  return arr;
}

/* tree_cost: an upper bound on the heap a cJSON tree of the compact JSON text (n bytes) takes:
 * each value a node (sizeof(cJSON) and malloc's overhead), each member name and string its
 * bytes and an allocation's overhead. The values are counted from the text, outside strings:
 * one per ':' (a member), one per array element (a ',' directly inside an array, and the first
 * element after a '['), and the top one. Deeper than the stack tracks, every ',' counts, which
 * only counts more. */
#define NODE_COST (sizeof(cJSON) + 16) /* the node and its malloc chunk header */
#define STRING_COST ((size_t)32)       /* a name's or string's chunk: header, rounding */
#define COST_DEPTH 256
static size_t tree_cost(const char *t, size_t n) {
  unsigned char array[COST_DEPTH]; /* the open containers, innermost last: 1 an array */
  size_t depth = 0, values = 1, strings = 0;
  int in_string = 0;
  for (size_t i = 0; i < n; i++) {
    char c = t[i];
    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = 0;
      continue;
    }
    if (c == '"') {
      in_string = 1;
      strings++;
    } else if (c == ':') {
      values++;
    } else if (c == ',') {
      values += depth == 0 || depth > COST_DEPTH || array[depth - 1];
    } else if (c == '[' || c == '{') {
      if (depth < COST_DEPTH)
        array[depth] = c == '[';
      depth++;
      values += c == '[' && i + 1 < n && t[i + 1] != ']';
    } else if ((c == ']' || c == '}') && depth) {
      depth--;
    }
  }
  return n + values * NODE_COST + strings * STRING_COST;
}

/* entry_start: the first byte entry i keeps in a block; every later entry's bytes lie in the
 * same block or a newer one, since blocks are filled in append order. */
static const void *entry_start(const struct mock_journal *j, size_t i) {
  const struct entry *e = &j->entries[i];
  return e->line ? (const void *)e->line : (const void *)e->later;
}

/* take_entry parses entry i into arr when its tree fits: *tree (the trees made so far) plus its
 * cost plus the lines still held after the block it lies in stays within max_bytes. Returns 1
 * when added, 0 when it did not fit, -1 out of memory. */
static int take_entry(struct mock_journal *j, size_t i, size_t held, size_t current, size_t *tree,
                      struct ock_buf *scratch, cJSON *arr) {
  const struct entry *e = &j->entries[i];
  const char *text = e->line;
  size_t n = text ? strlen(text) : 0;
  if (!text) {
    ock_buf_reset(scratch);
    if (entry_text(j, i, scratch))
      return -1;
    text = scratch->data;
    n = scratch->len;
  }
  size_t cost = tree_cost(text, n), later = held - current;
  if (later > j->max_bytes || cost > j->max_bytes - later || *tree > j->max_bytes - later - cost)
    return 0;
  cJSON *t = cJSON_ParseWithLength(text, n);
  if (!t || !cJSON_AddItemToArray(arr, t)) {
    cJSON_Delete(t);
    return -1;
  }
  *tree += cost;
  return 1;
}

cJSON *ock__journal_take(struct mock_journal *j) {
  cJSON *arr = cJSON_CreateArray();
  struct ock_buf scratch;
  ock_buf_init(&scratch, OCK_MAX_OWN_TEXT);
  pthread_mutex_lock(&j->lock);
  size_t held, tree = 0, i = 0;
  struct block *old = ock__blocks_take(&j->kept, &held);
  for (; i < j->len && arr; i++) {
    const void *start = entry_start(j, i);
    while (old && !ock__block_holds(old, start)) { /* every entry in it is parsed: free it */
      held -= ock__block_bytes(old);
      old = ock__block_free(old);
    }
    int rc = old ? take_entry(j, i, held, ock__block_bytes(old), &tree, &scratch, arr) : -1;
    if (rc < 0) {
      cJSON_Delete(arr);
      arr = NULL;
    } else if (rc == 0) {
      break; /* the tree would pass the cap: the rest is dropped, as past it while running */
    }
  }
  j->dropped += arr ? j->len - i : 0;
  while (old)
    old = ock__block_free(old);
  free(j->entries);
  j->entries = NULL;
  j->len = j->cap = 0;
  j->bytes = 0;
  pthread_mutex_unlock(&j->lock);
  ock_buf_free(&scratch);
  return arr;
}

cJSON *ock__journal_snapshot(struct mock_journal *j) {
  return trees(j, NULL);
}

cJSON *ock__journal_select(struct mock_journal *j, const char *const *kinds) {
  return trees(j, kinds);
}

int ock__journal_array_text(struct mock_journal *j, struct ock_buf *out) {
  pthread_mutex_lock(&j->lock);
  int rc = ock_buf_append(out, "[", 1);
  for (size_t i = 0; i < j->len && !rc; i++) {
    if (i)
      rc = ock_buf_append(out, ",", 1);
    if (!rc)
      rc = entry_text(j, i, out);
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
  struct ock_buf line;
  ock_buf_init(&line, OCK_MAX_OWN_TEXT);
  pthread_mutex_lock(&j->lock);
  for (size_t i = 0; i < j->len && !rc; i++) {
    ock_buf_reset(&line);
    rc = entry_text(j, i, &line) ? OCK_ENOMEM : OCK_OK;
    if (!rc && (fwrite(line.data, 1, line.len, f) != line.len || fputc('\n', f) == EOF))
      rc = OCK_EIO;
  }
  pthread_mutex_unlock(&j->lock);
  ock_buf_free(&line);
  if (!rc && fflush(f))
    rc = OCK_EIO;
  return rc;
}
