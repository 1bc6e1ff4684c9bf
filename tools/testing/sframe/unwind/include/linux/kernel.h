/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: what kernel/unwind/user.c takes from <linux/kernel.h>
 * and what it pulls in.  WARN_ONCE() and WARN_ON_ONCE() are counted
 * (sim_warnings) and printed as TAP comments.
 */
#ifndef _SFRAME_SHIM_LINUX_KERNEL_H
#define _SFRAME_SHIM_LINUX_KERNEL_H

#include <stdio.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>

extern unsigned long sim_warnings;

/* One load, as the kernel's */
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define WARN_ONCE(cond, fmt, ...) ({					\
	bool __warn_cond = !!(cond);					\
									\
	if (__warn_cond) {						\
		sim_warnings++;						\
		printf("# WARNING: " fmt "\n", ##__VA_ARGS__);		\
	}								\
	__warn_cond;							\
})
#define WARN_ON_ONCE(cond)	WARN_ONCE(cond, "%s", #cond)

#endif
