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
#include "sft_perf.h"

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

	asm volatile("syscall" : "=a"(ret) : "0"(SYS_getppid)
		     : "rcx", "r11", "memory");
	return x + (ret > 0);
}

/*
 * Run @fn(@arg) with the sampler on and return the user chain: 0, or
 * -errno (-1 if errno tells nothing) if the event does not open, -1 if
 * no chain came.
 */
SFT_NOINLINE int sample(long (*fn)(long), long arg, struct chain *c)
{
	struct sampler s;
	int ret;

	memset(c, 0, sizeof(*c));
	if (sft_sampler_open(&s, PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN,
			     !sample_nodefer, RB_PAGES))
		return errno ? -errno : -1;
	ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0);
	fn(arg);
	ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
	ret = sampler_chain(&s, c);
	sampler_close(&s);
	return ret;
}

/* ---- symbolization from the ELF symbol tables of loaded objects ---- */

struct sym_query {
	unsigned long ip;
	char name[128];
	char object[PATH_MAX];
};

static int sym_in_file(const char *path, unsigned long off, char *name,
		       size_t len)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	struct stat st;
	void *map;
	int i;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(*eh)) {
		close(fd);
		return -1;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	eh = map;
	sh = (Elf64_Shdr *)((char *)map + eh->e_shoff);
	for (i = 0; i < eh->e_shnum && ret; i++) {
		Elf64_Sym *sym = (Elf64_Sym *)((char *)map + sh[i].sh_offset);
		const char *str;
		size_t j;

		if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM)
			continue;
		str = (char *)map + sh[sh[i].sh_link].sh_offset;
		for (j = 0; j < sh[i].sh_size / sizeof(*sym); j++) {
			if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC ||
			    off < sym[j].st_value ||
			    off >= sym[j].st_value + sym[j].st_size)
				continue;
			snprintf(name, len, "%s", str + sym[j].st_name);
			ret = 0;
			break;
		}
	}
	munmap(map, st.st_size);
	return ret;
}

static int sym_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sym_query *q = data;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *ph = &info->dlpi_phdr[i];
		unsigned long start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || q->ip < start ||
		    q->ip >= start + ph->p_memsz)
			continue;
		snprintf(q->object, sizeof(q->object), "%s",
			 info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe");
		if (sym_in_file(q->object, q->ip - info->dlpi_addr, q->name,
				sizeof(q->name)))
			snprintf(q->name, sizeof(q->name), "?");
		return 1;
	}
	return 0;
}

/* Name of the function at @ip, "?" if unknown, "!" if in no object */
static const char *sym(unsigned long ip, char *buf, size_t len)
{
	struct sym_query q = { .ip = ip };

	if (!dl_iterate_phdr(sym_phdr_cb, &q))
		snprintf(q.name, sizeof(q.name), "!");
	snprintf(buf, len, "%s", q.name);
	return buf;
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
