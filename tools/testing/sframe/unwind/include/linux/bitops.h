/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: for_each_set_bit() over a one-word bitmap. */
#ifndef _SFRAME_SHIM_LINUX_BITOPS_H
#define _SFRAME_SHIM_LINUX_BITOPS_H

#include <linux/bits.h>

/*
 * Every set bit of the one-word bitmap at @addr below @size, lowest
 * first: a copy of the word loses its lowest set bit at each step, so
 * that each argument is evaluated once.
 */
#define for_each_set_bit(bit, addr, size)				\
	for (unsigned long __fsb_word = *(addr), __fsb_size = (size);	\
	     __fsb_word &&						\
	     ((bit) = __builtin_ctzl(__fsb_word)) < __fsb_size;		\
	     __fsb_word &= __fsb_word - 1)

#endif
