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
 * Usage: libc_walk [ROUNDS] [--proc|--faults|--sort]
 *   --proc    print /proc/self/sframe first
 *   --sort    only the qsort() phase (where system calls are slow, as
 *             under emulation, the getppid() phase takes most samples)
 *   --faults  make user page faults inside the callback (every 64th call
 *             touches a fresh page) and inside memcpy() (its destination
 *             dropped with MADV_DONTNEED first), for the agreement check
 *             with perf's DWARF unwinding (devtools/tests/agree.sh)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOINLINE __attribute__((__noinline__))
#define NREC	4096
#define COPY	(256 * 1024)

struct rec {
	uint32_t	key;
	uint32_t	pad[7];
};

#define FRESH_PAGES	1024

static struct rec recs[NREC];
static char src[COPY], dst[COPY] __attribute__((__aligned__(4096)));
static volatile uint64_t sink;
static char *fresh;		/* --faults: pages to fault in */
static unsigned int calls, fresh_next;
static int sort_only;		/* --sort */

/* --faults: write to the next page not touched yet */
static NOINLINE void touch_fresh(void)
{
	if (fresh_next == FRESH_PAGES) {
		madvise(fresh, FRESH_PAGES * 4096UL, MADV_DONTNEED);
		fresh_next = 0;
	}
	fresh[fresh_next++ * 4096UL] = 1;
}

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
	if (fresh && !(++calls & 63))
		touch_fresh();
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

	if (fresh)
		madvise(dst, sizeof(dst), MADV_DONTNEED);
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
	if (!sort_only) {
		copy_phase();
		sys_phase();
	}
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

	if (argc > 2 && !strcmp(argv[2], "--faults")) {
		fresh = mmap(NULL, FRESH_PAGES * 4096UL, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fresh == MAP_FAILED)
			return 1;
	}
	if (argc > 2 && !strcmp(argv[2], "--proc")) {
		char line[512];
		FILE *f = fopen("/proc/self/sframe", "r");

		while (f && fgets(line, sizeof(line), f))
			fputs(line, stdout);
		if (f)
			fclose(f);
	}
	sort_only = argc > 2 && !strcmp(argv[2], "--sort");
	for (r = 0; r < rounds; r++)
		level1(r);
	printf("libc_walk: rounds=%u sink=%llu\n", rounds,
	       (unsigned long long)sink);
	return 0;
}
