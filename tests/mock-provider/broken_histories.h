/*
 * broken_histories.h: the eight broken-history shapes, each in both wire formats, with what
 * the mock must say about them. Shared by the validator's unit tests and the server tests.
 */
#ifndef OCK_TEST_BROKEN_HISTORIES_H
#define OCK_TEST_BROKEN_HISTORIES_H

struct broken_history {
  const char *shape;         /* "A01_UNMATCHED_TOOL_USE", ... */
  int anthropic;             /* 0: OpenAI wire, 1: Anthropic wire */
  const char *messages;      /* the request's "messages" JSON */
  int message_index;         /* the finding's message_index */
  const char *tool_call_id;  /* the finding's tool_call_id */
  int blocking;              /* the real API answers 400 */
  const char *text;          /* the exact provider error message (blocking only) */
  const char *param;         /* OpenAI's "param" (blocking OpenAI only) */
};

extern const struct broken_history BROKEN_HISTORIES[];

#endif
