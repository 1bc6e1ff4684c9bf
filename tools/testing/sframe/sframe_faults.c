// SPDX-License-Identifier: GPL-2.0
/*
 * Harness-only tests of the SFrame reader: those that need what only the
 * simulated address space can do (a fault at any byte or after any number
 * of bytes, copy counting, a section at the top of the address space,
 * nmi_uaccess_okay() false).  Everything else is in the KUnit suite,
 * kernel/unwind/sframe_kunit.c.  Run by the same KUnit shim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kunit/test.h>
#include <linux/array_size.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <asm/tlb.h>

#include "sframe_kunit_builder.h"
#include "sframe_walk.h"
#include "uspace.h"

#define SP		SFRAME_BASE_REG_SP
#define FP		SFRAME_BASE_REG_FP
#define W1		SFRAME_FRE_DATAWORD_1B
#define A1		SFRAME_FRE_TYPE_ADDR1
#define INC		SFRAME_FDE_PCTYPE_INC
#define V2		SFRAME_VERSION_2
#define V3		SFRAME_VERSION_3
#define SORTED		SFRAME_F_FDE_SORTED
#define PCREL		SFRAME_F_FDE_FUNC_START_PCREL
#define AMD64		SFRAME_ABI_AMD64_ENDIAN_LITTLE

#define TEXT_START	0x400000UL
#define TEXT_END	0x500000UL
#define SEC_BASE	0x600000UL
#define F(n)		(TEXT_START + 0x1000UL * (n))

static u8 buf[4096];
static struct sfb_layout lay;
static struct sframe_section sec;
static enum sframe_reason why;

/* Initialize sec over @len bytes at @base (the text is TEXT_START..END) */
static int init_at(unsigned long base, size_t len)
{
	memset(&sec, 0, sizeof(sec));
	sec.sframe_start = base;
	sec.sframe_end = base + len;
	sec.text_start = TEXT_START;
	sec.text_end = TEXT_END;
	return sframe_section_init(&sec, &why);
}

/* Build @s into buf, map it at SEC_BASE and initialize sec */
static int load(struct kunit *test, const struct sfb_sec *s)
{
	KUNIT_ASSERT_NE(test, sfb_build(s, SEC_BASE, buf, sizeof(buf), &lay),
			(size_t)0);
	uspace_reset();
	uspace_map(SEC_BASE, buf, lay.len);
	return init_at(SEC_BASE, lay.len);
}

static const char *find(unsigned long pc, int *ret, char *txt, size_t len)
{
	struct sframe_rule r;

	*ret = sframe_find(&sec, pc, &r, &why);
	return *ret ? "" : sfb_rulefmt(&r, txt, len);
}

/* The AMD64 section of the KUnit suite: F(1), F(2), F(3) + 0x10 */
static struct sfb_sec amd64_sec(u8 version)
{
	static struct sfb_fde fdes[3];

	return sfb_amd64_sec(version, SORTED | PCREL, TEXT_START, fdes);
}

/*
 * Bytes that nothing reads: the 2 bytes of padding that end a V2 FDE, and
 * the repetition size of a V3 FDE whose PC type has none
 */
static bool unread_byte(size_t off)
{
	unsigned int i;
	size_t fda;
	u8 info;

	if (sec.version == V2)
		return off >= lay.fdes &&
		       off < lay.fdes + sec.num_fdes * sec.fde_size &&
		       (off - lay.fdes) % sec.fde_size >= 18;
	for (i = 0; i < sec.num_fdes; i++) {
		fda = lay.fde_data[i];
		info = buf[fda + offsetof(struct sframe_fda_v3, info)];
		if (off == fda + offsetof(struct sframe_fda_v3, rep_size) &&
		    SFRAME_FDE_INFO_PCTYPE(info) != SFRAME_FDE_PCTYPE_MASK)
			return true;
	}
	return false;
}

/*
 * Whatever byte faults, and whenever, a lookup gives the right rule or
 * -EFAULT: never -EBADMSG.  The same for validate and init.
 */
static void fault_sweep(struct kunit *test)
{
	static const unsigned long pcs[] = { F(1) + 5, F(2), F(3) + 0x17 };
	static const char * const exp[] = {
		"cfa=r6+16 ra=[cfa-8] fp=[cfa-16]",
		"cfa=r7+8 ra=[cfa-8] fp=same",
		"cfa=r6+16 ra=[cfa-8] fp=[cfa-16]",
	};
	unsigned int p, mode, nfault = 0, nok = 0;
	struct sframe_section good;
	char txt[SFB_RULE_LEN];
	struct sfb_sec s;
	unsigned long n;
	const char *got;
	int v, ret;

	for (v = V2; v <= V3; v++) {
		s = amd64_sec(v);
		KUNIT_ASSERT_EQ(test, load(test, &s), 0);
		for (p = 0; p < 3; p++) {
			/* mode 0: fault after n bytes; 1: fault at byte n */
			for (mode = 0; mode < 2; mode++) {
				for (n = 0; n <= lay.len; n++) {
					uspace_reset();
					uspace_map(SEC_BASE, buf, lay.len);
					if (mode)
						uspace_fault_range(SEC_BASE + n, SEC_BASE + n + 1);
					else
						uspace_fault_after(n);
					got = find(pcs[p], &ret, txt, sizeof(txt));
					if (ret == -EFAULT && why == SFRAME_R_NONE) {
						nfault++;
						continue;
					}
					KUNIT_EXPECT_EQ_MSG(test, ret, 0,
							    "v%d pc %#lx mode %u n %lu: %s",
							    v, pcs[p], mode, n,
							    sframe_reason_str(why));
					KUNIT_EXPECT_STREQ(test, got, exp[p]);
					nok++;
				}
			}
		}
		/* validate does not re-read the header, init does */
		good = sec;
		for (n = 0; n < lay.len; n++) {
			sec = good;
			uspace_reset();
			uspace_map(SEC_BASE, buf, lay.len);
			uspace_fault_range(SEC_BASE + n, SEC_BASE + n + 1);
			ret = sframe_validate(&sec, &why);
			KUNIT_EXPECT_EQ_MSG(test, ret,
					    n < 28 || unread_byte(n) ? 0 : -EFAULT,
					    "validate, byte %lu", n);
			KUNIT_EXPECT_EQ(test, why, SFRAME_R_NONE);
			ret = init_at(SEC_BASE, lay.len);
			KUNIT_EXPECT_EQ_MSG(test, ret, n < 28 ? -EFAULT : 0,
					    "init, byte %lu", n);
			KUNIT_EXPECT_EQ(test, why, SFRAME_R_NONE);
		}
	}
	KUNIT_EXPECT_GT(test, nfault, 0U);
	KUNIT_EXPECT_GT(test, nok, 0U);
	kunit_info(test, "%u lookups faulted, %u succeeded", nfault, nok);
}

/* A section at the very top of the address space: sums wrap */
static void offsets_wrap(struct kunit *test)
{
	struct sfb_sec s = amd64_sec(V3);
	unsigned long base;

	s.flags = SORTED;
	KUNIT_ASSERT_NE(test, sfb_build(&s, 0, buf, sizeof(buf), &lay), (size_t)0);
	base = ULONG_MAX - lay.len + 1;
	KUNIT_ASSERT_NE(test, sfb_build(&s, base, buf, sizeof(buf), &lay), (size_t)0);
	uspace_map(base, buf, lay.len);
	/* the last byte is cut off */
	KUNIT_EXPECT_EQ(test, init_at(base, lay.len - 1), -EBADMSG);
	KUNIT_EXPECT_EQ(test, why, SFRAME_R_FRES_OUTSIDE);

	sfb_put32(buf + H_FDEOFF, 0xfffffff0);
	KUNIT_EXPECT_EQ(test, init_at(base, lay.len - 1), -EBADMSG);
	KUNIT_EXPECT_EQ(test, why, SFRAME_R_FDES_OUTSIDE);
}

/* Every copy of sframe_find_nofault() is made with page faults disabled */
static void nofault_atomic(struct kunit *test)
{
	struct sfb_sec s = amd64_sec(V3);
	char txt[SFB_RULE_LEN];
	struct sframe_rule r;
	int ret;

	KUNIT_ASSERT_EQ(test, load(test, &s), 0);
	uspace_reset();
	uspace_map_lazy(SEC_BASE, buf, lay.len);

	/* may fault pages in */
	ret = sframe_find(&sec, F(1) + 5, &r, &why);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_STREQ(test, sfb_rulefmt(&r, txt, sizeof(txt)),
			   "cfa=r6+16 ra=[cfa-8] fp=[cfa-16]");
	KUNIT_EXPECT_EQ(test, uspace_stats.calls_atomic, 0UL);

	/* may not */
	uspace_stats = (struct uspace_stats){ 0 };
	ret = sframe_find_nofault(&sec, F(1) + 5, &r, &why);
	KUNIT_EXPECT_EQ(test, ret, -EFAULT);
	KUNIT_EXPECT_EQ(test, why, SFRAME_R_NONE);
	KUNIT_EXPECT_EQ(test, sim_pagefault_depth, 0);
	KUNIT_EXPECT_GT(test, uspace_stats.calls, 0UL);
	KUNIT_EXPECT_EQ(test, uspace_stats.calls_atomic, uspace_stats.calls);

	/* present memory */
	uspace_reset();
	uspace_map(SEC_BASE, buf, lay.len);
	ret = sframe_find_nofault(&sec, F(1) + 5, &r, &why);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_GT(test, uspace_stats.calls, 0UL);
	KUNIT_EXPECT_EQ(test, uspace_stats.calls_atomic, uspace_stats.calls);

	/* user access not possible right now (e.g. NMI during mm switch) */
	sim_nmi_uaccess_okay = false;
	uspace_stats = (struct uspace_stats){ 0 };
	ret = sframe_find_nofault(&sec, F(1) + 5, &r, &why);
	KUNIT_EXPECT_EQ(test, ret, -EFAULT);
	KUNIT_EXPECT_EQ(test, why, SFRAME_R_NONE);
	KUNIT_EXPECT_EQ(test, uspace_stats.calls, 0UL);
	KUNIT_EXPECT_EQ(test, sim_pagefault_depth, 0);
}

/*
 * The lookup is the hot path: one user access window per lookup, in
 * which it reads the fields it needs, and none left open
 */
static void copy_count(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 1, FRE_INFO(SP, 2, W1), { 16, -16 } },
		{ 4, FRE_INFO(FP, 2, W1), { 16, -16 } },
		{ 30, FRE_INFO(SP, 1, W1), { 8 } },
	};
	static struct sfb_fde fdes[64];
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, 64, fdes };
	unsigned long max_calls = 0, max_gets = 0, min_calls = ULONG_MAX;
	char txt[SFB_RULE_LEN];
	unsigned int i, v;
	int ret;

	for (i = 0; i < 64; i++)
		fdes[i] = (struct sfb_fde){ F(1) + 0x40 * i, 0x20,
					    FDE_INFO(A1, INC), 0, 0, 4, fres };
	for (v = V2; v <= V3; v++) {
		s.version = v;
		KUNIT_ASSERT_EQ(test, load(test, &s), 0);
		for (i = 0; i < 64; i++) {
			uspace_stats = (struct uspace_stats){ 0 };
			KUNIT_EXPECT_STREQ(test,
					   find(F(1) + 0x40 * i + 31, &ret, txt, sizeof(txt)),
					   "cfa=r7+8 ra=[cfa-8] fp=same");
			KUNIT_EXPECT_FALSE(test, uspace_window_open());
			KUNIT_EXPECT_EQ(test, uspace_stats.windows,
					uspace_stats.calls);
			if (uspace_stats.calls > max_calls)
				max_calls = uspace_stats.calls;
			if (uspace_stats.calls < min_calls)
				min_calls = uspace_stats.calls;
			if (uspace_stats.gets > max_gets)
				max_gets = uspace_stats.gets;
		}
	}
	KUNIT_EXPECT_EQ(test, min_calls, 1UL);
	KUNIT_EXPECT_EQ(test, max_calls, 1UL);
	/*
	 * log2(64) + 1 FDE starts, 3 or 5 fields of the FDE, 4 of the V3
	 * attribute record, 2 per FRE up to the PC's, 1 data word
	 */
	KUNIT_EXPECT_LE(test, max_gets, 7UL + 5 + 4 + 2 * 4 + 1);
	kunit_info(test, "one user access window per lookup, at most %lu reads",
		   max_gets);
}

/* sframe_validate() gives the scheduler a chance at every function */
static void validate_resched(struct kunit *test)
{
	struct sfb_sec s = amd64_sec(V3);

	KUNIT_ASSERT_EQ(test, load(test, &s), 0);
	sim_cond_resched_calls = 0;
	KUNIT_EXPECT_EQ(test, sframe_validate(&sec, &why), 0);
	KUNIT_EXPECT_EQ(test, sim_cond_resched_calls, 3UL);
}

/*
 * The FDE index is made from every FDE's start: whatever byte of the
 * table faults, sframe_index_build() gives -EFAULT exactly when the byte
 * is part of a start, 0 with the index of the section otherwise, never
 * -EBADMSG; one cond_resched() per 256 FDEs.  sframe_index_attach() also
 * reads the size of the last function (where the index ends): -EFAULT
 * for those bytes too.  The same for an index of blocks and one of the
 * starts of a small section's functions.
 */
static void index_fault_sweep(struct kunit *test)
{
	static const struct sfb_fre fre[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
	};
	struct sfb_fde fdes[SFB_MAX_FDES];
	u32 good[64], blocks, i, start_len, size_off;
	struct sframe_fde_index *index;
	unsigned long n;
	size_t fdes_len;
	struct sfb_sec s;
	int k, v, ret, starts;
	u8 shift;

	for (i = 0; i < SFB_MAX_FDES; i++)
		fdes[i] = (struct sfb_fde){ TEXT_START + 0x3000 * i + 0x40, 0x20,
					    FDE_INFO(A1, INC), 0, 0, 1, fre };
	/* An index of blocks, and one of starts (a section of 20 FDEs) */
	for (k = 0; k < 4; k++) {
		starts = k / 2;
		v = k % 2 ? V3 : V2;
		s = (struct sfb_sec){ v, SORTED | PCREL, AMD64, 0, -8, 0,
				      starts ? 20 : SFB_MAX_FDES, fdes };
		KUNIT_ASSERT_EQ(test, load(test, &s), 0);
		blocks = sframe_index_blocks(&sec, sec.text_start, sec.text_end,
					     &shift);
		if (starts) {
			KUNIT_EXPECT_EQ(test, blocks, 0U);
			blocks = SFRAME_INDEX_MIN_FDES;
			shift = 0;
		}
		KUNIT_ASSERT_GT(test, blocks, 1U);
		KUNIT_ASSERT_LE(test, blocks, ARRAY_SIZE(good));
		index = malloc(struct_size(index, from, blocks));
		KUNIT_ASSERT_NOT_NULL(test, index);
		index->nr = blocks;
		index->base_off = 0;
		index->shift = shift;
		index->starts = starts;
		sim_cond_resched_calls = 0;
		KUNIT_ASSERT_EQ(test, sframe_index_build(&sec, index, &why), 0);
		KUNIT_EXPECT_EQ(test, sim_cond_resched_calls, 1UL);
		memcpy(good, index->from, blocks * sizeof(u32));

		start_len = v == V2 ? 4 : 8;
		size_off = v == V2 ? offsetof(struct sframe_fde_v2, func_size) :
				     offsetof(struct sframe_fde_v3, func_size);
		fdes_len = (size_t)sec.num_fdes * sec.fde_size;
		for (n = 0; n < fdes_len; n++) {
			uspace_reset();
			uspace_map(SEC_BASE, buf, lay.len);
			uspace_fault_range(sec.fdes_start + n,
					   sec.fdes_start + n + 1);
			memset(index->from, 0xa5, blocks * sizeof(u32));
			ret = sframe_index_build(&sec, index, &why);
			KUNIT_EXPECT_EQ(test, why, SFRAME_R_NONE);
			if (n % sec.fde_size < start_len) {
				KUNIT_EXPECT_EQ_MSG(test, ret, -EFAULT,
						    "v%d byte %lu", v, n);
				continue;
			}
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "v%d byte %lu", v, n);
			KUNIT_EXPECT_EQ(test, memcmp(index->from, good,
						     blocks * sizeof(u32)), 0);
		}
		free(index);

		for (n = 0; n < fdes_len; n++) {
			bool size = n >= fdes_len - sec.fde_size + size_off &&
				    n < fdes_len - sec.fde_size + size_off + 4;

			uspace_reset();
			uspace_map(SEC_BASE, buf, lay.len);
			uspace_fault_range(sec.fdes_start + n,
					   sec.fdes_start + n + 1);
			sec.fde_index = NULL;
			ret = sframe_index_attach(&sec, &why);
			KUNIT_EXPECT_EQ(test, why, SFRAME_R_NONE);
			KUNIT_EXPECT_EQ_MSG(test, ret,
					    n % sec.fde_size < start_len || size ?
					    -EFAULT : 0, "attach v%d byte %lu",
					    v, n);
			if (!ret) {
				KUNIT_EXPECT_NOT_NULL(test, sec.fde_index);
				KUNIT_EXPECT_EQ(test, sec.text_start +
						sec.fde_index->base_off,
						fdes[0].func);
				KUNIT_EXPECT_EQ(test, sec.fde_index->starts,
						starts);
			}
			sframe_index_put(sec.fde_index);
			sec.fde_index = NULL;
		}
	}
}

static struct kunit_case sframe_faults_cases[] = {
	KUNIT_CASE(fault_sweep),
	KUNIT_CASE(offsets_wrap),
	KUNIT_CASE(nofault_atomic),
	KUNIT_CASE(copy_count),
	KUNIT_CASE(validate_resched),
	KUNIT_CASE(index_fault_sweep),
	{}
};

static struct kunit_suite sframe_faults_suite = {
	.name = "sframe_faults",
	.test_cases = sframe_faults_cases,
};

kunit_test_suite(sframe_faults_suite);
