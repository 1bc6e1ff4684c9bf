/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the reader harness's user memory accessors (simulated
 * user memory, ../../include/linux/uaccess.h) and get_user(), which reads
 * the same memory and is counted in sim_get_user_calls: the faultable
 * accessor, which a walk that must not fault never uses.
 */
#ifndef _SFRAME_UNWIND_SHIM_LINUX_UACCESS_H
#define _SFRAME_UNWIND_SHIM_LINUX_UACCESS_H

#include_next <linux/uaccess.h>

extern unsigned long sim_get_user_calls;

/* Return: 0, or -EFAULT with @x zeroed */
#define get_user(x, ptr) ({						\
	__typeof__(ptr) __gu_ptr = (ptr);				\
	__typeof__(*__gu_ptr) __gu_val;					\
	unsigned long __gu_left;					\
									\
	sim_get_user_calls++;						\
	__gu_left = sim_copy_from_user(&__gu_val, __gu_ptr,		\
				       sizeof(__gu_val));		\
	(x) = __gu_left ? 0 : __gu_val;					\
	__gu_left ? -EFAULT : 0;					\
})

#endif
