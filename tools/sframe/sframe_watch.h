/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's notices of file mappings found without a usable SFrame
 * section (the tracepoint sframe:sframe_missing), read from one perf ring
 * buffer per CPU: what `sframe-store watch` fills the store from.
 */
#ifndef SFRAME_WATCH_H
#define SFRAME_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One notice: the mapping [start, end) of process @pid, of file dev:ino */
struct sfw_event {
	uint32_t	pid;
	uint64_t	start;
	uint64_t	end;
	dev_t		dev;		/* as stat(2) gives st_dev */
	uint64_t	ino;
};

struct sfw;

/*
 * Open the tracepoint on every online CPU.  Return the watcher, or NULL
 * with a message of at most @len bytes in @err, and errno set.
 */
struct sfw *sfw_open(char *err, size_t len);

/*
 * Wait up to @timeout_ms (-1: without end) for notices, and store at most
 * @n of them in @ev.  Return how many, 0 on timeout or a signal, -1 with
 * errno on an error.  Notices that do not fit stay in the ring buffers.
 */
int sfw_read(struct sfw *w, struct sfw_event *ev, size_t n, int timeout_ms);

/* Notices lost so far, to ring buffers that were full, or malformed */
uint64_t sfw_lost(const struct sfw *w);

void sfw_close(struct sfw *w);

#endif /* SFRAME_WATCH_H */
