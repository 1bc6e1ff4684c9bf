/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The short chains the tests unwind: f1 > f2 > f3 > leaf, built like the
 * rest of the program (no frame pointers, with SFrame; f2 has a 40-byte
 * frame), and fp1 > fp2 > fp3 > leaf with frame pointers kept (on s390x
 * the back chain), which is what kernel.sframe_unwind=0 unwinds.  The program that includes this
 * defines leaf_ptr, its innermost function, called through the pointer
 * so that the call is a real one.
 */
#ifndef _SFT_CALLS_H
#define _SFT_CALLS_H

#include "sft.h"
#include "sft_arch.h"

extern long (*leaf_ptr)(long);

SFT_NOINLINE long f3(long x)
{
	return leaf_ptr(x) + 1;
}

SFT_NOINLINE long f2(long x)
{
	char pad[40];

	pad[0] = x;
	sft_keep(pad);
	return f3(x + pad[0]) + 1;
}

SFT_NOINLINE long f1(long x)
{
	return f2(x) + 1;
}

/* SFT_FP (sft_arch.h): keep frame pointers, on s390x the back chain */

SFT_FP long fp3(long x)
{
	return leaf_ptr(x) + 1;
}

SFT_FP long fp2(long x)
{
	return fp3(x) + 1;
}

SFT_FP long fp1(long x)
{
	return fp2(x) + 1;
}

#endif
