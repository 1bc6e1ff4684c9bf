/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: overflow-checked arithmetic, as in the kernel. */
#ifndef _SFRAME_SHIM_LINUX_OVERFLOW_H
#define _SFRAME_SHIM_LINUX_OVERFLOW_H

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d)	__builtin_sub_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

/*
 * Size of *@p with @n elements of its flexible array @member (the kernel's
 * saturates on overflow; the harness's sizes are small)
 */
#define struct_size(p, member, n) \
	(sizeof(*(p)) + sizeof(*(p)->member) * (size_t)(n))
#define struct_size_t(type, member, n) struct_size((type *)NULL, member, n)

#endif
