/* SPDX-License-Identifier: GPL-2.0 */
/* sframe-profile's pprof output: samples as a gzipped profile.proto. */
#ifndef SFRAME_PROFILE_PPROF_H
#define SFRAME_PROFILE_PPROF_H

#include <linux/types.h>
#include <sys/types.h>

/* A frame: its function, the file it is in, its address (0: unknown) */
struct pp_frame {
	const char *name;
	const char *object;
	__u64 addr;
};

/* The samples of one stack of one process: the leaf first */
struct pp_stack {
	const char *comm;
	pid_t pid;
	unsigned long count;
	const struct pp_frame *frames;
	size_t nframes;
};

int pprof_write(int fd, const struct pp_stack *st, size_t n, int hz,
		__s64 time_ns, __s64 duration_ns);

#endif
