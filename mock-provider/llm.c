/*
 * llm.c: the LLM endpoints: one request in, the scripted answer (or the right error) out.
 *
 * For each request, in this order: read the body as the real API would (model, messages,
 * max_tokens for Anthropic; a malformed request is a 400 in the provider's envelope); turn
 * the messages into the neutral history and validate it (validate.c); under the state lock
 * count the request, fire a cancel trigger, and decide the answer: the history's 400 (unless
 * observe-only), a seeded random fault, the scripted turn (with its fault), or "unmatched";
 * journal all of that in order; then, outside the lock, build the bytes through the
 * provider's wire (wire.h). The reply's journal entry is deferred until the reply really
 * starts, after the turn's delay.
 *
 * Deterministic ids (SPEC "Deterministic ids"): for turn T of a provider whose hash is H
 * (fixture.c), tool calls are call_H_T_I / toolu_H_T_I, the reply id chatcmpl-H-T / msg_H_T,
 * "created" is 1700000000 + T, and the request-id header is req_H_N for the N-th LLM request.
 */
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults.h"
#include "ock/message.h"
#include "ock/status.h"
#include "script.h"
#include "validate.h"

/* One request, read. */
struct llm_in {
  cJSON *body;             /* owned */
  const cJSON *messages;   /* in body */
  const cJSON *system;     /* Anthropic's "system", or NULL */
  const char *model;       /* in body */
  int stream;
  int include_usage;
  int tools_offered;
  struct ock_history hist;
  int hist_ok;
  char problem[900];       /* non-empty: the request is malformed (400) */
};

enum llm_outcome { OUT_TURN, OUT_INVALID, OUT_HISTORY, OUT_RANDOM, OUT_UNMATCHED };

/* What was decided under the lock. */
struct llm_decision {
  enum llm_outcome outcome;
  int turn;                      /* the turn index, or -1 */
  const struct mock_fault *fault; /* scripted or random; NULL: none */
  int random_rule;               /* the random rule that fired, or -1 */
  unsigned long long index;      /* the request's number over all providers */
  char message[1400];            /* error text for INVALID, HISTORY, UNMATCHED */
  char param[64];                /* OpenAI "param" for HISTORY */
};

static void read_request(const struct mock_request *rq, const struct mock_provider *p,
                         struct llm_in *in) {
  struct ock_jerr jerr;
  const char *path = "$";
  memset(in, 0, sizeof *in);
  ock_history_init(&in->hist);
  int rc = ock_json_parse(rq->body, rq->body_len, &in->body, &jerr);
  if (!rc)
    rc = ock_jcheck_object(in->body, path, &jerr);
  if (!rc)
    rc = ock_jget_nonempty(in->body, path, "model", OCK_REQUIRED, &in->model, &jerr);
  const cJSON *messages = NULL;
  if (!rc)
    rc = ock_jget_array(in->body, path, "messages", OCK_REQUIRED, &messages, &jerr);
  in->messages = messages;
  if (!rc)
    rc = ock_jget_bool(in->body, path, "stream", OCK_OPTIONAL, &in->stream, &jerr);
  const cJSON *tools = NULL;
  if (!rc)
    rc = ock_jget_array(in->body, path, "tools", OCK_OPTIONAL, &tools, &jerr);
  in->tools_offered = tools ? cJSON_GetArraySize(tools) : 0;
  if (!rc && p->api == MOCK_API_OPENAI) {
    const cJSON *so = NULL;
    rc = ock_jget_object(in->body, path, "stream_options", OCK_OPTIONAL, &so, &jerr);
    if (!rc && so)
      rc = ock_jget_bool(so, "$.stream_options", "include_usage", OCK_OPTIONAL,
                         &in->include_usage, &jerr);
  }
  if (!rc && p->api == MOCK_API_ANTHROPIC) {
    long long max_tokens = 0;
    rc = ock_jget_int(in->body, path, "max_tokens", OCK_REQUIRED, 1, 100000000, &max_tokens,
                      &jerr);
    in->system = cJSON_GetObjectItemCaseSensitive(in->body, "system");
  }
  if (!rc) {
    rc = p->api == MOCK_API_OPENAI
             ? ock_history_from_openai(in->messages, &in->hist, &jerr)
             : ock_history_from_anthropic(in->system, in->messages, &in->hist, &jerr);
    in->hist_ok = rc == OCK_OK;
  }
  if (rc)
    snprintf(in->problem, sizeof in->problem, "%s: %s", jerr.where, jerr.what);
}

static cJSON *neutral_json(const struct ock_history *h) {
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(arr, o);
    cJSON_AddStringToObject(o, "role", ock_role_name(m->role));
    if (m->content)
      cJSON_AddStringToObject(o, "content", m->content);
    else
      cJSON_AddNullToObject(o, "content");
    cJSON *calls = cJSON_AddArrayToObject(o, "tool_calls");
    for (size_t c = 0; c < m->n_calls; c++) {
      cJSON *x = cJSON_CreateObject();
      cJSON_AddItemToArray(calls, x);
      cJSON_AddStringToObject(x, "id", m->calls[c].id ? m->calls[c].id : "");
      cJSON_AddStringToObject(x, "name", m->calls[c].name ? m->calls[c].name : "");
      cJSON_AddStringToObject(x, "arguments", m->calls[c].arguments ? m->calls[c].arguments : "");
    }
    if (m->tool_call_id)
      cJSON_AddStringToObject(o, "tool_call_id", m->tool_call_id);
    else
      cJSON_AddNullToObject(o, "tool_call_id");
    cJSON_AddNumberToObject(o, "wire_index", m->wire_index);
  }
  return arr;
}

/* request_entry: the llm_request journal entry, without what the lock decides. */
static cJSON *request_entry(const struct mock_request *rq, const struct mock_provider *p,
                            const struct llm_in *in) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "provider", p->name);
  cJSON_AddStringToObject(e, "api", ock__api_name(p->api));
  cJSON_AddStringToObject(e, "method", rq->method);
  cJSON_AddStringToObject(e, "path", rq->path);
  cJSON_AddBoolToObject(e, "stream", in->stream);
  if (in->model)
    cJSON_AddStringToObject(e, "model", in->model);
  else
    cJSON_AddNullToObject(e, "model");
  cJSON_AddItemToObject(e, "messages", in->messages ? cJSON_Duplicate(in->messages, 1)
                                                    : cJSON_CreateNull());
  if (p->api == MOCK_API_ANTHROPIC)
    cJSON_AddItemToObject(e, "system",
                          in->system ? cJSON_Duplicate(in->system, 1) : cJSON_CreateNull());
  cJSON_AddItemToObject(e, "neutral", in->hist_ok ? neutral_json(&in->hist) : cJSON_CreateNull());
  cJSON_AddNumberToObject(e, "tools_offered", in->tools_offered);
  /* The rest of the body, so the entry holds the whole request without repeating messages. */
  cJSON *params = cJSON_AddObjectToObject(e, "params");
  const cJSON *body = cJSON_IsObject(in->body) ? in->body : NULL;
  const cJSON *m;
  cJSON_ArrayForEach(m, body) {
    if (strcmp(m->string, "messages") && strcmp(m->string, "system"))
      cJSON_AddItemToObject(params, m->string, cJSON_Duplicate(m, 1));
  }
  cJSON_AddItemToObject(e, "headers", ock__headers_json(rq));
  if (in->problem[0])
    cJSON_AddStringToObject(e, "error", in->problem);
  return e;
}

static cJSON *finding_entry(const struct mock_provider *p, const struct mock_finding *f,
                            const cJSON *raw, int answered_400) {
  const struct mock_wire *w = ock__wire_for(p->api);
  struct ock_buf text, param;
  ock_buf_init(&text, 64 * 1024);
  ock_buf_init(&param, 256);
  if (f->blocking)
    w->history_error(f, raw, &param, &text);
  else
    ock_buf_printf(&text,
                   "the results of the parallel calls of messages[%d] are not in call order "
                   "(first out of order: %s); the real APIs accept this, OCK-ORPHAN-005 does not",
                   f->call_index, f->tool_call_id);
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "provider", p->name);
  cJSON_AddStringToObject(e, "shape", ock__shape_name(f->shape));
  cJSON_AddNumberToObject(e, "message_index", f->message_index);
  cJSON_AddStringToObject(e, "tool_call_id", f->tool_call_id);
  cJSON_AddNumberToObject(e, "call_message_index", f->call_index);
  cJSON_AddStringToObject(e, "message", text.data ? text.data : "");
  cJSON_AddBoolToObject(e, "blocking", f->blocking);
  cJSON_AddBoolToObject(e, "answered_400", answered_400);
  ock_buf_free(&text);
  ock_buf_free(&param);
  return e;
}

static cJSON *fault_entry(const struct mock_provider *p, const struct mock_fault *f, int turn,
                          int random_rule) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "fault", ock__fault_kind_name(f->kind));
  cJSON_AddStringToObject(e, "provider", p->name);
  cJSON_AddNumberToObject(e, "turn", turn);
  cJSON_AddBoolToObject(e, "random", random_rule >= 0);
  if (random_rule >= 0)
    cJSON_AddNumberToObject(e, "rule", random_rule);
  if (f->kind == MOCK_FAULT_STATUS || f->status)
    cJSON_AddNumberToObject(e, "status", f->status);
  if (f->retry_after >= 0 && f->kind == MOCK_FAULT_STATUS)
    cJSON_AddNumberToObject(e, "retry_after", f->retry_after);
  if (f->retry_after_ms >= 0 && f->kind == MOCK_FAULT_STATUS)
    cJSON_AddNumberToObject(e, "retry_after_ms", (double)f->retry_after_ms);
  if (f->kind == MOCK_FAULT_DROP_CONNECTION)
    cJSON_AddNumberToObject(e, "after_bytes", (double)f->after);
  else if (f->kind != MOCK_FAULT_STATUS)
    cJSON_AddNumberToObject(e, "after_chunks", (double)f->after);
  return e;
}

/* decide runs under st->lock: counts, triggers, chooses, journals the arrival. */
static void decide(struct mock_state *st, const struct mock_request *rq,
                   const struct mock_provider *p, struct llm_in *in,
                   const struct mock_findings *findings, struct llm_decision *d,
                   struct mock_plan *plan) {
  const struct mock_fixture *fx = st->fx;
  size_t pi = (size_t)(p - fx->providers);
  d->turn = -1;
  d->random_rule = -1;
  d->index = ++st->llm_requests;
  unsigned long long position = ++st->provider_requests[pi];
  const struct mock_finding *block = ock__findings_first_blocking(findings);
  struct ock_buf why;
  ock_buf_init(&why, sizeof d->message - 1);

  if (in->problem[0]) {
    d->outcome = OUT_INVALID;
    snprintf(d->message, sizeof d->message, "%s", in->problem);
  } else if (block && !st->observe_only) {
    d->outcome = OUT_HISTORY;
    struct ock_buf param;
    ock_buf_init(&param, sizeof d->param - 1);
    ock__wire_for(p->api)->history_error(block, in->messages, &param, &why);
    snprintf(d->message, sizeof d->message, "%s", why.data ? why.data : "");
    snprintf(d->param, sizeof d->param, "%s", param.data ? param.data : "");
    ock_buf_free(&param);
  } else {
    d->outcome = OUT_TURN;
    for (size_t i = 0; i < fx->n_randoms && d->random_rule < 0; i++) {
      const struct mock_random *x = &fx->randoms[i];
      if (x->on != MOCK_RANDOM_LLM || (x->target && strcmp(x->target, p->name)))
        continue;
      unsigned long long k = ++st->random_counts[i];
      if (ock__fault_roll(st->seed, i, k, x->probability)) {
        d->outcome = OUT_RANDOM;
        d->random_rule = (int)i;
        d->fault = &x->fault;
      }
    }
    if (d->outcome == OUT_TURN) {
      struct mock_match_input mi;
      ock__match_input_from(&in->hist, (long long)position, &mi);
      d->turn = ock__script_pick(p, st->used[pi], &mi, &why);
      if (d->turn < 0) {
        d->outcome = OUT_UNMATCHED;
        snprintf(d->message, sizeof d->message, "ock mock: unmatched request: %s",
                 why.data ? why.data : "");
      } else if (p->turns[d->turn].fault.kind != MOCK_FAULT_NONE) {
        d->fault = &p->turns[d->turn].fault;
      }
    }
  }
  ock_buf_free(&why);

  cJSON *req = request_entry(rq, p, in);
  cJSON_AddNumberToObject(req, "turn", d->turn);
  cJSON_AddNumberToObject(req, "request_index", (double)d->index);
  cJSON_AddNumberToObject(req, "position", (double)position);
  ock__journal_append(st->journal, "llm_request", req);
  if (fx->cancel.at == MOCK_CANCEL_LLM_REQUEST && (unsigned long long)fx->cancel.n == d->index)
    ock__fire_cancel(st, plan);
  for (size_t i = 0; i < findings->len; i++) {
    const struct mock_finding *f = &findings->items[i];
    ock__journal_append(st->journal, "finding",
                        finding_entry(p, f, in->messages, d->outcome == OUT_HISTORY && f == block));
  }
  if (d->outcome == OUT_UNMATCHED) {
    cJSON *u = cJSON_CreateObject();
    cJSON_AddStringToObject(u, "provider", p->name);
    cJSON_AddNumberToObject(u, "position", (double)position);
    cJSON_AddStringToObject(u, "expected", d->message);
    ock__journal_append(st->journal, "unmatched", u);
  }
  if (d->fault)
    ock__journal_append(st->journal, "fault", fault_entry(p, d->fault, d->turn, d->random_rule));
}

/* reply_entry starts the llm_reply journal entry. */
static cJSON *reply_entry(const struct mock_provider *p, int status, const struct llm_decision *d,
                          const struct mock_answer *a, int stream) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "provider", p->name);
  cJSON_AddNumberToObject(e, "status", status);
  cJSON_AddNumberToObject(e, "turn", d->turn);
  cJSON_AddBoolToObject(e, "stream", stream);
  if (a && a->text)
    cJSON_AddStringToObject(e, "text", a->text);
  else
    cJSON_AddNullToObject(e, "text");
  cJSON *calls = cJSON_AddArrayToObject(e, "tool_calls");
  for (size_t i = 0; a && i < a->n_calls; i++) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddItemToArray(calls, c);
    cJSON_AddStringToObject(c, "id", a->calls[i].id);
    cJSON_AddStringToObject(c, "name", a->calls[i].name);
    cJSON_AddStringToObject(c, "arguments", a->calls[i].arguments);
  }
  if (a)
    cJSON_AddStringToObject(e, "finish_reason", a->finish);
  else
    cJSON_AddNullToObject(e, "finish_reason");
  if (d->fault)
    cJSON_AddStringToObject(e, "fault", ock__fault_kind_name(d->fault->kind));
  else
    cJSON_AddNullToObject(e, "fault");
  if (d->outcome != OUT_TURN && d->outcome != OUT_RANDOM)
    cJSON_AddStringToObject(e, "error", d->message);
  return e;
}

/* record_sent adds the headers that matter and the bytes (parsed body, or SSE events). */
static void record_sent(cJSON *e, const struct mock_plan *plan) {
  cJSON *h = cJSON_AddObjectToObject(e, "headers");
  cJSON_AddStringToObject(h, "content-type", plan->content_type);
  for (size_t i = 0; i < plan->n_headers; i++)
    cJSON_AddStringToObject(h, plan->headers[i].name, plan->headers[i].value);
  if (plan->drop_after >= 0)
    cJSON_AddNumberToObject(e, "drop_after_bytes", (double)plan->drop_after);
  if (plan->stream) {
    cJSON *sse = cJSON_AddArrayToObject(e, "sse");
    for (size_t i = 0; i < plan->body.n; i++)
      cJSON_AddItemToArray(sse, cJSON_CreateString(plan->body.items[i]));
    return;
  }
  cJSON *parsed = plan->body.n ? cJSON_ParseWithLength(plan->body.items[0], plan->body.lens[0])
                               : NULL;
  if (parsed)
    cJSON_AddItemToObject(e, "body", parsed);
  else
    cJSON_AddStringToObject(e, "body", plan->body.n ? plan->body.items[0] : "");
}

static int error_reply(const struct mock_provider *p, const char *request_id, int status,
                       const char *message, const char *param, const struct mock_fault *f,
                       struct mock_plan *plan) {
  const struct mock_wire *w = ock__wire_for(p->api);
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  int rc = w->error_body(status, message, param, request_id, &b);
  if (!rc)
    rc = ock__plan_bytes(plan, status, "application/json", b.data, b.len);
  ock_buf_free(&b);
  if (!rc && f && f->kind == MOCK_FAULT_STATUS && f->retry_after >= 0) {
    if (f->retry_after == (double)(long long)f->retry_after)
      rc = ock__plan_header(plan, "retry-after", "%lld", (long long)f->retry_after);
    else
      rc = ock__plan_header(plan, "retry-after", "%g", f->retry_after);
  }
  if (!rc && f && f->kind == MOCK_FAULT_STATUS && f->retry_after_ms >= 0)
    rc = ock__plan_header(plan, "retry-after-ms", "%lld", f->retry_after_ms);
  return rc;
}

/* answer_reply plays a scripted (or random-faulted) answer into the plan. */
static int answer_reply(const struct mock_provider *p, const struct llm_in *in,
                        const struct llm_decision *d, const struct mock_answer *a,
                        struct mock_plan *plan) {
  const struct mock_wire *w = ock__wire_for(p->api);
  const struct mock_fault *f = d->fault;
  int rc = OCK_OK;
  if (f && f->kind == MOCK_FAULT_STATUS)
    return OCK_OK; /* handled by the caller */
  if (in->stream) {
    plan->stream = 1;
    rc = w->events(a, &plan->body);
    if (!rc && f)
      rc = ock__fault_apply_stream(f, w, a, &plan->body);
    if (f && f->kind == MOCK_FAULT_DROP_CONNECTION)
      plan->drop_after = f->after;
    plan->status = 200;
    plan->content_type = "text/event-stream; charset=utf-8";
    if (!rc)
      rc = ock__plan_header(plan, "cache-control", "no-cache");
    return rc;
  }
  struct ock_buf b;
  ock_buf_init(&b, (size_t)1 << 30);
  rc = w->body(a, &b);
  struct mock_body_fault bf = {0, -1, 0};
  if (f)
    ock__fault_for_body(f, p->api, b.len, &bf);
  if (!rc && bf.status) {
    rc = error_reply(p, NULL, bf.status, f->message, NULL, NULL, plan);
  } else if (!rc) {
    rc = ock__plan_bytes(plan, 200, "application/json", b.data, bf.truncate ? b.len / 2 : b.len);
    plan->drop_after = bf.drop_after;
  }
  ock_buf_free(&b);
  return rc;
}

int ock__serve_llm(struct mock_state *st, const struct mock_request *rq,
                   const struct mock_provider *p, struct mock_plan *plan) {
  struct llm_in in;
  read_request(rq, p, &in);
  struct mock_findings findings = {0};
  int rc = OCK_OK;
  if (!in.problem[0]) {
    rc = ock__validate_history(&in.hist, &findings);
  }
  struct llm_decision d;
  memset(&d, 0, sizeof d);
  if (!rc) {
    pthread_mutex_lock(&st->lock);
    decide(st, rq, p, &in, &findings, &d, plan);
    pthread_mutex_unlock(&st->lock);
  }

  char request_id[48];
  snprintf(request_id, sizeof request_id, "req_%08x_%llu", (unsigned)p->hash, d.index);
  const struct mock_turn *t = d.turn >= 0 ? &p->turns[d.turn] : NULL;
  struct mock_answer a;
  memset(&a, 0, sizeof a);
  struct mock_answer_call *calls = NULL;
  char (*call_ids)[48] = NULL;
  char answer_id[64];
  int answering = !rc && (d.outcome == OUT_TURN || d.outcome == OUT_RANDOM);
  if (answering && t) {
    const struct mock_wire *w = ock__wire_for(p->api);
    calls = calloc(t->n_calls ? t->n_calls : 1, sizeof *calls);
    call_ids = calloc(t->n_calls ? t->n_calls : 1, sizeof *call_ids);
    if (!calls || !call_ids)
      rc = OCK_ENOMEM;
    for (size_t i = 0; !rc && i < t->n_calls; i++) {
      snprintf(call_ids[i], sizeof call_ids[i], "%s%08x_%d_%zu", w->call_prefix, (unsigned)p->hash,
               d.turn, i);
      calls[i].id = call_ids[i];
      calls[i].name = t->calls[i].name;
      calls[i].arguments = t->calls[i].arguments;
      calls[i].raw = t->calls[i].raw;
    }
    if (p->api == MOCK_API_OPENAI)
      snprintf(answer_id, sizeof answer_id, "chatcmpl-%08x-%d", (unsigned)p->hash, d.turn);
    else
      snprintf(answer_id, sizeof answer_id, "msg_%08x_%d", (unsigned)p->hash, d.turn);
    a.id = answer_id;
    a.model = in.model;
    a.created = 1700000000LL + d.turn;
    a.text = t->text;
    a.calls = calls;
    a.n_calls = t->n_calls;
    a.finish = t->finish ? t->finish : t->n_calls ? w->finish_tools : w->finish_text;
    size_t out_len = t->text ? strlen(t->text) : 0;
    for (size_t i = 0; i < t->n_calls; i++)
      out_len += strlen(t->calls[i].arguments);
    a.input_tokens = t->input_tokens >= 0 ? t->input_tokens : (long long)(rq->body_len / 4 + 1);
    a.output_tokens = t->output_tokens >= 0 ? t->output_tokens : (long long)(out_len / 4 + 1);
    a.chunk_size = t->chunk_size;
    a.include_usage = in.include_usage;
    plan->delay_ms = t->delay_ms;
    plan->chunk_delay_ms = t->chunk_delay_ms;
  }

  if (!rc) {
    switch (d.outcome) {
    case OUT_INVALID:
    case OUT_UNMATCHED:
      rc = error_reply(p, request_id, 400, d.message, NULL, NULL, plan);
      break;
    case OUT_HISTORY:
      rc = error_reply(p, request_id, 400, d.message,
                       p->api == MOCK_API_OPENAI ? d.param : NULL, NULL, plan);
      break;
    case OUT_RANDOM:
    case OUT_TURN:
      if (d.fault && d.fault->kind == MOCK_FAULT_STATUS) {
        rc = error_reply(p, request_id, d.fault->status, d.fault->message, NULL, d.fault, plan);
      } else if (t) {
        rc = answer_reply(p, &in, &d, &a, plan);
      } else {
        /* A random stream fault needs an answer to cut: there is no turn, so use an empty
         * one; the turn stays unused for the retry. */
        const struct mock_wire *w = ock__wire_for(p->api);
        snprintf(answer_id, sizeof answer_id, "%s%08x-r%llu",
                 p->api == MOCK_API_OPENAI ? "chatcmpl-" : "msg_", (unsigned)p->hash, d.index);
        a.id = answer_id;
        a.model = in.model;
        a.created = 1700000000LL;
        a.finish = w->finish_text;
        a.text = "";
        a.input_tokens = (long long)(rq->body_len / 4 + 1);
        a.output_tokens = 1;
        a.chunk_size = 8;
        a.include_usage = in.include_usage;
        rc = answer_reply(p, &in, &d, &a, plan);
      }
      break;
    }
  }
  if (!rc)
    rc = ock__plan_header(plan, ock__wire_for(p->api)->request_id_header, "%s", request_id);
  if (!rc) {
    int answered = answering && (!d.fault || d.fault->kind != MOCK_FAULT_STATUS);
    cJSON *e = reply_entry(p, plan->status, &d, answered ? &a : NULL, plan->stream);
    record_sent(e, plan);
    ock__plan_defer(plan, "llm_reply", e);
  }
  free(calls);
  free(call_ids);
  ock__findings_free(&findings);
  ock_history_free(&in.hist);
  cJSON_Delete(in.body);
  return rc;
}
