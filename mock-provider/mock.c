/*
 * mock.c: the public API of mock.h, and the thin libmicrohttpd edge.
 *
 * libmicrohttpd serves every connection from a pool of MOCK_THREADS event-loop threads (epoll),
 * so a handler never sleeps: a turn's delay suspends the connection in the access handler,
 * before the status line goes out, and a stream's content reader suspends it between pieces;
 * the sleeper (sleeper.h) resumes it when the time is up, when the client went away, or when
 * the mock stops. A thread per connection, the earlier design, spent a third of the mock's CPU
 * switching between those threads under load (bench/RESULTS.md). Everything the mock decides is
 * decided by routes.c and the handlers into a plan (plan.h); this file only reads the request
 * (body capped at 8 MiB, through core's request skeleton, ock/http_request.h, which the mutant's
 * proxy shares), plays the plan, and manages the daemon's life.
 */
#include "ock/caps.h"
#include "ock/mock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "ock/fixture.h"
#include "guard.h"
#include "ock/http_request.h"
#include "ock/status.h"
#include "listener.h"
#include "ock/utf8.h"
#include "sleeper.h"
#include "state.h"

#define MOCK_IDLE_TIMEOUT_S 30
/* The event-loop threads. Two per core of a two-core test machine: a thread the scheduler
 * preempts (for the SUT, or a load generator on the same cores) stalls only its quarter of the
 * connections. Under make bench's load, 4 served 10-40% more requests than 2, and 6 or 8 no more
 * than 4 (bench/RESULTS.md). */
#define MOCK_THREADS 4
#define MOCK_MAX_THREADS 64

struct ock_mock {
  struct mock_state *st;
  struct ock_mock_options opt;
  char bind[64]; /* the address to bind, copied from the options */
  struct MHD_Daemon *daemon;
  struct mock_guard *guard;       /* connection cap and request deadline, while started */
  struct mock_sleeper *sleeper;   /* holds the connections that wait, while started */
  struct mock_listener *listener; /* accepts the connections, while started */
  atomic_int stopping;            /* set first by ock_mock_stop; waits and streams watch it */
  pthread_mutex_t life;           /* serialises start and stop */
  int port;
  char url[96];
};

/* One plan being played by the content reader. */
struct player {
  ock_mock *m;
  struct MHD_Connection *conn;
  struct mock_plan *plan;
  size_t piece;  /* the piece being sent */
  size_t off;    /* bytes of it already sent */
  int waited;    /* the pause before this piece is over */
  int journaled; /* the deferred entry (or the gone one) is in the journal */
};

/* peer_gone: has the client closed its end (ock/http_request.h)? c may be NULL. */
static int peer_gone(struct MHD_Connection *c) {
  return ock_http_peer_gone(ock_http_connection_fd(c));
}

/* still_wanted: after a wait, is the reply still wanted: the mock is not stopping and the
 * client did not go away meanwhile? (Without a wait the socket is not asked: a client closing
 * now could as well close just after the question, which was a system call a request.) */
static int still_wanted(ock_mock *m, struct MHD_Connection *c) {
  return !atomic_load(&m->stopping) && !peer_gone(c);
}

static void free_plan(struct mock_plan *plan) {
  if (!plan)
    return;
  ock__plan_free(plan);
  free(plan);
}

/* journal_deferred adds the plan's entry for a reply that went out (gone = 0) or was abandoned
 * (gone = 1), once. */
static void journal_deferred(ock_mock *m, struct mock_plan *plan, int gone) {
  char *text = plan->deferred;
  plan->deferred = NULL;
  if (text && !gone) {
    ock__journal_append_text(m->st->journal, plan->deferred_kind, text, NULL);
  } else if (text && plan->deferred_gone) {
    cJSON *sent = cJSON_Parse(text); /* rare: an abandoned reply */
    cJSON *e = sent ? plan->deferred_gone(sent) : NULL;
    cJSON_Delete(sent);
    if (e)
      ock__journal_append(m->st->journal, plan->deferred_kind, e);
  }
  free(text);
  plan->deferred_gone = NULL;
}

/* play hands MHD the plan's bytes, one piece (one HTTP chunk when streaming) at a time. The
 * reply's journal entry goes in just before its last bytes, so it precedes anything the
 * client does after reading them. */
static ssize_t play(void *cls, uint64_t pos, char *buf, size_t max) {
  struct player *pl = cls;
  struct mock_plan *plan = pl->plan;
  if (atomic_load(&pl->m->stopping))
    return MHD_CONTENT_READER_END_WITH_ERROR;
  if (plan->drop_after >= 0 && pos >= (uint64_t)plan->drop_after)
    return MHD_CONTENT_READER_END_WITH_ERROR;
  while (pl->piece < plan->body.n && pl->off >= plan->body.lens[pl->piece]) {
    pl->piece++;
    pl->off = 0;
    pl->waited = 0;
  }
  if (pl->piece >= plan->body.n) {
    if (!pl->journaled)
      journal_deferred(pl->m, plan, 0);
    pl->journaled = 1;
    return MHD_CONTENT_READER_END_OF_STREAM;
  }
  if (pl->off == 0 && pl->piece > 0 && plan->chunk_delay_ms > 0) {
    /* The pause before a piece: 0 bytes now, and libmicrohttpd asks again once resumed. */
    if (!pl->waited) {
      pl->waited = 1;
      return ock__sleeper_wait(pl->m->sleeper, pl->conn, plan->chunk_delay_ms)
                 ? 0
                 : MHD_CONTENT_READER_END_WITH_ERROR;
    }
    if (!still_wanted(pl->m, pl->conn))
      return MHD_CONTENT_READER_END_WITH_ERROR;
  }
  size_t n = plan->body.lens[pl->piece] - pl->off;
  if (n > max)
    n = max;
  int last = pl->piece + 1 == plan->body.n && pl->off + n == plan->body.lens[pl->piece];
  if (plan->drop_after >= 0 && (uint64_t)n >= (uint64_t)plan->drop_after - pos) {
    n = (size_t)((uint64_t)plan->drop_after - pos);
    last = 1;
  }
  if (last && !pl->journaled) {
    journal_deferred(pl->m, plan, 0);
    pl->journaled = 1;
  }
  memcpy(buf, plan->body.items[pl->piece] + pl->off, n);
  pl->off += n;
  return (ssize_t)n;
}

static void free_player(void *cls) {
  struct player *pl = cls;
  if (!pl->journaled)
    journal_deferred(pl->m, pl->plan, 1);
  free_plan(pl->plan);
  free(pl);
}

/* respond queues the plan; takes ownership of it. Streams, slow pieces and drops are played
 * through the content reader, so their journal entry follows their bytes, or says they were
 * abandoned. Any other reply leaves in one piece right away (header and body in one write):
 * its entry goes in now, before its first byte, so it still precedes anything the client does
 * after reading it. */
static enum MHD_Result respond(ock_mock *m, struct MHD_Connection *c, struct mock_plan *plan) {
  struct MHD_Response *resp;
  int played = plan->stream || plan->drop_after >= 0 || plan->chunk_delay_ms > 0;
  if (!played)
    journal_deferred(m, plan, 0);
  if (played) {
    struct player *pl = calloc(1, sizeof *pl);
    if (!pl) {
      free_plan(plan);
      return MHD_NO;
    }
    pl->m = m;
    pl->conn = c;
    pl->plan = plan;
    uint64_t size = plan->stream ? MHD_SIZE_UNKNOWN : (uint64_t)ock_chunks_total(&plan->body);
    /* The block is allocated (and zeroed) per reply: size it to the reply, up to 64 KiB. */
    size_t total = ock_chunks_total(&plan->body);
    size_t block = total < 1024 ? 1024 : total > 64 * 1024 ? 64 * 1024 : total;
    resp = MHD_create_response_from_callback(size, block, play, pl, free_player);
    if (!resp) {
      free_player(pl);
      return MHD_NO;
    }
  } else {
    size_t len = plan->body.n ? plan->body.lens[0] : 0;
    resp = MHD_create_response_from_buffer(len, plan->body.n ? plan->body.items[0] : (void *)"",
                                           MHD_RESPMEM_MUST_COPY);
    if (!resp) {
      free_plan(plan);
      return MHD_NO;
    }
  }
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, plan->content_type);
  for (size_t i = 0; i < plan->n_headers; i++)
    MHD_add_response_header(resp, plan->headers[i].name, plan->headers[i].value);
  enum MHD_Result ret = MHD_queue_response(c, (unsigned)plan->status, resp);
  MHD_destroy_response(resp);
  if (!played)
    free_plan(plan);
  return ret;
}

static const char *request_header(void *conn, const char *name) {
  return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

static const char *request_query(void *conn, const char *name) {
  return MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, name);
}

/* answer queues the plan's reply once its delay is over; takes ownership of the plan. */
static enum MHD_Result answer(ock_mock *m, struct MHD_Connection *c, struct mock_plan *plan) {
  if (atomic_load(&m->stopping)) {
    journal_deferred(m, plan, 1);
    free_plan(plan);
    return MHD_NO;
  }
  if (plan->drop_after == 0) { /* SPEC 6.6: closed before any response byte */
    journal_deferred(m, plan, 0);
    free_plan(plan);
    return MHD_NO;
  }
  return respond(m, c, plan);
}

/* answer_held: the request's delay is over (libmicrohttpd called the handler again after the
 * sleeper resumed the connection): its reply goes out, unless nobody waits for it any more. */
static enum MHD_Result answer_held(ock_mock *m, struct MHD_Connection *c,
                                   struct ock_http_request *r) {
  struct mock_plan *plan = r->held;
  r->held = NULL;
  if (!still_wanted(m, c)) {
    journal_deferred(m, plan, 1);
    free_plan(plan);
    return MHD_NO;
  }
  return answer(m, c, plan);
}

/* serve routes a complete request and queues the reply, or holds it through its delay. A
 * request answered before its body was read (r->answered) is never a turn, so never delayed:
 * its connection goes on reading the body, and could not come back to a held reply. */
static enum MHD_Result serve(ock_mock *m, struct MHD_Connection *c, const char *url,
                             const char *method, struct ock_http_request *r) {
  /* The path (percent-decoded) and the trace header reach the journal: '?' for every byte
   * that is not UTF-8, so the journal is always valid JSON text. */
  const char *trace_id = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-OCK-Trace-Id");
  char *path = strdup(url), *trace = trace_id ? strdup(trace_id) : NULL;
  if (!path || (trace_id && !trace)) {
    free(path);
    free(trace);
    return MHD_NO;
  }
  ock_utf8_scrub(path);
  if (trace)
    ock_utf8_scrub(trace);
  struct mock_request rq = {
      .method = method,
      .path = path,
      .body = r->body.data ? r->body.data : "",
      .body_len = r->body.len,
      .body_too_big = r->too_big,
      .trace_id = trace,
      .header = request_header,
      .query = request_query,
      .conn = c,
  };
  struct mock_plan *plan = malloc(sizeof *plan);
  if (!plan) {
    free(path);
    free(trace);
    return MHD_NO;
  }
  ock__plan_init(plan);
  int routed = ock__route(m->st, &rq, plan); /* the plan keeps copies, not rq's strings */
  free(path);
  free(trace);
  if (routed) {
    ock__plan_free(plan);
    ock__plan_init(plan);
    static const char oom[] = "{\"error\":{\"type\":\"internal\",\"message\":\"out of memory\"}}";
    if (ock__plan_bytes(plan, 500, "application/json", oom, sizeof oom - 1)) {
      free_plan(plan);
      return MHD_NO;
    }
  }
  if (plan->cancel && m->opt.on_cancel)
    m->opt.on_cancel(m->opt.user);
  if (plan->delay_ms > 0 && !r->answered) {
    r->held = plan;
    if (ock__sleeper_wait(m->sleeper, c, plan->delay_ms))
      return MHD_YES; /* answer_held goes on */
    r->held = NULL;
    journal_deferred(m, plan, 1);
    free_plan(plan);
    return MHD_NO;
  }
  return answer(m, c, plan);
}

#define OCK_STR_(x) #x
#define OCK_STR(x) OCK_STR_(x)

/* watch_of: the guard's watch of the connection (guard.h), or NULL. */
static struct mock_watch *watch_of(struct MHD_Connection *c) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info ? info->socket_context : NULL;
}

/* refuse queues an error before the body is read, in the envelope both wires' clients parse
 * ({"error":{"type","message"}}), and closes the connection after it. */
static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, const char *type,
                              const char *message) {
  return ock_http_queue_json_error(c, status, type, message, 1);
}

struct lengths {
  const char *first;
  int conflict;
};

static enum MHD_Result each_length(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value) {
  struct lengths *l = cls;
  (void)kind;
  if (!key || strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
    return MHD_YES;
  if (!l->first)
    l->first = value ? value : "";
  else if (strcmp(l->first, value ? value : ""))
    l->conflict = 1;
  return MHD_YES;
}

/* content_lengths_conflict: two Content-Length headers that differ (RFC 9112 6.3 makes that an
 * unrecoverable framing error; identical repeats are allowed). */
static int content_lengths_conflict(struct MHD_Connection *c) {
  struct lengths l = {0};
  MHD_get_connection_values(c, MHD_HEADER_KIND, each_length, &l);
  return l.conflict;
}

/* admit applies the mock's policy to a request whose headers are in and whose body is not:
 * the connection cap, conflicting lengths and a length past the cap are answered before a
 * byte of the body is read. */
static enum MHD_Result admit(ock_mock *m, struct MHD_Connection *c, const char *url,
                             const char *method, struct ock_http_request *r) {
  if (ock__guard_open_count(m->guard) > OCK_MAX_MOCK_CONNECTIONS) {
    r->answered = 1;
    return refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, "overloaded",
                  "ock-mock-provider serves at most " OCK_STR(
                      OCK_MAX_MOCK_CONNECTIONS) " connections at once, and that many are open; "
                                                "retry when one closes");
  }
  if (content_lengths_conflict(c)) {
    r->answered = 1;
    return refuse(c, MHD_HTTP_BAD_REQUEST, "invalid_request_error",
                  "the request has two Content-Length headers with different values");
  }
  const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
  if (cl) {
    char *end = NULL;
    errno = 0;
    unsigned long long n = strtoull(cl, &end, 10);
    if (errno || end == cl || n > OCK_MAX_MOCK_BODY)
      r->too_big = 1;
    /* Past the cap the body is read and dropped, so the client, still sending, gets its
     * 413 instead of a reset; only an absurd length is refused before a byte is read. */
    if (errno || end == cl || n > OCK_MAX_MOCK_DRAIN) {
      r->answered = 1;
      return serve(m, c, url, method, r);
    }
  }
  return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls) {
  ock_mock *m = cls;
  struct ock_http_request *r;
  (void)version;
  switch (ock_http_request_read(req_cls, OCK_MAX_MOCK_BODY, upload_data, upload_data_size, &r)) {
  case OCK_HTTP_NEW:
    return admit(m, c, url, method, r);
  case OCK_HTTP_MORE:
    return MHD_YES;
  case OCK_HTTP_READY:
    if (r->held)
      return answer_held(m, c, r);
    ock__guard_read(watch_of(c));
    return serve(m, c, url, method, r);
  case OCK_HTTP_NOMEM:
    break;
  }
  return MHD_NO;
}

/* on_connection: every connection is watched by the guard from its start to its close. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe) {
  ock_mock *m = cls;
  if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    *socket_context = ock__guard_open(m->guard, info ? info->connect_fd : -1);
  } else {
    ock__guard_close(m->guard, *socket_context);
    *socket_context = NULL;
  }
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe) {
  struct ock_http_request *r = *req_cls;
  if (r && r->held) { /* closed while its reply waited */
    journal_deferred(cls, r->held, 1);
    free_plan(r->held);
    r->held = NULL;
  }
  ock__guard_replied(watch_of(c));
  ock_http_request_completed(cls, c, req_cls, toe);
}

/* mock_make: a stopped mock playing fx; owned (fx or NULL) is freed with it, also on failure. */
static int mock_make(const struct ock_fixture *fx, struct ock_fixture *owned,
                     const struct ock_mock_options *opt, ock_mock **out, struct ock_jerr *err) {
  struct ock_mock_options o = {0};
  if (opt)
    o = *opt;
  const char *bind = o.bind_address ? o.bind_address : "127.0.0.1";
  int rc = OCK_OK;
  if (strlen(bind) >= sizeof((struct ock_mock *)0)->bind)
    rc = ock_jerr_set(err, OCK_EINVAL, "bind_address", "too long: \"%.80s\"", bind);
  else if (o.port < 0 || o.port > 65535)
    rc = ock_jerr_set(err, OCK_EINVAL, "port", "expected 0 to 65535, got %d", o.port);
  else if (o.threads > MOCK_MAX_THREADS)
    rc = ock_jerr_set(err, OCK_EINVAL, "threads", "expected 0 to %d, got %u", MOCK_MAX_THREADS,
                      o.threads);
  ock_mock *m = rc ? NULL : calloc(1, sizeof *m);
  if (!m) {
    ock_fixture_free(owned);
    return rc ? rc : ock_jerr_set(err, OCK_ENOMEM, "$", "out of memory");
  }
  int observe = o.observe_only || fx->observe_only;
  unsigned long long seed = o.seed ? o.seed : fx->seed;
  rc = ock__state_new(fx, owned, observe, seed,
                      o.max_journal_entries ? o.max_journal_entries : OCK_MAX_MOCK_JOURNAL_ENTRIES,
                      o.stored_responses ? o.stored_responses : OCK_MAX_MOCK_STORED_RESPONSES,
                      &m->st);
  if (rc || pthread_mutex_init(&m->life, NULL)) {
    if (!rc)
      ock__state_free(m->st);
    free(m);
    return ock_jerr_set(err, OCK_ENOMEM, "$", "out of memory");
  }
  m->opt = o;
  snprintf(m->bind, sizeof m->bind, "%s", bind);
  m->opt.bind_address = m->bind;
  atomic_init(&m->stopping, 0);
  *out = m;
  return OCK_OK;
}

int ock_mock_new(const cJSON *fixture, const struct ock_mock_options *opt, ock_mock **out,
                 struct ock_jerr *err) {
  struct ock_fixture *fx = NULL;
  int rc = ock_fixture_load(fixture, NULL, &fx, err);
  return rc ? rc : mock_make(fx, fx, opt, out, err);
}

int ock_mock_new_fixture(const struct ock_fixture *fixture, const struct ock_mock_options *opt,
                         ock_mock **out, struct ock_jerr *err) {
  if (!fixture)
    return ock_jerr_set(err, OCK_EINVAL, "$", "no fixture given");
  return mock_make(fixture, NULL, opt, out, err);
}

/* stop_parts stops what ock_mock_start started, in the order that lets each go: no new
 * connection, no suspended one, the daemon's threads, then the guard they used. */
static void stop_parts(ock_mock *m) {
  ock__listener_free(m->listener);
  m->listener = NULL;
  ock__sleeper_stop(m->sleeper); /* MHD_stop_daemon must find no suspended connection */
  if (m->daemon)
    MHD_stop_daemon(m->daemon);
  m->daemon = NULL;
  ock__sleeper_free(m->sleeper);
  m->sleeper = NULL;
  ock__guard_free(m->guard);
  m->guard = NULL;
}

/* The connections open at once: the cap, and those past it that are told 503 (SPEC.md 6.8). */
#define MOCK_OPEN_MAX (OCK_MAX_MOCK_CONNECTIONS + OCK_MAX_MOCK_OVERFLOW_CONNECTIONS)

/* start_daemon: libmicrohttpd's threads, fed by the listener (listener.h), which keeps the
 * connections under MOCK_OPEN_MAX. libmicrohttpd's own limit is set where no thread can reach
 * it (twice MOCK_OPEN_MAX for each): libmicrohttpd 0.9.75 leaves a lock held when a connection
 * handed to it meets its limit, and the thread then hangs on its next connection. */
static struct MHD_Daemon *start_daemon(ock_mock *m) {
  unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                       MHD_USE_NO_LISTEN_SOCKET | MHD_USE_SUPPRESS_DATE_NO_CLOCK;
  unsigned int threads = m->opt.threads ? m->opt.threads : MOCK_THREADS;
  return MHD_start_daemon(flags, 0, NULL, NULL, on_request, m, MHD_OPTION_CONNECTION_TIMEOUT,
                          (unsigned int)MOCK_IDLE_TIMEOUT_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                          OCK_MAX_MOCK_HEADER_MEMORY, MHD_OPTION_CONNECTION_LIMIT,
                          2 * MOCK_OPEN_MAX * threads, MHD_OPTION_THREAD_POOL_SIZE, threads,
                          MHD_OPTION_NOTIFY_CONNECTION, on_connection, m,
                          MHD_OPTION_NOTIFY_COMPLETED, on_completed, m, MHD_OPTION_END);
}

int ock_mock_start(ock_mock *m, struct ock_jerr *err) {
  pthread_mutex_lock(&m->life);
  if (m->daemon || atomic_load(&m->stopping)) {
    pthread_mutex_unlock(&m->life);
    return ock_jerr_set(err, OCK_ESTATE, "ock_mock_start", "already started (or stopped)");
  }
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
  socklen_t len = sizeof *v4;
  int is6 = 0;
  if (inet_pton(AF_INET, m->bind, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)m->opt.port);
  } else if (inet_pton(AF_INET6, m->bind, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)m->opt.port);
    len = sizeof *v6;
    is6 = 1;
  } else {
    pthread_mutex_unlock(&m->life);
    return ock_jerr_set(err, OCK_EINVAL, "bind_address",
                        "\"%s\" is not a numeric IPv4 or IPv6 address", m->bind);
  }
  int rc = ock__listener_open((struct sockaddr *)&ss, len, &m->listener);
  if (rc) {
    pthread_mutex_unlock(&m->life);
    return rc == OCK_EIO ? ock_jerr_set(err, OCK_EIO, "ock_mock_start",
                                        "cannot serve on %s port %d (in use, or not an address "
                                        "of this host)",
                                        m->bind, m->opt.port)
                         : ock_jerr_set(err, OCK_ENOMEM, "ock_mock_start", "out of memory");
  }
  if (ock__guard_new(m->opt.request_timeout_ms, &m->guard) || ock__sleeper_new(&m->sleeper) ||
      !(m->daemon = start_daemon(m)) ||
      ock__listener_start(m->listener, m->daemon, m->guard, MOCK_OPEN_MAX)) {
    stop_parts(m);
    pthread_mutex_unlock(&m->life);
    return ock_jerr_set(err, OCK_ENOMEM, "ock_mock_start",
                        "cannot start the server's threads (out of memory or threads)");
  }
  m->port = ock__listener_port(m->listener);
  snprintf(m->url, sizeof m->url, is6 ? "http://[%s]:%d" : "http://%s:%d", m->bind, m->port);
  pthread_mutex_lock(&m->st->lock);
  snprintf(m->st->url, sizeof m->st->url, "%s", m->url);
  pthread_mutex_unlock(&m->st->lock);
  ock__journal_reset_epoch(m->st->journal);
  pthread_mutex_unlock(&m->life);
  return OCK_OK;
}

const char *ock_mock_url(const ock_mock *m) {
  return m->url;
}

int ock_mock_port(const ock_mock *m) {
  return m->port;
}

cJSON *ock_mock_journal(ock_mock *m) {
  return ock__journal_snapshot(m->st->journal);
}

cJSON *ock_mock_journal_take(ock_mock *m) {
  return ock__journal_take(m->st->journal);
}

size_t ock_mock_journal_dropped(ock_mock *m) {
  return ock__journal_dropped(m->st->journal);
}

int ock_mock_write_journal(ock_mock *m, FILE *f) {
  return ock__journal_write(m->st->journal, f);
}

void ock_mock_stop(ock_mock *m) {
  if (!m)
    return;
  pthread_mutex_lock(&m->life);
  atomic_store(&m->stopping, 1);
  stop_parts(m);
  pthread_mutex_unlock(&m->life);
}

void ock_mock_free(ock_mock *m) {
  if (!m)
    return;
  ock_mock_stop(m);
  ock__state_free(m->st);
  pthread_mutex_destroy(&m->life);
  free(m);
}
