// SPDX-License-Identifier: GPL-2.0
/*
 * The symbols of code that a process generates at run time (a JIT, or
 * Python's -X perf trampolines), from the perf map it writes:
 * /tmp/perf-PID.map, one "START SIZE NAME" line per region (START and
 * SIZE in hex), PID and /tmp as the process sees them.  So the file is
 * opened through /proc/PID/root, under the PID of the process's own PID
 * namespace, at the process's first sample, and kept open: it is still
 * read when the process has exited by the time the samples are printed.
 * Like perf, only a regular file owned by root or by the process's user
 * is read, and no symbolic link is followed on the way (openat2()), at
 * most JITMAP_MAX_BYTES of a map and JITMAP_MAX_SYMS lines, and
 * JITMAP_BUDGET bytes of all the maps read: the rest are not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jitmap.h"
#include "search.h"

#define JITMAP_MAX_BYTES	(64 << 20)
#define JITMAP_MAX_SYMS		(1024 * 1024)
#define JITMAP_BUDGET		(256 << 20)

/* What the maps read so far hold: their text and their symbols */
static size_t jitmap_held;

struct jitsym {
	__u64 start, end;
	const char *name;	/* into buf */
	size_t line;		/* of the same start, the last line wins */
};

struct jitmap {
	char *buf;		/* the file, its lines' ends made NULs */
	struct jitsym *s;
	size_t n;
	size_t held;		/* bytes, counted in jitmap_held */
	char object[64];	/* /tmp/perf-PID.map, PID as perf names it */
};

/*
 * From /proc/@pid/status: the PID in the process's own namespace (the
 * last of NSpid) in *@nspid, and its real and effective user IDs
 */
static bool proc_status(pid_t pid, pid_t *nspid, uid_t uid[2])
{
	char path[64], line[256];
	bool have_uid = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	*nspid = pid;
	while (fgets(line, sizeof(line), f)) {
		unsigned long r, e;
		char *p;

		if (!strncmp(line, "Uid:", 4) &&
		    sscanf(line + 4, "%lu %lu", &r, &e) == 2) {
			uid[0] = r;
			uid[1] = e;
			have_uid = true;
		} else if (!strncmp(line, "NSpid:", 6)) {
			p = strrchr(line, '\t');
			if (p)
				*nspid = strtol(p + 1, NULL, 10);
		}
	}
	fclose(f);
	return have_uid && *nspid > 0;
}

/**
 * jitmap_open() - open the perf map of a live process
 * @pid: the process, in sframe-profile's PID namespace
 *
 * Return: a file descriptor of /tmp/perf-NSPID.map as @pid sees it, if it
 * is a regular file of root or of @pid's user; else -1.
 */
int jitmap_open(pid_t pid)
{
	char path[96];
	struct stat st;
	uid_t uid[2];
	pid_t nspid;
	int fd;

	struct open_how how = {
		.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
			 O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	int root;

	if (!proc_status(pid, &nspid, uid))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/root", pid);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -1;
	/* No link followed on the way, and ".." stops at the process's root */
	snprintf(path, sizeof(path), "tmp/perf-%d.map", nspid);
	fd = syscall(SYS_openat2, root, path, &how, sizeof(how));
	close(root);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_uid && st.st_uid != uid[0] && st.st_uid != uid[1])) {
		close(fd);
		return -1;
	}
	return fd;
}

static int cmp_jitsym(const void *a, const void *b)
{
	const struct jitsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* The line at @p as a symbol in *@s: false if it is not one */
static bool parse_line(char *p, struct jitsym *s)
{
	unsigned long long start, size;
	char *e;

	errno = 0;
	start = strtoull(p, &e, 16);
	if (errno || e == p || *e != ' ')
		return false;
	p = e + 1;
	size = strtoull(p, &e, 16);
	if (errno || e == p || *e != ' ' || !size || start + size < start)
		return false;
	s->start = start;
	s->end = start + size;
	s->name = e + 1;
	return *s->name;
}

/**
 * jitmap_read() - the symbols of a perf map, as it is now
 * @fd: from jitmap_open()
 * @pid: the process, for the map's name
 *
 * Return: the map (jitmap_free()), or NULL if it has no symbols or there
 * is no memory.
 */
struct jitmap *jitmap_read(int fd, pid_t pid)
{
	struct jitmap *m = calloc(1, sizeof(*m));
	size_t len = 0, cap = 0, max;
	struct stat st;
	char *p, *nl;
	ssize_t got;

	if (!m)
		return NULL;
	if (fstat(fd, &st) || st.st_size <= 0)
		goto fail;
	max = st.st_size < JITMAP_MAX_BYTES ? st.st_size : JITMAP_MAX_BYTES;
	if (max > JITMAP_BUDGET - jitmap_held)
		goto fail;
	m->buf = malloc(max + 1);
	if (!m->buf)
		goto fail;
	while (len < max) {
		got = pread(fd, m->buf + len, max - len, len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += got;
	}
	m->buf[len] = 0;
	/* A last line without its end may be one being written */
	for (p = m->buf; (nl = memchr(p, '\n', m->buf + len - p)); p = nl + 1) {
		*nl = 0;
		if (m->n == cap) {
			struct jitsym *ns;

			if (cap == JITMAP_MAX_SYMS)
				break;
			cap = cap ? 2 * cap : 256;
			if (len + cap * sizeof(*ns) > JITMAP_BUDGET - jitmap_held)
				break;
			ns = realloc(m->s, cap * sizeof(*ns));
			if (!ns)
				goto fail;
			m->s = ns;
		}
		if (parse_line(p, &m->s[m->n])) {
			m->s[m->n].line = m->n;
			m->n++;
		}
	}
	if (!m->n)
		goto fail;
	m->held = len + cap * sizeof(*m->s);
	jitmap_held += m->held;
	qsort(m->s, m->n, sizeof(*m->s), cmp_jitsym);
	snprintf(m->object, sizeof(m->object), "/tmp/perf-%d.map", pid);
	return m;
fail:
	jitmap_free(m);
	return NULL;
}

/**
 * jitmap_lookup() - the symbol of an address in a perf map
 * @m: the map, or NULL
 * @addr: the address
 * @off: set to @addr's offset in the symbol
 * @object: set to the map's path
 *
 * Of regions that overlap (code regenerated at the same place), the last
 * that starts at or below @addr is taken, if it holds @addr.
 *
 * Return: the symbol's name, or NULL.
 */
const char *jitmap_lookup(const struct jitmap *m, __u64 addr,
			  __u64 *off, const char **object)
{
	size_t lo;

	if (!m)
		return NULL;
	lo = count_le(m->s, m->n, start, addr);
	if (!lo || addr >= m->s[lo - 1].end)
		return NULL;
	*off = addr - m->s[lo - 1].start;
	*object = m->object;
	return m->s[lo - 1].name;
}

void jitmap_free(struct jitmap *m)
{
	if (!m)
		return;
	jitmap_held -= m->held;
	free(m->buf);
	free(m->s);
	free(m);
}
