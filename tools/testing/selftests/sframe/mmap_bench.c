// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of SFrame support to mmap(): map and unmap the executable
 * segment of an ELF library in a loop, in rounds.  Prints the minimum and
 * the median ns per mmap+munmap pair over all rounds.
 *
 * First, one deferred user callchain of this process is sampled, so that
 * with the feature its registry holds the program's section and munmap()
 * really searches it, as in a process being profiled.  With
 * kernel.sframe_unwind present, rounds alternate it on and off and each
 * setting is printed too; without it (a kernel built without the
 * feature) rounds just repeat.  Discovery happens at the first unwind,
 * so mmap() runs the same code for both settings: make bench-mmap
 * compares a kernel with the feature against one without.  A benchmark,
 * not a test.
 *
 * Usage: mmap_bench LIBRARY [ITERATIONS [ROUNDS]]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "sft_perf.h"

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

/* One deferred user callchain of this process; 0 on success */
static int sample_self(void)
{
	struct sampler s;

	if (sft_sampler_open(&s, PERF_SAMPLE_CALLCHAIN, 1, 2))
		return -1;
	ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0);
	syscall(SYS_getppid);
	ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
	sampler_close(&s);
	return 0;
}

/* Lines of /proc/self/sframe, or -1 without the feature */
static int sections(void)
{
	FILE *f = fopen("/proc/self/sframe", "r");
	int c, n = 0;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
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
	double t[2][256], all[512];
	int fd, toggle;

	if (argc < 2 || rounds < 1 || rounds > 256 || iters < 1) {
		fprintf(stderr, "usage: %s LIBRARY [ITERATIONS [ROUNDS<=256]]\n",
			argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (sample_self()) {
		perror("perf_event_open");
		return 1;
	}
	toggle = !access("/proc/sys/kernel/sframe_unwind", F_OK);
	printf("registry: %d sections\n", sections());
	for (r = 0; r < rounds; r++) {
		for (int k = 0; k < 2; k++) {
			double start;
			long i;

			on = toggle ? k ^ (r & 1) : k;
			if (toggle && set_sysctl(on)) {
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
			all[2 * r + k] = t[on][r];
		}
	}
	if (toggle)
		set_sysctl(1);
	printf("mmap+munmap of an executable file mapping, ns per pair, %d rounds of %ld:\n",
	       rounds, iters);
	/* Noise only adds time: the minimum is the code's cost */
	qsort(all, 2 * rounds, sizeof(double), cmp);
	printf("  all rounds: min %.1f median %.1f\n", all[0], all[rounds]);
	for (on = 0; toggle && on < 2; on++) {
		qsort(t[on], rounds, sizeof(double), cmp);
		printf("  sframe_unwind=%d: min %.1f median %.1f\n", on, t[on][0],
		       t[on][rounds / 2]);
	}
	return 0;
}
