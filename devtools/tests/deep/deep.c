// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU-bound program ten frames deep (spin, d8 ... d1, main), built
 * without frame pointers, with SFrame, by devtools/tests/deep/build.sh,
 * for fp-defer-guest.sh: every sample in spin() must unwind to main.
 * Every function but the leaf has a frame of its own, and calls through
 * a volatile pointer, so no call becomes a tail call.
 *
 *   deep [ROUNDS]
 */
#include <stdlib.h>

#define NOINLINE __attribute__((__noipa__))

static unsigned long sink;

NOINLINE unsigned long spin(unsigned long n)
{
	unsigned long s = 0, i;

	for (i = 0; i < n; i++)
		s += i * i;
	sink = s;
	return s + 1;
}

#define LEVEL(name, callee)						\
NOINLINE unsigned long name(unsigned long n)				\
{									\
	unsigned long (*volatile fn)(unsigned long) = callee;		\
	char pad[32];							\
									\
	pad[0] = n & 1;							\
	asm volatile("" : : "r"(pad) : "memory");			\
	return fn(n + pad[0]) + 1;					\
}

LEVEL(d8, spin)
LEVEL(d7, d8)
LEVEL(d6, d7)
LEVEL(d5, d6)
LEVEL(d4, d5)
LEVEL(d3, d4)
LEVEL(d2, d3)
LEVEL(d1, d2)

int main(int argc, char **argv)
{
	unsigned long t = 0;
	long i, rounds = argc > 1 ? atol(argv[1]) : 100;

	for (i = 0; i < rounds; i++)
		t += d1(1000000);
	return t == 0;
}
