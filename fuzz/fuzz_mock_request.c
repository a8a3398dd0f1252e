/* fuzz_mock_request.c: any bytes as a request body to the mock, in process, on a path picked by
 * the first byte: LLM endpoints of both wires, events, tools, an unknown path. The mock must
 * answer every one (4xx for garbage) and keep serving. */
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "ock/mock.h"

static const char *fixture_text =
    "{\"ock_fixture\":1,\"id\":\"fuzz\",\"session\":{\"prompts\":[\"hi\"],\"providers\":["
    "{\"name\":\"o\",\"api\":\"openai\",\"model\":\"m\"},{\"name\":\"a\",\"api\":\"anthropic\","
    "\"model\":\"m\"}],\"tools\":[{\"name\":\"t\",\"description\":\"d\",\"input_schema\":{}}]},"
    "\"script\":{\"o\":[{\"text\":\"x\"},{\"text\":\"y\"}],\"a\":[{\"text\":\"z\"}]},"
    "\"tools\":{\"t\":{\"result\":{\"success\":true,\"output\":\"ok\",\"error\":null}}},"
    "\"hooks\":[{\"event\":\"tool:pre\",\"reply\":{\"action\":\"deny\",\"reason\":\"r\"}}]}";

static size_t discard(void *p, size_t s, size_t n, void *u) {
  (void)p;
  (void)u;
  return s * n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static ock_mock *m;
  static CURL *c;
  static const char *const paths[] = {"/v1/chat/completions", "/p/a/v1/messages",
                                      "/ock/v1/events",       "/ock/v1/tools/t",
                                      "/ock/v1/tools/nope",   "/nowhere"};
  if (!m) {
    cJSON *fx = cJSON_Parse(fixture_text);
    struct ock_mock_options o = {.max_journal_entries = 1000};
    if (ock_mock_new(fx, &o, &m, NULL) || ock_mock_start(m, NULL))
      return 0;
    cJSON_Delete(fx);
    c = curl_easy_init();
  }
  if (!size)
    return 0;
  char url[256];
  snprintf(url, sizeof url, "%s%s", ock_mock_url(m), paths[data[0] % 6]);
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, (const char *)data + 1);
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)(size - 1));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 5L);
  curl_easy_perform(c);
  return 0;
}
