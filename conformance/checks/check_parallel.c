/*
 * check_parallel.c: PARALLEL, the calls of one response: one parallel_group_id per response,
 * run concurrently when parallel_tools is set, results added in call order whatever order the
 * tools finished in.
 */
#include <stdlib.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "model/view_calls.h"

static const char *group_of(const struct call_fate *f) {
  const cJSON *e = f->pre ? f->pre : f->post ? f->post : f->error;
  return ock__pf_str(e, OCK_FIELD_PARALLEL_GROUP_ID);
}

static int result_position(const cJSON *request, const char *id) {
  int i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL)) {
    if (!strcmp(ock__str_field(m, "role"), "tool") &&
        !strcmp(ock__str_field(m, "tool_call_id"), id))
      return i;
    i++;
  }
  return -1;
}

/* parallel_group_id: the calls [a, b) of one reply, among all n, share one parallel_group_id
 * that no other response uses (OCK-PARALLEL-001). */
static void parallel_group_id(struct grade_ctx *g, const struct call_fate *f, size_t n, size_t a,
                              size_t b) {
  const char *group = group_of(&f[a]);
  int same = group && *group;
  /* Every tool:pre, tool:post and tool:error of the response's calls carries that id; a call
   * fail_fast skipped has no events (SPEC.md 5): it carries no id to compare. */
  for (size_t i = a; i < b && same; i++) {
    const cJSON *events[] = {f[i].pre, f[i].post, f[i].error};
    for (size_t k = 0; k < sizeof events / sizeof events[0] && same; k++) {
      const char *gi = ock__pf_str(events[k], OCK_FIELD_PARALLEL_GROUP_ID);
      same = !events[k] || (gi && !strcmp(gi, group));
    }
  }
  for (size_t i = 0; i < n && same; i++) {
    const char *gi = group_of(&f[i]);
    if ((i < a || i >= b) && gi && !strcmp(gi, group))
      same = 0; /* another response reused it */
  }
  if (f[a].pre || f[a].error)
    ock__grade_emit(g, CK_PARALLEL_GROUP_ID, same, ock__entry_seq(f[a].reply),
                    "one parallel_group_id per response, shared by its calls, unique to it",
                    "reply %ld: %s", ock__entry_seq(f[a].reply),
                    same    ? "one id"
                    : group ? "ids differ or repeat across responses"
                            : "no parallel_group_id");
}

/* parallel_overlap: the calls [a, b) of one reply run at the same time: some later call starts
 * before an earlier one has ended (OCK-PARALLEL-002). A pool that runs fewer at once than there
 * are calls overlaps too. Judged when some call took 100 ms or more, so there was time to. */
static void parallel_overlap(struct grade_ctx *g, const struct call_fate *f, size_t a, size_t b) {
  double longest = 0;
  for (size_t i = a; i < b; i++) {
    if (!f[i].start || !f[i].end)
      return;
    double took = ock__entry_time(f[i].end) - ock__entry_time(f[i].start);
    longest = took > longest ? took : longest;
  }
  if (longest < 100)
    return;
  int overlap = 0;
  for (size_t i = a; i < b && !overlap; i++)
    for (size_t j = i + 1; j < b && !overlap; j++)
      overlap = ock__entry_seq(f[j].start) < ock__entry_seq(f[i].end);
  ock__grade_emit(g, CK_PARALLEL_OVERLAP, overlap, ock__entry_seq(f[a].reply),
                  "a later call of the response starts before an earlier one ends",
                  "reply %ld: %zu calls, %s", ock__entry_seq(f[a].reply), b - a,
                  overlap ? "some ran at the same time"
                          : "each started after the one before ended");
}

/* parallel_result_order: the results of the calls [a, b) of one reply come in call order,
 * whatever order the tools finished in (OCK-PARALLEL-003). */
static void parallel_result_order(struct grade_ctx *g, const struct call_fate *f, size_t a,
                                  size_t b) {
  const struct view *v = g->v;
  size_t j;
  const cJSON *next =
      ock__next_request_after(v, f[b - 1].end ? f[b - 1].reply_index : f[a].reply_index, &j);
  if (next) {
    int prev = -1, ordered = 1, all = 1;
    for (size_t i = a; i < b; i++) {
      int p = result_position(next, ock__call_id(&f[i]));
      all &= p >= 0;
      if (p >= 0 && p < prev)
        ordered = 0;
      if (p >= 0)
        prev = p;
    }
    if (all)
      ock__grade_emit(g, CK_PARALLEL_RESULT_ORDER, ordered, ock__entry_seq(next),
                      "results in call order", "results of reply %ld are %s",
                      ock__entry_seq(f[a].reply), ordered ? "in call order" : "out of call order");
  }
}

void ock__check_parallel(struct grade_ctx *g) {
  const struct view *v = g->v;
  struct call_fate *f = NULL;
  size_t n = ock__call_fates(v, &f);
  for (size_t a = 0; a < n;) {
    size_t b = a; /* [a, b): the calls of one reply */
    while (b < n && f[b].reply == f[a].reply)
      b++;
    parallel_group_id(g, f, n, a, b);
    if (b - a >= 2 && v->cfg.parallel_tools)
      parallel_overlap(g, f, a, b);
    if (b - a >= 2)
      parallel_result_order(g, f, a, b);
    a = b;
  }
  free(f);
}
