/* SPDX-License-Identifier: GPL-2.0 */
/* sframe-profile's one binary search, of its sorted address tables. */
#ifndef SFRAME_PROFILE_SEARCH_H
#define SFRAME_PROFILE_SEARCH_H

#include <stddef.h>

/*
 * How many of the @n elements of @arr, sorted by their @field, have it at
 * or below @key: the index of the last such element plus one, 0 if none
 */
#define count_le(arr, n, field, key) ({					\
	size_t __lo = 0, __hi = (n);					\
									\
	while (__lo < __hi) {						\
		size_t __mid = __lo + (__hi - __lo) / 2;		\
									\
		if ((arr)[__mid].field <= (key))			\
			__lo = __mid + 1;				\
		else							\
			__hi = __mid;					\
	}								\
	__lo;								\
})

#endif
