/* test_integration.c: placeholder until the mock provider's library exists. */
#include "runner.h"

static const struct ock_test tests[] = {{NULL, NULL}};
const struct ock_suite integration_suite = {"integration", tests, NULL, NULL};
