/*
 * outcome.h: the SUT process's outcome as the harness saw it (exit, signal, timeout, output,
 * SIGINTs sent), the fact the PROC checks grade and the reports show. run/sut.c fills it; the
 * model, the checks and the reports only read it, so none of them needs the runner.
 */
#ifndef OCK_MODEL_OUTCOME_H
#define OCK_MODEL_OUTCOME_H

#include <stddef.h>

#include <cJSON.h>

struct sut_result {
  int exit_code;    /* when it exited; -1 otherwise */
  int signal;       /* the signal that ended it, or 0 */
  int timed_out;    /* killed at the timeout */
  int aborted;      /* killed because the abort flag was set (ock itself was interrupted) */
  int spawn_failed; /* fork or exec failed (then exit_code is 127 from the shell, or -1) */
  char *out; /* kept stdout, NUL-terminated, its own NUL bytes as '?'; owned (ock__sut_result_clear)
              */
  size_t out_total; /* bytes it wrote to stdout in all */
  char *err;
  size_t err_total;
  double wall_ms;  /* from start to exit (or kill) */
  int interrupted; /* SIGINTs sent to it */
};

/* ock__sut_result_clear frees the kept output and zeroes r. */
void ock__sut_result_clear(struct sut_result *r);

/* ock__sut_signal_name: "SIGSEGV" for 11, etc.; "SIG<n>" for others (static or thread-local). */
const char *ock__sut_signal_name(int sig);

/* ock__outcome_json: the report's "process" object for p (reports/report.schema.json); the kept
 * output is scrubbed to valid UTF-8 in place first. NULL when out of memory; caller frees. */
cJSON *ock__outcome_json(struct sut_result *p);

#endif
