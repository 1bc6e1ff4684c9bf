// SPDX-License-Identifier: GPL-2.0
/*
 * A workload whose samples land inside the C library: built -O2
 * -fomit-frame-pointer -Wa,--gsframe (no frame pointers, with SFrame), it
 * calls qsort() with a comparison callback into the program, memcpy() and
 * a system call wrapper, each below the same chain main -> level1 ->
 * level2 -> level3 -> <phase>.  Debian's libc has neither frame pointers
 * nor .sframe: only with sframe-run (tools/sframe) do the chains of those
 * samples reach main.
 *
 * Usage: libc_walk [ROUNDS] [--proc]   (--proc: print /proc/self/sframe)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((__noinline__))
#define NREC	4096
#define COPY	(256 * 1024)

struct rec {
	uint32_t	key;
	uint32_t	pad[7];
};

static struct rec recs[NREC];
static char src[COPY], dst[COPY];
static volatile uint64_t sink;

/* The callback that qsort() calls: some work per comparison */
static NOINLINE int cmp_recs(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	uint32_t hx = x->key, hy = y->key;
	int i;

	for (i = 0; i < 24; i++) {
		hx = hx * 2654435761u + 0x9e3779b9u;
		hy = hy * 2654435761u + 0x9e3779b9u;
	}
	sink += hx ^ hy;
	return x->key < y->key ? -1 : x->key > y->key;
}

static NOINLINE void sort_phase(unsigned int round)
{
	uint32_t v = 0x12345678u + round;
	int i;

	for (i = 0; i < NREC; i++) {
		v ^= v << 13;
		v ^= v >> 17;
		v ^= v << 5;
		recs[i].key = v;
	}
	qsort(recs, NREC, sizeof(recs[0]), cmp_recs);
	/* Not a tail call: sort_phase stays on the stack */
	sink += recs[NREC / 2].key;
}

static NOINLINE void copy_phase(void)
{
	int i;

	for (i = 0; i < 64; i++) {
		memcpy(dst, src, sizeof(dst));
		src[i] = dst[COPY - 1 - i];
	}
}

static NOINLINE void sys_phase(void)
{
	int i;

	for (i = 0; i < 2000; i++)
		sink += getppid();
}

/* No tail calls: every frame of the chain stays on the stack */
static NOINLINE void level3(unsigned int round)
{
	sort_phase(round);
	copy_phase();
	sys_phase();
	sink++;
}

static NOINLINE void level2(unsigned int round)
{
	level3(round);
	sink++;
}

static NOINLINE void level1(unsigned int round)
{
	level2(round);
	sink++;
}

int main(int argc, char **argv)
{
	unsigned int rounds = argc > 1 ? atoi(argv[1]) : 20, r;

	if (argc > 2 && !strcmp(argv[2], "--proc")) {
		char line[512];
		FILE *f = fopen("/proc/self/sframe", "r");

		while (f && fgets(line, sizeof(line), f))
			fputs(line, stdout);
		if (f)
			fclose(f);
	}
	for (r = 0; r < rounds; r++)
		level1(r);
	printf("libc_walk: rounds=%u sink=%llu\n", rounds,
	       (unsigned long long)sink);
	return 0;
}
