// SPDX-License-Identifier: GPL-2.0
/*
 * A call chain built without frame pointers but with SFrame (see Build),
 * for the perf record --call-graph sframe test: sframeloop -> sframe_top
 * -> sframe_mid -> sframe_leaf, which spins until the alarm.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/compiler.h>
#include "../tests.h"

/* Not static: perf script must find these symbols */
noinline int sframe_leaf(int n);
noinline int sframe_mid(int n);
noinline int sframe_top(int n);

static sig_atomic_t done;
static int sink;

/* Make the compiler keep @buf, and so a stack frame of its own */
static inline void keep_frame(char *buf)
{
	asm volatile("" : : "r"(buf) : "memory");
}

static void sighandler(int sig __maybe_unused)
{
	WRITE_ONCE(done, 1);
}

noinline int sframe_leaf(int n)
{
	/* A frame of its own, so that the return address is not at [SP] */
	char buf[64];
	int i = 0;

	while (!READ_ONCE(done)) {
		buf[i & 63] = (char)(n + i);
		keep_frame(buf);
		i++;
	}
	return buf[0];
}

noinline int sframe_mid(int n)
{
	char buf[128];

	buf[0] = (char)n;
	keep_frame(buf);
	/* Not a tail call: the frame stays on the stack */
	return sframe_leaf(n + 1) + buf[0];
}

noinline int sframe_top(int n)
{
	char buf[256];

	buf[0] = (char)n;
	keep_frame(buf);
	return sframe_mid(n + 1) + buf[0];
}

static int sframeloop(int argc, const char **argv)
{
	int sec = 1;

	if (argc > 0)
		sec = atoi(argv[0]);

	signal(SIGINT, sighandler);
	signal(SIGALRM, sighandler);
	alarm(sec);

	WRITE_ONCE(sink, sframe_top(sec));
	return 0;
}

DEFINE_WORKLOAD(sframeloop);
