/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: overflow-checked arithmetic, as in the kernel. */
#ifndef _SFRAME_SHIM_LINUX_OVERFLOW_H
#define _SFRAME_SHIM_LINUX_OVERFLOW_H

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d)	__builtin_sub_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

#endif
