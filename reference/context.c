/*
 * context.c: the in-memory context manager.
 *
 * It keeps every message in order and sends them all; there is no compaction, so it can never
 * separate a tool call from its results. The engine is the only writer, from one thread.
 */
#include "ock/orchestrator.h"

#include <stdlib.h>

#include "ock/status.h"

struct ock_memctx {
  struct ock_context iface;
  struct ock_history history;
};

static int memctx_add(void *self, const struct ock_message *m) {
  struct ock_memctx *c = self;
  return ock_history_append_message(&c->history, m);
}

static int memctx_for_request(void *self, const struct ock_provider *p, struct ock_history *out) {
  (void)p;
  struct ock_memctx *c = self;
  return ock_history_copy(&c->history, out);
}

int ock_memctx_new(ock_memctx **out) {
  if (!out)
    return OCK_EINVAL;
  struct ock_memctx *c = calloc(1, sizeof *c);
  if (!c)
    return OCK_ENOMEM;
  ock_history_init(&c->history);
  c->iface.self = c;
  c->iface.add_message = memctx_add;
  c->iface.messages_for_request = memctx_for_request;
  *out = c;
  return OCK_OK;
}

void ock_memctx_free(ock_memctx *m) {
  if (!m)
    return;
  ock_history_free(&m->history);
  free(m);
}

const struct ock_context *ock_memctx_context(ock_memctx *m) {
  return m ? &m->iface : NULL;
}

const struct ock_history *ock_memctx_history(const ock_memctx *m) {
  return m ? &m->history : NULL;
}
