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
#include "ock/orchestrator.h"
#include "ock/status.h"
#include "session.h"

#define CAPABILITIES "core,streaming,parallel,scheduling,lifecycle,resilience,cancellation"
#define EXIT_USAGE 2
#define EXIT_ENV 3
#define SESSION_TIMEOUT_MS 30000L

static const char usage[] =
    "usage: ock-orchestrator [options]\n"
    "\n"
    "The reference orchestrator of OCK, speaking the ock/1 protocol: it fetches its session\n"
    "from $OCK_URL/ock/v1/session, runs each prompt as one execute (keeping one conversation\n"
    "across prompts), posts every event to $OCK_URL/ock/v1/events, runs tools through\n"
    "$OCK_URL/ock/v1/tools/{name}, and exits 0. SIGINT cancels the running execute only.\n"
    "\n"
    "options (the session's config wins over these; these win over the environment):\n"
    "  --mode basic|streaming|events   loop mode                     env OCK_MODE (basic)\n"
    "  --max-iterations N              tool-loop turns per execute   env OCK_MAX_ITERATIONS (10)\n"
    "  --error-strategy S              fail_fast|continue|retry|fallback\n"
    "                                                                env OCK_ERROR_STRATEGY "
    "(continue)\n"
    "  --capabilities                  print the capabilities and exit:\n"
    "                                  " CAPABILITIES "\n"
    "  --help                          print this and exit\n"
    "\n"
    "environment:\n"
    "  OCK_URL            root of the ock/1 endpoints (required), e.g. http://127.0.0.1:8080\n"
    "  OPENAI_API_KEY     sent to OpenAI-wire providers (a dummy when unset)\n"
    "  ANTHROPIC_API_KEY  sent to Anthropic-wire providers (a dummy when unset)\n"
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

/* Options from the command line and the environment, before the session's config. */
struct options {
  const char *mode, *max_iterations, *strategy;
  const char *mode_src, *max_src, *strategy_src; /* "--mode" or "OCK_MODE", for messages */
  int capabilities, help;
};

static int parse_args(int argc, char **argv, struct options *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = NULL, **src = NULL;
    if (!strcmp(a, "--capabilities")) {
      o->capabilities = 1;
      continue;
    }
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      o->help = 1;
      continue;
    }
    const char *names[] = {"--mode", "--max-iterations", "--error-strategy"};
    const char **slots[] = {&o->mode, &o->max_iterations, &o->strategy};
    const char **srcs[] = {&o->mode_src, &o->max_src, &o->strategy_src};
    const char *value = NULL;
    for (int k = 0; k < 3 && !slot; k++) {
      size_t n = strlen(names[k]);
      if (!strncmp(a, names[k], n) && (a[n] == '\0' || a[n] == '=')) {
        slot = slots[k];
        src = srcs[k];
        value = a[n] == '=' ? a + n + 1 : (i + 1 < argc ? argv[++i] : NULL);
      }
    }
    if (!slot) {
      fprintf(stderr, "ock-orchestrator: unknown option '%s' (see --help)\n", a);
      return EXIT_USAGE;
    }
    if (!value) {
      fprintf(stderr, "ock-orchestrator: option '%s' needs a value (see --help)\n", a);
      return EXIT_USAGE;
    }
    *slot = value;
    *src = a;
  }
  const char *env[] = {"OCK_MODE", "OCK_MAX_ITERATIONS", "OCK_ERROR_STRATEGY"};
  const char **slots[] = {&o->mode, &o->max_iterations, &o->strategy};
  const char **srcs[] = {&o->mode_src, &o->max_src, &o->strategy_src};
  for (int k = 0; k < 3; k++) {
    const char *v = getenv(env[k]);
    if (!*slots[k] && v && *v) {
      *slots[k] = v;
      *srcs[k] = env[k];
    }
  }
  return 0;
}

/* apply_options turns the options into config defaults. */
static int apply_options(const struct options *o, struct ock_orchestrator_config *c) {
  if (o->mode && ock_mode_parse(o->mode, &c->mode)) {
    fprintf(stderr, "ock-orchestrator: %s: expected basic, streaming or events, got '%s'\n",
            o->mode_src, o->mode);
    return EXIT_USAGE;
  }
  if (o->strategy && ock_strategy_parse(o->strategy, &c->strategy)) {
    fprintf(stderr,
            "ock-orchestrator: %s: expected fail_fast, continue, retry or fallback, got '%s'\n",
            o->strategy_src, o->strategy);
    return EXIT_USAGE;
  }
  if (o->max_iterations) {
    char *end = NULL;
    errno = 0;
    long v = strtol(o->max_iterations, &end, 10);
    if (errno || end == o->max_iterations || *end || v < 1 || v > 1000000) {
      fprintf(stderr, "ock-orchestrator: %s: expected a whole number from 1 to 1000000, got '%s'\n",
              o->max_src, o->max_iterations);
      return EXIT_USAGE;
    }
    c->max_iterations = (int)v;
  }
  c->streaming = c->mode == OCK_MODE_STREAMING;
  return 0;
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

int main(int argc, char **argv) {
  struct options opt = {0};
  int code = parse_args(argc, argv, &opt);
  if (code)
    return code;
  if (opt.help) {
    fputs(usage, stdout);
    return 0;
  }
  if (opt.capabilities) {
    puts(CAPABILITIES);
    return 0;
  }
  struct ock_orchestrator_config defaults;
  ock_orchestrator_config_default(&defaults);
  if ((code = apply_options(&opt, &defaults)))
    return code;
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
  size_t rlen = strlen(root);
  while (rlen && root[rlen - 1] == '/')
    rlen--;
  char url[2048];
  snprintf(url, sizeof url, "%.*s/ock/v1/session", (int)rlen, root);
  struct ock_jerr err = {{0}, {0}};
  cJSON *doc = NULL;
  struct ock__session *s = NULL;
  int rc = ock_http_get_json(url, SESSION_TIMEOUT_MS, OCK_CAP_SESSION_BYTES, &doc, &err);
  if (rc) {
    fprintf(stderr, "ock-orchestrator: cannot fetch the session: %s: %s\n", err.where, err.what);
    http_done();
    return EXIT_ENV;
  }
  rc = ock__session_parse(doc, &defaults, &s, &err);
  cJSON_Delete(doc);
  if (rc) {
    fprintf(stderr, "ock-orchestrator: the session from %s is invalid: %s: %s\n", url, err.where,
            err.what);
    http_done();
    return EXIT_ENV;
  }

  struct world w = {0};
  rc = world_build(&w, s, root);
  if (rc) {
    fprintf(stderr, "ock-orchestrator: cannot set up: %s\n", ock_strerror(rc));
    world_free(&w, s);
    ock__session_free(s);
    http_done();
    return EXIT_ENV;
  }

  signal(SIGPIPE, SIG_IGN);
  g_orch = w.orch;
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
    if (!index || ock_exec_context_with_metadata(w.exec, "prompt_index", index, &exec))
      exec = NULL; /* the session context still carries the trace ID */
    cJSON_Delete(index);
    rc = ock_orchestrator_execute(w.orch, s->prompts[i], exec ? exec : w.exec,
                                  ock_memctx_context(w.context), w.providers, s->n_providers,
                                  w.tools, s->n_tools, ock_http_hooks_get(w.hooks), &res);
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
  world_free(&w, s);
  ock__session_free(s);
  http_done();
  return 0;
}
