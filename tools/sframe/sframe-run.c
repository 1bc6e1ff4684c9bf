// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-run: run a program so that every ELF object it loads without an
 * .sframe section unwinds through SFrame generated from its CFI.
 *
 *   sframe-run [-v] PROGRAM [ARGS...]
 *
 * It adds sframe-audit.so, from its own directory, to LD_AUDIT, points
 * SFRAME_GEN at the sframe-gen next to it (unless already set), and
 * executes PROGRAM.  -v sets SFRAME_AUDIT_DEBUG: what happens to each
 * object, on stderr.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void print_help(FILE *f)
{
	fprintf(f,
		"usage: sframe-run [-v] PROGRAM [ARGS...]\n"
		"Run PROGRAM with sframe-audit.so: the objects it loads without\n"
		".sframe get SFrame generated from their .eh_frame by sframe-gen,\n"
		"cached by build ID and size in $SFRAME_GEN_CACHE (default\n"
		"$XDG_CACHE_HOME/sframe-gen or ~/.cache/sframe-gen; absolute\n"
		"paths only) or /var/cache/sframe-gen, and registered with\n"
		"prctl(PR_SFRAME) for the kernel's SFrame unwinder.  A cache\n"
		"file is used only if it and its directory belong to you or to\n"
		"root and nobody else may write them.\n"
		"  -v  print what happens to each object on stderr\n");
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], dir[PATH_MAX], audit[PATH_MAX + 32];
	char gen[PATH_MAX + 32], *v;
	const char *old;
	ssize_t n;
	int i = 1;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		print_help(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-v")) {
		setenv("SFRAME_AUDIT_DEBUG", "1", 1);
		i++;
	}
	if (i >= argc) {
		print_help(stderr);
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		perror("sframe-run: /proc/self/exe");
		return 1;
	}
	self[n] = 0;
	snprintf(dir, sizeof(dir), "%s", dirname(self));
	snprintf(audit, sizeof(audit), "%s/sframe-audit.so", dir);
	snprintf(gen, sizeof(gen), "%s/sframe-gen", dir);
	if (access(audit, R_OK)) {
		fprintf(stderr, "sframe-run: %s: not found\n", audit);
		return 1;
	}
	old = getenv("LD_AUDIT");
	if (old && *old) {
		v = malloc(strlen(old) + strlen(audit) + 2);
		if (!v)
			return 1;
		sprintf(v, "%s:%s", audit, old);
		setenv("LD_AUDIT", v, 1);
	} else {
		setenv("LD_AUDIT", audit, 1);
	}
	setenv("SFRAME_GEN", gen, 0);
	execvp(argv[i], argv + i);
	fprintf(stderr, "sframe-run: %s: %m\n", argv[i]);
	return 127;
}
