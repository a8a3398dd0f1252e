/*
 * routing.c: which provider serves a request (CUGAR routing decisions).
 *
 * A decision is a pure function of the providers' priorities, their list order and the set of
 * providers that already failed in this execute, so the same inputs always give the same
 * target, fallback and reason (upstream CUGAR's round-robin broke this). The reason names the
 * rule, so a reader of the event log can check the choice by hand.
 */
#include "ock/orchestrator.h"

#include <stdio.h>

/* best returns the index of the preferred provider that is neither failed nor skip, or -1. */
static int best(const struct ock_provider *const *providers, size_t n, const unsigned char *failed,
                int skip) {
  int pick = -1;
  for (size_t i = 0; i < n; i++) {
    if ((failed && failed[i]) || (int)i == skip || !providers[i])
      continue;
    if (pick < 0 || providers[i]->priority < providers[pick]->priority)
      pick = (int)i; /* strictly lower only: ties keep the earlier one */
  }
  return pick;
}

void ock_route_decide(const struct ock_provider *const *providers, size_t n,
                      const unsigned char *failed, const char *after, struct ock_route *out) {
  size_t left = 0;
  for (size_t i = 0; i < n; i++)
    left += providers[i] && !(failed && failed[i]);
  out->target = best(providers, n, failed, -1);
  out->fallback = out->target < 0 ? -1 : best(providers, n, failed, out->target);
  if (out->target < 0) {
    snprintf(out->reason, sizeof out->reason, "no provider left: all %zu have failed", n);
    return;
  }
  const struct ock_provider *p = providers[out->target];
  if (after)
    snprintf(out->reason, sizeof out->reason,
             "fallback after \"%s\" failed: lowest priority number (%d) among the %zu providers "
             "not yet failed, ties by list order",
             after, p->priority, left);
  else
    snprintf(out->reason, sizeof out->reason,
             "lowest priority number (%d) among %zu available providers, ties by list order",
             p->priority, left);
}
