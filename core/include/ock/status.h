/*
 * status.h: the one error enum of OCK.
 *
 * Every fallible function in every part returns an int that is OCK_OK (0) or one of the
 * negative codes below; results go through out-parameters, which a failed call leaves
 * untouched. Numbers are stable and never reused.
 */
#ifndef OCK_STATUS_H
#define OCK_STATUS_H

enum ock_status {
  OCK_OK = 0,
  OCK_ENOMEM = -1,      /* an allocation failed */
  OCK_EINVAL = -2,      /* an argument is invalid (a caller's bug or a user's bad option) */
  OCK_EJSON = -3,       /* text is not valid JSON */
  OCK_ETYPE = -4,       /* a JSON value has the wrong type or an out-of-range value */
  OCK_EMISSING = -5,    /* a required JSON member is absent */
  OCK_ETOOBIG = -6,     /* a capped buffer or input would exceed its cap */
  OCK_EIO = -7,         /* reading or writing a file or socket failed */
  OCK_ENOTFOUND = -8,   /* a looked-up name does not exist */
  OCK_EPROTO = -9,      /* a peer broke the wire protocol */
  OCK_ETIMEDOUT = -10,  /* a deadline passed */
  OCK_ECANCELLED = -11, /* the operation was cancelled */
  OCK_ESTATE = -12,     /* the call is not valid in the object's current state */
  OCK_EHTTP = -13,      /* an HTTP exchange returned an error status */
  OCK_EDENIED = -14     /* a hook denied the operation */
};

/* ock_strerror returns a static, human-readable description of a status code. */
const char *ock_strerror(int status);

#endif
