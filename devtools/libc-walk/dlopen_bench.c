// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen_bench LIB N: the time of the first dlopen() of LIB and the mean
 * time of N more dlopen()/dlclose() pairs, in microseconds:
 *   first_us=F mean_us=M
 * Run with and without sframe-run to see what sframe-audit.so adds per
 * dlopen() (first: with an empty cache, sframe-gen runs).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 100, i;
	double t0, first, sum = 0;
	void *h;

	if (argc < 2) {
		fprintf(stderr, "usage: dlopen_bench LIB [N]\n");
		return 2;
	}
	t0 = now_us();
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen_bench: %s\n", dlerror());
		return 1;
	}
	dlclose(h);
	first = now_us() - t0;
	for (i = 0; i < n; i++) {
		t0 = now_us();
		h = dlopen(argv[1], RTLD_NOW);
		dlclose(h);
		sum += now_us() - t0;
	}
	printf("first_us=%.0f mean_us=%.1f\n", first, sum / n);
	return 0;
}
