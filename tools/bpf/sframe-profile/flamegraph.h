/* SPDX-License-Identifier: GPL-2.0 */
/* sframe-profile's flame graph: folded stacks in d3-flame-graph's page. */
#ifndef SFRAME_PROFILE_FLAMEGRAPH_H
#define SFRAME_PROFILE_FLAMEGRAPH_H

#include <stdio.h>

/* A folded stack: "comm;outermost;...;innermost", and its samples */
struct folded {
	char *stack;
	unsigned long count;
};

int flamegraph_write(FILE *out, const struct folded *f, size_t n,
		     const char *title, const char *assets);

#endif
