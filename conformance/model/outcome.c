/* outcome.c: the SUT process's outcome, cleared, named and written for the report (see
 * outcome.h). */
#include "model/outcome.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/utf8.h"

const char *ock__sut_signal_name(int sig) {
  static _Thread_local char other[16];
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  case SIGINT:
    return "SIGINT";
  case SIGHUP:
    return "SIGHUP";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGPIPE:
    return "SIGPIPE";
  default:
    snprintf(other, sizeof other, "SIG%d", sig);
    return other;
  }
}

void ock__sut_result_clear(struct sut_result *r) {
  free(r->out);
  free(r->err);
  memset(r, 0, sizeof *r);
}

cJSON *ock__outcome_json(struct sut_result *p) {
  cJSON *o = cJSON_CreateObject();
  if (p->exit_code >= 0)
    cJSON_AddNumberToObject(o, "exit_code", p->exit_code);
  else
    cJSON_AddNullToObject(o, "exit_code");
  if (p->signal)
    cJSON_AddStringToObject(o, "signal", ock__sut_signal_name(p->signal));
  else
    cJSON_AddNullToObject(o, "signal");
  cJSON_AddBoolToObject(o, "timed_out", p->timed_out);
  cJSON_AddNumberToObject(o, "wall_ms", p->wall_ms);
  cJSON_AddNumberToObject(o, "sigints", p->interrupted);
  /* A SUT may print any bytes; the report must stay valid UTF-8 (and JSON, XML, HTML). */
  if (p->out)
    ock_utf8_scrub(p->out);
  if (p->err)
    ock_utf8_scrub(p->err);
  cJSON_AddStringToObject(o, "stdout", p->out ? p->out : "");
  cJSON_AddStringToObject(o, "stderr", p->err ? p->err : "");
  cJSON_AddNumberToObject(o, "stdout_bytes", (double)p->out_total);
  cJSON_AddNumberToObject(o, "stderr_bytes", (double)p->err_total);
  return o;
}
