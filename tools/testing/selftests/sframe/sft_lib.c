// SPDX-License-Identifier: GPL-2.0
/*
 * Code of the shared libraries of the SFrame unwind tests.  Built three
 * times: SFT_NAME gives the function prefix, SFT_FRAME the size of the
 * frames, so that two libraries loaded at the same address one after
 * the other have different unwind rules.
 */
#include "sft.h"

#define CAT(a, b)	a##b
#define XCAT(a, b)	CAT(a, b)
#define FN(name)	XCAT(SFT_NAME, name)

SFT_NOINLINE long FN(_inner)(sft_cb cb, long x)
{
	char pad[SFT_FRAME];

	pad[0] = (char)x;
	sft_keep(pad);
	return cb(x + pad[0]) + 1;
}

SFT_NOINLINE long FN(_call)(sft_cb cb, long x)
{
	char pad[SFT_FRAME * 2];

	pad[1] = (char)x;
	sft_keep(pad);
	return FN(_inner)(cb, x + pad[1]) + 1;
}
