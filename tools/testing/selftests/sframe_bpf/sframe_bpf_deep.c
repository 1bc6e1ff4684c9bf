// SPDX-License-Identifier: GPL-2.0
/*
 * A deep chain built without frame pointers and with SFrame, for the
 * profilers' end-to-end checks (sframe-profile, bpftrace, perf): it spins
 * in leaf() under
 *
 *   main > work > with_alloca > realign > rec x (DEPTH + 1) > leaf
 *
 * with_alloca() has a variable-sized frame, realign() a stack realigned
 * to 64 bytes: both keep their CFA in a register other than the stack
 * pointer.  Usage: sframe_bpf_deep [SECONDS [LINGER]]: spin SECONDS
 * (default 2), then sleep LINGER seconds (default 0) before exiting, for
 * profilers that read the process's mappings when they print.
 */
#include <alloca.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../sframe/sft.h"

#define DEPTH	20

static int stop;

static void on_alarm(int sig)
{
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

SFT_NOINLINE long leaf(long x)
{
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		x = x * 7 + 1;
	return x;
}

SFT_NOINLINE long rec(long depth, long x)
{
	long r;

	if (!depth)
		return leaf(x) + 1;
	/* A use after the call: no recursion turned into a loop */
	r = rec(depth - 1, x);
	sft_keep(&r);
	return r + 1;
}

SFT_NOINLINE long realign(long x)
{
	_Alignas(64) char buf[64];

	buf[0] = x;
	sft_keep(buf);
	return rec(DEPTH, x + buf[0]) + 1;
}

SFT_NOINLINE long with_alloca(long x)
{
	char *p = alloca(16 + (x & 255));

	p[0] = x;
	sft_keep(p);
	return realign(x + p[0]) + 1;
}

SFT_NOINLINE long work(long x)
{
	return with_alloca(x) + 1;
}

int main(int argc, char **argv)
{
	unsigned int seconds = argc > 1 ? atoi(argv[1]) : 2;
	unsigned int linger = argc > 2 ? atoi(argv[2]) : 0;
	long r;

	signal(SIGALRM, on_alarm);
	alarm(seconds ? seconds : 1);
	r = work(seconds);
	/* stderr: profilers print their samples to stdout */
	fprintf(stderr, "sframe_bpf_deep: %u s, %ld\n", seconds, r & 0xff);
	if (linger)
		sleep(linger);
	return 0;
}
