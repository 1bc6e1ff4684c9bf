// SPDX-License-Identifier: GPL-2.0
/*
 * jitmap-check: jitmap.c on perf maps that it writes for itself, as
 * /tmp/perf-PID.map: the symbols of a well-formed map and the lines left
 * out of a bad one, the last of overlapping regions, the later of two
 * at one start, a last line still being written; and the maps not read: a symbolic link, a file of
 * another user (as root).  Prints "ok N: ..." or "FAIL N: ..." per case
 * and exits 1 if one failed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitmap.h"

static int failed, cases;

static void expect(const char *what, int ok)
{
	printf("%s %d: %s\n", ok ? "ok" : "FAIL", ++cases, what);
	failed |= !ok;
}

static void put(const char *path, const char *text)
{
	FILE *f;

	unlink(path);
	f = fopen(path, "we");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* Whether @addr of @m names @want at @want_off ("" for none) */
static int names(const struct jitmap *m, __u64 addr, const char *want,
		 __u64 want_off)
{
	const char *obj = NULL, *name;
	__u64 off = ~0ULL;

	name = jitmap_lookup(m, addr, &off, &obj);
	if (!*want)
		return !name;
	return name && !strcmp(name, want) && off == want_off && obj &&
	       !strncmp(obj, "/tmp/perf-", 10);
}

int main(void)
{
	char path[64], link[80];
	struct jitmap *m;
	int fd;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	put(path,
	    "1000 100 py::spin:/tmp/x.py\n"
	    "not a line\n"
	    "2000 0 empty\n"
	    "3000 10 two  spaces(int)\n"
	    "1080 100 py::later:/tmp/x.py\n"
	    "5000 10 first\n"
	    "5000 20 regenerated\n"
	    "ffffffffffffff00 1000 wraps\n"
	    "4000 10 half-written");
	fd = jitmap_open(getpid());
	expect("a map of root is opened", fd >= 0);
	m = fd >= 0 ? jitmap_read(fd, getpid()) : NULL;
	expect("its symbols", m && names(m, 0x1000, "py::spin:/tmp/x.py", 0) &&
	       names(m, 0x107f, "py::spin:/tmp/x.py", 0x7f) &&
	       names(m, 0x3009, "two  spaces(int)", 9));
	expect("of two regions, the last that starts below",
	       m && names(m, 0x1080, "py::later:/tmp/x.py", 0) &&
	       names(m, 0x117f, "py::later:/tmp/x.py", 0xff));
	expect("of two regions at one start, the later line",
	       m && names(m, 0x5000, "regenerated", 0) &&
	       names(m, 0x5013, "regenerated", 0x13));
	expect("no symbol: between, past the end, in an empty region, a line being written",
	       m && names(m, 0xfff, "", 0) && names(m, 0x1180, "", 0) &&
	       names(m, 0x2000, "", 0) && names(m, 0x4000, "", 0) &&
	       names(m, 0xffffffffffffff10ULL, "", 0));
	jitmap_free(m);
	if (fd >= 0)
		close(fd);

	/* A symbolic link to another file is not followed */
	snprintf(link, sizeof(link), "%s.real", path);
	put(link, "1000 100 secret\n");
	unlink(path);
	if (symlink(link, path))
		perror("symlink");
	fd = jitmap_open(getpid());
	expect("a symbolic link is not read", fd < 0);
	if (fd >= 0)
		close(fd);

	/* A map of another user than the process's is not read */
	put(path, "1000 100 other\n");
	if (!geteuid()) {
		if (chown(path, 65534, 65534))
			perror("chown");
		fd = jitmap_open(getpid());
		expect("a map of another user is not read", fd < 0);
		if (fd >= 0)
			close(fd);
	}
	unlink(path);
	unlink(link);
	expect("no map: none opened", jitmap_open(getpid()) < 0);
	return failed;
}
