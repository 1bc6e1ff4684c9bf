// SPDX-License-Identifier: GPL-2.0
/*
 * hostile [MILLIONS]: the hostile-section workload of make bench. The
 * stack returns into one function of 1003 FREs at every other of its 101
 * frames: a JIT region registered with prctl(PR_SFRAME) whose section
 * puts an FRE on every second byte of a 2000-byte sled (the section that
 * kselftest hostile_section_sampling builds, from the same header), so
 * that every lookup of a return address into it that the rule cache does
 * not answer reads all its FREs. At the leaf it spins MILLIONS million
 * iterations (100), then prints, like the demo workload,
 *   hostile: depth=50 wall_ms=W cpu_ms=C
 * where cpu_ms is the process's CPU time, which includes the work done in
 * its context by the samples taken of it. Built without frame pointers,
 * with SFrame, by devtools/demo/build.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sft_sframe.h"

static long (*hostile_fn)(long x, long (*leaf)(long));
static long spins;

static double ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Alternate with the hostile function SFT_HOSTILE_DEPTH times, then spin */
__attribute__((noinline)) static long hostile_leaf(long x)
{
	long i;

	if (x <= 0) {
		for (i = 0; i < spins; i++)
			asm volatile("");
		return 0;
	}
	return hostile_fn(x - 1, hostile_leaf) + 1;
}

int main(int argc, char **argv)
{
	double wall, cpu;
	long depth;
	void *fn;
	int err;

	spins = (argc > 1 ? atol(argv[1]) : 100) * 1000000L;
	err = sft_jit_map(SFT_HOSTILE_SLED, SFT_HOSTILE_STEP, &fn);
	if (err < 0) {
		perror("hostile: mmap");
		return 1;
	}
	/* Without SFrame support the same stack is walked as it can be */
	if (err)
		fprintf(stderr, "hostile: prctl(PR_SFRAME): %s\n", strerror(err));
	hostile_fn = fn;
	wall = ms(CLOCK_MONOTONIC);
	cpu = ms(CLOCK_PROCESS_CPUTIME_ID);
	depth = hostile_leaf(SFT_HOSTILE_DEPTH);
	printf("hostile: depth=%ld wall_ms=%.3f cpu_ms=%.3f\n", depth,
	       ms(CLOCK_MONOTONIC) - wall, ms(CLOCK_PROCESS_CPUTIME_ID) - cpu);
	return 0;
}
