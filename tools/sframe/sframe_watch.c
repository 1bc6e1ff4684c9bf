// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's notices of file mappings found without a usable SFrame
 * section: the tracepoint sframe:sframe_missing (include/trace/events/
 * sframe.h), which the kernel emits when it resolves a mapping of a file
 * at its first unwind and finds neither PT_GNU_SFRAME nor a section in
 * its store.  One perf event per CPU, with a ring buffer each, sampling
 * every hit with its pid and raw record; the record's fields are found by
 * name in the tracepoint's format file, so that their layout is the
 * kernel's to choose.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/array_size.h>

#include "sframe_watch.h"

#define SFW_EVENT	"events/sframe/sframe_missing"
#define SFW_PAGES	8		/* data pages of each ring: 32 KiB */
#define SFW_MAX_CPUS	4096
#define SFW_FORMAT_MAX	8192		/* bytes of the format file read */

/* Where a field is in the tracepoint's raw record */
struct sfw_field {
	const char	*name;
	unsigned int	size;		/* the size it must have */
	unsigned int	off;
	bool		found;
};

enum { F_START, F_END, F_DEV, F_INO, F_NR };

struct sfw_ring {
	int				fd;
	struct perf_event_mmap_page	*meta;
	uint8_t				*data;
	uint64_t			size;	/* of data, a power of 2 */
};

struct sfw {
	struct sfw_ring		*rings;
	struct pollfd		*pfd;
	unsigned int		nr;
	size_t			map_len;
	struct sfw_field	f[F_NR];
	unsigned int		raw_min;	/* bytes a raw record needs */
	uint64_t		lost;
	uint8_t			rec[1 << 16];	/* one record, unwrapped */
};

static const char *const tracefs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

/* Read at most @len - 1 bytes of @dir/@name into @buf; its length or -1 */
static ssize_t read_file(const char *dir, const char *name, char *buf,
			 size_t len)
{
	char path[256];
	ssize_t n, got = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, SFW_EVENT, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = 0;
	return got;
}

/*
 * The fields of the format file @fmt: lines "field:TYPE NAME;
 * offset:N; size:N; signed:N;"
 */
static int parse_format(struct sfw *w, char *fmt)
{
	char *line, *save = NULL;
	unsigned int i;

	for (line = strtok_r(fmt, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *decl = strstr(line, "field:"), *semi, *name;
		unsigned int off, size;

		if (!decl)
			continue;
		semi = strchr(decl, ';');
		if (!semi)
			continue;
		*semi = 0;
		name = strrchr(decl, ' ');
		if (!name ||
		    sscanf(semi + 1, " offset:%u; size:%u;", &off, &size) != 2)
			continue;
		name++;
		for (i = 0; i < F_NR; i++) {
			if (strcmp(name, w->f[i].name) || w->f[i].size != size ||
			    off > sizeof(w->rec) - size)
				continue;
			w->f[i].off = off;
			w->f[i].found = true;
			if (off + size > w->raw_min)
				w->raw_min = off + size;
		}
	}
	for (i = 0; i < F_NR; i++)
		if (!w->f[i].found)
			return -1;
	return 0;
}

static int open_cpu(struct sfw *w, unsigned long long id, int cpu)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(a),
		.config = id,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW,
		.wakeup_events = 1,
	};
	struct sfw_ring *r = &w->rings[w->nr];
	void *base;
	int fd;

	fd = syscall(__NR_perf_event_open, &a, -1, cpu, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	base = mmap(NULL, w->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		close(fd);
		return -1;
	}
	r->fd = fd;
	r->meta = base;
	r->data = (uint8_t *)base + sysconf(_SC_PAGESIZE);
	r->size = (uint64_t)SFW_PAGES * sysconf(_SC_PAGESIZE);
	w->pfd[w->nr].fd = fd;
	w->pfd[w->nr].events = POLLIN;
	w->nr++;
	return 0;
}

struct sfw *sfw_open(char *err, size_t len)
{
	static const struct sfw_field fields[F_NR] = {
		[F_START] = { "start", 8 },
		[F_END] = { "end", 8 },
		[F_DEV] = { "dev", 4 },
		[F_INO] = { "ino", 8 },
	};
	char idbuf[32], *fmt;
	unsigned long long id = 0;
	const char *dir = NULL;
	long cpus;
	unsigned int i;
	struct sfw *w;
	int e = 0;

	for (i = 0; i < ARRAY_SIZE(tracefs); i++) {
		char *end;

		if (read_file(tracefs[i], "id", idbuf, sizeof(idbuf)) > 0) {
			errno = 0;
			id = strtoull(idbuf, &end, 10);
			if (!errno && end != idbuf && (*end == '\n' || !*end)) {
				dir = tracefs[i];
				break;
			}
		}
		if (errno == EACCES || errno == EPERM)
			e = errno;
	}
	if (!dir) {
		snprintf(err, len, e ?
			 "cannot read the tracepoint sframe:sframe_missing: %s" :
			 "no tracepoint sframe:sframe_missing: a kernel without the SFrame store, or no tracefs at /sys/kernel/tracing",
			 strerror(e));
		errno = e ? e : ENOENT;
		return NULL;
	}

	w = calloc(1, sizeof(*w));
	fmt = malloc(SFW_FORMAT_MAX);
	cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (cpus < 1 || cpus > SFW_MAX_CPUS)
		cpus = cpus < 1 ? 1 : SFW_MAX_CPUS;
	if (w) {
		w->rings = calloc(cpus, sizeof(*w->rings));
		w->pfd = calloc(cpus, sizeof(*w->pfd));
	}
	if (!w || !fmt || !w->rings || !w->pfd) {
		snprintf(err, len, "out of memory");
		free(fmt);
		sfw_close(w);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(w->f, fields, sizeof(fields));
	if (read_file(dir, "format", fmt, SFW_FORMAT_MAX) <= 0 ||
	    parse_format(w, fmt)) {
		snprintf(err, len,
			 "%s/%s/format: not the fields start, end, dev and ino",
			 dir, SFW_EVENT);
		free(fmt);
		sfw_close(w);
		errno = EINVAL;
		return NULL;
	}
	free(fmt);

	w->map_len = (size_t)(1 + SFW_PAGES) * sysconf(_SC_PAGESIZE);
	for (i = 0; i < cpus; i++) {
		/* An offline CPU: ENODEV (or EINVAL on older kernels) */
		if (open_cpu(w, id, i) && errno != ENODEV && errno != EINVAL)
			e = errno;
	}
	if (!w->nr) {
		e = e ? e : ENODEV;
		snprintf(err, len, "perf_event_open(sframe:sframe_missing): %s%s",
			 strerror(e), e == EACCES || e == EPERM ?
			 " (needs CAP_PERFMON, or root)" : "");
		sfw_close(w);
		errno = e;
		return NULL;
	}
	return w;
}

/* Copy @len bytes at ring offset @at (wrapping) into @dst */
static void ring_copy(const struct sfw_ring *r, uint64_t at, void *dst,
		      size_t len)
{
	uint64_t o = at & (r->size - 1), first = r->size - o;

	if (first >= len) {
		memcpy(dst, r->data + o, len);
	} else {
		memcpy(dst, r->data + o, first);
		memcpy((uint8_t *)dst + first, r->data, len - first);
	}
}

static uint64_t field(const struct sfw *w, const uint8_t *raw, int i)
{
	uint64_t v = 0;
	uint32_t v32;

	if (w->f[i].size == 4) {
		memcpy(&v32, raw + w->f[i].off, 4);
		return v32;
	}
	memcpy(&v, raw + w->f[i].off, 8);
	return v;
}

/* One sample record in w->rec, of @size bytes, into @ev; false if malformed */
static bool parse_sample(const struct sfw *w, size_t size,
			 struct sfw_event *ev)
{
	const uint8_t *p = w->rec + sizeof(struct perf_event_header);
	uint32_t pid, raw_size, kdev;

	/* PERF_SAMPLE_TID: pid, tid; PERF_SAMPLE_RAW: size, data */
	if (size < sizeof(struct perf_event_header) + 12)
		return false;
	memcpy(&pid, p, 4);
	memcpy(&raw_size, p + 8, 4);
	if (raw_size > size - sizeof(struct perf_event_header) - 12 ||
	    raw_size < w->raw_min)
		return false;
	p += 12;
	ev->pid = pid;
	ev->start = field(w, p, F_START);
	ev->end = field(w, p, F_END);
	kdev = field(w, p, F_DEV);
	/* The kernel's dev_t: 12 bits of major, 20 of minor */
	ev->dev = makedev(kdev >> 20, kdev & 0xfffff);
	ev->ino = field(w, p, F_INO);
	return true;
}

/* Take the records of ring @r, up to @n samples into @ev: how many */
static size_t drain(struct sfw *w, struct sfw_ring *r, struct sfw_event *ev,
		    size_t n)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	struct perf_event_header h;
	size_t got = 0;

	while (tail < head && got < n) {
		if (head - tail < sizeof(h)) {
			w->lost++;
			tail = head;
			break;
		}
		ring_copy(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			/* Malformed: the rest of the ring cannot be parsed */
			w->lost++;
			tail = head;
			break;
		}
		ring_copy(r, tail, w->rec, h.size);
		if (h.type == PERF_RECORD_SAMPLE) {
			if (parse_sample(w, h.size, &ev[got]))
				got++;
			else
				w->lost++;
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost;

			memcpy(&lost, w->rec + sizeof(h) + 8, 8);
			w->lost += lost;
		}
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return got;
}

int sfw_read(struct sfw *w, struct sfw_event *ev, size_t n, int timeout_ms)
{
	size_t got = 0;
	unsigned int i;
	int pass, ret;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < w->nr && got < n; i++)
			got += drain(w, &w->rings[i], ev + got, n - got);
		if (got || pass)
			break;
		ret = poll(w->pfd, w->nr, timeout_ms);
		if (ret < 0)
			return errno == EINTR ? 0 : -1;
		if (!ret)
			break;
	}
	return got;
}

uint64_t sfw_lost(const struct sfw *w)
{
	return w->lost;
}

void sfw_close(struct sfw *w)
{
	unsigned int i;

	if (!w)
		return;
	for (i = 0; i < w->nr; i++) {
		munmap(w->rings[i].meta, w->map_len);
		close(w->rings[i].fd);
	}
	free(w->rings);
	free(w->pfd);
	free(w);
}
