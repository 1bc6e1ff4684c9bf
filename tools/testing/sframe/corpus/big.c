// SPDX-License-Identifier: GPL-2.0
/*
 * Corpus program for sframe_diff: a function longer than 64 KiB, whose
 * last FREs need 4-byte start addresses (FRE type ADDR4), and frames
 * larger than 32 KiB, whose CFA offsets need 4-byte data words.
 */
#include <string.h>

#include "../include/linux/compiler_attributes.h"

#if defined(__x86_64__)
#define NOPS	"70000"		/* one byte each */
#else
#define NOPS	"17000"		/* four bytes each */
#endif

noinline void sink(void *p, unsigned long n)
{
	__asm__ volatile("" : : "r"(p), "r"(n) : "memory");
}

noinline long huge_function(long n)
{
	char buf[256];

	memset(buf, (int)n, sizeof(buf));
	sink(buf, sizeof(buf));
	__asm__ volatile(".rept " NOPS "\n\tnop\n\t.endr" : : : "memory");
	sink(buf, n);
	return buf[n & 255];
}

noinline long big_frame(long n)
{
	char buf[40000];

	memset(buf, (int)n, sizeof(buf));
	sink(buf, sizeof(buf));
	return buf[n % sizeof(buf)];
}

noinline long huge_frame(long n)
{
	char buf[300000];

	memset(buf, (int)n, sizeof(buf));
	sink(buf, sizeof(buf));
	return buf[n % sizeof(buf)] + big_frame(n + 1);
}

int main(int argc, char **argv)
{
	(void)argv;
	return (int)(huge_function(argc) + huge_frame(argc));
}
