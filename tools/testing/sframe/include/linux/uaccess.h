/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: user memory is simulated by uspace.c, a set of buffers
 * mapped at chosen fake addresses, with injectable faults.
 */
#ifndef _SFRAME_SHIM_LINUX_UACCESS_H
#define _SFRAME_SHIM_LINUX_UACCESS_H

#include <linux/errno.h>
#include <linux/types.h>
#include <asm/tlb.h>

#define __user

/* Page fault disable nesting, as current->pagefault_disabled */
extern int sim_pagefault_depth;

unsigned long sim_copy_from_user(void *to, const void *from, unsigned long n);

/* Return: the number of bytes not copied; the rest of @to is zeroed */
static inline unsigned long copy_from_user(void *to, const void __user *from,
					   unsigned long n)
{
	return sim_copy_from_user(to, from, n);
}

unsigned long sim_copy_to_user(void *to, const void *from, unsigned long n);

/* Return: the number of bytes not copied */
static inline unsigned long copy_to_user(void __user *to, const void *from,
					 unsigned long n)
{
	return sim_copy_to_user(to, from, n);
}

static inline void pagefault_disable(void)
{
	sim_pagefault_depth++;
}

static inline void pagefault_enable(void)
{
	sim_pagefault_depth--;
}

static inline bool pagefault_disabled(void)
{
	return sim_pagefault_depth != 0;
}

/*
 * As mm/maccess.c: all or nothing, with page faults disabled, and nothing
 * while the user address space is not accessible from this context.
 * Return: 0, or -EFAULT.
 */
static inline long copy_from_user_nofault(void *to, const void __user *from,
					  size_t n)
{
	unsigned long left;

	if (!nmi_uaccess_okay())
		return -EFAULT;
	pagefault_disable();
	left = sim_copy_from_user(to, from, n);
	pagefault_enable();
	return left ? -EFAULT : 0;
}

/*
 * User access windows, as user_read_access_begin(), unsafe_get_user()
 * and user_read_access_end().  The uspace.c flavour (the tests) checks
 * their discipline: no read outside a window or outside its range, no
 * nested window, and counts a window as one call of uspace_stats.  The
 * benchmarks (SIM_UACCESS_DIRECT) read their own memory, as the kernel's
 * unsafe_get_user() is one load.
 */
/*
 * A section in kernel memory is read with __get_kernel_nofault(): here, as
 * in the kernel, one load of memory that the reader owns.  It is not
 * counted as a read of user memory (uspace_stats.gets), so the tests
 * can check that a lookup in a kernel section reads none.
 */
#define __get_kernel_nofault(dst, src, type, label) do {		\
	if (0)								\
		goto label;						\
	__builtin_memcpy((dst), (src), sizeof(type));			\
} while (0)

#ifdef SIM_UACCESS_DIRECT
#define user_read_access_begin(ptr, len)	((void)(ptr), (void)(len), true)
#define user_read_access_end()			do { } while (0)
#define unsafe_get_user(x, ptr, label) do {				\
	const void *__sim_p = (const void *)(ptr);			\
	__auto_type __sim_v = (__typeof__(*(ptr)))0;			\
									\
	if (0)								\
		goto label;						\
	__builtin_memcpy(&__sim_v, __sim_p, sizeof(__sim_v));		\
	(x) = __sim_v;							\
} while (0)
#else
bool sim_user_read_access_begin(const void *from, unsigned long n);
void sim_user_read_access_end(void);
int sim_get_user(void *to, const void *from, unsigned long n);

#define user_read_access_begin(ptr, len) \
	sim_user_read_access_begin((const void *)(ptr), len)
#define user_read_access_end()	sim_user_read_access_end()
#define unsafe_get_user(x, ptr, label) do {				\
	const void *__sim_p = (const void *)(ptr);			\
	__auto_type __sim_v = (__typeof__(*(ptr)))0;			\
									\
	if (sim_get_user(&__sim_v, __sim_p, sizeof(__sim_v)))		\
		goto label;						\
	(x) = __sim_v;							\
} while (0)
#endif

#endif
