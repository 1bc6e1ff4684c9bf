/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: native-endian unaligned loads. */
#ifndef _SFRAME_SHIM_LINUX_UNALIGNED_H
#define _SFRAME_SHIM_LINUX_UNALIGNED_H

#include <linux/compiler_attributes.h>

#define get_unaligned(ptr) ({						\
	__auto_type __gu_ptr = (ptr);					\
	const struct __packed { __typeof__(*__gu_ptr) x; } *__gu_p =	\
		(const void *)__gu_ptr;					\
									\
	__gu_p->x;							\
})

#endif
