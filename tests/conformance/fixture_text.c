/* fixture_text.c: fixture models for the checks' unit tests (see fixture_text.h). */
#include "conformance/fixture_text.h"

#include "ock/json.h"
#include "runner.h"

struct ock_fixture *ock_test_fixture_json(cJSON *json, const char *what) {
  struct ock_fixture *fx = NULL;
  struct ock_jerr err;
  if (!json)
    ock_test_fatal(__LINE__, __FILE__, "not JSON: %.80s", what);
  if (!cJSON_HasObjectItem(json, "ock_fixture"))
    cJSON_AddNumberToObject(json, "ock_fixture", 1);
  if (!cJSON_HasObjectItem(json, "id"))
    cJSON_AddStringToObject(json, "id", "t");
  int rc = ock_fixture_load(json, NULL, &fx, &err);
  cJSON_Delete(json);
  if (rc)
    ock_test_fatal(__LINE__, __FILE__, "%.80s: %s: %s", what, err.where, err.what);
  return fx;
}

struct ock_fixture *ock_test_fixture(const char *text) {
  return ock_test_fixture_json(cJSON_Parse(text), text);
}

struct ock_fixture *ock_test_fixture_file(const char *path) {
  cJSON *json = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(ock_test_path(path), 1 << 20, &json, &err))
    ock_test_fatal(__LINE__, __FILE__, "%s: %s: %s", path, err.where, err.what);
  return ock_test_fixture_json(json, path);
}
