/* fuzz_gen.c: drawing and shrinking random sessions (see fuzz_gen.h). */
#include "run/fuzz_gen.h"

#include <stdio.h>
#include <string.h>
#include "ock/caps.h"
#include "ock/contract.h"

const char *const ock__fuzz_universal_requirements[] = {
    "OCK-COMPLETE-001", "OCK-COMPLETE-002", "OCK-COMPLETE-003",
    "OCK-COMPLETE-004", "OCK-COMPLETE-005", "OCK-ORDER-001",
    "OCK-ORDER-002",    "OCK-ORDER-003",    "OCK-ORDER-004",
    "OCK-ORDER-007",    "OCK-ORPHAN-001",   "OCK-ORPHAN-002",
    "OCK-ORPHAN-003",   "OCK-ORPHAN-004",   "OCK-ORPHAN-005",
    "OCK-ORPHAN-006",   "OCK-ORPHAN-007",   "OCK-PROC-001",
    "OCK-PROC-002",     "OCK-PROC-003",     NULL};

/* splitmix64: small, well-mixed, and the same on every machine. */
static unsigned long long next(unsigned long long *s) {
  unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static int pick(unsigned long long *s, int n) {
  return (int)(next(s) % (unsigned long long)n);
}

static int chance(unsigned long long *s, int percent) {
  return pick(s, 100) < percent;
}

static int declared(const char *const *caps, const char *cap) {
  for (size_t i = 0; caps && caps[i]; i++)
    if (!strcmp(caps[i], cap))
      return 1;
  return 0;
}

static const char *const prompt_pool[] = {"What is the weather in Paris?",
                                          "Summarise the report, then list the risks.",
                                          "Wie spät ist es in Zürich? Antworte kurz.",
                                          "Compare A and B using the tools.",
                                          "日本語で答えてください。",
                                          "Look it up and tell me."};

static cJSON *tool_call(unsigned long long *s, int known_only) {
  static const char *const names[] = {"get_a", "get_b", "nope"};
  cJSON *c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "name", names[pick(s, known_only ? 2 : 3)]);
  if (chance(s, 8)) {
    cJSON_AddStringToObject(c, "arguments_raw", "{\"q\": \"unterminated");
  } else {
    cJSON *args = cJSON_AddObjectToObject(c, "arguments");
    cJSON_AddNumberToObject(args, "n", pick(s, 100));
  }
  return c;
}

static cJSON *fault(unsigned long long *s, int streaming) {
  cJSON *f = cJSON_CreateObject();
  int k = pick(s, streaming ? 5 : 2);
  if (k == 0) {
    cJSON_AddNumberToObject(f, "status", 500);
  } else if (k == 1) {
    cJSON_AddNumberToObject(f, "status", 429);
    cJSON_AddNumberToObject(f, "retry_after_ms", 20);
  } else {
    static const char *const kinds[] = {"cut_stream", "error_mid_stream", "malformed_chunk"};
    cJSON_AddStringToObject(f, "kind", kinds[k - 2]);
    cJSON_AddNumberToObject(f, "after_chunks", 1);
  }
  return f;
}

static cJSON *tool_behaviour(unsigned long long *s, const char *output, int may_fail) {
  cJSON *t = cJSON_CreateObject();
  cJSON *r = cJSON_AddObjectToObject(t, "result");
  int k = may_fail ? pick(s, 3) : 0;
  if (k == 2) {
    cJSON_AddNumberToObject(t, "status", 500);
    cJSON_AddBoolToObject(r, "success", 0);
  } else {
    cJSON_AddBoolToObject(r, "success", k == 0);
  }
  cJSON_AddStringToObject(r, "output", k == 0 ? output : "");
  if (k == 0)
    cJSON_AddNullToObject(r, "error");
  else {
    cJSON *e = cJSON_AddObjectToObject(r, "error");
    cJSON_AddStringToObject(e, "type", "failed");
    cJSON_AddStringToObject(e, "message", "the tool failed");
  }
  cJSON_AddNumberToObject(t, "delay_ms", pick(s, 30));
  return t;
}

static cJSON *hook(unsigned long long *s) {
  static const char *const events[] = {OCK_EV_TOOL_PRE, OCK_EV_PROVIDER_REQUEST,
                                       OCK_EV_PROMPT_SUBMIT};
  cJSON *h = cJSON_CreateObject();
  int k = pick(s, 3);
  cJSON_AddStringToObject(h, "event", events[k]);
  cJSON_AddNumberToObject(h, "occurrence", 1 + pick(s, 2));
  cJSON *reply = cJSON_AddObjectToObject(h, "reply");
  if (k == 2) {
    cJSON_AddStringToObject(reply, "action", "inject_context");
    cJSON_AddStringToObject(reply, "context_injection", "Remember: answer briefly.");
    cJSON_AddBoolToObject(reply, "ephemeral", chance(s, 50));
  } else {
    cJSON_AddStringToObject(reply, "action", "deny");
    cJSON_AddStringToObject(reply, "reason", "fuzz policy");
  }
  return h;
}

/* The parts of a session, drawn in this order from one stream s: the order of the draws is
 * what makes a seed replay the same session. */

/* new_fixture: the fixed members of the fixture of seed; *fcaps is its capabilities array. */
static cJSON *new_fixture(unsigned long long seed, int streaming, cJSON **fcaps) {
  cJSON *fx = cJSON_CreateObject();
  char id[40];
  snprintf(id, sizeof id, "fuzz-%016llx", seed);
  cJSON_AddNumberToObject(fx, "ock_fixture", 1);
  cJSON_AddStringToObject(fx, "id", id);
  cJSON_AddStringToObject(fx, "title", "A random session from ock fuzz");
  char proves[120];
  snprintf(proves, sizeof proves, "The universal rules hold for the session drawn from seed %llu.",
           seed);
  cJSON_AddStringToObject(fx, "proves", proves);
  cJSON *reqs = cJSON_AddArrayToObject(fx, "requirements");
  cJSON_AddItemToArray(reqs, cJSON_CreateString("OCK-COMPLETE-001"));
  *fcaps = cJSON_AddArrayToObject(fx, "capabilities");
  cJSON_AddItemToArray(*fcaps, cJSON_CreateString(OCK_CAP_CORE));
  if (streaming)
    cJSON_AddItemToArray(*fcaps, cJSON_CreateString(OCK_CAP_STREAMING));
  return fx;
}

static void draw_config(cJSON *session, unsigned long long *s, const char *const *caps,
                        int streaming) {
  cJSON *config = cJSON_AddObjectToObject(session, "config");
  cJSON_AddNumberToObject(config, OCK_CFG_MAX_ITERATIONS, 2 + pick(s, 3));
  cJSON_AddBoolToObject(config, OCK_CFG_PARALLEL_TOOLS, chance(s, 50));
  cJSON_AddBoolToObject(config, OCK_CFG_STREAMING, streaming);
  int resilience = declared(caps, OCK_CAP_RESILIENCE);
  static const char *const strategies[] = {OCK_CFG_ERROR_STRATEGY_CONTINUE,
                                           OCK_CFG_ERROR_STRATEGY_FAIL_FAST,
                                           OCK_CFG_ERROR_STRATEGY_RETRY};
  cJSON_AddStringToObject(config, OCK_CFG_ERROR_STRATEGY, strategies[pick(s, resilience ? 3 : 2)]);
  cJSON_AddNumberToObject(config, OCK_CFG_MAX_RETRIES, 1);
  cJSON_AddNumberToObject(config, OCK_CFG_RETRY_BASE_DELAY_MS, 10);
  cJSON_AddNumberToObject(config, OCK_CFG_RETRY_MAX_DELAY_MS, 50);
  cJSON_AddNumberToObject(config, OCK_CFG_RETRY_JITTER, 0);
  if (declared(caps, OCK_CAP_SCHEDULING) && chance(s, 30))
    cJSON_AddStringToObject(config, OCK_CFG_MODE, OCK_CFG_MODE_EVENTS);
}

/* draw_session: the prompts, the config, one provider and the two tools. */
static void draw_session(cJSON *fx, unsigned long long *s, const char *const *caps,
                         const char *const *wires, int streaming) {
  cJSON *session = cJSON_AddObjectToObject(fx, "session");
  cJSON *prompts = cJSON_AddArrayToObject(session, "prompts");
  int n_prompts = 1 + pick(s, 3);
  for (int i = 0; i < n_prompts; i++)
    cJSON_AddItemToArray(prompts, cJSON_CreateString(chance(s, 8) ? "" : prompt_pool[pick(s, 6)]));
  draw_config(session, s, caps, streaming);
  cJSON *providers = cJSON_AddArrayToObject(session, "providers");
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "name", "main");
  int n_wires = 0;
  while (wires && wires[n_wires])
    n_wires++;
  /* Two wires: one draw of a coin, as before --wires existed, so that a seed plays the same
   * session on the default pair. */
  const char *wire = !n_wires       ? (chance(s, 50) ? "openai" : "anthropic")
                     : n_wires == 2 ? wires[chance(s, 50) ? 0 : 1]
                                    : wires[pick(s, n_wires)];
  cJSON_AddStringToObject(p, "api", wire);
  cJSON_AddStringToObject(p, "model", "mock-model");
  cJSON_AddItemToArray(providers, p);
  cJSON *tools = cJSON_AddArrayToObject(session, "tools");
  static const char *const tool_names[] = {"get_a", "get_b"};
  for (int i = 0; i < 2; i++) {
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", tool_names[i]);
    cJSON_AddStringToObject(t, "description", "a tool of the fuzz session");
    cJSON *schema = cJSON_AddObjectToObject(t, "input_schema");
    cJSON_AddStringToObject(schema, "type", "object");
    cJSON_AddItemToArray(tools, t);
  }
}

/* draw_script: one to seven turns of text, tool calls or a fault; the last one is text. */
static void draw_script(cJSON *fx, unsigned long long *s, int streaming) {
  cJSON *script = cJSON_AddObjectToObject(fx, "script");
  cJSON *turns = cJSON_AddArrayToObject(script, "main");
  int n_turns = 1 + pick(s, 7);
  for (int i = 0; i < n_turns; i++) {
    cJSON *t = cJSON_CreateObject();
    int k = i == n_turns - 1 ? 0 : pick(s, 10);
    if (k < 5) {
      cJSON_AddStringToObject(t, "text", chance(s, 10) ? "" : "Done: here is the answer. ✓");
    } else if (k < 9) {
      cJSON *calls = cJSON_AddArrayToObject(t, "tool_calls");
      int n = 1 + pick(s, 3);
      for (int c = 0; c < n; c++)
        cJSON_AddItemToArray(calls, tool_call(s, 0));
    } else {
      cJSON_AddItemToObject(t, "fault", fault(s, streaming));
    }
    if (streaming)
      cJSON_AddNumberToObject(t, "chunk_size", 1 + pick(s, 6));
    cJSON_AddItemToArray(turns, t);
  }
}

/* draw_behaviour: what the tools answer, a hook now and then, a cancel when declared. */
static void draw_behaviour(cJSON *fx, unsigned long long *s, const char *const *caps,
                           cJSON *fcaps) {
  cJSON *behaviour = cJSON_AddObjectToObject(fx, "tools");
  cJSON_AddItemToObject(behaviour, "get_a", tool_behaviour(s, "A says 42", 0));
  cJSON_AddItemToObject(behaviour, "get_b", tool_behaviour(s, "B: ok", 1));
  if (chance(s, 30)) {
    cJSON *hooks = cJSON_AddArrayToObject(fx, "hooks");
    cJSON_AddItemToArray(hooks, hook(s));
  }
  if (declared(caps, OCK_CAP_CANCELLATION) && chance(s, 20)) {
    cJSON *c = cJSON_AddObjectToObject(fx, "cancel");
    cJSON_AddStringToObject(c, "at", "tool");
    cJSON_AddStringToObject(c, "tool", "get_a");
    cJSON_AddNumberToObject(c, "occurrence", 1);
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(behaviour, "get_a"),
                                           "delay_ms", cJSON_CreateNumber(300));
    cJSON_AddItemToArray(fcaps, cJSON_CreateString(OCK_CAP_CANCELLATION));
  }
}

cJSON *ock__fuzz_generate(unsigned long long seed, const char *const *caps,
                          const char *const *wires) {
  unsigned long long s = seed;
  int streaming = declared(caps, OCK_CAP_STREAMING) && chance(&s, 40);
  cJSON *fcaps = NULL;
  cJSON *fx = new_fixture(seed, streaming, &fcaps);
  draw_session(fx, &s, caps, wires, streaming);
  draw_script(fx, &s, streaming);
  draw_behaviour(fx, &s, caps, fcaps);
  return fx;
}

/* offer gives candidate c when the step applies to it; else frees it and gives NULL (the
 * caller tries the next k). Returns 1. */
static int offer(cJSON *c, int applies, cJSON **out) {
  if (!applies) {
    cJSON_Delete(c);
    c = NULL;
  }
  *out = c;
  return 1;
}

/* Shrinking: candidate k of fx, in a fixed order: drop prompt i, drop turn i, drop call c of a
 * turn, drop the hooks, drop the cancel, turn streaming off. */
int ock__fuzz_shrink_step(const cJSON *fx, int k, cJSON **out) {
  cJSON *c = cJSON_Duplicate(fx, 1);
  cJSON *cs = cJSON_GetObjectItemCaseSensitive(c, "session");
  cJSON *prompts = cJSON_GetObjectItemCaseSensitive(cs, "prompts");
  cJSON *ct =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "script"), "main");
  int n_prompts = cJSON_GetArraySize(prompts), n_turns = cJSON_GetArraySize(ct);
  if (k < n_prompts) {
    if (n_prompts > 1)
      cJSON_DeleteItemFromArray(prompts, k);
    return offer(c, n_prompts > 1, out);
  }
  k -= n_prompts;
  if (k < n_turns) {
    if (n_turns > 1)
      cJSON_DeleteItemFromArray(ct, k);
    return offer(c, n_turns > 1, out);
  }
  k -= n_turns;
  for (int t = 0; t < n_turns; t++) {
    cJSON *calls = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ct, t), "tool_calls");
    int n = cJSON_GetArraySize(calls);
    if (k < n) {
      if (n > 1)
        cJSON_DeleteItemFromArray(calls, k);
      return offer(c, n > 1, out);
    }
    k -= n;
  }
  static const char *const drops[] = {"hooks", "cancel", "random_faults"};
  for (int d = 0; d < 3; d++, k--)
    if (k == 0) {
      int has = cJSON_HasObjectItem(c, drops[d]);
      cJSON_DeleteItemFromObjectCaseSensitive(c, drops[d]);
      return offer(c, has, out);
    }
  cJSON *config = cJSON_GetObjectItemCaseSensitive(cs, "config");
  int streaming = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(config, OCK_CFG_STREAMING));
  if (k == 0 && streaming)
    cJSON_ReplaceItemInObjectCaseSensitive(config, OCK_CFG_STREAMING, cJSON_CreateFalse());
  if (k == 0)
    return offer(c, streaming, out);
  cJSON_Delete(c);
  *out = NULL;
  return 0;
}
