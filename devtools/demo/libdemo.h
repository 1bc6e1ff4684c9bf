/* SPDX-License-Identifier: GPL-2.0 */
/* The shared library of the demo workload (libdemo.so). */
#ifndef DEMO_LIBDEMO_H
#define DEMO_LIBDEMO_H

#include <stddef.h>
#include <stdint.h>

struct demo_word {
	const char *text;
	size_t len;
	uint64_t hash;
	unsigned int count;
};

typedef int (*demo_cmp_fn)(const struct demo_word *a, const struct demo_word *b);

uint64_t demo_hash(const char *s, size_t len);
void demo_sort(struct demo_word *v, size_t n, demo_cmp_fn cmp);
uint32_t demo_crc32(const void *buf, size_t len, uint32_t crc);

#endif
