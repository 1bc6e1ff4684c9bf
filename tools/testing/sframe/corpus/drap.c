// SPDX-License-Identifier: GPL-2.0
/*
 * Corpus program for sframe_diff: stack realignment (DRAP on x86_64),
 * variable-length frames, alloca, many small and large functions.
 */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/linux/compiler_attributes.h"

noinline void sink(void *p, size_t n)
{
	__asm__ volatile("" : : "r"(p), "r"(n) : "memory");
}

noinline int realign(int n)
{
	double x __attribute__((vector_size(64))) __aligned(64) = {
		n, 2, 3, 4, 5, 6, 7, 8
	};
	char vla[n + 1];

	memset(vla, n, n + 1);
	sink(vla, n + 1);
	sink(&x, sizeof(x));
	return vla[n / 2] + (int)x[1];
}

noinline int with_alloca(int n)
{
	char *p = alloca(n + 16);

	memset(p, 1, n + 16);
	sink(p, n);
	return p[n];
}

noinline long big_frame(int n)
{
	char buf[70000];

	memset(buf, n, sizeof(buf));
	sink(buf, sizeof(buf));
	return buf[n % sizeof(buf)];
}

noinline long recurse(long n)
{
	if (n <= 1)
		return 1;
	return n * recurse(n - 1) + realign((int)n);
}

noinline __noreturn void die(const char *msg)
{
	fprintf(stderr, "%s\n", msg);
	exit(1);
}

#define LEAF(i) noinline int leaf##i(int x)				\
	{ const int k = (i); return x * k + (x >> (k % 7)); }
LEAF(1) LEAF(2) LEAF(3) LEAF(4) LEAF(5) LEAF(6) LEAF(7) LEAF(8)

int main(int argc, char **argv)
{
	long r = recurse(argc + 3) + with_alloca(argc * 100) + big_frame(argc);

	r += leaf1(argc) + leaf2(r) + leaf3(r) + leaf4(r) + leaf5(r) +
	     leaf6(r) + leaf7(r) + leaf8(r);
	if (argc > 5)
		die(argv[0]);
	printf("%ld\n", r);
	return 0;
}
