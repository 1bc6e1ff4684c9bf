// SPDX-License-Identifier: GPL-2.0
/*
 * tp-count ROUNDS [DEFER [THREADS [KEEPER]]]: does a per-thread perf event
 * on syscalls:sys_enter_getppid count the thread's getppid()?
 *
 * ROUNDS new processes each start THREADS threads (4) that open such an
 * event at once (sampling every call, with a user callchain, deferred if
 * DEFER is 1), enable it, call getppid() once, disable it and read its
 * count.  A count of 0 means that the event took no sample: the unwinder
 * was never asked for a chain.  With KEEPER 1, an event that stays open
 * in this process keeps the tracepoint registered between the rounds.
 *
 * Prints the rounds and threads whose count was 0.  A diagnostic for the
 * kselftests' sample() (README, "Limits"), not part of make test:
 *   devtools/chroot.sh -- aarch64-linux-gnu-gcc -O2 -static -pthread \
 *	-o build/tp-count devtools/tp-count.c
 *   SFRAME_ARCH=arm64 devtools/vm.sh \
 *	"mount -t tracefs tracefs /sys/kernel/tracing; $PWD/build/tp-count 500"
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#define RB_SIZE		(65 * 4096)
#define MAX_THREADS	64

static int tp_id, defer, nthreads = 4;
static pthread_barrier_t start;

static int event_open(int sampling)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = tp_id;
	attr.disabled = 1;
	if (sampling) {
		attr.sample_period = 1;
		attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_kernel = 1;
		attr.defer_callchain = defer;
		attr.defer_output = defer;
	}
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

/* The count of an event of @type/@config around one getppid() */
static unsigned long long count_one(__u32 type, __u64 config)
{
	struct perf_event_attr attr;
	unsigned long long count = ~0ULL;
	volatile int spin;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return count;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	syscall(SYS_getppid);
	for (spin = 0; spin < 100000; spin++)
		;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = ~0ULL;
	close(fd);
	return count;
}

/*
 * A thread whose event counted nothing: does a new tracepoint event count
 * now, and does the thread's perf context run events at all (task-clock)?
 */
static void probe_thread(void)
{
	unsigned long long tp = count_one(PERF_TYPE_TRACEPOINT, tp_id);
	unsigned long long clock = count_one(PERF_TYPE_SOFTWARE,
					     PERF_COUNT_SW_TASK_CLOCK);

	fprintf(stderr, "tid %ld missed: again %llu, task-clock %llu ns\n",
		(long)syscall(SYS_gettid), tp, clock);
}

/* 1 if the thread's event did not count its getppid(), 2 on error */
static void *thread_fn(void *arg __attribute__((unused)))
{
	unsigned long long count = 0;
	void *rb;
	int fd;

	pthread_barrier_wait(&start);
	fd = event_open(1);
	if (fd < 0)
		return (void *)2L;
	rb = mmap(NULL, RB_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	syscall(SYS_getppid);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = ~0ULL;
	if (rb != MAP_FAILED)
		munmap(rb, RB_SIZE);
	close(fd);
	if (count == 0)
		probe_thread();
	return (void *)(long)(count == 0 ? 1 : count == ~0ULL ? 2 : 0);
}

/* Exit status: the threads whose event counted nothing, 100 on error */
static int one_round(void)
{
	pthread_t t[MAX_THREADS];
	int i, missed = 0;
	void *ret;

	if (pthread_barrier_init(&start, NULL, nthreads))
		return 100;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, thread_fn, NULL))
			return 100;
	for (i = 0; i < nthreads; i++) {
		if (pthread_join(t[i], &ret) || (long)ret == 2)
			return 100;
		missed += (long)ret;
	}
	return missed;
}

int main(int argc, char **argv)
{
	int rounds, keeper, i, status, bad_rounds = 0, missed = 0;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: %s ROUNDS [DEFER [THREADS [KEEPER]]]\n",
			argv[0]);
		return 2;
	}
	rounds = atoi(argv[1]);
	defer = argc > 2 && atoi(argv[2]);
	if (argc > 3)
		nthreads = atoi(argv[3]);
	keeper = argc > 4 && atoi(argv[4]);
	if (nthreads < 1 || nthreads > MAX_THREADS)
		return 2;
	f = fopen("/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id",
		  "r");
	if (!f || fscanf(f, "%d", &tp_id) != 1) {
		perror("syscalls:sys_enter_getppid");
		return 2;
	}
	fclose(f);
	if (keeper && event_open(0) < 0) {
		perror("perf_event_open");
		return 2;
	}
	for (i = 0; i < rounds; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (!pid)
			_exit(one_round());
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) == 100) {
			fprintf(stderr, "round %d failed\n", i);
			return 2;
		}
		if (WEXITSTATUS(status)) {
			bad_rounds++;
			missed += WEXITSTATUS(status);
		}
	}
	printf("defer=%d threads=%d keeper=%d rounds=%d: ", defer, nthreads,
	       keeper, rounds);
	printf("%d rounds with %d threads whose event counted no getppid()\n",
	       bad_rounds, missed);
	return bad_rounds ? 1 : 0;
}
