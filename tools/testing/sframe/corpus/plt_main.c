// SPDX-License-Identifier: GPL-2.0
/*
 * Corpus program for sframe_diff: calls into a shared library and libc
 * through the PLT; the linker describes the PLT with PCTYPE_MASK FDEs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plt_lib.h"

int main(int argc, char **argv)
{
	char *p = malloc(64);

	snprintf(p, 64, "%s", argc > 1 ? argv[1] : "plt");
	corpus_print(p);
	printf("%d\n", corpus_twice(corpus_add, (int)strlen(p)));
	free(p);
	return 0;
}
