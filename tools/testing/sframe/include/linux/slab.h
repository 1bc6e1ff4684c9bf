/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: kvmalloc() and kvfree(), for the reader's FDE index. */
#ifndef _SFRAME_SHIM_LINUX_SLAB_H
#define _SFRAME_SHIM_LINUX_SLAB_H

#include <stdlib.h>

#include <linux/compiler_attributes.h>
#include <linux/types.h>

#define GFP_KERNEL		0u
#define GFP_KERNEL_ACCOUNT	0u
#define __GFP_NOWARN		0u

static inline void *kvmalloc(size_t size, gfp_t gfp __always_unused)
{
	return malloc(size);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

#endif
