/*
 * manifest.c: the SUT manifest and the --wires option (see manifest.h).
 */
#include "cli/manifest.h"

#include <stdio.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/registry.h"
#include "ock/status.h"
#include "ock/wire_list.h"

#define MANIFEST_MAX (1 << 20)

const char *const ock__default_wires[] = {"openai", "anthropic", NULL};

static const char *wire_names[65];
static char wires_help[800];

const char *const *ock__wire_option_names(void) {
  int n = ock_wire_count();
  for (int i = 0; i < n && i < 64; i++)
    wire_names[i] = ock_wire_name_at(i);
  wire_names[n < 64 ? n : 64] = NULL;
  return wire_names;
}

const char *ock__wire_option_help(const char *more) {
  const char *const *names = ock__wire_option_names();
  size_t used = (size_t)snprintf(wires_help, sizeof wires_help, "the provider wires it speaks:");
  for (int i = 0; names[i] && used < sizeof wires_help; i++)
    used += (size_t)snprintf(wires_help + used, sizeof wires_help - used, "%s %s", i ? "," : "",
                             names[i]);
  if (used < sizeof wires_help)
    snprintf(wires_help + used, sizeof wires_help - used, "\n(default openai,anthropic)%s",
             more ? more : "");
  return wires_help;
}

/* wire_known: a provider wire of the wire table, which a SUT may declare (SPEC.md 7.9). */
static int wire_known(const char *w) {
  return ock_wire_by_name(w, NULL);
}

static int is_nonempty(const char *s) {
  return s[0] != '\0';
}

static void list_add(struct ock_option_list *l, const char *s) {
  if (l->n < OCK_OPTION_LIST_MAX)
    l->items[l->n++] = s;
  l->items[l->n] = NULL;
}

/* read_strings appends the strings of the array arr (at path; NULL: none) to l, each accepted
 * by ok (NULL: any string). Returns 0, or an error in je saying what was expected. */
static int read_strings(const cJSON *arr, const char *path, int (*ok)(const char *),
                        const char *expected, struct ock_option_list *l, struct ock_jerr *je) {
  const cJSON *it;
  int i = 0;
  cJSON_ArrayForEach(it, arr) {
    char p[OCK_JSON_PATH_MAX];
    ock_jpath_index(p, sizeof p, path, i++);
    if (!cJSON_IsString(it))
      return ock_jerr_set(je, OCK_ETYPE, p, "%s, got %s", expected, ock_json_type_name(it));
    if (ok && !ok(it->valuestring))
      return ock_jerr_set(je, OCK_ETYPE, p, "%s", expected);
    if (l->n >= OCK_OPTION_LIST_MAX)
      return ock_jerr_set(je, OCK_ETYPE, p, "at most %d strings in the list", OCK_OPTION_LIST_MAX);
    list_add(l, it->valuestring);
  }
  return 0;
}

/* read_lists reads the members of the parsed manifest m->json. */
static int read_lists(struct ock_manifest *m, struct ock_jerr *je) {
  const cJSON *j = m->json, *caps = NULL, *xf = NULL, *wires = NULL, *emulated = NULL;
  int rc = ock_jcheck_object(j, "$", je);
  if (!rc)
    rc = ock_json_check_unique_keys(j, "$", je);
  if (!rc)
    rc = ock_jget_nonempty(j, "$", "name", OCK_REQUIRED, &m->name, je);
  if (!rc)
    rc = ock_jget_array(j, "$", "capabilities", OCK_REQUIRED, &caps, je);
  if (!rc)
    rc = ock_jget_array(j, "$", "expected_failures", OCK_OPTIONAL, &xf, je);
  if (!rc)
    rc = ock_jget_array(j, "$", "wires", OCK_OPTIONAL, &wires, je);
  m->has_wires = wires != NULL;
  if (!rc)
    rc = read_strings(wires, "$.wires", wire_known, "expected a wire name (see ock run --help)",
                      &m->wires, je);
  if (!rc)
    rc = read_strings(caps, "$.capabilities", ock_capability_known,
                      "expected a known capability name", &m->caps, je);
  if (!rc)
    rc = ock_jget_nonempty(j, "$", "framework", OCK_OPTIONAL, &m->framework, je);
  if (!rc)
    rc = ock_jget_array(j, "$", "emulated", OCK_OPTIONAL, &emulated, je);
  m->has_emulated = emulated != NULL;
  if (!rc)
    rc = read_strings(emulated, "$.emulated", is_nonempty,
                      "expected a non-empty string naming a policy the bridge emulates",
                      &m->emulated, je);
  if (!rc)
    rc = read_strings(xf, "$.expected_failures", NULL,
                      "expected a string \"scenario\" or \"scenario:ID\"", &m->expected, je);
  return rc;
}

int ock__manifest_load(const char *path, struct ock_manifest *m, char *err, size_t n) {
  struct ock_jerr je;
  memset(m, 0, sizeof *m);
  int rc = ock_json_parse_file(path, MANIFEST_MAX, &m->json, &je);
  if (!rc)
    rc = read_lists(m, &je);
  if (rc)
    snprintf(err, n, "%s: %s: %s", path, je.where, je.what);
  return rc;
}

/* same_set: a and b hold the same names, in any order, ignoring implied (NULL: none). */
static int same_set(const struct ock_option_list *a, const struct ock_option_list *b,
                    const char *implied) {
  for (int k = 0; k < 2; k++) {
    const struct ock_option_list *x = k ? b : a, *y = k ? a : b;
    for (int i = 0; i < x->n; i++) {
      int found = implied && !strcmp(x->items[i], implied);
      for (int j = 0; j < y->n && !found; j++)
        found = !strcmp(x->items[i], y->items[j]);
      if (!found)
        return 0;
    }
  }
  return 1;
}

/* join_list writes the names of l as "a,b" into out (n bytes), or "(none)". */
static void join_list(char *out, size_t n, const struct ock_option_list *l) {
  size_t used = 0;
  snprintf(out, n, "%s", l->n ? "" : "(none)");
  for (int i = 0; i < l->n && used < n; i++) {
    int w = snprintf(out + used, n - used, "%s%s", i ? "," : "", l->items[i]);
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

int ock__manifest_merge(const struct ock_manifest *m, const char *path,
                        struct ock_option_list *caps, struct ock_option_list *wires, char *err,
                        size_t n) {
  const struct {
    const char *option, *member, *implied;
    struct ock_option_list *given;
    const struct ock_option_list *declared;
    int applies;
  } both[] = {{"--capabilities", "capabilities", OCK_CAP_CORE, caps, &m->caps, 1},
              {"--wires", "wires", NULL, wires, &m->wires, m->has_wires}};
  for (size_t k = 0; k < 2; k++) {
    if (!both[k].applies)
      continue;
    if (both[k].given->n && !same_set(both[k].given, both[k].declared, both[k].implied)) {
      char a[400], b[400];
      join_list(a, sizeof a, both[k].given);
      join_list(b, sizeof b, both[k].declared);
      snprintf(err, n,
               "%s %s differs from the %s of the manifest %s (%s); give the list once, in the "
               "manifest or on the command line",
               both[k].option, a, both[k].member, path, b);
      return OCK_ETYPE;
    }
    if (!both[k].given->n)
      *both[k].given = *both[k].declared;
  }
  return OCK_OK;
}

void ock__manifest_free(struct ock_manifest *m) {
  cJSON_Delete(m->json);
  memset(m, 0, sizeof *m);
}
