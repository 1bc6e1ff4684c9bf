/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf_event_open() helpers shared by the SFrame kselftests and the
 * unwind benchmark: the getppid() tracepoint and a sampled event's ring
 * buffer.
 */
#ifndef SFT_PERF_H
#define SFT_PERF_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/types.h>

/* A sampling event and its ring buffer */
struct sampler {
	int fd;
	void *rb;
	size_t rb_size;
};

/* The id of tracepoint syscalls:@event, or -1 */
static inline int tracepoint_id_of(const char *event)
{
	static const char * const dirs[] = {
		"/sys/kernel/tracing/events/syscalls",
		"/sys/kernel/debug/tracing/events/syscalls",
	};
	char buf[32], path[128];
	int i, fd, n;

	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s/id", dirs[i], event);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			return atoi(buf);
		}
	}
	return -1;
}

/* The system call whose entry sft_sampler_open() samples */
static const char *sft_sample_event = "sys_enter_getppid";

/* The id of tracepoint syscalls:sys_enter_getppid, or -1 */
static inline int tracepoint_id(void)
{
	return tracepoint_id_of("sys_enter_getppid");
}

/*
 * The user chain of PERF_RECORD_CALLCHAIN_DEFERRED record @rec, @words
 * 8-byte words long (header, cookie, nr, ips), copied to @ip if it answers
 * @cookie and holds at most @max entries.  Return the number of entries,
 * or -1.
 */
static inline int sft_deferred_chain(const __u64 *rec, __u64 words,
				     __u64 cookie, unsigned long *ip, __u64 max)
{
	__u64 i;

	if (!cookie || rec[1] != cookie || rec[2] > max || 3 + rec[2] > words)
		return -1;
	for (i = 0; i < rec[2]; i++)
		ip[i] = rec[3 + i];
	return rec[2];
}

/*
 * Open @s: a disabled event sampling every syscalls:@sft_sample_event of
 * this thread with @sample_type, the user callchain deferred if @defer,
 * and a ring buffer of @pages pages.  Return 0, or -1 with errno set.
 */
static inline int sft_sampler_open(struct sampler *s, __u64 sample_type,
				   int defer, int pages)
{
	struct perf_event_attr attr;
	int id = tracepoint_id_of(sft_sample_event);

	if (id < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_period = 1;
	attr.sample_type = sample_type;
	attr.exclude_callchain_kernel = 1;
	attr.defer_callchain = !!defer;
	attr.defer_output = !!defer;
	attr.disabled = 1;
	s->fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (s->fd < 0)
		return -1;
	s->rb_size = (pages + 1) * getpagesize();
	s->rb = mmap(NULL, s->rb_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		     s->fd, 0);
	if (s->rb == MAP_FAILED) {
		close(s->fd);
		return -1;
	}
	return 0;
}

static inline void sampler_close(struct sampler *s)
{
	munmap(s->rb, s->rb_size);
	close(s->fd);
}

#endif
