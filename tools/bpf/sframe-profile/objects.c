// SPDX-License-Identifier: GPL-2.0
/*
 * The files that sampled processes map, opened while they live, so that
 * their symbols are read from the file that was mapped: through
 * /proc/PID/map_files/START-END, which is the mapped file itself, as a
 * process in another mount namespace (a container) sees it, replaced or
 * deleted since.  A path, read when the samples are printed, could name
 * another file, or none once the process has exited.  One descriptor per
 * file (device and inode), however many processes map it: at most
 * OBJECTS_MAX, and half the descriptors that RLIMIT_NOFILE allows, the
 * rest read by path.  A file is opened for reading only once it is known
 * to be a regular one (not a device, whose open could act).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "objects.h"

#define OBJECTS_MAX	4096

/* OBJECTS_MAX, or half the descriptors allowed if fewer */
static size_t objects_max = OBJECTS_MAX;

struct object {
	dev_t dev;
	ino_t ino;
	int fd;
};

static struct object *objects;
static size_t nobjects, objects_cap;

/**
 * object_open() - the file that a process maps at an address range
 * @pid: the process
 * @start: the start of the mapping
 * @end: its end
 *
 * Return: the object (object_fd()), or -1: the process has exited, the
 * range is not a regular file's mapping, or the files kept are as many
 * as allowed.
 */
int object_open(pid_t pid, __u64 start, __u64 end)
{
	char path[96];
	struct stat st;
	size_t i;
	int fd, ofd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", pid,
		 (unsigned long long)start, (unsigned long long)end);
	/* Not opened for reading before it is known to be a regular file */
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		goto fail;
	for (i = 0; i < nobjects; i++)
		if (objects[i].dev == st.st_dev && objects[i].ino == st.st_ino) {
			close(fd);
			return i;
		}
	if (nobjects >= objects_max)
		goto fail;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ofd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(fd);
	fd = ofd;
	if (fd < 0)
		return -1;
	if (nobjects == objects_cap) {
		size_t cap = objects_cap ? 2 * objects_cap : 64;
		struct object *n = realloc(objects, cap * sizeof(*n));

		if (!n)
			goto fail;
		objects = n;
		objects_cap = cap;
	}
	objects[nobjects] = (struct object){ st.st_dev, st.st_ino, fd };
	return nobjects++;
fail:
	close(fd);
	return -1;
}

/* The descriptor of @obj, from object_open() */
int object_fd(int obj)
{
	return obj >= 0 && (size_t)obj < nobjects ? objects[obj].fd : -1;
}

/* As many descriptors as allowed: the objects' and the perf maps' */
void objects_raise_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur / 2 < objects_max)
		objects_max = rl.rlim_cur / 2;
}
