/* fuzz_fixture.c: any bytes as a fixture: the fixture loader (ock/fixture.h, as the harness calls
 * it) must refuse bad ones with an error, never crash or leak. */
#include <stddef.h>
#include <stdint.h>

#include "ock/json.h"
#include "ock/registry.h"
#include "run/scenarios.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static ock_registry *reg;
  if (!reg && ock_registry_load_builtin(&reg, NULL))
    return 0;
  cJSON *fx = NULL;
  if (ock_json_parse((const char *)data, size, &fx, NULL))
    return 0;
  char err[1200];
  struct ock_fixture *model = NULL;
  if (!ock__scenario_load(fx, "fuzz", reg, &model, err, sizeof err))
    ock_fixture_free(model);
  cJSON_Delete(fx);
  return 0;
}
