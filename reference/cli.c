/*
 * cli.c: ock-orchestrator, the reference orchestrator as an ock/1 system under test.
 *
 * It reads its session from $OCK_URL/ock/v1/session, builds the HTTP collaborators (one LLM
 * provider per session provider, one tool per session tool, the event endpoint as the hook
 * registry) around one in-memory context, and runs each prompt as one execute, in order,
 * keeping that context across prompts. SIGINT cancels the running execute and nothing else:
 * between executes it is ignored, and a second one during the same execute changes nothing.
 * The exit status is 0 whatever the executes ended with; only a broken environment (no
 * OCK_URL, an unreachable or invalid session, a bad option) is an error.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "ock/caps.h"
#include "ock/options.h"
#include "ock/orchestrator.h"
#include "ock/status.h"
#include "session.h"

#define CAPABILITIES "core,streaming,parallel,scheduling,lifecycle,resilience,cancellation"
#define EXIT_USAGE 2
#define EXIT_ENV 3
#define SESSION_TIMEOUT_MS 30000L

static const char usage_head[] =
    "usage: ock-orchestrator [options]\n"
    "\n"
    "The reference orchestrator of OCK, speaking the ock/1 protocol: it fetches its session\n"
    "from $OCK_URL/ock/v1/session, runs each prompt as one execute (keeping one conversation\n"
    "across prompts), posts every event to $OCK_URL/ock/v1/events, runs tools through\n"
    "$OCK_URL/ock/v1/tools/{name}, and exits 0. SIGINT cancels the running execute only.\n"
    "It speaks each provider's wire (api openai: Chat Completions; responses: the OpenAI\n"
    "Responses API; anthropic: Messages), streamed and not.\n"
    "\n"
    "options (the session's config wins over these; these win over the environment):\n";

static const char usage_tail[] =
    "\n"
    "environment:\n"
    "  OCK_URL            root of the ock/1 endpoints (required), e.g. http://127.0.0.1:8080;\n"
    "                     plain http://, reached directly (no proxy: they are the harness's)\n"
    "  OPENAI_API_KEY     sent to OpenAI providers, Chat Completions and Responses API (a\n"
    "                     dummy when unset)\n"
    "  ANTHROPIC_API_KEY  sent to Anthropic-wire providers (a dummy when unset)\n"
    "  GOOGLE_API_KEY, GEMINI_API_KEY\n"
    "                     sent to Gemini-wire providers as x-goog-api-key, the first one set\n"
    "                     (a dummy when neither is)\n"
    "\n"
    "exit status: 0 after the last prompt (whatever each execute ended with); 2 for a bad\n"
    "option; 3 when OCK_URL is unset or the session cannot be fetched or is invalid.\n";

/* http_done frees the main thread's libcurl handles (closing its kept connections), then
 * libcurl itself: every exit after curl_global_init goes through here. */
static void http_done(void) {
  ock_http_thread_cleanup();
  curl_global_cleanup();
}

static ock_orchestrator *volatile g_orch; /* the SIGINT handler's target */

static void on_sigint(int sig) {
  (void)sig;
  ock_orchestrator_cancel(g_orch); /* async-signal-safe: a lock-free atomic store */
}

/* The value names of enum ock_mode and enum ock_error_strategy, from the registry. */
#define VALUE_NAME(ident, name) name,
static const char *const mode_names[] = {OCK_CFG_MODE_VALUES(VALUE_NAME) NULL};
static const char *const strategy_names[] = {OCK_CFG_ERROR_STRATEGY_VALUES(VALUE_NAME) NULL};
#undef VALUE_NAME

/* Options from the command line and the environment, before the session's config. */
struct options {
  int mode, strategy; /* indexes of the names above; -1: not given */
  int max_iterations; /* 0: not given */
  int capabilities, help;
};

enum { ORCH_OPTIONS = 6 };

/* orch_options fills t with the options of ock-orchestrator, stored into o. */
static void orch_options(struct options *o, struct ock_option t[ORCH_OPTIONS]) {
  const struct ock_option rows[] = {
      {"mode", 0, OCK_OPT_ENUM, &o->mode, .values = mode_names,
       .help = "loop mode; env OCK_MODE (default " OCK_CFG_MODE_DEFAULT_TEXT ")"},
      {"max-iterations", 0, OCK_OPT_INT, &o->max_iterations, OCK_CFG_MAX_ITERATIONS_MIN,
       OCK_CFG_MAX_ITERATIONS_MAX, .metavar = "N",
       .help = "tool-loop turns per execute; env OCK_MAX_ITERATIONS "
               "(default " OCK_CFG_MAX_ITERATIONS_DEFAULT_TEXT ")"},
      {"error-strategy", 0, OCK_OPT_ENUM, &o->strategy, .values = strategy_names, .metavar = "S",
       .help = "fail_fast|continue|retry|fallback; env "
               "OCK_ERROR_STRATEGY\n(default " OCK_CFG_ERROR_STRATEGY_DEFAULT_TEXT ")"},
      {"capabilities", 0, OCK_OPT_FLAG, &o->capabilities,
       .help = "print the capabilities and exit:\n" CAPABILITIES},
      {"help", 'h', OCK_OPT_FLAG, &o->help, .help = "print this and exit"},
      {0}};
  _Static_assert(sizeof rows / sizeof rows[0] <= ORCH_OPTIONS, "ORCH_OPTIONS too small");
  memcpy(t, rows, sizeof rows);
}

static void print_usage(void) {
  struct options o = {0};
  struct ock_option t[ORCH_OPTIONS];
  orch_options(&o, t);
  fputs(usage_head, stdout);
  ock_options_help(t, stdout);
  fputs(usage_tail, stdout);
}

/* from_environment: an option not given takes its variable's value, checked the same way. */
static int from_environment(const struct ock_option *t, const struct options *o, char *err,
                            size_t n) {
  static const struct {
    const char *option, *variable;
  } env[] = {{"mode", "OCK_MODE"},
             {"max-iterations", "OCK_MAX_ITERATIONS"},
             {"error-strategy", "OCK_ERROR_STRATEGY"}};
  const int given[] = {o->mode >= 0, o->max_iterations > 0, o->strategy >= 0};
  for (size_t k = 0; k < sizeof env / sizeof env[0]; k++) {
    char *v = getenv(env[k].variable);
    if (!given[k] && v && *v &&
        ock_option_set(ock_option_find(t, env[k].option), v, env[k].variable, err, n))
      return -1;
  }
  return 0;
}

/* parse_args reads the options into o, then the environment for those not given; returns
 * 0, or EXIT_USAGE after the message. */
static int parse_args(int argc, char **argv, struct options *o) {
  *o = (struct options){.mode = -1, .strategy = -1};
  struct ock_option t[ORCH_OPTIONS];
  char err[1024];
  int npos = 0;
  orch_options(o, t);
  int rc = ock_options_parse(t, argc, argv, &npos, err, sizeof err);
  if (o->help || o->capabilities)
    return 0;
  if (!rc && npos)
    snprintf(err, sizeof err, "unexpected argument \"%s\"", argv[1]), rc = -1;
  if (!rc)
    rc = from_environment(t, o, err, sizeof err);
  if (rc)
    fprintf(stderr, "ock-orchestrator: %s (see --help)\n", err);
  return rc ? EXIT_USAGE : 0;
}

/* apply_options turns the options into config defaults. */
static void apply_options(const struct options *o, struct ock_orchestrator_config *c) {
  if (o->mode >= 0)
    c->mode = (enum ock_mode)o->mode;
  if (o->strategy >= 0)
    c->error_strategy = (enum ock_error_strategy)o->strategy;
  if (o->max_iterations > 0)
    c->max_iterations = o->max_iterations;
  c->streaming = c->mode == OCK_MODE_STREAMING;
}

/* The collaborators built from one session. */
struct world {
  ock_http_provider **http_providers;
  const struct ock_provider **providers;
  ock_http_tool **http_tools;
  const struct ock_tool **tools;
  ock_http_hooks *hooks;
  ock_memctx *context;
  ock_orchestrator *orch;
  ock_exec_context *exec;
};

static void world_free(struct world *w, const struct ock__session *s) {
  for (size_t i = 0; w->http_providers && i < s->n_providers; i++)
    ock_http_provider_free(w->http_providers[i]);
  for (size_t i = 0; w->http_tools && i < s->n_tools; i++)
    ock_http_tool_free(w->http_tools[i]);
  free(w->http_providers);
  free(w->providers);
  free(w->http_tools);
  free(w->tools);
  ock_http_hooks_free(w->hooks);
  ock_memctx_free(w->context);
  ock_orchestrator_free(w->orch);
  ock_exec_context_free(w->exec);
}

static int world_build(struct world *w, const struct ock__session *s, const char *root) {
  size_t np = s->n_providers ? s->n_providers : 1, nt = s->n_tools ? s->n_tools : 1;
  w->http_providers = calloc(np, sizeof *w->http_providers);
  w->providers = calloc(np, sizeof *w->providers);
  w->http_tools = calloc(nt, sizeof *w->http_tools);
  w->tools = calloc(nt, sizeof *w->tools);
  if (!w->http_providers || !w->providers || !w->http_tools || !w->tools)
    return OCK_ENOMEM;
  for (size_t i = 0; i < s->n_providers; i++) {
    const struct ock__session_provider *p = &s->providers[i];
    int rc = ock_http_provider_new(p->api, p->name, p->base_url, p->model, p->priority, NULL,
                                   &w->http_providers[i]);
    if (rc)
      return rc;
    w->providers[i] = ock_http_provider_get(w->http_providers[i]);
  }
  for (size_t i = 0; i < s->n_tools; i++) {
    const struct ock__session_tool *t = &s->tools[i];
    int rc = ock_http_tool_new(root, t->name, t->description, t->input_schema, &w->http_tools[i]);
    if (rc)
      return rc;
    w->tools[i] = ock_http_tool_get(w->http_tools[i]);
  }
  long hook_timeout = s->config.request_timeout_ms > 30000 ? s->config.request_timeout_ms : 30000;
  int rc = ock_http_hooks_new(root, hook_timeout, &w->hooks);
  if (!rc)
    rc = ock_memctx_new(&w->context);
  if (!rc)
    rc = ock_orchestrator_new(&s->config, &w->orch);
  char trace[64];
  if (!rc && !s->trace_id)
    snprintf(trace, sizeof trace, "ock-cli-%ld", (long)getpid());
  ock_exec_context *root_ctx = NULL;
  if (!rc)
    rc = ock_exec_context_new(s->trace_id ? s->trace_id : trace, &root_ctx);
  cJSON *scenario = rc ? NULL : cJSON_CreateString(s->scenario);
  if (!rc)
    rc = ock_exec_context_with_metadata(root_ctx, "scenario", scenario, &w->exec);
  cJSON_Delete(scenario);
  ock_exec_context_free(root_ctx);
  return rc;
}

/* fetch_session reads and checks the session of root; returns 0, or EXIT_ENV after the
 * message. */
static int fetch_session(const char *root, const struct ock_orchestrator_config *defaults,
                         struct ock__session **s) {
  size_t rlen = strlen(root);
  while (rlen && root[rlen - 1] == '/')
    rlen--;
  char url[2048];
  snprintf(url, sizeof url, "%.*s/ock/v1/session", (int)rlen, root);
  struct ock_jerr err = {{0}, {0}};
  cJSON *doc = NULL;
  if (ock_http_get_json(url, SESSION_TIMEOUT_MS, OCK_MAX_SESSION_BYTES, &doc, &err)) {
    fprintf(stderr, "ock-orchestrator: cannot fetch the session: %s: %s\n", err.where, err.what);
    return EXIT_ENV;
  }
  int rc = ock__session_parse(doc, defaults, s, &err);
  cJSON_Delete(doc);
  if (rc) {
    fprintf(stderr, "ock-orchestrator: the session from %s is invalid: %s: %s\n", url, err.where,
            err.what);
    return EXIT_ENV;
  }
  return 0;
}

/* run_prompts runs each prompt of s as one execute, with SIGINT cancelling it. */
static void run_prompts(struct world *w, const struct ock__session *s) {
  signal(SIGPIPE, SIG_IGN);
  g_orch = w->orch;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  for (size_t i = 0; i < s->n_prompts; i++) {
    struct ock_exec_result res;
    ock_exec_context *exec = NULL;
    cJSON *index = cJSON_CreateNumber((double)i + 1);
    if (!index || ock_exec_context_with_metadata(w->exec, "prompt_index", index, &exec))
      exec = NULL; /* the session context still carries the trace ID */
    cJSON_Delete(index);
    int rc = ock_orchestrator_execute(w->orch, s->prompts[i], exec ? exec : w->exec,
                                      ock_memctx_context(w->context), w->providers, s->n_providers,
                                      w->tools, s->n_tools, ock_http_hooks_get(w->hooks), &res);
    ock_exec_context_free(exec);
    if (rc) {
      fprintf(stderr, "ock-orchestrator: prompt %zu could not run: %s\n", i + 1, ock_strerror(rc));
      continue;
    }
    fprintf(stderr, "ock-orchestrator: prompt %zu: status %s, turn_count %d%s%s%s%s\n", i + 1,
            ock_exec_status_name(res.status), res.turn_count, res.error_type[0] ? ", error " : "",
            res.error_type, res.error_message[0] ? ": " : "", res.error_message);
    if (res.response)
      printf("%s\n", res.response);
    fflush(stdout);
    ock_exec_result_clear(&res);
  }
  sa.sa_handler = SIG_IGN; /* nothing left to cancel */
  sigaction(SIGINT, &sa, NULL);
  g_orch = NULL;
}

int main(int argc, char **argv) {
  struct options opt;
  int code = parse_args(argc, argv, &opt);
  if (!code && opt.help)
    print_usage();
  else if (!code && opt.capabilities)
    puts(CAPABILITIES);
  if (code || opt.help || opt.capabilities)
    return code;
  struct ock_orchestrator_config defaults;
  ock_orchestrator_config_default(&defaults);
  apply_options(&opt, &defaults);
  const char *root = getenv("OCK_URL");
  if (!root || !*root) {
    fprintf(stderr, "ock-orchestrator: OCK_URL is not set: it must name the ock/1 endpoint root, "
                    "e.g. OCK_URL=http://127.0.0.1:8080 (see --help)\n");
    return EXIT_ENV;
  }
  if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
    fprintf(stderr, "ock-orchestrator: cannot initialise libcurl\n");
    return EXIT_ENV;
  }
  struct ock__session *s = NULL;
  if ((code = fetch_session(root, &defaults, &s))) {
    http_done();
    return code;
  }
  struct world w = {0};
  int rc = world_build(&w, s, root);
  if (rc)
    fprintf(stderr, "ock-orchestrator: cannot set up: %s\n", ock_strerror(rc));
  else
    run_prompts(&w, s);
  world_free(&w, s);
  ock__session_free(s);
  http_done();
  return rc ? EXIT_ENV : 0;
}
