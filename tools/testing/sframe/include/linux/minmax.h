/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: min_t(), evaluating each argument once, and swap(). */
#ifndef _SFRAME_SHIM_LINUX_MINMAX_H
#define _SFRAME_SHIM_LINUX_MINMAX_H

#define min_t(type, a, b) ({						\
	type __min_a = (a);						\
	type __min_b = (b);						\
									\
	__min_a < __min_b ? __min_a : __min_b;				\
})

#define swap(a, b) do {						\
	__typeof__(a) __swap_tmp = (a);					\
	(a) = (b);							\
	(b) = __swap_tmp;						\
} while (0)

#endif
