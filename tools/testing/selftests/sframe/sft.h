/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SFT_H
#define _SFT_H

/*
 * Keep every frame under its own name: no inlining, cloning or other
 * interprocedural changes, and no tail calls (the callers add 1).
 */
#define SFT_NOINLINE	__attribute__((__noipa__))

/* Make the compiler keep @p's memory (and so a frame of that size) */
static inline void sft_keep(void *p)
{
	asm volatile("" : : "r"(p) : "memory");
}

typedef long (*sft_cb)(long);

long lib_start_call(sft_cb cb, long x);

#endif
