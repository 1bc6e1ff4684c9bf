// SPDX-License-Identifier: GPL-2.0
/*
 * libdemo.so: hashing, a recursive sort calling back into the program, and
 * a checksum. Built like the program: no frame pointers, with SFrame.
 */
#include "libdemo.h"

#define NOINLINE __attribute__((__noinline__))

static NOINLINE uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

NOINLINE uint64_t demo_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
	size_t i;

	for (i = 0; i < len; i++) {
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
		if ((i & 7) == 7)
			h = mix(h);
	}
	return mix(h);
}

static void swap(struct demo_word *a, struct demo_word *b)
{
	struct demo_word t = *a;

	*a = *b;
	*b = t;
}

static NOINLINE size_t partition(struct demo_word *v, size_t n, demo_cmp_fn cmp)
{
	size_t i, store = 0;

	swap(&v[n / 2], &v[n - 1]);
	for (i = 0; i + 1 < n; i++) {
		if (cmp(&v[i], &v[n - 1]) < 0)
			swap(&v[i], &v[store++]);
	}
	swap(&v[store], &v[n - 1]);
	return store;
}

static NOINLINE void sort_rec(struct demo_word *v, size_t n, demo_cmp_fn cmp, int depth)
{
	size_t p, i, j;

	if (n < 12 || depth > 48) {
		/* insertion sort for short runs */
		for (i = 1; i < n; i++)
			for (j = i; j > 0 && cmp(&v[j], &v[j - 1]) < 0; j--)
				swap(&v[j], &v[j - 1]);
		return;
	}
	p = partition(v, n, cmp);
	sort_rec(v, p, cmp, depth + 1);
	sort_rec(v + p + 1, n - p - 1, cmp, depth + 1);
}

NOINLINE void demo_sort(struct demo_word *v, size_t n, demo_cmp_fn cmp)
{
	sort_rec(v, n, cmp, 0);
}

static NOINLINE uint32_t crc_byte(uint32_t crc, unsigned char b)
{
	int k;

	crc ^= b;
	for (k = 0; k < 8; k++)
		crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	return crc;
}

NOINLINE uint32_t demo_crc32(const void *buf, size_t len, uint32_t crc)
{
	const unsigned char *p = buf;
	size_t i;

	crc = ~crc;
	for (i = 0; i < len; i++)
		crc = crc_byte(crc, p[i]);
	return ~crc;
}
