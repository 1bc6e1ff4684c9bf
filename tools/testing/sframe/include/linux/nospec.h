/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: no speculation to clamp; the index is checked anyway. */
#ifndef _SFRAME_SHIM_LINUX_NOSPEC_H
#define _SFRAME_SHIM_LINUX_NOSPEC_H

#include <assert.h>

#define array_index_nospec(index, size) ({				\
	__typeof__(index) __idx = (index);				\
									\
	assert(__idx < (size));						\
	__idx;								\
})

#endif
