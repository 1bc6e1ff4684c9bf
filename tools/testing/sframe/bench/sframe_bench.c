// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark (not a test) of sframe_find(): nanoseconds per lookup in
 * generated SFrame V3 AMD64 sections of 10, 1000 and 100000 functions
 * (16 to 240 bytes each, 4 FREs each, like -O2 code with a frame).
 *
 * The reader (kernel/unwind/sframe_walk.c) is compiled unchanged; user
 * memory is this process's memory and copy_from_user() is memcpy(), so
 * the figures are the reader's own cost, without the uaccess overhead
 * (STAC/CLAC, exception table) of a real kernel.
 *
 *   hot:  back-to-back lookups of 4096 random PCs (precomputed), over and
 *         over: the section stays in the caches as far as it fits
 *   cold: before every lookup, a 32 MiB buffer (larger than the
 *         last-level cache of this machine) is streamed through, so the
 *         section and the PC table are evicted; only the lookup is timed
 *
 * Each figure is the median of 5 runs.  Output: a markdown table.
 *
 * Usage: sframe_bench                 the table
 *        sframe_bench -n N FUNCS      N hot lookups in FUNCS functions and
 *                                     nothing else (for callgrind)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/array_size.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <asm/tlb.h>

#include "sframe_format.h"
#include "sframe_walk.h"

/* The shims' hooks: user memory is our memory */
int sim_pagefault_depth;
bool sim_nmi_uaccess_okay = true;
unsigned long sim_cond_resched_calls;

unsigned long sim_copy_from_user(void *to, const void *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

unsigned long sim_copy_to_user(void *to, const void *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

#define NPCS		4096
#define RUNS		5
#define FLUSH_SIZE	(32UL << 20)

struct bench {
	u8			*buf;
	size_t			len;
	u8			*text;
	size_t			text_len;
	struct sframe_section	sec;
	unsigned long		pcs[NPCS];
};

static unsigned long rnd_state = 88172645463325252UL;

static unsigned long rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void put(u8 **p, const void *v, size_t n)
{
	memcpy(*p, v, n);
	*p += n;
}

/*
 * A V3 AMD64 section with @n functions: FDE index, then per function the
 * attribute record and 4 FREs (push; mov; ...; leave; ret).
 */
static void build(struct bench *b, u32 n)
{
	static const u8 fre_bytes[] = {
		/* start, info (SP/FP base, count, 1-byte words), words */
		0, 0x03, 8,
		1, 0x05, 16, (u8)-16,
		4, 0x04, 16, (u8)-16,
	};
	u32 *size = malloc(n * sizeof(*size)), i, off = 0, fres_len;
	struct sframe_header h = { 0 };
	u8 *p, *fres;

	for (i = 0; i < n; i++)
		size[i] = 16 + 16 * (rnd() % 15);
	for (i = 0; i < n; i++)
		off += size[i];
	b->text_len = off;
	/* 5-byte attribute record, 3 FREs above, and the last FRE (3 bytes) */
	fres_len = n * (5 + sizeof(fre_bytes) + 3);
	b->len = sizeof(h) + n * sizeof(struct sframe_fde_v3) + fres_len;
	b->buf = malloc(b->len);
	/* text right after the section, in the same address range */
	b->text = b->buf + b->len;

	h.preamble.magic = SFRAME_MAGIC;
	h.preamble.version = SFRAME_VERSION_3;
	h.preamble.flags = SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL;
	h.abi_arch = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	h.cfa_fixed_ra_offset = -8;
	h.num_fdes = n;
	h.num_fres = 4 * n;
	h.fre_len = fres_len;
	h.fdes_off = 0;
	h.fres_off = n * sizeof(struct sframe_fde_v3);
	p = b->buf;
	put(&p, &h, sizeof(h));
	fres = b->buf + sizeof(h) + h.fres_off;
	off = 0;
	for (i = 0; i < n; i++) {
		struct sframe_fde_v3 e;
		struct sframe_fda_v3 a = { 4, 0, 0, 0 };
		u8 last[3] = { (u8)(size[i] - 1), 0x03, 8 };
		u8 *q = fres + i * (5 + sizeof(fre_bytes) + 3);

		e.start_off = (s64)((unsigned long)b->text + off - (unsigned long)p);
		e.func_size = size[i];
		e.fres_off = q - fres;
		put(&p, &e, sizeof(e));
		put(&q, &a, sizeof(a));
		put(&q, fre_bytes, sizeof(fre_bytes));
		put(&q, last, sizeof(last));
		off += size[i];
	}
	free(size);

	memset(&b->sec, 0, sizeof(b->sec));
	b->sec.sframe_start = (unsigned long)b->buf;
	b->sec.sframe_end = (unsigned long)b->buf + b->len;
	b->sec.text_start = (unsigned long)b->text;
	b->sec.text_end = (unsigned long)b->text + b->text_len;
	if (sframe_section_init(&b->sec, NULL) || sframe_validate(&b->sec, NULL)) {
		fprintf(stderr, "generated section is invalid\n");
		exit(1);
	}
	for (i = 0; i < NPCS; i++)
		b->pcs[i] = b->sec.text_start + rnd() % b->text_len;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static unsigned long sink;

static void lookup(struct bench *b, unsigned long pc)
{
	struct sframe_rule r;

	if (sframe_find(&b->sec, pc, &r, NULL)) {
		fprintf(stderr, "%s(%#lx) failed\n", __func__, pc);
		exit(1);
	}
	sink += r.cfa.off;
}

static double hot(struct bench *b)
{
	unsigned long i, n = 2000000;
	double t;

	for (i = 0; i < NPCS; i++)
		lookup(b, b->pcs[i]);
	t = now_ns();
	for (i = 0; i < n; i++)
		lookup(b, b->pcs[i % NPCS]);
	return (now_ns() - t) / n;
}

static double cold(struct bench *b, u8 *flush)
{
	unsigned long i, j, n = 200;
	double t, total = 0, overhead;

	/* the cost of reading the clock twice */
	t = now_ns();
	for (i = 0; i < 1000; i++)
		now_ns();
	overhead = (now_ns() - t) / 1000;

	for (i = 0; i < n; i++) {
		for (j = 0; j < FLUSH_SIZE; j += 64)
			flush[j]++;
		/* the writes must happen: they evict the section from the caches */
		__asm__ volatile("" : : "r"(flush) : "memory");
		t = now_ns();
		lookup(b, b->pcs[(i * 7919) % NPCS]);
		total += now_ns() - t - overhead;
	}
	return total / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), cmp);
	return v[RUNS / 2];
}

int main(int argc, char **argv)
{
	static const u32 sizes[] = { 10, 1000, 100000 };
	double h[RUNS], c[RUNS];
	struct bench b;
	u8 *flush;
	unsigned int s, r;

	if (argc == 4 && !strcmp(argv[1], "-n")) {
		unsigned long i, n = strtoul(argv[2], NULL, 0);

		build(&b, strtoul(argv[3], NULL, 0));
		for (i = 0; i < n; i++)
			lookup(&b, b.pcs[i % NPCS]);
		return 0;
	}

	flush = calloc(1, FLUSH_SIZE);
	printf("| functions | section bytes | hot ns/lookup | cold ns/lookup |\n");
	printf("|---:|---:|---:|---:|\n");
	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		build(&b, sizes[s]);
		for (r = 0; r < RUNS; r++) {
			h[r] = hot(&b);
			c[r] = cold(&b, flush);
		}
		printf("| %u | %zu | %.1f | %.1f |\n", sizes[s], b.len,
		       median(h), median(c));
		free(b.buf);
	}
	free(flush);
	return sink == 42;
}
