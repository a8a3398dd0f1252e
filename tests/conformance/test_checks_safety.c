/*
 * test_checks_safety.c: the safety checks and the edges of the tool and cancel checks, on
 * hand-made journals: a tool run after an ask_user reply, a tool round that goes on after a SIGINT,
 * a running tool the SUT waited for, and the journals of SUTs that follow SPEC.md and must draw no
 * finding. Journals are written with single quotes (turned into double quotes before parsing) so
 * each entry reads on one line.
 */
#include "runner.h"

#include <stdlib.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/json.h"
#include "ock/status.h"
#include "model/view.h"
#include "conformance/fixture_text.h"

static ock_registry *reg;

static int setup(void) {
  struct ock_jerr err;
  return ock_registry_load_builtin(&reg, &err) ? 1 : 0;
}

static int teardown(void) {
  ock_registry_free(reg);
  return 0;
}

/* parse_quoted parses text with every ' turned into ". */
static cJSON *parse_quoted(const char *text) {
  char *copy = strdup(text);
  for (char *c = copy; c && *c; c++)
    if (*c == '\'')
      *c = '"';
  cJSON *j = copy ? cJSON_Parse(copy) : NULL;
  if (!j)
    ock_test_fail(__LINE__, __FILE__, "bad JSON in test: %.120s", text);
  free(copy);
  return j;
}

/* grade_journal grades the journal (entries get seq = position and, unless set, t_ms = 10 x
 * position) of a scenario of fixture, every capability declared, SHOULD graded; black-box (from
 * the traffic alone, SPEC.md 9.7) when traffic is set. */
static cJSON *grade_journal_as(const char *fixture, const char *journal, int traffic) {
  static const char *const caps[] = {"core",       "streaming", "parallel",   "cancellation",
                                     "resilience", "lifecycle", "scheduling", NULL};
  struct ock_fixture *fx = ock_test_fixture_json(parse_quoted(fixture), fixture);
  cJSON *j = parse_quoted(journal);
  int i = 0;
  cJSON *e;
  cJSON_ArrayForEach(e, j) {
    i++;
    cJSON_AddNumberToObject(e, "seq", i);
    if (!cJSON_HasObjectItem(e, "t_ms"))
      cJSON_AddNumberToObject(e, "t_ms", i * 10);
  }
  struct sut_result proc = {.exit_code = 0};
  struct view v;
  cJSON *checks = cJSON_CreateArray();
  if (fx && j &&
      (traffic ? ock__view_build_traffic(&v, fx, j, &proc) : ock__view_build(&v, fx, j, &proc)) ==
          OCK_OK) {
    struct grade_ctx g = {.v = &v,
                          .reg = reg,
                          .declared = caps,
                          .level = OCK_LEVEL_SHOULD,
                          .time_scale = 1,
                          .checks = checks};
    ock__grade_scenario(&g);
    ock__view_free(&v);
  }
  cJSON_Delete(j);
  ock_fixture_free(fx);
  return checks;
}

static cJSON *grade_journal(const char *fixture, const char *journal) {
  return grade_journal_as(fixture, journal, 0);
}

/* verdict: the verdict of check id, "(not run)" when it reported nothing. */
static const char *verdict(const cJSON *checks, const char *id) {
  const cJSON *c;
  cJSON_ArrayForEach(c, checks) {
    if (!strcmp(ock_json_str(c, "id"), id))
      return ock_json_str(c, "verdict");
  }
  return "(not run)";
}

#define EXPECT(checks, id, want) OCK_ASSERT_STR_EQ(verdict(checks, id), want)

/* clang-format off */
static const char *const one_tool =
    "{'id':'t','requirements':[],'session':{'prompts':['p'],"
    "'config':{'parallel_tools':false},"
    "'providers':[{'name':'main','api':'openai','model':'m'}],"
    "'tools':[{'name':'a'},{'name':'b'}]},'script':{'main':[]}}";

#define J_START "[{'kind':'session'},{'kind':'event','event':'prompt:submit','data':{'prompt':'p'}},"   \
  "{'kind':'event','event':'provider:request','data':{}},"                                            \
  "{'kind':'llm_request','provider':'main','neutral':[{'role':'user','content':'p'}]},"                \
  "{'kind':'llm_reply','provider':'main','status':200,'text':'','fault':null,'tool_calls':["          \
  "{'id':'c1','name':'a','arguments':'{}'},{'id':'c2','name':'b','arguments':'{}'}]},"               \
  "{'kind':'event','event':'provider:response','data':{'content':'','tool_calls':[]}},"

static void ask_user_on_tool_pre_never_runs_the_tool(void) {
  /* The tool ran although tool:pre got ask_user: a MUST failure. */
  const char *ran = J_START
      "{'kind':'event','event':'tool:pre','data':{'tool_call_id':'c1','tool_name':'a'},"
      "'reply':{'action':'ask_user','reason':'sure?'}},"
      "{'kind':'tool_start','name':'a','tool_call_id':'c1','input':{}},"
      "{'kind':'tool_end','name':'a','tool_call_id':'c1','status':200,"
      "'reply':{'success':true,'output':'x'}},"
      "{'kind':'event','event':'tool:post','data':{'tool_call_id':'c1','tool_name':'a'}}]";
  cJSON *c = grade_journal(one_tool, ran);
  EXPECT(c, "hook.ask-user-tool-not-run", "FAIL");
  cJSON_Delete(c);
  const char *kept = J_START
      "{'kind':'event','event':'tool:pre','data':{'tool_call_id':'c1','tool_name':'a'},"
      "'reply':{'action':'ask_user','reason':'sure?'}},"
      "{'kind':'event','event':'tool:error','data':{'tool_call_id':'c1','tool_name':'a',"
      "'error':{'type':'denied','message':'no'}}}]";
  c = grade_journal(one_tool, kept);
  EXPECT(c, "hook.ask-user-tool-not-run", "PASS");
  cJSON_Delete(c);
  /* The same on tool:selecting. */
  const char *selected = J_START
      "{'kind':'event','event':'tool:selecting','data':{'tool_call_id':'c2','tool_name':'b'},"
      "'reply':{'action':'ask_user'}},"
      "{'kind':'tool_start','name':'b','tool_call_id':'c2','input':{}}]";
  c = grade_journal(one_tool, selected);
  EXPECT(c, "hook.ask-user-tool-not-run", "FAIL");
  cJSON_Delete(c);
}

/* A SIGINT at t 100 while call c1 runs. */
#define J_CANCEL_ROUND J_START                                                     \
  "{'kind':'event','event':'tool:pre','data':{'tool_call_id':'c1','tool_name':'a'}},"            \
  "{'kind':'tool_start','name':'a','tool_call_id':'c1','input':{},'t_ms':90},"                  \
  "{'kind':'cancel','trigger':{},'t_ms':100},"

static void tool_round_going_on_after_cancel_fails(void) {
  /* c1 abandoned at once, but c2 still starts after cancel:requested. */
  const char *j = J_CANCEL_ROUND
      "{'kind':'event','event':'cancel:requested','data':{},'t_ms':110},"
      "{'kind':'tool_end','name':'a','tool_call_id':'c1','status':200,'reply':null,"
      "'client_gone':true,'t_ms':115},"
      "{'kind':'event','event':'tool:error','data':{'tool_call_id':'c1','tool_name':'a',"
      "'error':{'type':'cancelled','message':'x'}},'t_ms':120},"
      "{'kind':'event','event':'tool:pre','data':{'tool_call_id':'c2','tool_name':'b'},'t_ms':125},"
      "{'kind':'tool_start','name':'b','tool_call_id':'c2','input':{},'t_ms':130},"
      "{'kind':'tool_end','name':'b','tool_call_id':'c2','status':200,"
      "'reply':{'success':true,'output':'y'},'t_ms':135},"
      "{'kind':'event','event':'tool:post','data':{'tool_call_id':'c2','tool_name':'b'},'t_ms':140},"
      "{'kind':'event','event':'cancel:completed','data':{},'t_ms':150},"
      "{'kind':'event','event':'orchestrator:complete','data':{'orchestrator':'x','turn_count':1,"
      "'status':'cancelled'},'t_ms':160}]";
  cJSON *c = grade_journal(one_tool, j);
  EXPECT(c, "cancel.round-stopped", "FAIL");
  EXPECT(c, "cancel.tool-abandoned", "(not run)");
  /* A tool started after the cancel is OCK-CANCEL-006's finding; OCK-CANCEL-004 looks at LLM
   * requests only, so one fault is one failing check. */
  EXPECT(c, "cancel.no-new-work", "PASS");
  cJSON_Delete(c);
  /* Black-box, OCK-CANCEL-006 is not graded: a tool run long after the SIGINT is new work for
   * OCK-CANCEL-004 there. */
  const char *traffic =
      "[{'kind':'session'},"
      "{'kind':'llm_request','provider':'main','neutral':[{'role':'user','content':'p'}]},"
      "{'kind':'llm_reply','provider':'main','status':200,'text':'','fault':null,'tool_calls':["
      "{'id':'c1','name':'a','arguments':'{}'},{'id':'c2','name':'b','arguments':'{}'}]},"
      "{'kind':'tool_start','name':'a','tool_call_id':'c1','input':{},'t_ms':90},"
      "{'kind':'cancel','trigger':{},'t_ms':100},"
      "{'kind':'tool_end','name':'a','tool_call_id':'c1','status':200,'reply':null,"
      "'client_gone':true,'t_ms':115},"
      "{'kind':'tool_start','name':'b','tool_call_id':'c2','input':{},'t_ms':5000},"
      "{'kind':'tool_end','name':'b','tool_call_id':'c2','status':200,"
      "'reply':{'success':true,'output':'y'},'t_ms':5010}]";
  c = grade_journal_as(one_tool, traffic, 1);
  EXPECT(c, "cancel.no-new-work", "WARN"); /* a SHOULD, not --strict */
  cJSON_Delete(c);
}

/* J_REPLIED: c1's endpoint replies (the SUT still reading) 1.5 s after the SIGINT. */
#define J_REPLIED                                                                                  \
  "{'kind':'tool_end','name':'a','tool_call_id':'c1','status':200,"                                 \
  "'reply':{'success':true,'output':'x'},'client_gone':false,'t_ms':1600},"

static void running_tool_waited_for_fails(void) {
  /* The SUT noticed the SIGINT only once the tool had answered. */
  const char *waited = J_CANCEL_ROUND J_REPLIED
      "{'kind':'event','event':'tool:post','data':{'tool_call_id':'c1','tool_name':'a'},'t_ms':1610},"
      "{'kind':'event','event':'cancel:requested','data':{},'t_ms':1620},"
      "{'kind':'event','event':'cancel:completed','data':{},'t_ms':1630},"
      "{'kind':'event','event':'orchestrator:complete','data':{'orchestrator':'x','turn_count':1,"
      "'status':'cancelled'},'t_ms':1640}]";
  cJSON *c = grade_journal(one_tool, waited);
  EXPECT(c, "cancel.tool-abandoned", "FAIL");
  EXPECT(c, "cancel.round-stopped", "PASS");
  cJSON_Delete(c);
  /* A SUT that cannot close the request abandons it all the same: it reports the call and ends
   * the execute before the reply comes. */
  const char *abandoned = J_CANCEL_ROUND
      "{'kind':'event','event':'cancel:requested','data':{},'t_ms':110},"
      "{'kind':'event','event':'tool:error','data':{'tool_call_id':'c1','tool_name':'a',"
      "'error':{'type':'cancelled','message':'x'}},'t_ms':120},"
      "{'kind':'event','event':'cancel:completed','data':{},'t_ms':130},"
      "{'kind':'event','event':'orchestrator:complete','data':{'orchestrator':'x','turn_count':1,"
      "'status':'cancelled'},'t_ms':140},"
      "{'kind':'tool_end','name':'a','tool_call_id':'c1','status':200,"
      "'reply':{'success':true,'output':'x'},'client_gone':false,'t_ms':1600}]";
  c = grade_journal(one_tool, abandoned);
  EXPECT(c, "cancel.tool-abandoned", "PASS");
  EXPECT(c, "cancel.round-stopped", "PASS");
  cJSON_Delete(c);
}

static void call_abandoned_at_sigint_is_no_timeout(void) {
  /* tool_timeout_ms 50: the call ran past it only because the SIGINT stopped the wait; the SUT
   * that abandons it without a tool:error owes the CANCEL and ORDER checks, not a timeout. */
  const char *fx =
      "{'id':'t','requirements':[],'session':{'prompts':['p'],"
      "'config':{'parallel_tools':false,'tool_timeout_ms':50},"
      "'providers':[{'name':'main','api':'openai','model':'m'}],"
      "'tools':[{'name':'a'},{'name':'b'}]},'script':{'main':[]}}";
  const char *j = J_CANCEL_ROUND
      "{'kind':'event','event':'cancel:requested','data':{},'t_ms':105},"
      "{'kind':'tool_end','name':'a','tool_call_id':'c1','status':200,'reply':null,"
      "'client_gone':true,'t_ms':400},"
      "{'kind':'event','event':'cancel:completed','data':{},'t_ms':410},"
      "{'kind':'event','event':'orchestrator:complete','data':{'orchestrator':'x','turn_count':1,"
      "'status':'cancelled'},'t_ms':420}]";
  cJSON *c = grade_journal(fx, j);
  EXPECT(c, "tool.timeout", "(not run)");
  cJSON_Delete(c);
}

static const char *const retrying =
    "{'id':'t','requirements':[],'session':{'prompts':['p'],"
    "'config':{'error_strategy':'retry','max_retries':2,'retry_base_delay_ms':10},"
    "'providers':[{'name':'main','api':'openai','model':'m'}],'tools':[]},'script':{'main':[]}}";

/* J_RETRY(hist): a 503, then a retry whose history is hist. */
#define J_RETRY(hist, between)                                                                     \
  "[{'kind':'session'},{'kind':'event','event':'prompt:submit','data':{'prompt':'p'}},"             \
  "{'kind':'llm_request','provider':'main','neutral':[{'role':'user','content':'p'}]},"            \
  "{'kind':'llm_reply','provider':'main','status':503,'tool_calls':[],'fault':null},"              \
  between                                                                                          \
  "{'kind':'llm_request','provider':'main','neutral':" hist "},"                                   \
  "{'kind':'llm_reply','provider':'main','status':200,'text':'ok','tool_calls':[],'fault':null}]"

static void retry_that_adds_to_the_history_fails(void) {
  cJSON *c = grade_journal(retrying, J_RETRY("[{'role':'user','content':'p'},"
                                             "{'role':'user','content':'p'}]", ""));
  EXPECT(c, "error.retry-same-history", "FAIL");
  cJSON_Delete(c);
  c = grade_journal(retrying, J_RETRY("[{'role':'user','content':'p'},"
                                      "{'role':'assistant','content':'par'}]", ""));
  EXPECT(c, "error.retry-same-history", "FAIL");
  cJSON_Delete(c);
  /* The same conversation on another wire (wire_index differs) is the same. */
  c = grade_journal(retrying, J_RETRY("[{'role':'user','content':'p','wire_index':0}]", ""));
  EXPECT(c, "error.retry-same-history", "PASS");
  cJSON_Delete(c);
  /* A hook injected context between the attempts: a difference is owed, not judged. */
  c = grade_journal(retrying, J_RETRY("[{'role':'user','content':'p'},{'role':'user','content':'i'}]",
                                      "{'kind':'event','event':'provider:request','data':{},"
                                      "'reply':{'action':'inject_context','context_injection':'i'}},"));
  EXPECT(c, "error.retry-same-history", "(not run)");
  cJSON_Delete(c);
}

static const char *const two_prompts =
    "{'id':'t','requirements':[],'session':{'prompts':['p','q'],"
    "'providers':[{'name':'main','api':'openai','model':'m'}],'tools':[]},'script':{'main':[]}}";

/* J_ABANDONED(stored): a stream abandoned at the SIGINT, then the next prompt's request whose
 * history holds stored between the first prompt and the closing message. */
#define J_ABANDONED(stored)                                                                        \
  "[{'kind':'session'},{'kind':'event','event':'prompt:submit','data':{'prompt':'p'}},"             \
  "{'kind':'llm_request','provider':'main','neutral':[{'role':'user','content':'p'}]},"            \
  "{'kind':'cancel','trigger':{}},"                                                                \
  "{'kind':'event','event':'provider:error','data':{'error':{'type':'cancelled','message':'c'}}},"  \
  "{'kind':'llm_reply','provider':'main','status':200,'text':'Hello world','request_seq':3,"       \
  "'tool_calls':[{'id':'k1','name':'a','arguments':'{}'}],'fault':{'kind':'client_gone'}},"        \
  "{'kind':'event','event':'cancel:requested','data':{}},"                                         \
  "{'kind':'event','event':'orchestrator:complete','data':{'orchestrator':'x','turn_count':1,"     \
  "'status':'cancelled'}},"                                                                        \
  "{'kind':'event','event':'prompt:submit','data':{'prompt':'q'}},"                                \
  "{'kind':'llm_request','provider':'main','neutral':[{'role':'user','content':'p'}," stored       \
  "{'role':'assistant','content':'The previous operation was cancelled.'},"                        \
  "{'role':'user','content':'q'}]}]"

static void abandoned_reply_stored_fails(void) {
  cJSON *c = grade_journal(two_prompts, J_ABANDONED("{'role':'assistant','content':'Hello'},"));
  EXPECT(c, "cancel.abandoned-not-stored", "FAIL");
  cJSON_Delete(c);
  c = grade_journal(two_prompts,
                    J_ABANDONED("{'role':'assistant','content':'','tool_calls':[{'id':'k1',"
                                "'name':'a','arguments':{}}]},"));
  EXPECT(c, "cancel.abandoned-not-stored", "FAIL");
  cJSON_Delete(c);
  c = grade_journal(two_prompts, J_ABANDONED(""));
  EXPECT(c, "cancel.abandoned-not-stored", "PASS");
  cJSON_Delete(c);
}

static const char *const one_turn =
    "{'id':'t','requirements':[],'session':{'prompts':['p','q'],"
    "'config':{'max_iterations':1,'error_strategy':'retry','max_retries':1,"
    "'retry_base_delay_ms':10},"
    "'providers':[{'name':'main','api':'openai','model':'m'}],'tools':[{'name':'a'}]},"
    "'script':{'main':[]}}";

#define REMINDER "<system-reminder source=\\\"orchestrator-loop-limit\\\">stop</system-reminder>"
#define WRAP_HIST                                                                                  \
  "[{'role':'user','content':'p'},{'role':'assistant','content':'','tool_calls':[{'id':'c1',"      \
  "'name':'a','arguments':{}}]},{'role':'tool','tool_call_id':'c1','content':'x'},"                \
  "{'role':'user','content':'" REMINDER "'}]"

/* J_WRAP(next): the limit reached, a wrap-up request that fails (503) and is retried with the
 * reminder, then the next prompt's request, next. */
#define J_WRAP(next)                                                                               \
  "[{'kind':'session'},{'kind':'event','event':'prompt:submit','data':{'prompt':'p'}},"             \
  "{'kind':'llm_request','provider':'main','tools_offered':1,"                                     \
  "'neutral':[{'role':'user','content':'p'}]},"                                                    \
  "{'kind':'llm_reply','provider':'main','status':200,'text':'','request_seq':3,"                  \
  "'tool_calls':[{'id':'c1','name':'a','arguments':'{}'}],'fault':null},"                          \
  "{'kind':'llm_request','provider':'main','tools_offered':0,'neutral':" WRAP_HIST "},"             \
  "{'kind':'llm_reply','provider':'main','status':503,'request_seq':5,'tool_calls':[],"            \
  "'fault':null},"                                                                                 \
  "{'kind':'llm_request','provider':'main','tools_offered':0,'neutral':" WRAP_HIST "},"             \
  "{'kind':'llm_reply','provider':'main','status':200,'text':'done','request_seq':7,"              \
  "'tool_calls':[],'fault':null},"                                                                 \
  "{'kind':'event','event':'prompt:submit','data':{'prompt':'q'}},"                                \
  "{'kind':'llm_request','provider':'main','tools_offered':1,'neutral':" next "}]"

static void retried_wrap_up_is_no_stored_reminder(void) {
  cJSON *c = grade_journal(one_turn, J_WRAP("[{'role':'user','content':'q'}]"));
  EXPECT(c, "iter.reminder-not-stored", "PASS");
  cJSON_Delete(c);
  /* The next prompt's request still carrying it is a stored reminder. */
  c = grade_journal(one_turn, J_WRAP("[{'role':'user','content':'" REMINDER "'},"
                                     "{'role':'user','content':'q'}]"));
  EXPECT(c, "iter.reminder-not-stored", "FAIL");
  cJSON_Delete(c);
}

/* requirement_of: the requirement check id was charged to, "(not run)" when it reported nothing. */
static const char *requirement_of(const cJSON *checks, const char *id) {
  const cJSON *c;
  cJSON_ArrayForEach(c, checks) {
    if (!strcmp(ock_json_str(c, "id"), id))
      return ock_json_str(c, "requirement");
  }
  return "(not run)";
}

static void expect_clauses_charged_to_what_they_prove(void) {
  /* The first requirement is a MUST; the JSON text's spacing and the provider:response are not
   * its to judge. */
  const char *fx =
      "{'id':'t','requirements':['OCK-TOOL-004'],'session':{'prompts':['p'],"
      "'providers':[{'name':'main','api':'openai','model':'m'}],'tools':[{'name':'a'}]},"
      "'script':{'main':[]},'tools':{'a':{'result':{'success':true,'output':{'t':4}}}},"
      "'expect':{'last_request_contains':['{\\'t\\':4}'],"
      "'events_present':['provider:response']}}";
  const char *j =
      "[{'kind':'session'},{'kind':'event','event':'prompt:submit','data':{'prompt':'p'}},"
      "{'kind':'llm_request','provider':'main','neutral':[{'role':'user','content':'p'},"
      "{'role':'tool','tool_call_id':'c','content':'{ \\'t\\': 4 }'}]}]";
  cJSON *c = grade_journal(fx, j);
  OCK_ASSERT_STR_EQ(requirement_of(c, "expect.last-request"), "OCK-TOOL-006");
  EXPECT(c, "expect.last-request", "WARN");
  OCK_ASSERT_STR_EQ(requirement_of(c, "expect.events-present"), "OCK-ORDER-002");
  cJSON_Delete(c);
}

static void pool_of_two_overlaps(void) {
  /* Three calls through a pool of two: the third starts when the first ends. A later call
   * started before an earlier one ended: the calls ran at the same time. */
  const char *fx =
      "{'id':'t','requirements':[],'session':{'prompts':['p'],'config':{'parallel_tools':true},"
      "'providers':[{'name':'main','api':'openai','model':'m'}],"
      "'tools':[{'name':'a'}]},'script':{'main':[]}}";
  const char *j =
      "[{'kind':'session'},{'kind':'event','event':'prompt:submit','data':{'prompt':'p'}},"
      "{'kind':'llm_request','provider':'main','neutral':[{'role':'user','content':'p'}]},"
      "{'kind':'llm_reply','provider':'main','status':200,'text':'','fault':null,'tool_calls':["
      "{'id':'c1','name':'a','arguments':'{}'},{'id':'c2','name':'a','arguments':'{}'},"
      "{'id':'c3','name':'a','arguments':'{}'}]},"
      "{'kind':'tool_start','name':'a','tool_call_id':'c1','input':{},'t_ms':100},"
      "{'kind':'tool_start','name':'a','tool_call_id':'c2','input':{},'t_ms':101},"
      "{'kind':'tool_end','name':'a','tool_call_id':'c1','status':200,"
      "'reply':{'success':true,'output':'x'},'t_ms':300},"
      "{'kind':'tool_start','name':'a','tool_call_id':'c3','input':{},'t_ms':301},"
      "{'kind':'tool_end','name':'a','tool_call_id':'c2','status':200,"
      "'reply':{'success':true,'output':'x'},'t_ms':302},"
      "{'kind':'tool_end','name':'a','tool_call_id':'c3','status':200,"
      "'reply':{'success':true,'output':'x'},'t_ms':500}]";
  cJSON *c = grade_journal(fx, j);
  EXPECT(c, "parallel.overlap", "PASS");
  cJSON_Delete(c);
}

#define FF_FIXTURE(parallel)                                                                       \
  "{'id':'t','requirements':[],'session':{'prompts':['p'],"                                        \
  "'config':{'error_strategy':'fail_fast','parallel_tools':" parallel "},"                         \
  "'providers':[{'name':'main','api':'openai','model':'m'}],'tools':[{'name':'a'},{'name':'b'}]}," \
  "'script':{'main':[]}}"

static void fail_fast_start_judged_in_sequential_rounds_only(void) {
  /* c2's start reaches the mock after c1's tool:error: in a parallel round the SUT may have
   * started it before it knew; in a sequential one it started it after. */
  const char *j = J_START
      "{'kind':'event','event':'tool:pre','data':{'tool_call_id':'c1','tool_name':'a'}},"
      "{'kind':'event','event':'tool:pre','data':{'tool_call_id':'c2','tool_name':'b'}},"
      "{'kind':'tool_start','name':'a','tool_call_id':'c1','input':{}},"
      "{'kind':'tool_end','name':'a','tool_call_id':'c1','status':500,'reply':null},"
      "{'kind':'event','event':'tool:error','data':{'tool_call_id':'c1','tool_name':'a',"
      "'error':{'type':'execution_failed','message':'500'}}},"
      "{'kind':'tool_start','name':'b','tool_call_id':'c2','input':{}},"
      "{'kind':'tool_end','name':'b','tool_call_id':'c2','status':200,"
      "'reply':{'success':true,'output':'y'}},"
      "{'kind':'event','event':'tool:post','data':{'tool_call_id':'c2','tool_name':'b'}},"
      "{'kind':'event','event':'orchestrator:complete','data':{'orchestrator':'x','turn_count':1,"
      "'status':'error','error':{'type':'execution_failed','message':'m'}}}]";
  cJSON *c = grade_journal(FF_FIXTURE("true"), j);
  EXPECT(c, "error.fail-fast-unstarted", "(not run)");
  cJSON_Delete(c);
  c = grade_journal(FF_FIXTURE("false"), j);
  EXPECT(c, "error.fail-fast-unstarted", "WARN");
  cJSON_Delete(c);
}

/* J_500(via): a call whose endpoint answered 500, reported with tool:post success false. */
#define J_500(via)                                                                                 \
  J_START "{'kind':'event','event':'tool:pre','data':{'tool_call_id':'c1','tool_name':'a'}},"      \
  "{'kind':'tool_start','name':'a','tool_call_id':'c1','input':{}" via "},"                        \
  "{'kind':'tool_end','name':'a','tool_call_id':'c1','status':500,'reply':null" via "},"           \
  "{'kind':'event','event':'tool:post','data':{'tool_call_id':'c1','tool_name':'a',"               \
  "'result':{'success':false,'error':{'message':'Error: tool endpoint returned HTTP 500'}}}},"     \
  "{'kind':'llm_request','provider':'main','neutral':[{'role':'user','content':'p'},"              \
  "{'role':'assistant','content':'','tool_calls':[{'id':'c1','name':'a','arguments':{}},"          \
  "{'id':'c2','name':'b','arguments':{}}]},"                                                       \
  "{'role':'tool','tool_call_id':'c1','content':'Error: tool endpoint returned HTTP 500'},"        \
  "{'role':'tool','tool_call_id':'c2','content':'x'}]}]"

static void mcp_500_reported_as_failed_result(void) {
  /* Over MCP the 500 arrives as isError, like success false: tool:post is right there. */
  cJSON *c = grade_journal(one_tool, J_500(",'via':'mcp'"));
  EXPECT(c, "tool.endpoint-failure", "PASS");
  cJSON_Delete(c);
  /* At the ock/1 endpoint the SUT saw the status: tool:error execution_failed is owed. */
  c = grade_journal(one_tool, J_500(""));
  EXPECT(c, "tool.endpoint-failure", "FAIL");
  cJSON_Delete(c);
}
/* clang-format on */

static const struct ock_test tests[] = {
    {"ask_user_on_tool_pre_never_runs_the_tool", ask_user_on_tool_pre_never_runs_the_tool},
    {"tool_round_going_on_after_cancel_fails", tool_round_going_on_after_cancel_fails},
    {"running_tool_waited_for_fails", running_tool_waited_for_fails},
    {"call_abandoned_at_sigint_is_no_timeout", call_abandoned_at_sigint_is_no_timeout},
    {"retry_that_adds_to_the_history_fails", retry_that_adds_to_the_history_fails},
    {"abandoned_reply_stored_fails", abandoned_reply_stored_fails},
    {"retried_wrap_up_is_no_stored_reminder", retried_wrap_up_is_no_stored_reminder},
    {"expect_clauses_charged_to_what_they_prove", expect_clauses_charged_to_what_they_prove},
    {"pool_of_two_overlaps", pool_of_two_overlaps},
    {"mcp_500_reported_as_failed_result", mcp_500_reported_as_failed_result},
    {"fail_fast_start_judged_in_sequential_rounds_only",
     fail_fast_start_judged_in_sequential_rounds_only},
    {NULL, NULL}};
const struct ock_suite suite_checks_safety = {"checks_safety", tests, setup, teardown};
