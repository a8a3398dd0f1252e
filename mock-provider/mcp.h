/*
 * mcp.h: what the mock remembers of each MCP session (mcp.c serves $OCK_URL/mcp).
 */
#ifndef OCK_MOCK_MCP_H
#define OCK_MOCK_MCP_H

struct mock_mcp_session {
  char id[40];      /* the Mcp-Session-Id: "ock-" and 32 hex digits */
  char version[16]; /* the protocol version negotiated at initialize */
  int initialized;  /* notifications/initialized arrived */
  int closed;       /* ended by DELETE: its id is answered 404 from then on */
};

#endif
