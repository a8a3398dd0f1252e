/*
 * fixture_text.h: the fixture model (ock/fixture.h) of a fixture a test writes inline, for the
 * checks' unit tests, which build a view from it as the harness does from a fixture file.
 */
#ifndef OCK_TEST_FIXTURE_TEXT_H
#define OCK_TEST_FIXTURE_TEXT_H

#include "ock/fixture.h"

/* ock_test_fixture: the model of text, a fixture whose "ock_fixture" and "id" may be left out
 * (1 and "t"), loaded as the mock alone loads one. A text the loader refuses ends the running
 * test, naming the JSON path and what was expected. Free with ock_fixture_free. */
struct ock_fixture *ock_test_fixture(const char *text);

/* ock_test_fixture_json: the same for parsed JSON, which it takes (what names it in messages). */
struct ock_fixture *ock_test_fixture_json(cJSON *json, const char *what);

/* ock_test_fixture_file: the model of a fixture file, path relative to the project's root. */
struct ock_fixture *ock_test_fixture_file(const char *path);

#endif
