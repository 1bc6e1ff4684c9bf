/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SFT_H
#define _SFT_H

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/*
 * Keep every frame under its own name: no inlining, cloning or other
 * interprocedural changes, and no tail calls (the callers add 1).
 */
#define SFT_NOINLINE	__attribute__((__noipa__))

/* Make the compiler keep @p's memory (and so a frame of that size) */
static inline void sft_keep(void *p)
{
	asm volatile("" : : "r"(p) : "memory");
}

/* Write @val to kernel.sframe_unwind: 0 on success, -1 on error */
static inline int sft_write_sysctl(const char *val)
{
	int fd = open("/proc/sys/kernel/sframe_unwind", O_WRONLY), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return ret;
}

typedef long (*sft_cb)(long);

long lib_start_call(sft_cb cb, long x);

#endif
