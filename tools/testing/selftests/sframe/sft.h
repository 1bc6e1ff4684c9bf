/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SFT_H
#define _SFT_H

/* Keep every frame: no inlining, no tail calls (the callers add 1). */
#define SFT_NOINLINE	__attribute__((noinline, noclone))

typedef long (*sft_cb)(long);

long lib_start_call(sft_cb cb, long x);

#endif
