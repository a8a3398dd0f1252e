/*
 * link_check.c: a program that is not `ock`, linked with every object of libockconf.a (see
 * conformance/part.mk). It links only if the library needs no symbol that cli/main.c alone
 * defines, so another front end (a test binary, an embedding program) can use the harness.
 * Running it prints the kit's version through the library.
 */
#include <stdio.h>

#include "cli/cli.h"

int main(void) {
  printf("libockconf.a linked whole without cli/main.c (ock %s)\n", OCK_KIT_VERSION);
  return ock__use_color(stdout) >= 0 ? 0 : 1;
}
