/*
 * tools.c: POST /ock/v1/tools/{name}, the scripted tools.
 *
 * The request is {"tool_call_id", "input"}; the reply is the fixture's ToolResult for that
 * call of that tool (calls[i] for the (i+1)-th call, else the tool's default), with its
 * status and delay, or a seeded random failure. A tool the session does not list gets 404
 * and is journaled with known:false: the harness checks that a SUT never calls a tool the
 * model invented. tool_start is journaled on arrival, tool_end as the reply goes out (after
 * the delay; with "reply": null when the client had gone), so the journal shows how long the
 * tool "ran". ock__tool_call is the part shared with tools/call over MCP (mcp.c): the same
 * scripted result, status, delay, random fault and journal entries for either door.
 */
#include "state.h"

#include <stdio.h>
#include <string.h>

#include "faults.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/status.h"

static cJSON *failure(const char *type, const char *message) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddBoolToObject(r, "success", 0);
  cJSON_AddNullToObject(r, "output");
  cJSON *e = cJSON_AddObjectToObject(r, "error");
  cJSON_AddStringToObject(e, "type", type);
  cJSON_AddStringToObject(e, "message", message);
  return r;
}

/* default_result: what a call without a scripted result answers (SPEC 8.5). */
static cJSON *default_result(int status) {
  char msg[64];
  if (status != 200) {
    snprintf(msg, sizeof msg, "ock: scripted HTTP %d", status);
    return failure("http_error", msg);
  }
  cJSON *r = cJSON_CreateObject();
  cJSON_AddBoolToObject(r, "success", 1);
  cJSON_AddStringToObject(r, "output", "ok");
  cJSON_AddNullToObject(r, "error");
  return r;
}

/* tool_end: the entry for a reply that went out. */
static cJSON *tool_end(const char *name, const char *id, int status, const cJSON *reply) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, OCK_F_TOOL_END_NAME, name);
  cJSON_AddItemToObject(e, OCK_F_TOOL_END_TOOL_CALL_ID,
                        id ? cJSON_CreateString(id) : cJSON_CreateNull());
  cJSON_AddNumberToObject(e, OCK_F_TOOL_END_STATUS, status);
  cJSON_AddItemToObject(e, OCK_F_TOOL_END_REPLY,
                        reply ? cJSON_Duplicate(reply, 1) : cJSON_CreateNull());
  return e;
}

/* tool_gone: the entry for a reply that was abandoned: no reply, client_gone. */
static cJSON *tool_gone(const cJSON *sent) {
  cJSON *e = cJSON_Duplicate(sent, 1);
  cJSON_ReplaceItemInObjectCaseSensitive(e, OCK_F_TOOL_END_REPLY, cJSON_CreateNull());
  cJSON_AddBoolToObject(e, OCK_F_TOOL_END_CLIENT_GONE, 1);
  return e;
}

/* add_extra copies the members of extra (may be NULL) to the end of e. */
static void add_extra(cJSON *e, const cJSON *extra) {
  const cJSON *m;
  cJSON_ArrayForEach(m, extra) {
    cJSON_AddItemToObject(e, m->string, cJSON_Duplicate(m, 1));
  }
}

static cJSON *id_json(const char *id) {
  return id ? cJSON_CreateString(id) : cJSON_CreateNull();
}

/* start_entry: the tool_start entry of a call, as it arrived. */
static cJSON *start_entry(const struct mock_request *rq, const struct mock_tool_call *c,
                          int known) {
  cJSON *start = cJSON_CreateObject();
  cJSON_AddStringToObject(start, OCK_F_TOOL_START_NAME, c->name);
  cJSON_AddItemToObject(start, OCK_F_TOOL_START_TOOL_CALL_ID, id_json(c->id));
  cJSON_AddItemToObject(start, OCK_F_TOOL_START_INPUT, cJSON_Duplicate(c->input, 1));
  cJSON_AddBoolToObject(start, OCK_F_TOOL_START_KNOWN, known);
  cJSON_AddItemToObject(start, OCK_F_TOOL_START_HEADERS, ock__headers_json(rq));
  add_extra(start, c->extra);
  return start;
}

/* random_fault: when one of the fixture's random tool faults fires on this call, replaces
 * *reply and *status by its HTTP error and journals the fault. Under st->lock. */
static void random_fault(struct mock_state *st, const struct mock_tool_call *c, cJSON **reply,
                         int *status) {
  const struct ock_fixture *fx = st->fx;
  for (size_t i = 0; i < fx->n_randoms; i++) {
    const struct ock_fx_random *x = &fx->randoms[i];
    if (x->on != OCK_FX_RANDOM_TOOL || (x->target && strcmp(x->target, c->name)))
      continue;
    unsigned long long k = ++st->random_counts[i];
    if (!ock__fault_roll(st->seed, i, k, x->probability))
      continue;
    char msg[160];
    snprintf(msg, sizeof msg, "ock: random fault: HTTP %d", x->status);
    cJSON_Delete(*reply);
    *reply = failure("http_error", msg);
    *status = x->status;
    cJSON *f = cJSON_CreateObject();
    cJSON *d = cJSON_AddObjectToObject(f, OCK_F_FAULT_FAULT);
    cJSON_AddStringToObject(d, "kind", "status");
    cJSON_AddNumberToObject(d, "status", x->status);
    cJSON_AddBoolToObject(f, OCK_F_FAULT_RANDOM, 1);
    cJSON_AddNumberToObject(f, OCK_F_FAULT_RULE, (double)i);
    cJSON_AddStringToObject(f, OCK_F_FAULT_TOOL, c->name);
    cJSON_AddItemToObject(f, OCK_F_FAULT_TOOL_CALL_ID, id_json(c->id));
    cJSON_AddNumberToObject(f, OCK_F_FAULT_STATUS, *status);
    ock__journal_append(st->journal, OCK_KIND_FAULT, f);
    return;
  }
}

/* scripted_reply: the reply of the call's turn in the tool's script (404 for a tool the
 * scenario does not have), its status and its delay. Under st->lock: it counts the call. */
static cJSON *scripted_reply(struct mock_state *st, const struct ock_fx_tool *t,
                             const struct mock_tool_call *c, int *status, long long *delay) {
  if (!t) {
    char msg[200];
    snprintf(msg, sizeof msg, "tool '%.100s' is not in this scenario", c->name);
    *status = 404;
    return failure("not_found", msg);
  }
  unsigned long long n = ++st->tool_calls[t - st->fx->tools];
  const struct ock_fx_tool_reply *r = n <= t->n_calls ? &t->calls[n - 1] : &t->dflt;
  *status = r->status;
  *delay = r->delay_ms;
  cJSON *reply = r->result ? cJSON_Duplicate(r->result, 1) : default_result(*status);
  random_fault(st, c, &reply, status);
  return reply;
}

int ock__tool_call(struct mock_state *st, const struct mock_request *rq, struct mock_tool_call *c,
                   struct mock_plan *plan) {
  const struct ock_fx_tool *t = ock_fixture_tool(st->fx, c->name);
  int status = 200;
  long long delay = 0;

  pthread_mutex_lock(&st->lock);
  if (c->resolve)
    c->resolve(st, c);
  ock__journal_append(st->journal, OCK_KIND_TOOL_START, start_entry(rq, c, t != NULL));
  cJSON *reply = scripted_reply(st, t, c, &status, &delay);
  plan->delay_ms += delay;
  ock__cancel_on_arrival(st, OCK_FX_CANCEL_TOOL, c->name, 0, plan);
  pthread_mutex_unlock(&st->lock);

  cJSON *end = tool_end(c->name, c->id, status, reply);
  add_extra(end, c->extra);
  int rc = ock__plan_defer(plan, OCK_KIND_TOOL_END, end, tool_gone);
  c->known = t != NULL;
  c->status = status;
  c->reply = reply;
  return reply && !rc ? OCK_OK : OCK_ENOMEM;
}

int ock__serve_tool(struct mock_state *st, const struct mock_request *rq, const char *name,
                    struct mock_plan *plan) {
  cJSON *body = NULL;
  struct ock_jerr jerr;
  const char *id = NULL;
  int rc = ock_json_parse(rq->body, rq->body_len, &body, &jerr);
  if (!rc)
    rc = ock_jcheck_object(body, "$", &jerr);
  if (!rc)
    rc = ock_jget_string(body, "$", "tool_call_id", OCK_REQUIRED, &id, &jerr);
  const cJSON *input = body ? cJSON_GetObjectItemCaseSensitive(body, "input") : NULL;
  if (!rc && !input)
    rc = ock_jerr_set(&jerr, OCK_EMISSING, "$.input", "required; expected the tool's input");
  if (rc) {
    char msg[900];
    snprintf(msg, sizeof msg,
             "a tool call must be {\"tool_call_id\": ID, \"input\": {...}}: %s: %s", jerr.where,
             jerr.what);
    cJSON_Delete(body);
    return ock__serve_http_error(st, rq, 400, "invalid_request", msg, plan);
  }
  struct mock_tool_call c = {.name = name, .id = id, .input = input};
  rc = ock__tool_call(st, rq, &c, plan);
  if (!rc)
    rc = ock__plan_json(plan, c.status, c.reply);
  cJSON_Delete(body);
  return rc;
}
