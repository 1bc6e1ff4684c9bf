/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: for_each_set_bit() over a one-word bitmap. */
#ifndef _SFRAME_SHIM_LINUX_BITOPS_H
#define _SFRAME_SHIM_LINUX_BITOPS_H

#include <assert.h>
#include <linux/bits.h>

/* The first set bit of *@addr at or after @bit, or @size if none */
static inline unsigned long sim_find_next_bit(const unsigned long *addr,
					      unsigned long size,
					      unsigned long bit)
{
	assert(size <= (unsigned long)BITS_PER_LONG);
	for (; bit < size; bit++) {
		if (*addr & BIT(bit))
			return bit;
	}
	return size;
}

#define for_each_set_bit(bit, addr, size)				\
	for ((bit) = sim_find_next_bit((addr), (size), 0);		\
	     (bit) < (size);						\
	     (bit) = sim_find_next_bit((addr), (size), (bit) + 1))

#endif
