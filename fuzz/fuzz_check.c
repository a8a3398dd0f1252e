/* fuzz_check.c: any bytes as an event log for `ock check` (the streaming grader). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size)
    return 0;
  FILE *f = fmemopen((void *)data, size, "r");
  if (!f)
    return 0;
  ock__check_event_log(f, "fuzz", NULL);
  fclose(f);
  return 0;
}
