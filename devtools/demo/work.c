// SPDX-License-Identifier: GPL-2.0
/*
 * A small CPU-bound workload four calls deep, built without frame
 * pointers and with SFrame by devtools/demo-defer.sh.
 */
#define NOINLINE __attribute__((__noipa__))

unsigned long sink;

NOINLINE unsigned long spin(unsigned long n)
{
	unsigned long s = 0, i;

	for (i = 0; i < n; i++)
		s += i * i;
	sink = s;
	return s + 1;
}

NOINLINE unsigned long work_c(unsigned long n)
{
	char pad[64];

	pad[0] = 1;
	asm volatile("" : : "r"(pad) : "memory");
	return spin(n + pad[0]) + 1;
}

NOINLINE unsigned long work_b(unsigned long n)
{
	return work_c(n) + 1;
}

NOINLINE unsigned long work_a(unsigned long n)
{
	return work_b(n) + 1;
}

int main(void)
{
	unsigned long t = 0;
	int i;

	for (i = 0; i < 300; i++)
		t += work_a(200000);
	return t == 0;
}
