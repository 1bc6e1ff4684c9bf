/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: native-endian unaligned loads. */
#ifndef _SFRAME_SHIM_LINUX_UNALIGNED_H
#define _SFRAME_SHIM_LINUX_UNALIGNED_H

#define get_unaligned(ptr) __extension__ ({				\
	const struct { __typeof__(*(ptr)) x; }				\
		__attribute__((__packed__)) *__p = (const void *)(ptr);	\
	__p->x;								\
})

#endif
