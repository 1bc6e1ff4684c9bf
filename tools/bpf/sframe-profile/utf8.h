/* SPDX-License-Identifier: GPL-2.0 */
/* sframe-profile's names: what files and processes chose, made text. */
#ifndef SFRAME_PROFILE_UTF8_H
#define SFRAME_PROFILE_UTF8_H

#include <stddef.h>

/*
 * The length of the well-formed UTF-8 character at @s (1 to 4 bytes), or
 * 0 if the bytes there are not one (then taken as '?'): a name that
 * reaches a pprof profile must be UTF-8, and the text outputs write the
 * same names
 */
static inline size_t utf8_char(const unsigned char *s)
{
	size_t n, i;
	unsigned int c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* No overlong form, no surrogate, nothing past U+10FFFF */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

#endif
