/* status.c: descriptions of the codes in status.h. */
#include "ock/status.h"

const char *ock_strerror(int status) {
  switch (status) {
  case OCK_OK:
    return "success";
  case OCK_ENOMEM:
    return "out of memory";
  case OCK_EINVAL:
    return "invalid argument";
  case OCK_EJSON:
    return "invalid JSON";
  case OCK_ETYPE:
    return "wrong JSON type or value";
  case OCK_EMISSING:
    return "required member missing";
  case OCK_ETOOBIG:
    return "size limit exceeded";
  case OCK_EIO:
    return "input/output error";
  case OCK_ENOTFOUND:
    return "not found";
  case OCK_EPROTO:
    return "protocol error";
  case OCK_ETIMEDOUT:
    return "timed out";
  case OCK_ECANCELLED:
    return "cancelled";
  case OCK_ESTATE:
    return "invalid state";
  case OCK_EHTTP:
    return "HTTP error status";
  case OCK_EDENIED:
    return "denied";
  default:
    return "unknown error";
  }
}
