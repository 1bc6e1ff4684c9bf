// SPDX-License-Identifier: GPL-2.0
/*
 * flamegraph-folded TITLE <FOLDED >PAGE: the flame graph page of folded
 * stacks ("comm;outermost;...;innermost COUNT" lines, as sframe-profile
 * --folded prints them), written by sframe-profile's own flamegraph.c:
 * to test it without sampling, and to draw a graph of stacks saved
 * before.  d3's files come from SFRAME_PROFILE_ASSETS.  Lines that are
 * not a stack and a count are left out and counted on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"

int main(int argc, char **argv)
{
	const char *assets = getenv("SFRAME_PROFILE_ASSETS");
	struct folded *f = NULL;
	size_t n = 0, cap = 0, bad = 0, len = 0;
	char *line = NULL, *sp, *end;
	unsigned long count;
	ssize_t got;
	int err;

	if (argc != 2 || !assets || !*assets) {
		fputs("usage: SFRAME_PROFILE_ASSETS=DIR flamegraph-folded TITLE\n"
		      "       <FOLDED >PAGE\n", stderr);
		return 2;
	}
	while ((got = getline(&line, &len, stdin)) > 0) {
		if (line[got - 1] == '\n')
			line[--got] = 0;
		sp = strrchr(line, ' ');
		if (!sp || sp == line) {
			bad++;
			continue;
		}
		errno = 0;
		count = strtoul(sp + 1, &end, 10);
		if (errno || end == sp + 1 || *end) {
			bad++;
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			f = realloc(f, cap * sizeof(*f));
			if (!f) {
				fprintf(stderr, "flamegraph-folded: out of memory\n");
				return 1;
			}
		}
		f[n].stack = strndup(line, sp - line);
		if (!f[n].stack) {
			fprintf(stderr, "flamegraph-folded: out of memory\n");
			return 1;
		}
		f[n++].count = count;
	}
	free(line);
	if (bad)
		fprintf(stderr, "flamegraph-folded: %zu lines left out\n", bad);
	err = flamegraph_write(stdout, f, n, argv[1], assets);
	if (err || fflush(stdout)) {
		fprintf(stderr, "flamegraph-folded: %s\n",
			strerror(err ? -err : errno));
		return 1;
	}
	while (n--)
		free(f[n].stack);
	free(f);
	return 0;
}
