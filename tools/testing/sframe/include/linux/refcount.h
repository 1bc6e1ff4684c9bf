/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: refcount_t, as the reader's FDE index holds one; the
 * harness has one thread.
 */
#ifndef _SFRAME_SHIM_LINUX_REFCOUNT_H
#define _SFRAME_SHIM_LINUX_REFCOUNT_H

#include <stdbool.h>

struct sframe_shim_refcount {
	int refs;
};

#define refcount_t	struct sframe_shim_refcount

static inline void refcount_set(refcount_t *r, int n)
{
	r->refs = n;
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	return --r->refs == 0;
}

#endif
