/*
 * cmd_record.c: `ock record --upstream URL -o DIR`, a recording proxy between an agent and its
 * provider (record/proxy.h), writing a replayable scenario and the traffic when it is stopped
 * (record/recording.h).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cli/cli.h"
#include "ock/status.h"
#include "record/fixture.h"
#include "record/proxy.h"
#include "record/recording.h"
#include "record/redact.h"

#define MAX_REDACT 64

static const char usage[] =
    "usage: ock record --upstream URL -o DIR [--port N] [--wire W] [--redact JSONPATH]...\n"
    "\n"
    "A recording proxy: listens on 127.0.0.1 (a free port unless --port), prints its URL as the\n"
    "first line of output, and forwards every request to URL (method, path, query, body,\n"
    "headers but the hop-by-hop ones), streamed replies as they arrive. Point the agent's base\n"
    "URL at it (OPENAI_BASE_URL=<url>/v1, ANTHROPIC_BASE_URL=<url>,\n"
    "GOOGLE_GEMINI_BASE_URL=<url>). Events posted to /ock/v1/events are recorded and answered\n"
    "{\"action\":\"continue\"}; calls of the kit's tool endpoint and /mcp are forwarded and\n"
    "recorded.\n"
    "\n"
    "It records every wire the kit speaks, streamed and not: OpenAI Chat Completions\n"
    "(POST .../chat/completions), Anthropic Messages (POST .../v1/messages), the OpenAI\n"
    "Responses API (POST .../responses; a previous_response_id chain is read whole) and the\n"
    "Gemini API (POST .../{v1,v1beta}/models/M:generateContent and\n"
    ":streamGenerateContent). Replay a recording of the last two with --wires responses or\n"
    "--wires gemini.\n"
    "\n"
    "On SIGINT or SIGTERM it writes:\n"
    "  DIR/fixture.json   a scenario replaying the model's side: the prompts, each reply in the\n"
    "                     neutral form (faults: HTTP errors with Retry-After, cut streams), the\n"
    "                     tools' results; run it with `ock run --fixtures DIR`\n"
    "  DIR/traffic.jsonl  every exchange, redacted\n"
    "  DIR/events.jsonl   the events the agent posted (for `ock check` and `ock diff`), if any\n"
    "\n"
    "Secrets never reach the disk: Authorization, x-api-key, x-goog-api-key, api-key, cookies\n"
    "and key parameters of query strings are written as [redacted], and their values are\n"
    "scrubbed from every file.\n"
    "\n"
    "  --upstream URL    the provider (or a mock): http://HOST:PORT[/PREFIX]\n"
    "  -o, --out DIR     where to write (made when missing)\n"
    "  --port N          listen on port N (default: a free port)\n"
    "  --wire W          every request outside /ock/ and /mcp is an LLM request on wire W\n"
    "                    (openai, anthropic, responses, gemini); default: each request's path\n"
    "                    says\n"
    "  --redact PATH     also replace this JSON path in every body, e.g. $.metadata.user_id,\n"
    "                    $.messages[*].content (repeatable)\n"
    "  -h, --help        print this and exit\n"
    "\n"
    "Exit: 0 written, 2 usage error or nothing could be written.\n";

struct record_args {
  const char *upstream, *dir, *wire;
  int port;
  const char *redact[MAX_REDACT];
  size_t n_redact;
};

static int parse(int argc, char **argv, struct record_args *a) {
  for (int i = 1; i < argc; i++) { /* argv[0] is "record" */
    const char *o = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
      fputs(usage, stdout);
      return 0;
    }
    if (!v) {
      fprintf(stderr, "ock record: unknown option or missing value: %s\n", o);
      return EXIT_USAGE;
    }
    i++;
    if (!strcmp(o, "--upstream"))
      a->upstream = v;
    else if (!strcmp(o, "-o") || !strcmp(o, "--out"))
      a->dir = v;
    else if (!strcmp(o, "--wire"))
      a->wire = v;
    else if (!strcmp(o, "--port")) {
      char *end;
      long p = strtol(v, &end, 10);
      if (*end || p < 0 || p > 65535) {
        fprintf(stderr, "ock record: --port: expected 0 to 65535, got %s\n", v);
        return EXIT_USAGE;
      }
      a->port = (int)p;
    } else if (!strcmp(o, "--redact") && a->n_redact < MAX_REDACT) {
      if (!ock__rec_path_valid(v)) {
        fprintf(stderr,
                "ock record: --redact %s: expected a JSON path such as $.a.b[0] or "
                "$.messages[*].content\n",
                v);
        return EXIT_USAGE;
      }
      a->redact[a->n_redact++] = v;
    } else {
      fprintf(stderr, "ock record: unknown option: %s\n", o);
      return EXIT_USAGE;
    }
  }
  return -1;
}

static int check_args(const struct record_args *a) {
  if (!a->upstream || strncmp(a->upstream, "http", 4) || !strstr(a->upstream, "://")) {
    fprintf(stderr, "ock record: --upstream http://HOST:PORT is required\n%s", usage);
    return EXIT_USAGE;
  }
  if (!a->dir || !*a->dir) {
    fprintf(stderr, "ock record: -o DIR is required\n");
    return EXIT_USAGE;
  }
  if (a->wire && !ock__rec_wire_of("/", a->wire)) {
    fprintf(stderr, "ock record: --wire: expected openai, anthropic, responses or gemini, got %s\n",
            a->wire);
    return EXIT_USAGE;
  }
  return -1;
}

int ock__cmd_record(int argc, char **argv) {
  struct record_args a = {0};
  int rc = parse(argc, argv, &a);
  rc = rc >= 0 ? rc : check_args(&a);
  if (rc >= 0)
    return rc;
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL); /* before any thread: only sigwait takes them */
  curl_global_init(CURL_GLOBAL_DEFAULT);
  struct recording rec;
  ock__recording_init(&rec);
  rec.wire = a.wire;
  rec.redact = a.redact;
  rec.n_redact = a.n_redact;
  rec_proxy *p = NULL;
  char err[512];
  if (ock__rec_proxy_start(a.upstream, a.port, ock__recording_sink, &rec, &p, err, sizeof err)) {
    fprintf(stderr, "ock record: %s\n", err);
    ock__recording_free(&rec);
    return EXIT_USAGE;
  }
  printf("%s\n", ock__rec_proxy_url(p));
  fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  ock__rec_proxy_free(p);
  ock__cli_make_dirs(a.dir);
  rc = ock__recording_write(&rec, a.dir, err, sizeof err);
  if (rc)
    fprintf(stderr, "ock record: %s\n", err);
  else
    fprintf(stderr, "ock record: %zu exchanges written to %s\n", rec.n, a.dir);
  ock__recording_free(&rec);
  curl_global_cleanup();
  return rc ? EXIT_USAGE : EXIT_PASS;
}
