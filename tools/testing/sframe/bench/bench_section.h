/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks sframe_bench.c and rcache_bench.c share: the shims'
 * user memory hooks (user memory is this process's memory,
 * copy_from_user() is memcpy() and unsafe_get_user() a load, built with
 * SIM_UACCESS_DIRECT), a xorshift generator, and the generated
 * SFrame V3 AMD64 section that they look PCs up in.  Included by the one
 * translation unit of each benchmark.
 */
#ifndef _SFRAME_BENCH_SECTION_H
#define _SFRAME_BENCH_SECTION_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "sframe_format.h"
#include "sframe_walk.h"

/* The shims' hooks: user memory is our memory */
int sim_pagefault_depth;
bool sim_nmi_uaccess_okay = true;
unsigned long sim_cond_resched_calls;

unsigned long sim_copy_from_user(void *to, const void *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

unsigned long sim_copy_to_user(void *to, const void *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

static unsigned long rnd_state = 88172645463325252UL;

static unsigned long rnd(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void put(u8 **p, const void *v, size_t n)
{
	memcpy(*p, v, n);
	*p += n;
}

/*
 * A V3 AMD64 section of @n functions of 16 to 240 bytes (sizes drawn
 * from rnd_state): FDE index, then per function the attribute record
 * and 4 FREs (push; mov; ...; leave; ret).  Return the malloc()ed
 * buffer of the section, *@len bytes, and its text right after it, in
 * the same address range; @sec describes both, initialized and
 * validated: NULL if the section is invalid.
 */
static u8 *build_section(struct sframe_section *sec, u32 n, size_t *len)
{
	static const u8 fre_bytes[] = {
		/* start, info (SP/FP base, count, 1-byte words), words */
		0, 0x03, 8,
		1, 0x05, 16, (u8)-16,
		4, 0x04, 16, (u8)-16,
	};
	u32 *size = malloc(n * sizeof(*size)), i, off = 0, fres_len;
	struct sframe_header h = { 0 };
	u8 *buf, *p, *fres, *text;
	size_t text_len;

	for (i = 0; i < n; i++) {
		size[i] = 16 + 16 * (rnd(&rnd_state) % 15);
		off += size[i];
	}
	text_len = off;
	/* 5-byte attribute record, 3 FREs above, and the last FRE (3 bytes) */
	fres_len = n * (5 + sizeof(fre_bytes) + 3);
	*len = sizeof(h) + n * sizeof(struct sframe_fde_v3) + fres_len;
	buf = malloc(*len);
	text = buf + *len;

	h.preamble.magic = SFRAME_MAGIC;
	h.preamble.version = SFRAME_VERSION_3;
	h.preamble.flags = SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL;
	h.abi_arch = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	h.cfa_fixed_ra_offset = -8;
	h.num_fdes = n;
	h.num_fres = 4 * n;
	h.fre_len = fres_len;
	h.fdes_off = 0;
	h.fres_off = n * sizeof(struct sframe_fde_v3);
	p = buf;
	put(&p, &h, sizeof(h));
	fres = buf + sizeof(h) + h.fres_off;
	off = 0;
	for (i = 0; i < n; i++) {
		struct sframe_fde_v3 e;
		struct sframe_fda_v3 a = { 4, 0, 0, 0 };
		u8 last[3] = { (u8)(size[i] - 1), 0x03, 8 };
		u8 *q = fres + i * (5 + sizeof(fre_bytes) + 3);

		e.start_off = (s64)((unsigned long)text + off - (unsigned long)p);
		e.func_size = size[i];
		e.fres_off = q - fres;
		put(&p, &e, sizeof(e));
		put(&q, &a, sizeof(a));
		put(&q, fre_bytes, sizeof(fre_bytes));
		put(&q, last, sizeof(last));
		off += size[i];
	}
	free(size);

	memset(sec, 0, sizeof(*sec));
	sec->sframe_start = (unsigned long)buf;
	sec->sframe_end = (unsigned long)buf + *len;
	sec->text_start = (unsigned long)text;
	sec->text_end = (unsigned long)text + text_len;
	/* With the FDE index that the kernel gives it */
	if (sframe_section_init(sec, NULL) || sframe_validate(sec, NULL) ||
	    sframe_index_attach(sec, NULL))
		return NULL;
	return buf;
}

#endif
