/*
 * wire_list.h: the provider wires by name, read off the wire table (ock/wire.h).
 *
 * The harness plays a wire-less scenario once per wire and checks the wires a SUT declares
 * against this list; a wire added to the table (its enum value and its row in ock_wire_get)
 * is listed here with no other change.
 */
#ifndef OCK_WIRE_LIST_H
#define OCK_WIRE_LIST_H

#include "ock/wire.h"

/* ock_wire_count: how many wires the table has (their enum values are 0 .. count-1). */
int ock_wire_count(void);

/* ock_wire_name_at: the name of wire i ("openai", ...), or NULL when i is not a wire. The string
 * is static. */
const char *ock_wire_name_at(int i);

/* ock_wire_by_name: 1 and the wire in *out (when out is not NULL) when name is a wire's, else 0. */
int ock_wire_by_name(const char *name, enum ock_wire *out);

#endif
