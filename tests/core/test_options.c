/* test_options.c: the option parser takes every spelling of an option, refuses each kind of
 * bad value with a message naming the option, the value and what was expected, and renders
 * --help from the same table. */
#include <stdio.h>
#include <string.h>

#include "runner.h"

#include "ock/options.h"

static const char *const formats[] = {"human", "jsonl", NULL};
static const char *const wires[] = {"openai", "anthropic", NULL};

struct values {
  int strict, jobs, format;
  const char *out, *name;
  double timeout;
  unsigned long long seed;
  struct ock_option_list wires, cases;
};

/* table points the rows at v; help texts are short so the rendering can be compared. */
static void table(struct values *v, struct ock_option *t) {
  const struct ock_option rows[] = {
      {"strict", 0, OCK_OPT_FLAG, &v->strict, .help = "fail on SHOULD"},
      {"jobs", 'j', OCK_OPT_INT, &v->jobs, 1, 256, .metavar = "N", .help = "parallel"},
      {"timeout", 0, OCK_OPT_DOUBLE, &v->timeout, 0.1, 86400, .unit = "seconds", .metavar = "S",
       .help = "per scenario\n(default 30)"},
      {"seed", 0, OCK_OPT_U64, &v->seed, .metavar = "N", .help = "random faults"},
      {"format", 0, OCK_OPT_ENUM, &v->format, .values = formats, .help = "console output"},
      {"wires", 0, OCK_OPT_LIST, &v->wires, .values = wires, .metavar = "LIST", .help = "wires"},
      {"case", 0, OCK_OPT_LIST, &v->cases, .metavar = "GLOB", .help = "only these"},
      {"name", 0, OCK_OPT_STRING, &v->name, .metavar = "NAME", .help = "in the reports"},
      {NULL, 'o', OCK_OPT_STRING, &v->out, .metavar = "DIR", .help = "report directory"},
      {0}};
  memcpy(t, rows, sizeof rows);
}

/* parse runs the parser over the words of line (split at spaces, modified). */
static int parse(struct values *v, char *line, int *npos, char **argv, char *err, size_t n) {
  struct ock_option t[16];
  table(v, t);
  int argc = 0;
  argv[argc++] = "prog";
  char *save = NULL;
  for (char *w = strtok_r(line, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
    argv[argc++] = w;
  argv[argc] = NULL;
  return ock_options_parse(t, argc, argv, npos, err, n);
}

static void takes_every_spelling(void) {
  struct values v = {.jobs = 4};
  char line[] = "a --strict --jobs=8 -oDIR --timeout 2.5 b --seed 18446744073709551615 "
                "--format JSONL --wires openai,,ANTHROPIC --case x --case y,z - -- --jobs";
  char *argv[32], err[512] = "";
  int npos = -1;
  OCK_ASSERT_INT_EQ(parse(&v, line, &npos, argv, err, sizeof err), 0);
  OCK_ASSERT_STR_EQ(err, "");
  OCK_ASSERT_TRUE(v.strict);
  OCK_ASSERT_INT_EQ(v.jobs, 8);
  OCK_ASSERT_STR_EQ(v.out, "DIR");
  OCK_ASSERT_DOUBLE_EQ(v.timeout, 2.5, 0);
  OCK_ASSERT_TRUE(v.seed == 18446744073709551615ULL);
  OCK_ASSERT_INT_EQ(v.format, 1);
  OCK_ASSERT_INT_EQ(v.wires.n, 2);
  OCK_ASSERT_STR_EQ(v.wires.items[1], "anthropic");
  OCK_ASSERT_INT_EQ(v.cases.n, 3);
  OCK_ASSERT_STR_EQ(v.cases.items[2], "z");
  OCK_ASSERT_NULL(v.cases.items[3]);
  OCK_ASSERT_INT_EQ(npos, 4); /* a, b, "-" (standard input) and --jobs after -- */
  OCK_ASSERT_STR_EQ(argv[1], "a");
  OCK_ASSERT_STR_EQ(argv[2], "b");
  OCK_ASSERT_STR_EQ(argv[3], "-");
  OCK_ASSERT_STR_EQ(argv[4], "--jobs");
}

static void refuses_with_the_option_the_value_and_the_range(void) {
  static const struct {
    const char *line, *says;
  } cases[] = {
      {"--jobs 0", "--jobs: expected a whole number from 1 to 256, got \"0\""},
      {"-j 2x", "-j: expected a whole number from 1 to 256, got \"2x\""},
      {"--jobs 1.5", "--jobs: expected a whole number from 1 to 256, got \"1.5\""},
      {"--timeout nan", "--timeout: expected seconds from 0.1 to 86400, got \"nan\""},
      {"--timeout inf", "--timeout: expected seconds from 0.1 to 86400, got \"inf\""},
      {"--timeout=", "--timeout: expected seconds from 0.1 to 86400, got \"\""},
      {"--timeout 0x10", "--timeout: expected seconds from 0.1 to 86400, got \"0x10\""},
      {"--seed -1", "--seed: expected a whole number from 0 to 18446744073709551615, got \"-1\""},
      {"--seed 18446744073709551616", "--seed: expected a whole number from 0 to"},
      {"--format xml", "--format: expected one of: human, jsonl; got \"xml\""},
      {"--wires openai,grpc", "--wires: expected one of: openai, anthropic; got \"grpc\""},
      {"--frobnicate", "unknown option \"--frobnicate\""},
      {"-q", "unknown option \"-q\""},
      {"--strict=1", "--strict: takes no value, got \"1\""},
      {"--name", "--name: needs a value"},
      {"--jobs 0 --format xml", "--jobs: expected"}, /* the first mistake is the one told */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct values v = {.jobs = 4, .format = 0, .timeout = 30};
    char line[128], *argv[32], err[512] = "";
    int npos;
    snprintf(line, sizeof line, "%s", cases[i].line);
    OCK_ASSERT_INT_EQ(parse(&v, line, &npos, argv, err, sizeof err), -1);
    OCK_ASSERT_CONTAINS(err, cases[i].says);
    OCK_ASSERT_INT_EQ(v.jobs, 4); /* a refused value leaves the dest as it was */
    OCK_ASSERT_INT_EQ(v.format, 0);
    OCK_ASSERT_DOUBLE_EQ(v.timeout, 30, 0);
    OCK_ASSERT_INT_EQ(v.wires.n, 0);
  }
}

static void keeps_parsing_after_a_mistake(void) {
  struct values v = {0};
  char line[] = "--jobs 0 -o kept", *argv[32], err[512];
  int npos;
  OCK_ASSERT_INT_EQ(parse(&v, line, &npos, argv, err, sizeof err), -1);
  OCK_ASSERT_STR_EQ(v.out, "kept");
}

static void a_value_from_elsewhere_names_its_source(void) {
  struct values v = {.timeout = 30};
  struct ock_option t[16];
  table(&v, t);
  char bad[] = "garbage", good[] = "3", err[512];
  const struct ock_option *o = ock_option_find(t, "timeout");
  OCK_ASSERT_NOT_NULL(o);
  OCK_ASSERT_INT_EQ(ock_option_set(o, bad, "OCK_TIMEOUT", err, sizeof err), -1);
  OCK_ASSERT_STR_EQ(err, "OCK_TIMEOUT: expected seconds from 0.1 to 86400, got \"garbage\"");
  OCK_ASSERT_DOUBLE_EQ(v.timeout, 30, 0);
  OCK_ASSERT_INT_EQ(ock_option_set(o, good, "OCK_TIMEOUT", err, sizeof err), 0);
  OCK_ASSERT_DOUBLE_EQ(v.timeout, 3, 0);
  OCK_ASSERT_NULL(ock_option_find(t, "nope"));
}

static void renders_help_from_the_table(void) {
  struct values v = {0};
  struct ock_option t[16];
  table(&v, t);
  char text[2048] = "";
  FILE *f = fmemopen(text, sizeof text - 1, "w");
  OCK_ASSERT_NOT_NULL(f);
  if (!f)
    return;
  ock_options_help(t, f);
  fclose(f);
  OCK_ASSERT_STR_EQ(text, /* the help column: two blanks after the widest option */
                    "  --strict              fail on SHOULD\n"
                    "  -j, --jobs N          parallel\n"
                    "  --timeout S           per scenario\n"
                    "                        (default 30)\n"
                    "  --seed N              random faults\n"
                    "  --format human|jsonl  console output\n"
                    "  --wires LIST          wires\n"
                    "  --case GLOB           only these\n"
                    "  --name NAME           in the reports\n"
                    "  -o DIR                report directory\n");
}

static const struct ock_test tests[] = {
    {"takes_every_spelling", takes_every_spelling},
    {"refuses_with_the_option_the_value_and_the_range",
     refuses_with_the_option_the_value_and_the_range},
    {"keeps_parsing_after_a_mistake", keeps_parsing_after_a_mistake},
    {"a_value_from_elsewhere_names_its_source", a_value_from_elsewhere_names_its_source},
    {"renders_help_from_the_table", renders_help_from_the_table},
    {NULL, NULL}};
const struct ock_suite suite_options = {"options", tests, NULL, NULL};
