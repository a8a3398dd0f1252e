#include "runner.h"
static const struct ock_test tests[] = {{NULL, NULL}};
const struct ock_suite suite_wire_edit = {"wire_edit", tests, NULL, NULL};
