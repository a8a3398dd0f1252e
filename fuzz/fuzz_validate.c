/* fuzz_validate.c: any history on either wire through the mock's validator (the eight broken
 * shapes); first byte picks the wire. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ock/message.h"
#include "validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size)
    return 0;
  cJSON *v = cJSON_ParseWithLength((const char *)data + 1, size - 1);
  if (!v)
    return 0;
  struct ock_history h;
  struct ock_jerr err;
  ock_history_init(&h);
  int rc = data[0] & 1 ? ock_history_from_anthropic(NULL, v, &h, &err)
                       : ock_history_from_openai(v, &h, &err);
  if (!rc) {
    struct mock_finding f;
    memset(&f, 0, sizeof f);
    ock__validate_first(&h, data[0] & 1, &f);
    ock__finding_clear(&f);
  }
  ock_history_free(&h);
  cJSON_Delete(v);
  return 0;
}
