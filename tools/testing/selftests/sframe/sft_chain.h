/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User call chains of the SFrame kselftests (sframe_unwind and
 * sframe_discovery): one getppid() system call sampled by a perf event
 * with a (by default deferred) user callchain, the chain read from the
 * ring buffer, and its symbolization with the ELF symbol tables of the
 * loaded objects; the line of /proc/self/sframe of a text range.
 *
 * The includer defines _GNU_SOURCE (dl_iterate_phdr()) before its first
 * #include, and MAX_CHAIN (entries of a chain) and RB_PAGES (pages of
 * the ring buffer) before this one.  sft_leaf() and sample() are frames
 * of the chains the tests expect: they are defined here, not static, in
 * the one translation unit of each test program.
 */
#ifndef SFT_CHAIN_H
#define SFT_CHAIN_H

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/types.h>

#include "sft.h"
#include "sft_arch.h"
#include "sft_perf.h"
#include "sft_sym.h"

#if !defined(MAX_CHAIN) || !defined(RB_PAGES)
#error "define MAX_CHAIN and RB_PAGES before including sft_chain.h"
#endif

struct chain {
	int nr;
	unsigned long ip[MAX_CHAIN];
};

/* ---- perf: sample one system call with a deferred user callchain ---- */

/* Sample without deferral: the non-faulting unwind, in the event itself */
static bool sample_nodefer;

/*
 * The user chain of the last sample in the buffer.  Deferred: samples end
 * their callchain with PERF_CONTEXT_USER_DEFERRED and a cookie, which the
 * PERF_RECORD_CALLCHAIN_DEFERRED record repeats.  Not deferred: the user
 * chain follows PERF_CONTEXT_USER in the sample.
 */
static int sampler_chain(struct sampler *s, struct chain *c)
{
	struct perf_event_mmap_page *pg = s->rb;
	char *data = (char *)s->rb + getpagesize();
	__u64 size = pg->data_size, head, tail, cookie = 0;
	int found = 0;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	for (tail = pg->data_tail; tail < head;) {
		struct perf_event_header h;
		__u64 rec[MAX_CHAIN + 8], i;

		memcpy(&h, data + tail % size, sizeof(h));
		if (h.size < sizeof(h) || h.size > sizeof(rec))
			return -1;
		for (i = 0; i < h.size; i++)
			((char *)rec)[i] = data[(tail + i) % size];
		tail += h.size;

		if (h.type == PERF_RECORD_SAMPLE) {
			/* header, pid/tid, nr, ips */
			__u64 nr = rec[2];

			for (i = 0; i + 1 < nr && 4 + i < h.size / 8; i++)
				if (rec[3 + i] == PERF_CONTEXT_USER_DEFERRED)
					cookie = rec[4 + i];
			for (i = 0; i < nr && nr <= MAX_CHAIN && 3 + nr <= h.size / 8; i++) {
				if (rec[3 + i] != PERF_CONTEXT_USER)
					continue;
				for (c->nr = 0, i++; i < nr; i++)
					c->ip[c->nr++] = rec[3 + i];
				found = 1;
			}
		} else if (h.type == PERF_RECORD_CALLCHAIN_DEFERRED) {
			int n = sft_deferred_chain(rec, h.size / 8, cookie,
						   c->ip, MAX_CHAIN);

			if (n >= 0) {
				c->nr = n;
				found = 1;
			}
		}
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	return found ? 0 : -1;
}

/* The innermost function: the sampled system call */
SFT_NOINLINE long sft_leaf(long x)
{
	long ret;

	ret = sft_syscall0(SYS_getppid);
	return x + (ret > 0);
}

/* The most times sample() runs its function for one sample */
#define SFT_SAMPLE_TRIES	3

/*
 * Run @fn(@arg) with the sampler on and return the user chain: 0, or
 * -errno (-1 if errno tells nothing) if the event does not open, -1 if
 * no chain came, -ENODATA if the event never counted the system call.
 *
 * An event that did not count the system call took no sample, and the
 * unwinder never ran: @fn runs again, with a new event, up to
 * SFT_SAMPLE_TRIES times, and stderr says so.  Under QEMU TCG (arm64),
 * some threads' system calls went uncounted while the samplers' events
 * kept registering and unregistering the syscall tracepoints;
 * sft_keep_tracepoints() stops that.  A sample that was taken is never
 * taken again: its chain is the result.
 */
SFT_NOINLINE int sample(long (*fn)(long), long arg, struct chain *c)
{
	struct sampler s;
	__u64 count;
	int ret, try;

	for (try = 1; try <= SFT_SAMPLE_TRIES; try++) {
		memset(c, 0, sizeof(*c));
		if (sft_sampler_open(&s, PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN,
				     !sample_nodefer, RB_PAGES))
			return errno ? -errno : -1;
		ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0);
		fn(arg);
		ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
		/* Unknown (no count read): the sample is taken as it came */
		if (read(s.fd, &count, sizeof(count)) != sizeof(count))
			count = 1;
		ret = sampler_chain(&s, c);
		sampler_close(&s);
		if (count)
			return ret;
		fprintf(stderr, "# %s(): the event counted no %s (try %d of %d)\n",
			__func__, sft_sample_event, try, SFT_SAMPLE_TRIES);
	}
	return -ENODATA;
}

/*
 * An event on syscalls:sys_enter_getppid, never enabled, open for the
 * life of the program: it keeps the syscall tracepoints registered, so
 * that the samplers' events do not register and unregister them over
 * and over: under QEMU TCG (arm64), threads of some test processes had
 * system calls that no event counted without it, and none with it.
 * Every test process and thread is created after it.
 */
static void __attribute__((constructor)) sft_keep_tracepoints(void)
{
	struct perf_event_attr attr;
	int id = tracepoint_id_of("sys_enter_getppid");

	if (id < 0)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.disabled = 1;
	syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

/* ---- /proc/self/sframe ---- */

/* The line of /proc/self/sframe of the text range starting at @start */
static int proc_range(unsigned long start, char *line, size_t len)
{
	FILE *f = fopen("/proc/self/sframe", "r");
	char want[32];
	int ret = -1;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "%08lx-", start);
	while (fgets(line, len, f))
		if (!strncmp(line, want, strlen(want))) {
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

#endif
