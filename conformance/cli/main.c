/*
 * main.c: `ock`, the Orchestrator Conformance Kit's command line. It dispatches to the
 * subcommands (cli.h); each has its own --help.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char usage[] =
    "usage: ock COMMAND [options]\n"
    "\n"
    "Grades an LLM-agent orchestrator against the ock/1 contract (SPEC.md): runs it against a\n"
    "scripted mock provider and checks event order, orchestrator:complete, and that no tool call\n"
    "is left without its result.\n"
    "\n"
    "commands:\n"
    "  run --orchestrator CMD     run the scenarios against CMD and write the reports\n"
    "  list [scenarios|requirements]  what the kit checks (filterable; see ock list --help)\n"
    "  explain ID                 a requirement (or the one a check id such as proc.exit\n"
    "                             grades): its text, level, what the check looks at, a fix\n"
    "  check EVENTS.jsonl         grade a recorded event log offline (grammar, fields, pairing)\n"
    "  diff OLD NEW               compare two runs' event contracts (events, fields, pairing,\n"
    "                             status); exit 1 on a breaking change\n"
    "  record --upstream URL -o DIR  a recording proxy: a production session as a replayable\n"
    "                             scenario (fixture.json), its traffic and events\n"
    "  report merge A.json B.json... -o DIR   join the reports of shards\n"
    "  report render FILE.json -o DIR         write the other formats from a report.json\n"
    "  fuzz --orchestrator CMD    random sessions against CMD, universal rules, shrunk failures\n"
    "  version                    print the kit and contract versions\n"
    "\n"
    "Exit codes: 0 pass, 1 a check failed, 2 usage or fixture error, 3 incomplete.\n";

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
      !strcmp(argv[1], "help")) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? EXIT_USAGE : EXIT_PASS;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "run"))
    return ock__cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "list"))
    return ock__cmd_list(argc - 1, argv + 1);
  if (!strcmp(cmd, "explain"))
    return ock__cmd_explain(argc - 1, argv + 1);
  if (!strcmp(cmd, "check"))
    return ock__cmd_check(argc - 1, argv + 1);
  if (!strcmp(cmd, "diff"))
    return ock__cmd_diff(argc - 1, argv + 1);
  if (!strcmp(cmd, "record"))
    return ock__cmd_record(argc - 1, argv + 1);
  if (!strcmp(cmd, "report"))
    return ock__cmd_report(argc - 1, argv + 1);
  if (!strcmp(cmd, "fuzz"))
    return ock__cmd_fuzz(argc - 1, argv + 1);
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
    printf("ock %s (contract ock/1)\n", OCK_KIT_VERSION);
    return EXIT_PASS;
  }
  fprintf(stderr, "ock: unknown command \"%s\"\n\n%s", cmd, usage);
  return EXIT_USAGE;
}
