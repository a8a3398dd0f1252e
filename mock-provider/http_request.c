/* http_request.c: the libmicrohttpd request skeleton of http_request.h, shared by the mock
 * provider (mock-provider/mock.c) and the mutant's proxy (mutants/proxy.c). */
#include "ock/http_request.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

enum ock_http_step ock_http_request_read(void **req_cls, size_t max, const char *upload_data,
                                         size_t *upload_data_size, struct ock_http_request **out) {
  struct ock_http_request *r = *req_cls;
  if (!r) {
    r = calloc(1, sizeof *r);
    if (!r)
      return OCK_HTTP_NOMEM;
    ock_buf_init(&r->body, max);
    *req_cls = r;
    *out = r;
    return OCK_HTTP_NEW;
  }
  *out = r;
  if (r->answered) {
    *upload_data_size = 0;
    return OCK_HTTP_MORE;
  }
  if (*upload_data_size) {
    /* Past the cap the rest is read and dropped: the client, still sending, gets its reply
     * (413) instead of a reset. A failed append has freed the body already (buf.h). */
    if (!r->too_big && ock_buf_append(&r->body, upload_data, *upload_data_size)) {
      r->too_big = 1;
      ock_buf_free(&r->body);
    }
    *upload_data_size = 0;
    return OCK_HTTP_MORE;
  }
  return OCK_HTTP_READY;
}

void ock_http_request_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                                enum MHD_RequestTerminationCode toe) {
  (void)cls, (void)c, (void)toe;
  struct ock_http_request *r = *req_cls;
  if (!r)
    return;
  ock_buf_free(&r->body);
  free(r);
  *req_cls = NULL;
}

int ock_http_connection_fd(struct MHD_Connection *c) {
  const union MHD_ConnectionInfo *ci =
      c ? MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD) : NULL;
  return ci ? ci->connect_fd : -1;
}

/* read_says_gone: a peek at one byte finds end-of-file or a hard error. */
static int read_says_gone(int fd) {
  char b;
  ssize_t n = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

int ock_http_peer_gone(int fd) {
  if (fd < 0)
    return 0;
  int saved = errno;
  struct pollfd pfd = {.fd = fd, .events = POLLIN};
  int gone = 0;
  if (poll(&pfd, 1, 0) > 0) /* nothing to read and no hang-up: still there */
    gone = (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) || read_says_gone(fd);
  errno = saved;
  return gone;
}

enum MHD_Result ock_http_queue_json_error(struct MHD_Connection *c, unsigned status,
                                          const char *type, const char *message, int close_after) {
  char body[512];
  int n = snprintf(body, sizeof body, "{\"error\":{\"type\":\"%s\",\"message\":\"%s\"}}", type,
                   message);
  if (n < 0 || (size_t)n >= sizeof body)
    return MHD_NO; /* never half an envelope */
  struct MHD_Response *resp =
      MHD_create_response_from_buffer((size_t)n, body, MHD_RESPMEM_MUST_COPY);
  if (!resp)
    return MHD_NO;
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
  if (close_after)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
  enum MHD_Result ret = MHD_queue_response(c, status, resp);
  MHD_destroy_response(resp);
  return ret;
}
