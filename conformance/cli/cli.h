/*
 * cli.h: the subcommands of `ock` (main.c dispatches to them) and their shared helpers.
 *
 * Each cmd_* takes the arguments after its own name and returns the process exit code:
 * 0 all scored checks pass, 1 a check failed, 2 usage or fixture error, 3 incomplete.
 */
#ifndef OCK_CLI_H
#define OCK_CLI_H

#include <stddef.h>
#include <stdio.h>

#define OCK_KIT_VERSION "0.1.0"

enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_INCOMPLETE = 3 };

int ock__cmd_run(int argc, char **argv);
int ock__cmd_list(int argc, char **argv);
int ock__cmd_explain(int argc, char **argv);
int ock__cmd_check(int argc, char **argv);
int ock__cmd_diff(int argc, char **argv);
int ock__cmd_record(int argc, char **argv);
int ock__cmd_report(int argc, char **argv);
int ock__cmd_fuzz(int argc, char **argv);

/* ock__check_event_log grades one event log read from f (name labels messages), printing
 * violations and a summary to out (NULL: silent). Returns the exit code of `ock check`. */
int ock__check_event_log(FILE *f, const char *name, FILE *out);

/* ock__default_fixtures_dir: $OCK_FIXTURES, else the installed share/ock/fixtures next to the
 * binary, else "fixtures" (the source tree). Static storage. */
const char *ock__default_fixtures_dir(void);

/* ock__cli_fixtures_missing: when dir is ock__default_fixtures_dir()'s answer and not a directory,
 * writes into err (n bytes) every place that was tried and how to name the scenarios
 * (--fixtures, OCK_FIXTURES), and returns -1; else 0 (a directory named by --fixtures is
 * reported by the loader). */
int ock__cli_fixtures_missing(const char *dir, char *err, size_t n);

/* ock__cli_print_causes prints report.causes (report borrowed) for a person: how many failing
 * checks they explain, then each cause (at most max; the rest counted) with its message, the
 * checks it explains, its simplest scenario and the command that reruns it. Prints nothing
 * when there is no cause. Every report string is escaped for the terminal
 * (print_causes.c). */
struct cJSON;
void ock__cli_print_causes(FILE *f, const struct cJSON *report, int max);

/* ock__cli_make_dirs creates dir and its missing parents (mode 0755); a failure shows when the
 * directory is written. */
void ock__cli_make_dirs(const char *dir);

/* ock__use_color: stdout is a terminal and NO_COLOR is not set. */
int ock__use_color(FILE *f);

#endif
