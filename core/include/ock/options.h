/*
 * options.h: the one command-line option parser of the kit's programs (`ock` and its
 * subcommands, `ock-mock-provider`, `ock-orchestrator`).
 *
 * A program describes its options once, as a table of struct ock_option rows. The same table
 * parses argv (--name=value, --name value, -x value, -xvalue; `--` ends the options; "-" is an
 * argument), refuses a value out of range or not a number with a message that names the
 * option, the value and the range, says "expected one of: a, b, c" for a word not in a list,
 * and renders the options part of --help. The parser does no I/O.
 */
#ifndef OCK_OPTIONS_H
#define OCK_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

enum ock_option_kind {
  OCK_OPT_FLAG,   /* dest is int *: set to 1; takes no value */
  OCK_OPT_STRING, /* dest is const char **: the value, borrowed from argv */
  OCK_OPT_INT,    /* dest is int *: a whole decimal number from lo to hi */
  OCK_OPT_U64,    /* dest is unsigned long long *: a whole number from 0 to 2^64-1 (seeds) */
  OCK_OPT_DOUBLE, /* dest is double *: a finite decimal number from lo to hi */
  OCK_OPT_ENUM,   /* dest is int *: the index in values of the word given (any case) */
  OCK_OPT_LIST,   /* dest is struct ock_option_list *: comma-separated, repeatable; each
                   * non-empty part appended (checked against values when values is set) */
};

/* The most parts a list holds: an expected-failures baseline of a framework on four wires runs
 * to several hundred entries. A list that would hold more is refused, never cut short. */
#define OCK_OPTION_LIST_MAX 4096

/* The parts of a list option, in order; the strings are borrowed from argv (whose commas
 * the parser overwrites) or from whoever appended them. */
struct ock_option_list {
  const char *items[OCK_OPTION_LIST_MAX + 1]; /* NULL-terminated */
  int n;
};

struct ock_option {
  const char *name;          /* the long name without "--"; NULL for a short-only option */
  char short_name;           /* 'o' for -o; 0: none */
  enum ock_option_kind kind; /* what the value is and where it goes */
  void *dest;                /* where the value is stored, typed by kind */
  double lo, hi;             /* OCK_OPT_INT, OCK_OPT_DOUBLE: the range, both included */
  const char *const *values; /* OCK_OPT_ENUM, OCK_OPT_LIST: the allowed words, NULL-ended */
  const char *unit;          /* numbers: what a message says was expected ("seconds");
                              * NULL: "a number" or "a whole number" */
  const char *metavar;       /* the value's name in --help ("DIR"); NULL: an enum's a|b|c */
  const char *help;          /* the help text; "\n" starts an indented continuation line */
};

/* ock_options_parse reads the options of argv[1..argc) into the dest of table's rows (the
 * table ends with a row whose name and short_name are both unset). Arguments that are not
 * options are moved, in order, to argv[1..] and their count stored in *npos. Parsing goes on
 * after a mistake, so that every option given is known; the first mistake is written into
 * err (n bytes) as "OPTION: what was expected, got \"VALUE\"". A value of a number option is
 * refused when it is empty, not finite (nan, inf), has anything after the number ("2x"),
 * starts with white space or is hexadecimal. Returns 0, or -1 after a mistake. */
int ock_options_parse(const struct ock_option *table, int argc, char **argv, int *npos, char *err,
                      size_t n);

/* ock_option_set stores value into opt's dest as the parser would, for a value from
 * elsewhere (an environment variable); source names it in the message ("OCK_MODE"). A list's
 * value is split in place. Returns 0, or -1 with err set and the dest untouched. */
int ock_option_set(const struct ock_option *opt, char *value, const char *source, char *err,
                   size_t n);

/* ock_option_find: the row of table with the long name name, or NULL. */
const struct ock_option *ock_option_find(const struct ock_option *table, const char *name);

/* ock_options_help writes one line (and its continuations) per row of table into f:
 * "  -o, --name METAVAR   help", the help texts aligned in one column. */
void ock_options_help(const struct ock_option *table, FILE *f);

#endif
