// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of SFrame support to mmap(): map and unmap the executable
 * segment of an ELF library in a loop, with kernel.sframe_unwind on and
 * off, in rounds that alternate which setting goes first.  Prints the
 * median ns per mmap+munmap pair for each setting and their ratio.
 * Discovery happens at the first unwind, so mmap() runs the same code
 * either way (one emptiness check of the registry in munmap()): the
 * ratio shows that cost together with the measurement noise.  A
 * benchmark, not a test.
 *
 * Usage: mmap_bench LIBRARY [ITERATIONS [ROUNDS]]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int set_sysctl(int on)
{
	int fd = open("/proc/sys/kernel/sframe_unwind", O_WRONLY);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, on ? "1" : "0", 1) == 1 ? 0 : -1;
	close(fd);
	return ret;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long iters = argc > 2 ? atol(argv[2]) : 20000;
	int rounds = argc > 3 ? atoi(argv[3]) : 11, r, on;
	double t[2][64], med[2];
	int fd;

	if (argc < 2 || rounds < 1 || rounds > 64 || iters < 1) {
		fprintf(stderr, "usage: %s LIBRARY [ITERATIONS [ROUNDS<=64]]\n",
			argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (r = 0; r < rounds; r++) {
		for (int k = 0; k < 2; k++) {
			double start;
			long i;

			on = k ^ (r & 1);

			if (set_sysctl(on)) {
				perror("kernel.sframe_unwind");
				return 1;
			}
			start = now_ns();
			for (i = 0; i < iters; i++) {
				void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
					       MAP_PRIVATE, fd, 0);

				if (p == MAP_FAILED) {
					perror("mmap");
					return 1;
				}
				munmap(p, 4096);
			}
			t[on][r] = (now_ns() - start) / iters;
		}
	}
	set_sysctl(1);
	for (on = 0; on < 2; on++) {
		qsort(t[on], rounds, sizeof(double), cmp);
		med[on] = t[on][rounds / 2];
	}
	printf("mmap+munmap of an executable file mapping, median of %d rounds of %ld:\n",
	       rounds, iters);
	printf("  sframe_unwind=0: %.0f ns\n  sframe_unwind=1: %.0f ns\n  ratio: %.3f (%+.1f%%)\n",
	       med[0], med[1], med[1] / med[0], (med[1] / med[0] - 1) * 100);
	return 0;
}
