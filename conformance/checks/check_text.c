/*
 * check_text.c: TEXT, the exact texts of ock/1 (SPEC.md 2.15). Each text is a SHOULD split from
 * the MUST that keeps the safety property of its situation, and is judged where that MUST's
 * check finds the situation (check_tool.c, check_hook.c, check_iter.c, check_error.c,
 * check_cancel.c): this file holds what they share, the comparison of a call's result text.
 * The MUST checks judge that a result exists at all; a call whose result never reaches a later
 * request yields no text check.
 */
#include <stdio.h>
#include <string.h>

#include "checks/grade.h"
#include "model/view_calls.h"

void ock__text_of_result(struct grade_ctx *g, enum check_name check, const struct call_fate *f,
                         const char *want, int prefix_only) {
  size_t j;
  const cJSON *next = ock__next_request_after(g->v, f->reply_index, &j);
  const char *text = next ? ock__request_result_text(next, ock__call_id(f)) : NULL;
  if (!text)
    return;
  int ok = prefix_only ? !strncmp(text, want, strlen(want)) : !strcmp(text, want);
  ock__grade_emit(g, check, ok, ock__entry_seq(next),
                  prefix_only ? "the result text starts with the text of SPEC.md 5.11"
                              : "the result text is the text of SPEC.md 5.11",
                  "call %s (%.40s): result text \"%.80s\"%s, expected %s\"%.80s\"", ock__call_id(f),
                  ock__call_name(f), text, strlen(text) > 80 ? "..." : "",
                  prefix_only ? "a start of " : "", want);
}
