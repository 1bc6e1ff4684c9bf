// SPDX-License-Identifier: GPL-2.0
/*
 * The recursion module of unwind_bench: @depth frames of one function.
 * Per-frame unwind cost with one FDE, whatever the depth.
 */
#include "unwind_bench.h"

const int bench_nfuncs;

BENCH_NOIPA int bench_descend(int depth, int (*bottom)(void))
{
	int r;

	if (depth <= 0)
		return bottom() + 1;
	r = bench_descend(depth - 1, bottom);
	asm volatile("" : "+r"(r));	/* no accumulator loop */
	return r + 1;
}
