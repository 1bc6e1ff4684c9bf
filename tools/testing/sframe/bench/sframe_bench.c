// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark (not a test) of sframe_find(): nanoseconds per lookup in
 * generated SFrame V3 AMD64 sections of 10, 1000 and 100000 functions
 * (16 to 240 bytes each, 4 FREs each, like -O2 code with a frame).
 *
 * The reader (kernel/unwind/sframe_walk.c) is compiled unchanged; user
 * memory is this process's memory and unsafe_get_user() a load
 * (SIM_UACCESS_DIRECT), so the figures are the reader's own cost,
 * without the uaccess overhead (one STAC/CLAC per lookup) of a real
 * kernel.
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
#include "bench_section.h"

#define NPCS		4096
#define RUNS		5
#define FLUSH_SIZE	(32UL << 20)

struct bench {
	u8			*buf;
	size_t			len;
	struct sframe_section	sec;
	unsigned long		pcs[NPCS];
};

/* @n functions and NPCS random PCs in them */
static void build(struct bench *b, u32 n)
{
	unsigned long i;

	b->buf = build_section(&b->sec, n, &b->len);
	if (!b->buf) {
		fprintf(stderr, "generated section is invalid\n");
		exit(1);
	}
	for (i = 0; i < NPCS; i++)
		b->pcs[i] = b->sec.text_start +
			rnd(&rnd_state) % (b->sec.text_end - b->sec.text_start);
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
		sframe_index_put(b.sec.fde_index);
		free(b.buf);
	}
	free(flush);
	return sink == 42;
}
