/* grammar_examples.c: the notation of SPEC.md 3.4 (docs/grammar.md) for event sequences (see
 * grammar_examples.h). */
#include "grammar_examples.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/grammar.h"
#include "runner.h"

static const struct {
  const char *shorthand, *name;
} tool_names[] = {{"pre", "tool:pre"},
                  {"post", "tool:post"},
                  {"error", "tool:error"},
                  {"selecting", "tool:selecting"},
                  {"selected", "tool:selected"}};

/* symbol parses one token (without brackets). Returns 1 for a symbol, 0 for a token that is
 * not one (the rest of the line is a comment). */
static int symbol(const char *tok, size_t len, struct grammar_symbol *s) {
  char word[64];
  if (len >= sizeof word)
    return 0;
  memcpy(word, tok, len);
  word[len] = '\0';
  memset(s, 0, sizeof *s);
  char *open = strchr(word, '(');
  if (open) {
    char *close = strchr(open, ')');
    if (!close || close[1] || close == open + 1 || (size_t)(close - open) > sizeof s->id)
      return 0;
    memcpy(s->id, open + 1, (size_t)(close - open - 1));
    *open = '\0';
  }
  char *slash = strstr(word, "/deny");
  if (slash && !slash[5]) {
    s->denied = 1;
    *slash = '\0';
  }
  for (size_t i = 0; i < sizeof tool_names / sizeof tool_names[0]; i++)
    if (!strcmp(word, tool_names[i].shorthand))
      snprintf(word, sizeof word, "%s", tool_names[i].name);
  if (!strchr(word, ':') || !islower((unsigned char)word[0]))
    return 0;
  snprintf(s->name, sizeof s->name, "%s", word);
  s->ev = ock_event_parse(word);
  if (s->ev != OCK_EVENT_CUSTOM && ock_event_is_tool(s->ev) != (open != NULL))
    return 0; /* tool events need an id, other events take none */
  return 1;
}

int grammar_example_parse(const char *text, struct grammar_example *out, char *err, size_t en) {
  memset(out, 0, sizeof *out);
  out->rejected_at = -1;
  snprintf(out->text, sizeof out->text, "%s", text);
  const char *p = text;
  for (;;) {
    while (isspace((unsigned char)*p))
      p++;
    if (!*p)
      break;
    size_t len = strcspn(p, " \t\r\n");
    if (len == 3 && !strncmp(p, "...", 3)) {
      if (out->rejected_at < 0) {
        snprintf(err, en, "'...' before the rejected symbol in: %s", text);
        return -1;
      }
      p += len;
      continue;
    }
    if (out->rejected_at >= 0 && out->n > out->rejected_at)
      break; /* nothing after the rejected symbol is fed */
    int bracket = p[0] == '[' && p[len - 1] == ']';
    if (bracket && len == 5 && !strncmp(p, "[end]", 5)) {
      out->rejected_at = out->n; /* the end of the input is what is rejected */
      break;
    }
    struct grammar_symbol s;
    if (!symbol(bracket ? p + 1 : p, bracket ? len - 2 : len, &s)) {
      if (bracket) {
        snprintf(err, en, "'%.*s' is not a symbol in: %s", (int)len, p, text);
        return -1;
      }
      break; /* a comment */
    }
    if (out->n == GRAMMAR_EXAMPLE_MAX) {
      snprintf(err, en, "more than %d symbols in: %s", GRAMMAR_EXAMPLE_MAX, text);
      return -1;
    }
    if (bracket)
      out->rejected_at = out->n;
    out->sym[out->n++] = s;
    p += len;
  }
  if (!out->n) {
    snprintf(err, en, "no symbol in: %s", text);
    return -1;
  }
  return 0;
}

/* next_block finds the next ``` fenced block at or after *p; sets [*start, *end). */
static int next_block(const char **p, const char **start, const char **end) {
  const char *open = strstr(*p, "\n```");
  if (!open)
    return -1;
  *start = strchr(open + 1, '\n');
  if (!*start)
    return -1;
  (*start)++;
  *end = strstr(*start, "\n```");
  if (!*end)
    return -1;
  *p = *end + 4;
  return 0;
}

int grammar_spec_examples(const char *spec, struct grammar_example *out, int max, char *err,
                          size_t en) {
  const char *p = strstr(spec, "\n## 3.4 Examples");
  const char *section_end = p ? strstr(p + 1, "\n#") : NULL;
  if (p && !section_end)
    section_end = p + strlen(p);
  if (!p) {
    snprintf(err, en, "docs/grammar.md has no section '## 3.4 Examples'");
    return -1;
  }
  int n = 0;
  for (int block = 0; block < 2; block++) {
    const char *start, *end;
    if (next_block(&p, &start, &end) || end > section_end) {
      snprintf(err, en, "3.4 Examples: expected two code blocks (accepted, rejected)");
      return -1;
    }
    /* An example starts at a line without indentation; indented lines continue it. */
    while (start < end) {
      char text[600] = "";
      size_t tl = 0;
      do {
        const char *nl = memchr(start, '\n', (size_t)(end - start));
        size_t ll = nl ? (size_t)(nl - start) : (size_t)(end - start);
        if (tl + ll + 2 < sizeof text) {
          memcpy(text + tl, start, ll);
          tl += ll;
          text[tl++] = ' ';
          text[tl] = '\0';
        }
        start += ll + (nl != NULL);
      } while (start < end && *start == ' ');
      if (n == max) {
        snprintf(err, en, "3.4 Examples: more than %d examples", max);
        return -1;
      }
      if (grammar_example_parse(text, &out[n], err, en))
        return -1;
      if ((out[n].rejected_at >= 0) != block) {
        snprintf(err, en, "3.4 Examples: %s example %s a [rejected] symbol: %s",
                 block ? "a rejected" : "an accepted", block ? "lacks" : "has", text);
        return -1;
      }
      n++;
    }
  }
  return n;
}

int grammar_read_spec_examples(struct grammar_example *out, int max, char *err, size_t en) {
  const char *path = ock_test_path("docs/grammar.md");
  char *spec = ock_test_read_file(path);
  if (!spec) {
    snprintf(err, en, "cannot read %s", path);
    return -1;
  }
  int n = grammar_spec_examples(spec, out, max, err, en);
  free(spec);
  return n;
}

int grammar_feed(const struct grammar_example *ex) {
  ock_grammar *g = NULL;
  if (ock_grammar_new(NULL, NULL, &g))
    return -2;
  for (int i = 0; i < ex->n; i++) {
    const struct grammar_symbol *s = &ex->sym[i];
    ock_grammar_symbol(g, i, s->ev, s->name, s->denied, s->id[0] ? s->id : NULL);
  }
  ock_grammar_end(g, ex->n);
  long first = ock_grammar_first_rejected(g);
  ock_grammar_free(g);
  return (int)first;
}
