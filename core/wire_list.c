/* wire_list.c: the provider wires by name (see ock/wire_list.h).
 *
 * ock_wire_get returns the OpenAI table for a value it does not know, so the wires are the
 * values 0, 1, ... whose table says it is theirs. */
#include "ock/wire_list.h"

#include <string.h>

int ock_wire_count(void) {
  int n = 0;
  while (n < 64 && ock_wire_get((enum ock_wire)n)->wire == (enum ock_wire)n)
    n++;
  return n;
}

const char *ock_wire_name_at(int i) {
  return i >= 0 && i < ock_wire_count() ? ock_wire_get((enum ock_wire)i)->name : NULL;
}

int ock_wire_by_name(const char *name, enum ock_wire *out) {
  for (int i = 0; name && i < ock_wire_count(); i++) {
    if (!strcmp(ock_wire_name_at(i), name)) {
      if (out)
        *out = (enum ock_wire)i;
      return 1;
    }
  }
  return 0;
}
