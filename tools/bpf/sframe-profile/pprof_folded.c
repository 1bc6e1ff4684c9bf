// SPDX-License-Identifier: GPL-2.0
/*
 * pprof-folded HZ <FOLDED >PROFILE: the pprof profile of folded stacks
 * ("comm;outermost;...;innermost COUNT" lines, as sframe-profile --folded
 * prints them), written by sframe-profile's own pprof.c: to test it
 * without sampling, and to turn stacks saved before into a profile.  A
 * frame has no address, and its file is [kernel.kallsyms] if its name
 * ends in _[k] (which it then loses), else none.  Lines that are not a stack and a count are
 * left out and counted on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pprof.h"

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		fprintf(stderr, "pprof-folded: out of memory\n");
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	size_t n = 0, cap = 0, bad = 0, len = 0, k, nf;
	struct pp_stack *st = NULL;
	char *line = NULL, *sp, *end, *p, *save, *copy;
	struct pp_frame *fr;
	unsigned long count;
	ssize_t got;
	long hz;
	int err;

	hz = argc == 2 ? strtol(argv[1], &end, 10) : 0;
	if (argc != 2 || *end || hz <= 0 || hz > 1000000) {
		fputs("usage: pprof-folded HZ <FOLDED >PROFILE\n", stderr);
		return 2;
	}
	while ((got = getline(&line, &len, stdin)) > 0) {
		if (line[got - 1] == '\n')
			line[--got] = 0;
		sp = strrchr(line, ' ');
		errno = 0;
		count = sp && sp[1] != '-' ? strtoul(sp + 1, &end, 10) : 0;
		if (!sp || sp[1] == '-' || errno || end == sp + 1 || *end) {
			bad++;
			continue;
		}
		*sp = 0;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			st = xrealloc(st, cap * sizeof(*st));
		}
		/* comm, then the frames outermost first: reversed below */
		copy = strdup(line);
		if (!copy) {
			fputs("pprof-folded: out of memory\n", stderr);
			return 1;
		}
		save = copy;
		st[n].comm = strsep(&save, ";");
		st[n].pid = 0;
		st[n].count = count;
		fr = NULL;
		nf = 0;
		while ((p = strsep(&save, ";"))) {
			fr = xrealloc(fr, (nf + 1) * sizeof(*fr));
			k = strlen(p);
			fr[nf].object = "";
			if (k > 4 && !strcmp(p + k - 4, "_[k]")) {
				p[k - 4] = 0;
				fr[nf].object = "[kernel.kallsyms]";
			}
			fr[nf].name = p;
			fr[nf++].addr = 0;
		}
		for (k = 0; k < nf / 2; k++) {
			struct pp_frame t = fr[k];

			fr[k] = fr[nf - 1 - k];
			fr[nf - 1 - k] = t;
		}
		st[n].frames = fr;
		st[n++].nframes = nf;
	}
	free(line);
	if (bad)
		fprintf(stderr, "pprof-folded: %zu lines left out\n", bad);
	err = pprof_write(STDOUT_FILENO, st, n, hz, 0, 0);
	while (n--) {
		free((void *)st[n].comm);	/* the line's copy, from its start */
		free((void *)st[n].frames);
	}
	free(st);
	if (err) {
		fprintf(stderr, "pprof-folded: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}
