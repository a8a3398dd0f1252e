/*
 * broken_histories.h: the eight broken-history shapes, each in both wire formats, with what
 * the mock must say about them. Shared by the validator's unit tests and the server tests.
 */
#ifndef OCK_TEST_BROKEN_HISTORIES_H
#define OCK_TEST_BROKEN_HISTORIES_H

struct broken_history {
  const char *shape;        /* "A01_UNMATCHED_TOOL_USE", ... */
  int anthropic;            /* 0: OpenAI wire, 1: Anthropic wire */
  const char *messages;     /* the request's "messages" JSON */
  int message_index;        /* the finding's message_index: the message SPEC 6.7 names */
  const char *tool_call_id; /* the finding's tool_call_id: the first id the text names */
  const char *text;         /* the exact error message of the 400 */
  const char *param;        /* OpenAI's "param" (NULL for Anthropic) */
  const char *code;         /* OpenAI's "code" (NULL: null) */
};

extern const struct broken_history BROKEN_HISTORIES[];

#endif
