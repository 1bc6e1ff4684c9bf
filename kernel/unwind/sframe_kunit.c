// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the SFrame reader (sframe_walk.c): every decoding path and
 * every validation rule, with exact rules, error codes and reasons.
 *
 * Each case builds sections with sframe_kunit_builder.h in a kernel buffer
 * and copies them with copy_to_user() to user memory from kunit_vm_mmap(),
 * so that the reader goes through the real uaccess paths, faulting and not.
 *
 * The userspace harness in tools/testing/sframe compiles this file
 * unchanged against a KUnit shim and a simulated user address space.
 */
#include <kunit/test.h>
#include <linux/array_size.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#include "sframe_format.h"
#define SFB_SHORT_NAMES
#include "sframe_kunit_builder.h"
#include "sframe_walk.h"

/* Largest section a case builds */
#define SF_BUF_SIZE	4096
/* The text a section describes starts this far below the section */
#define TEXT_OFF	0x200000UL
#define TEXT_SIZE	0x100000UL

/**
 * struct sf_ctx - state of a case
 * @buf:	the section, built here...
 * @base:	...and copied to this user address
 * @text:	start of the text the section describes
 * @hole:	user address of the unmapped page, see sf_hole_base()
 * @amd64_fdes:	functions of sf_amd64_sec()
 * @lay:	layout of the section
 * @sec:	the section, as set up by sframe_section_init()
 * @why:	the reason returned by the last call of the reader
 * @kernel_same: lookups that gave the same from @buf, in kernel memory,
 *		as from user memory (sf_expect_kernel_same())
 */
struct sf_ctx {
	u8			*buf;
	unsigned long		base;
	unsigned long		text;
	unsigned long		hole;
	struct sfb_fde		amd64_fdes[3];
	struct sfb_layout	lay;
	struct sframe_section	sec;
	enum sframe_reason	why;
	unsigned long		kernel_same;
};

/* Addresses of the current section; these use the case's @test */
#define SF_CTX(test)	((struct sf_ctx *)(test)->priv)
#define SEC_BASE	(SF_CTX(test)->base)
#define TEXT_START	(SF_CTX(test)->text)
#define TEXT_END	(TEXT_START + TEXT_SIZE)
#define F(n)		(TEXT_START + 0x1000UL * (n))

/* Initializers of the counted arrays of struct sfb_sec and sfb_fde */
#define FDES(a)		.nfdes = sizeof(a) / sizeof((a)[0]), .fdes = (a)
#define FRES(a)		.nfres = sizeof(a) / sizeof((a)[0]), .fres = (a)

/* ------------------------------------------------------------------ */
/* Helpers */

static unsigned long sf_vm_mmap(struct kunit *test, unsigned long len)
{
	unsigned long addr;

	addr = kunit_vm_mmap(test, NULL, 0, len, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0UL, "no user memory");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(addr),
			       "no user memory: %ld", (long)addr);
	KUNIT_ASSERT_GE(test, addr, TEXT_OFF);
	return addr;
}

/* Make @base the user address of the section; F(n) and TEXT_* follow. */
static void sf_set_base(struct kunit *test, unsigned long base)
{
	struct sf_ctx *c = test->priv;

	c->base = base;
	c->text = base - TEXT_OFF;
}

/* Copy @len bytes at @off of the section to user memory */
static void sf_upload(struct kunit *test, size_t off, size_t len)
{
	struct sf_ctx *c = test->priv;
	void __user *to = (void __user *)(c->base + off);

	KUNIT_ASSERT_EQ(test, copy_to_user(to, c->buf + off, len), 0UL);
}

/* Change @size bytes of the section in the kernel buffer and user memory */
static void sf_put_sized(struct kunit *test, size_t off, unsigned int size,
			 u32 v)
{
	sfb_put_sized(SF_CTX(test)->buf + off, size, v);
	sf_upload(test, off, size);
}

static void sf_put8(struct kunit *test, size_t off, u8 v)
{
	sf_put_sized(test, off, sizeof(v), v);
}

static void sf_put16(struct kunit *test, size_t off, u16 v)
{
	sf_put_sized(test, off, sizeof(v), v);
}

static void sf_put32(struct kunit *test, size_t off, u32 v)
{
	sf_put_sized(test, off, sizeof(v), v);
}

/* (Re)initialize the section over its first @len bytes */
static int sf_init_len(struct kunit *test, size_t len)
{
	struct sf_ctx *c = test->priv;

	memset(&c->sec, 0, sizeof(c->sec));
	c->sec.sframe_start = c->base;
	c->sec.sframe_end = c->base + len;
	c->sec.text_start = c->text;
	c->sec.text_end = c->text + TEXT_SIZE;
	return sframe_section_init(&c->sec, &c->why);
}

/* Build @s at the section address only: the layout, nothing is copied */
static void sf_build(struct kunit *test, const struct sfb_sec *s)
{
	struct sf_ctx *c = test->priv;

	KUNIT_ASSERT_NE(test, sfb_build(s, c->base, c->buf, SF_BUF_SIZE, &c->lay),
			(size_t)0);
}

/* Build @s, copy it to user memory and initialize the section from it */
static int sf_load(struct kunit *test, const struct sfb_sec *s)
{
	sf_build(test, s);
	sf_upload(test, 0, SF_BUF_SIZE);
	return sf_init_len(test, SF_CTX(test)->lay.len);
}

/*
 * Map three pages and unmap the middle one, the hole.  The section will
 * start @off bytes before the hole: its first @off bytes are readable, the
 * next PAGE_SIZE are not.
 */
static void sf_hole_base(struct kunit *test, size_t off)
{
	unsigned long map = sf_vm_mmap(test, 3 * PAGE_SIZE);

	SF_CTX(test)->hole = map + PAGE_SIZE;
	sf_set_base(test, map + PAGE_SIZE - off);
}

/* Build @s, copy it to user memory, then unmap the hole; init the section */
static int sf_hole_load(struct kunit *test, const struct sfb_sec *s)
{
	struct sf_ctx *c = test->priv;

	sf_build(test, s);
	sf_upload(test, 0, c->lay.len);
	KUNIT_ASSERT_EQ(test, vm_munmap(c->hole, PAGE_SIZE), 0);
	return sf_init_len(test, c->lay.len);
}

/* Three functions with 4, 4 and 2 FREs at F(1), F(2) and F(3) + 0x10 */
static struct sfb_sec sf_amd64_sec(struct kunit *test, u8 version, u8 flags)
{
	struct sf_ctx *c = test->priv;

	return sfb_amd64_sec(version, flags, TEXT_START, c->amd64_fdes);
}

/*
 * The EXPECT_*() macros below check one call of the reader on the current
 * section and report the line of the check.
 */
static void sf_expect_init(struct kunit *test, int line,
			   const struct sfb_sec *s, int err,
			   enum sframe_reason rsn)
{
	struct sf_ctx *c = test->priv;
	int ret = sf_load(test, s);

	if (ret != err || c->why != rsn)
		KUNIT_FAIL(test, "line %d: init = %d (%s), expected %d (%s)",
			   line, ret, sframe_reason_str(c->why), err,
			   sframe_reason_str(rsn));
}

#define EXPECT_INIT(test, s, err, rsn)	sf_expect_init(test, __LINE__, s, err, rsn)
#define EXPECT_INIT_OK(test, s)		sf_expect_init(test, __LINE__, s, 0, SFRAME_R_NONE)

/* Re-run init on the section after a case changed it */
static void sf_expect_reinit(struct kunit *test, int line, int err,
			     enum sframe_reason rsn)
{
	struct sf_ctx *c = test->priv;
	int ret = sf_init_len(test, c->lay.len);

	if (ret != err || c->why != rsn)
		KUNIT_FAIL(test, "line %d: init = %d (%s), expected %d (%s)",
			   line, ret, sframe_reason_str(c->why), err,
			   sframe_reason_str(rsn));
}

#define EXPECT_REINIT(test, err, rsn)	sf_expect_reinit(test, __LINE__, err, rsn)

/**
 * struct sf_hdr_case - header fields to change, and why init then fails
 * @off:	H_* offsets of up to two fields
 * @size:	their sizes in bytes; 0 if unused
 * @val:	their new values
 * @rsn:	the reason of the -EBADMSG that init must return
 */
struct sf_hdr_case {
	u8			off[2];
	u8			size[2];
	u32			val[2];
	enum sframe_reason	rsn;
};

#define HDR1(o, sz, v, r)		{ { o }, { sz }, { v }, r }
#define HDR2(o1, v1, o2, v2, r)		{ { o1, o2 }, { 4, 4 }, { v1, v2 }, r }

/*
 * For each case, up to one with no reason: load @s, change its header,
 * init must fail as the case says.
 */
static void sf_expect_hdr_cases(struct kunit *test, int line,
				const struct sfb_sec *s,
				const struct sf_hdr_case *cases)
{
	struct sf_ctx *c = test->priv;
	unsigned int i, j;
	int ret;

	for (i = 0; cases[i].rsn != SFRAME_R_NONE; i++) {
		sf_load(test, s);
		for (j = 0; j < ARRAY_SIZE(cases[i].off) && cases[i].size[j]; j++)
			sf_put_sized(test, cases[i].off[j], cases[i].size[j],
				     cases[i].val[j]);
		ret = sf_init_len(test, c->lay.len);
		if (ret != -EBADMSG || c->why != cases[i].rsn)
			KUNIT_FAIL(test, "line %d case %u: init = %d (%s), expected %d (%s)",
				   line, i, ret, sframe_reason_str(c->why),
				   -EBADMSG, sframe_reason_str(cases[i].rsn));
	}
}

#define EXPECT_HDR_CASES(test, s, cases) \
	sf_expect_hdr_cases(test, __LINE__, s, cases)

/*
 * Every lookup that a case checks is made again in the section's copy in
 * kernel memory (@sec.kdata at @buf, as for a section of the store): the
 * reader must give the same result, reason and rule as from user memory,
 * unless the read of user memory faulted (the copy has no hole).
 */
static void sf_expect_kernel_same(struct kunit *test, int line, bool nofault,
				  unsigned long pc, int ret,
				  const struct sframe_rule *r)
{
	struct sf_ctx *c = test->priv;
	struct sframe_section k = c->sec;
	char got[SFB_RULE_LEN], exp[SFB_RULE_LEN];
	struct sframe_rule kr = {};
	enum sframe_reason why;
	int kret;

	if (ret == -EFAULT)
		return;
	k.kdata = c->buf;
	if (nofault)
		kret = sframe_find_nofault(&k, pc, &kr, &why);
	else
		kret = sframe_find(&k, pc, &kr, &why);
	if (!kret && !ret) {
		sfb_rulefmt(&kr, got, sizeof(got));
		sfb_rulefmt(r, exp, sizeof(exp));
	}
	if (kret != ret || why != c->why ||
	    (!ret && (strcmp(got, exp) || kr.func_start != r->func_start ||
		      kr.func_size != r->func_size ||
		      kr.fre_start != r->fre_start ||
		      kr.fres_read != r->fres_read))) {
		KUNIT_FAIL(test, "line %d: find(%#lx) = %d (%s) from kernel, %d (%s) from user",
			   line, pc, kret, sframe_reason_str(why), ret,
			   sframe_reason_str(c->why));
		return;
	}
	c->kernel_same++;
}

static bool sf_expect_rule(struct kunit *test, int line, bool nofault,
			   unsigned long pc, const char *exp)
{
	struct sf_ctx *c = test->priv;
	char got[SFB_RULE_LEN];
	struct sframe_rule r = {};
	int ret;

	if (nofault)
		ret = sframe_find_nofault(&c->sec, pc, &r, &c->why);
	else
		ret = sframe_find(&c->sec, pc, &r, &c->why);
	sf_expect_kernel_same(test, line, nofault, pc, ret, &r);
	if (ret) {
		KUNIT_FAIL(test, "line %d: find(%#lx) = %d (%s), expected \"%s\"",
			   line, pc, ret, sframe_reason_str(c->why), exp);
		return false;
	}
	sfb_rulefmt(&r, got, sizeof(got));
	if (c->why != SFRAME_R_NONE || strcmp(got, exp)) {
		KUNIT_FAIL(test, "line %d: find(%#lx) = \"%s\" (%s), expected \"%s\"",
			   line, pc, got, sframe_reason_str(c->why), exp);
		return false;
	}
	if (!(r.flags & SFRAME_RULE_USUAL) != !sfb_rule_usual(&r)) {
		KUNIT_FAIL(test, "line %d: find(%#lx) = \"%s\": usual %d, expected %d",
			   line, pc, got, !!(r.flags & SFRAME_RULE_USUAL),
			   sfb_rule_usual(&r));
		return false;
	}
	return true;
}

#define EXPECT_RULE(test, pc, exp)	sf_expect_rule(test, __LINE__, false, pc, exp)
#define EXPECT_RULE_NOFAULT(test, pc, exp) sf_expect_rule(test, __LINE__, true, pc, exp)

/* The same rule for every PC in [@from, @to); stops at the first failure */
static void sf_expect_range(struct kunit *test, int line, unsigned long from,
			    unsigned long to, const char *exp)
{
	unsigned long pc;

	for (pc = from; pc < to; pc++)
		if (!sf_expect_rule(test, line, false, pc, exp))
			break;
}

#define EXPECT_RANGE(test, from, to, exp) sf_expect_range(test, __LINE__, from, to, exp)

static void sf_expect_find(struct kunit *test, int line, bool nofault,
			   unsigned long pc, int err, enum sframe_reason rsn)
{
	struct sf_ctx *c = test->priv;
	struct sframe_rule r = {};
	int ret;

	if (nofault)
		ret = sframe_find_nofault(&c->sec, pc, &r, &c->why);
	else
		ret = sframe_find(&c->sec, pc, &r, &c->why);
	sf_expect_kernel_same(test, line, nofault, pc, ret, &r);
	if (ret != err || c->why != rsn)
		KUNIT_FAIL(test, "line %d: find(%#lx) = %d (%s), expected %d (%s)",
			   line, pc, ret, sframe_reason_str(c->why), err,
			   sframe_reason_str(rsn));
}

#define EXPECT_FIND(test, pc, err, rsn)	sf_expect_find(test, __LINE__, false, pc, err, rsn)
#define EXPECT_FIND_NOFAULT(test, pc, err, rsn) \
	sf_expect_find(test, __LINE__, true, pc, err, rsn)
#define EXPECT_NOENT(test, pc)		EXPECT_FIND(test, pc, -ENOENT, SFRAME_R_NONE)
#define EXPECT_BAD(test, pc, rsn)	EXPECT_FIND(test, pc, -EBADMSG, rsn)

/* The function and FRE that the lookup of @pc matched */
static void sf_expect_at(struct kunit *test, int line, unsigned long pc,
			 unsigned long func, u32 size, u32 fre_start)
{
	struct sf_ctx *c = test->priv;
	struct sframe_rule r = {};
	int ret = sframe_find(&c->sec, pc, &r, &c->why);

	if (ret || r.func_start != func || r.func_size != size ||
	    r.fre_start != fre_start)
		KUNIT_FAIL(test,
			   "line %d: find(%#lx) = %d func %#lx size %u fre %#x, expected func %#lx size %u fre %#x",
			   line, pc, ret, r.func_start, r.func_size, r.fre_start,
			   func, size, fre_start);
}

#define EXPECT_AT(test, pc, func, size, fre) \
	sf_expect_at(test, __LINE__, pc, func, size, fre)

static void sf_expect_validate(struct kunit *test, int line, int err,
			       enum sframe_reason rsn)
{
	struct sf_ctx *c = test->priv;
	int ret = sframe_validate(&c->sec, &c->why);

	if (ret != err || c->why != rsn)
		KUNIT_FAIL(test, "line %d: validate = %d (%s), expected %d (%s)",
			   line, ret, sframe_reason_str(c->why), err,
			   sframe_reason_str(rsn));
}

#define EXPECT_VALIDATE(test, err, rsn)	sf_expect_validate(test, __LINE__, err, rsn)
#define EXPECT_VALID(test)		EXPECT_VALIDATE(test, 0, SFRAME_R_NONE)
#define EXPECT_INVALID(test, rsn)	EXPECT_VALIDATE(test, -EBADMSG, rsn)

/* The rules of sf_amd64_sec() */
static void sf_check_amd64_rules(struct kunit *test)
{
	unsigned long f;

	for (f = F(1); f <= F(2); f += 0x1000) {
		EXPECT_RULE(test, f, "cfa=r7+8 ra=[cfa-8] fp=same");
		EXPECT_RANGE(test, f + 1, f + 4, "cfa=r7+16 ra=[cfa-8] fp=[cfa-16]");
		EXPECT_RANGE(test, f + 4, f + 20, "cfa=r6+16 ra=[cfa-8] fp=[cfa-16]");
		EXPECT_RANGE(test, f + 20, f + 24, "cfa=r7+8 ra=[cfa-8] fp=same");
		EXPECT_NOENT(test, f + 24);
		EXPECT_NOENT(test, f - 1);
		EXPECT_AT(test, f + 5, f, 24, 4);
	}
	EXPECT_RANGE(test, F(3) + 0x10, F(3) + 0x14, "cfa=r7+8 ra=[cfa-8] fp=same");
	EXPECT_RANGE(test, F(3) + 0x14, F(3) + 0x18,
		     "cfa=r6+16 ra=[cfa-8] fp=[cfa-16]");
	EXPECT_NOENT(test, F(3) + 0x18);
	EXPECT_NOENT(test, F(3));
	EXPECT_NOENT(test, TEXT_START);
	EXPECT_NOENT(test, TEXT_START - 1);
	EXPECT_NOENT(test, TEXT_END);
	EXPECT_NOENT(test, 0);
	EXPECT_NOENT(test, ULONG_MAX);
}

/* ------------------------------------------------------------------ */
/* Header checks */

static void test_init_v3(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED | PCREL);
	struct sf_ctx *c = test->priv;

	EXPECT_INIT_OK(test, &s);
	KUNIT_EXPECT_EQ(test, c->sec.version, V3);
	KUNIT_EXPECT_EQ(test, c->sec.abi, AMD64);
	KUNIT_EXPECT_EQ(test, c->sec.flags, SORTED | PCREL);
	KUNIT_EXPECT_EQ(test, c->sec.fde_size, 16);
	KUNIT_EXPECT_EQ(test, c->sec.num_fdes, 3U);
	KUNIT_EXPECT_EQ(test, c->sec.num_fres, 10U);
	KUNIT_EXPECT_EQ(test, c->sec.fixed_ra_off, -8);
	KUNIT_EXPECT_EQ(test, c->sec.fixed_fp_off, 0);
	KUNIT_EXPECT_EQ(test, c->sec.fdes_start, SEC_BASE + 28);
	KUNIT_EXPECT_EQ(test, c->sec.fres_start, SEC_BASE + 28 + 3 * 16);
	KUNIT_EXPECT_EQ(test, c->sec.fres_end, SEC_BASE + c->lay.len);
	EXPECT_VALID(test);
}

static void test_init_v2(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V2, SORTED | SFRAME_F_FRAME_POINTER);
	struct sf_ctx *c = test->priv;

	EXPECT_INIT_OK(test, &s);
	KUNIT_EXPECT_EQ(test, c->sec.version, V2);
	KUNIT_EXPECT_EQ(test, c->sec.fde_size, 20);
	KUNIT_EXPECT_EQ(test, c->sec.fres_start, SEC_BASE + 28 + 3 * 20);
	EXPECT_VALID(test);
}

static void test_bad_magic(struct kunit *test)
{
	static const struct sf_hdr_case cases[] = {
		HDR1(H_MAGIC, 2, 0xe2de, SFRAME_R_BAD_MAGIC),	/* foreign endian */
		HDR1(H_MAGIC, 2, 0, SFRAME_R_BAD_MAGIC),
		{}
	};
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED);

	EXPECT_HDR_CASES(test, &s, cases);
}

static void test_versions(struct kunit *test)
{
	static const struct sf_hdr_case cases[] = {
		HDR1(H_VERSION, 1, 1, SFRAME_R_VERSION_1),
		HDR1(H_VERSION, 1, 0, SFRAME_R_BAD_VERSION),
		HDR1(H_VERSION, 1, 4, SFRAME_R_BAD_VERSION),
		HDR1(H_VERSION, 1, 0xff, SFRAME_R_BAD_VERSION),
		{}
	};
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED);

	EXPECT_HDR_CASES(test, &s, cases);
}

static void test_flags(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED | SFRAME_F_FRAME_POINTER);

	/* FRAME_POINTER is a V2-only flag */
	EXPECT_INIT(test, &s, -EBADMSG, SFRAME_R_BAD_FLAGS);
	s = sf_amd64_sec(test, V3, SORTED | 0x8);
	EXPECT_INIT(test, &s, -EBADMSG, SFRAME_R_BAD_FLAGS);
	s = sf_amd64_sec(test, V3, SORTED | 0x80);
	EXPECT_INIT(test, &s, -EBADMSG, SFRAME_R_BAD_FLAGS);
	s = sf_amd64_sec(test, V2, SORTED | 0x8);
	EXPECT_INIT(test, &s, -EBADMSG, SFRAME_R_BAD_FLAGS);
	s = sf_amd64_sec(test, V2, SORTED | PCREL | SFRAME_F_FRAME_POINTER);
	EXPECT_INIT_OK(test, &s);
	s = sf_amd64_sec(test, V3, PCREL);
	EXPECT_INIT(test, &s, -EBADMSG, SFRAME_R_NOT_SORTED_FLAG);
	s = sf_amd64_sec(test, V2, 0);
	EXPECT_INIT(test, &s, -EBADMSG, SFRAME_R_NOT_SORTED_FLAG);
}

static void test_abi(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED);

	s.abi = 0;
	EXPECT_INIT(test, &s, -EBADMSG, SFRAME_R_BAD_ABI);
	s.abi = 5;
	EXPECT_INIT(test, &s, -EBADMSG, SFRAME_R_BAD_ABI);
	s.abi = SFRAME_ABI_AARCH64_ENDIAN_BIG;
	EXPECT_INIT_OK(test, &s);
	s.abi = S390X;
	EXPECT_INIT_OK(test, &s);
	s.abi = AMD64;
	s.fixed_ra = 0;
	EXPECT_INIT(test, &s, -EBADMSG, SFRAME_R_NO_FIXED_RA);
}

static void test_truncated_header(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED);
	struct sf_ctx *c = test->priv;
	size_t len;
	int ret;

	sf_load(test, &s);
	for (len = 1; len < sizeof(struct sframe_header); len++) {
		ret = sf_init_len(test, len);
		if (ret != -EBADMSG || c->why != SFRAME_R_TRUNCATED)
			KUNIT_FAIL(test, "len %zu: init = %d (%s)", len, ret,
				   sframe_reason_str(c->why));
	}
	/* Header only: the FDE table does not fit */
	KUNIT_EXPECT_EQ(test, sf_init_len(test, 28), -EBADMSG);
	KUNIT_EXPECT_EQ(test, c->why, SFRAME_R_FDES_OUTSIDE);
	/* Everything but the last FRE byte */
	KUNIT_EXPECT_EQ(test, sf_init_len(test, c->lay.len - 1), -EBADMSG);
	KUNIT_EXPECT_EQ(test, c->why, SFRAME_R_FRES_OUTSIDE);
}

static void test_bad_ranges(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED);
	struct sf_ctx *c = test->priv;

	sf_load(test, &s);
	c->sec.sframe_start = SEC_BASE;
	c->sec.sframe_end = SEC_BASE;
	KUNIT_EXPECT_EQ(test, sframe_section_init(&c->sec, &c->why), -EINVAL);
	KUNIT_EXPECT_EQ(test, c->why, SFRAME_R_BAD_RANGE);
	c->sec.sframe_end = SEC_BASE - 1;
	KUNIT_EXPECT_EQ(test, sframe_section_init(&c->sec, &c->why), -EINVAL);
	c->sec.sframe_end = SEC_BASE + c->lay.len;
	c->sec.text_end = c->sec.text_start;
	KUNIT_EXPECT_EQ(test, sframe_section_init(&c->sec, &c->why), -EINVAL);
	KUNIT_EXPECT_EQ(test, c->why, SFRAME_R_BAD_RANGE);
}

static void test_auxhdr(struct kunit *test)
{
	static const struct sf_hdr_case cases[] = {
		/* aux header longer than the section */
		HDR1(H_AUXLEN, 1, 200, SFRAME_R_AUXHDR_OUTSIDE),
		/* aux header fits, but shifts the sub-sections out */
		HDR1(H_AUXLEN, 1, 20, SFRAME_R_FRES_OUTSIDE),
		{}
	};
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED | PCREL);
	struct sf_ctx *c = test->priv;

	s.auxlen = 7;
	EXPECT_INIT_OK(test, &s);
	KUNIT_EXPECT_EQ(test, c->sec.fdes_start, SEC_BASE + 28 + 7);
	sf_check_amd64_rules(test);
	EXPECT_VALID(test);

	s = sf_amd64_sec(test, V2, SORTED);
	s.auxlen = 255;
	EXPECT_INIT_OK(test, &s);
	sf_check_amd64_rules(test);

	s = sf_amd64_sec(test, V3, SORTED);
	EXPECT_HDR_CASES(test, &s, cases);
}

static void test_offsets_beyond(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED);
	struct sf_ctx *c = test->priv;
	const u32 len = sfb_build(&s, 0, c->buf, SF_BUF_SIZE, &c->lay);
	const struct sf_hdr_case cases[] = {
		HDR1(H_NUM_FDES, 4, 100, SFRAME_R_FDES_OUTSIDE),
		HDR1(H_FDEOFF, 4, len, SFRAME_R_FDES_OUTSIDE),
		HDR1(H_FREOFF, 4, len, SFRAME_R_FRES_OUTSIDE),
		HDR1(H_FRE_LEN, 4, len, SFRAME_R_FRES_OUTSIDE),
		/* FDE table running into the FRE sub-section */
		HDR1(H_NUM_FDES, 4, 4, SFRAME_R_FDES_OVERLAP),
		HDR2(H_FREOFF, 0, H_FRE_LEN, 8, SFRAME_R_FDES_OVERLAP),
		{}
	};

	EXPECT_HDR_CASES(test, &s, cases);
}

static void test_offsets_overflow(struct kunit *test)
{
	static const struct sf_hdr_case cases[] = {
		HDR1(H_NUM_FDES, 4, 0xffffffff, SFRAME_R_FDES_OUTSIDE),
		/* 0x10000000 * 16 wraps in 32 bits */
		HDR1(H_NUM_FDES, 4, 0x10000000, SFRAME_R_FDES_OUTSIDE),
		HDR1(H_FDEOFF, 4, 0xffffffff, SFRAME_R_FDES_OUTSIDE),
		HDR2(H_FREOFF, 0xffffffff, H_FRE_LEN, 0xffffffff,
		     SFRAME_R_FRES_OUTSIDE),
		HDR1(H_FRE_LEN, 4, 0xfffffff0, SFRAME_R_FRES_OUTSIDE),
		{}
	};
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED);

	EXPECT_HDR_CASES(test, &s, cases);
}

/* A header that cannot be read is a fault, not corruption */
static void test_header_fault(struct kunit *test)
{
	struct sf_ctx *c = test->priv;
	struct sfb_sec s;

	/* The header crosses into an unmapped page at its byte 20 */
	sf_hole_base(test, 20);
	s = sf_amd64_sec(test, V3, SORTED);
	KUNIT_EXPECT_EQ(test, sf_hole_load(test, &s), -EFAULT);
	KUNIT_EXPECT_EQ(test, c->why, SFRAME_R_NONE);
	/* All of it unmapped */
	sf_set_base(test, c->hole);
	KUNIT_EXPECT_EQ(test, sf_init_len(test, c->lay.len), -EFAULT);
	KUNIT_EXPECT_EQ(test, c->why, SFRAME_R_NONE);
}

/* ------------------------------------------------------------------ */
/* Lookups */

static void test_amd64_v3_pcrel(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED | PCREL);

	EXPECT_INIT_OK(test, &s);
	sf_check_amd64_rules(test);
}

static void test_amd64_v3_secrel(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED);

	EXPECT_INIT_OK(test, &s);
	sf_check_amd64_rules(test);
	EXPECT_VALID(test);
}

/*
 * A section in kernel memory only, as the store holds one: its user
 * address holds zeros, so every rule below was read from the kernel copy,
 * with the same bounds, the same validation and the same index
 */
static void test_kernel_memory(struct kunit *test)
{
	struct sf_ctx *c = test->priv;
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED | PCREL);

	sf_build(test, &s);
	memset(&c->sec, 0, sizeof(c->sec));
	c->sec.sframe_start = c->base;
	c->sec.sframe_end = c->base + c->lay.len;
	c->sec.text_start = c->text;
	c->sec.text_end = c->text + TEXT_SIZE;
	c->sec.kdata = c->buf;
	KUNIT_ASSERT_EQ(test, sframe_section_init(&c->sec, &c->why), 0);
	sf_check_amd64_rules(test);
	EXPECT_VALID(test);
	KUNIT_ASSERT_EQ(test, sframe_index_attach(&c->sec, &c->why), 0);
	KUNIT_EXPECT_NOT_NULL(test, c->sec.fde_index);
	sf_check_amd64_rules(test);
	EXPECT_RULE_NOFAULT(test, F(1) + 4, "cfa=r6+16 ra=[cfa-8] fp=[cfa-16]");
	sframe_index_put(c->sec.fde_index);
	c->sec.fde_index = NULL;
}

static void test_amd64_v2_pcrel(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V2, SORTED | PCREL);

	EXPECT_INIT_OK(test, &s);
	sf_check_amd64_rules(test);
	EXPECT_VALID(test);
}

static void test_amd64_v2_secrel(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V2, SORTED);

	EXPECT_INIT_OK(test, &s);
	sf_check_amd64_rules(test);
}

/* 4 GiB, or 0 where unsigned long has 32 bits */
#define SF_4G	((unsigned long)(0x100000000ULL & ULONG_MAX))

/*
 * V3 function starts are 64-bit: the text 4 GiB above the section (and
 * 4 GiB below it, if the section is that high), PC-relative or not.  Only
 * the section is read, the text need not be mapped.
 */
static void test_amd64_v3_far_text(struct kunit *test)
{
	static const u8 flags[] = { SORTED | PCREL, SORTED };
	struct sf_ctx *c = test->priv;
	unsigned int i;

	if (!SF_4G)
		kunit_skip(test, "no text 4 GiB away with 32-bit addresses");
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		struct sfb_sec s;

		c->text = c->base + SF_4G;
		s = sf_amd64_sec(test, V3, flags[i]);
		EXPECT_INIT_OK(test, &s);
		sf_check_amd64_rules(test);
		EXPECT_VALID(test);

		if (c->base < SF_4G + TEXT_OFF)
			continue;
		c->text = c->base - SF_4G - TEXT_OFF;
		s = sf_amd64_sec(test, V3, flags[i]);
		EXPECT_INIT_OK(test, &s);
		sf_check_amd64_rules(test);
		EXPECT_VALID(test);
	}
}

static void test_empty_section(struct kunit *test)
{
	struct sfb_sec s = { V3, SORTED, AMD64, 0, -8, 0, 0, NULL };

	EXPECT_INIT_OK(test, &s);
	EXPECT_NOENT(test, F(1));
	EXPECT_VALID(test);
}

/* Many functions: every PC finds its own function */
static void test_binary_search(struct kunit *test)
{
	static const struct sfb_fre fre[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 2, FRE_INFO(SP, 1, W1), { 16 } },
	};
	struct sfb_fde *fdes;
	unsigned int n, i;

	fdes = kunit_kcalloc(test, SFB_MAX_FDES, sizeof(*fdes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fdes);
	for (n = 1; n <= SFB_MAX_FDES; n += 13) {
		struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, n, fdes };

		for (i = 0; i < n; i++)
			fdes[i] = (struct sfb_fde){ F(1) + 0x40 * i, 0x20 + i % 4,
						    FDE_INFO(A1, INC), 0, 0,
						    FRES(fre) };
		EXPECT_INIT_OK(test, &s);
		for (i = 0; i < n; i++) {
			unsigned long f = F(1) + 0x40 * i;

			EXPECT_NOENT(test, f - 1);
			EXPECT_AT(test, f, f, 0x20 + i % 4, 0);
			EXPECT_AT(test, f + 1, f, 0x20 + i % 4, 0);
			EXPECT_AT(test, f + 2, f, 0x20 + i % 4, 2);
			EXPECT_AT(test, f + 0x1f + i % 4, f, 0x20 + i % 4, 2);
			EXPECT_NOENT(test, f + 0x20 + i % 4);
		}
		EXPECT_VALID(test);
	}
}

static void test_fre_addr2_addr4(struct kunit *test)
{
	static const struct sfb_fre fre2[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 0x100, FRE_INFO(SP, 1, W1), { 16 } },
		{ 0xfedc, FRE_INFO(SP, 1, W1), { 24 } },
	};
	static const struct sfb_fre fre4[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 0x1234, FRE_INFO(SP, 1, W1), { 16 } },
		{ 0x12345, FRE_INFO(SP, 1, W1), { 24 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 0x10000, FDE_INFO(A2, INC), 0, 0, FRES(fre2) },
		{ F(0x20), 0x20000, FDE_INFO(A4, INC), 0, 0, FRES(fre4) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	int v;

	for (v = V2; v <= V3; v++) {
		s.version = v;
		EXPECT_INIT_OK(test, &s);
		EXPECT_RANGE(test, F(1), F(1) + 0x100, "cfa=r7+8 ra=[cfa-8] fp=same");
		EXPECT_RULE(test, F(1) + 0x100, "cfa=r7+16 ra=[cfa-8] fp=same");
		EXPECT_RULE(test, F(1) + 0xfedb, "cfa=r7+16 ra=[cfa-8] fp=same");
		EXPECT_RULE(test, F(1) + 0xfedc, "cfa=r7+24 ra=[cfa-8] fp=same");
		EXPECT_AT(test, F(1) + 0xffff, F(1), 0x10000, 0xfedc);
		EXPECT_NOENT(test, F(1) + 0x10000);
		EXPECT_RULE(test, F(0x20) + 0x1233, "cfa=r7+8 ra=[cfa-8] fp=same");
		EXPECT_RULE(test, F(0x20) + 0x1234, "cfa=r7+16 ra=[cfa-8] fp=same");
		EXPECT_RULE(test, F(0x20) + 0x12344, "cfa=r7+16 ra=[cfa-8] fp=same");
		EXPECT_RULE(test, F(0x20) + 0x12345, "cfa=r7+24 ra=[cfa-8] fp=same");
		EXPECT_AT(test, F(0x20) + 0x1ffff, F(0x20), 0x20000, 0x12345);
		EXPECT_VALID(test);
	}
}

/*
 * The lookup passes over the FREs before the one it finds by their length,
 * which it takes from the info byte: an FRE of every info byte, then the
 * one to find.  The reserved data word size makes the section corrupt.
 */
static void test_fre_skip_lengths(struct kunit *test)
{
	struct sfb_fre fres[] = {
		{ 0, 0, { 0 } },
		{ 1, FRE_INFO(SP, 1, W1), { 24 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 4, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	unsigned int info;

	for (info = 0; info <= U8_MAX; info++) {
		fres[0].info = info;
		if (SFRAME_FRE_INFO_DATAWORD_SIZE(info) > W4) {
			EXPECT_INIT_OK(test, &s);
			EXPECT_BAD(test, F(1) + 1, SFRAME_R_BAD_DATAWORD_SIZE);
			continue;
		}
		EXPECT_INIT_OK(test, &s);
		EXPECT_RULE(test, F(1) + 1, "cfa=r7+24 ra=[cfa-8] fp=same");
		EXPECT_AT(test, F(1) + 3, F(1), 4, 1);
	}
}

static void test_dataword_sizes(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 2, W1), { 127, -128 } },
		{ 1, FRE_INFO(SP, 2, W2), { 0x1234, -0x7fff } },
		{ 2, FRE_INFO(FP, 2, W2), { 32767, -32768 } },
		{ 3, FRE_INFO(SP, 2, W4), { 0x12345678, -0x12345678 } },
		{ 4, FRE_INFO(FP, 2, W4), { S32_MAX, S32_MIN } },
		{ 5, FRE_INFO(SP, 1, W1), { -1 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_RULE(test, F(1), "cfa=r7+127 ra=[cfa-8] fp=[cfa-128]");
	EXPECT_RULE(test, F(1) + 1, "cfa=r7+4660 ra=[cfa-8] fp=[cfa-32767]");
	EXPECT_RULE(test, F(1) + 2, "cfa=r6+32767 ra=[cfa-8] fp=[cfa-32768]");
	EXPECT_RULE(test, F(1) + 3, "cfa=r7+305419896 ra=[cfa-8] fp=[cfa-305419896]");
	EXPECT_RULE(test, F(1) + 4, "cfa=r6+2147483647 ra=[cfa-8] fp=[cfa-2147483648]");
	EXPECT_RANGE(test, F(1) + 5, F(1) + 8, "cfa=r7-1 ra=[cfa-8] fp=same");
	EXPECT_VALID(test);
}

/* PLT-like repeated blocks: PC % rep_size selects the FRE */
static void test_pctype_mask(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 11, FRE_INFO(SP, 1, W1), { 16 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 0x40, FDE_INFO(A1, MASK), 0, 16, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	unsigned long blk;
	int v;

	for (v = V2; v <= V3; v++) {
		s.version = v;
		EXPECT_INIT_OK(test, &s);
		for (blk = F(1); blk < F(1) + 0x40; blk += 16) {
			EXPECT_RANGE(test, blk, blk + 11, "cfa=r7+8 ra=[cfa-8] fp=same");
			EXPECT_RANGE(test, blk + 11, blk + 16,
				     "cfa=r7+16 ra=[cfa-8] fp=same");
			EXPECT_AT(test, blk + 12, F(1), 0x40, 11);
		}
		EXPECT_NOENT(test, F(1) + 0x40);
		EXPECT_VALID(test);
	}
}

/* A repetition block whose size is not a power of two */
static void test_pctype_mask_odd(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 3, FRE_INFO(SP, 1, W1), { 16 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 24, FDE_INFO(A1, MASK), 0, 6, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	unsigned long blk;
	int v;

	for (v = V2; v <= V3; v++) {
		s.version = v;
		EXPECT_INIT_OK(test, &s);
		for (blk = F(1); blk < F(1) + 24; blk += 6) {
			EXPECT_RANGE(test, blk, blk + 3, "cfa=r7+8 ra=[cfa-8] fp=same");
			EXPECT_RANGE(test, blk + 3, blk + 6,
				     "cfa=r7+16 ra=[cfa-8] fp=same");
		}
		EXPECT_NOENT(test, F(1) + 24);
		EXPECT_VALID(test);
	}
}

static void test_rep_size_zero(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 0x40, FDE_INFO(A1, MASK), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_BAD(test, F(1) + 3, SFRAME_R_REP_SIZE_ZERO);
	EXPECT_INVALID(test, SFRAME_R_REP_SIZE_ZERO);
	s.version = V2;
	EXPECT_INIT_OK(test, &s);
	EXPECT_BAD(test, F(1), SFRAME_R_REP_SIZE_ZERO);
}

static void test_aarch64(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 0 } },
		{ 4, FRE_INFO(SP, 3, W1), { 32, -24, -32 } },
		{ 8, FRE_INFO(FP, 3, W1) | FRE_MANGLED, { 32, -24, -32 } },
		{ 12, FRE_INFO(SP, 2, W1), { 16, -8 } },
		{ 16, FRE_INFO(SP, 1, W1) | FRE_MANGLED, { 0 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 20, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
		{ F(2), 20, FDE_INFO(A1, INC) | FDE_KEY_B, 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, ARM64, 0, 0, 0, FDES(fdes) };
	int v;

	for (v = V2; v <= V3; v++) {
		s.version = v;
		s.abi = v == V2 ? SFRAME_ABI_AARCH64_ENDIAN_BIG : ARM64;
		EXPECT_INIT_OK(test, &s);
		EXPECT_RANGE(test, F(1), F(1) + 4, "cfa=r31+0 ra=same fp=same");
		EXPECT_RULE(test, F(1) + 4, "cfa=r31+32 ra=[cfa-24] fp=[cfa-32]");
		EXPECT_RULE(test, F(1) + 8,
			    "cfa=r29+32 ra=[cfa-24] fp=[cfa-32] mangled-ra");
		EXPECT_RULE(test, F(1) + 12, "cfa=r31+16 ra=[cfa-8] fp=same");
		EXPECT_RULE(test, F(1) + 16, "cfa=r31+0 ra=same fp=same mangled-ra");
		EXPECT_RULE(test, F(2) + 4,
			    "cfa=r31+32 ra=[cfa-24] fp=[cfa-32] key-b");
		EXPECT_RULE(test, F(2) + 19,
			    "cfa=r31+0 ra=same fp=same mangled-ra key-b");
		EXPECT_VALID(test);
	}
}

/* The AArch64-only bits mean nothing elsewhere */
static void test_amd64_ignores_pauth(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1) | FRE_MANGLED, { 8 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 4, FDE_INFO(A1, INC) | FDE_KEY_B, 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_RULE(test, F(1), "cfa=r7+8 ra=[cfa-8] fp=same");
}

/* Header-fixed FP offset: applies when the FRE has no FP word */
static void test_fixed_fp(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V2, SORTED);

	s.fixed_fp = -16;
	EXPECT_INIT_OK(test, &s);
	EXPECT_RULE(test, F(1), "cfa=r7+8 ra=[cfa-8] fp=[cfa-16]");
	EXPECT_RULE(test, F(1) + 4, "cfa=r6+16 ra=[cfa-8] fp=[cfa-16]");
}

static void test_s390x(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 0 } },		/* CFA = SP + 160 */
		{ 6, FRE_INFO(SP, 3, W1), { 0, -48, -72 } },
		{ 10, FRE_INFO(SP, 3, W1), { 20, 0, -72 } },	/* RA not saved */
		{ 14, FRE_INFO(FP, 2, W1), { 20, -48 } },
		{ 18, FRE_INFO(SP, 1, W2), { -20 } },
		{ 22, FRE_INFO(SP, 3, W1), { 0, 49, 51 } },	/* odd offsets */
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 26, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, S390X, 0, 0, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_RANGE(test, F(1), F(1) + 6, "cfa=r15+160 ra=same fp=same");
	EXPECT_RULE(test, F(1) + 6, "cfa=r15+160 ra=[cfa-48] fp=[cfa-72]");
	EXPECT_RULE(test, F(1) + 10, "cfa=r15+320 ra=same fp=[cfa-72]");
	EXPECT_RULE(test, F(1) + 14, "cfa=r11+320 ra=[cfa-48] fp=same");
	EXPECT_RULE(test, F(1) + 18, "cfa=r15+0 ra=same fp=same");
	/* V3: no register encoding in default FDEs */
	EXPECT_RULE(test, F(1) + 22, "cfa=r15+160 ra=[cfa+49] fp=[cfa+51]");
	EXPECT_VALID(test);

	/* V2: an odd RA/FP offset is a DWARF register number << 1 | 1 */
	s.version = V2;
	EXPECT_INIT_OK(test, &s);
	EXPECT_RULE(test, F(1) + 10, "cfa=r15+320 ra=same fp=[cfa-72]");
	EXPECT_RULE(test, F(1) + 22, "cfa=r15+160 ra=r24+0 fp=r25+0");
	EXPECT_VALID(test);
}

static void test_s390x_bad(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 3, W1), { 0, -1, -72 } },	/* regnum -1 */
		{ 4, FRE_INFO(SP, 1, W4), { 0x7fffffff } },	/* CFA * 8 overflows */
		{ 8, FRE_INFO(SP, 3, W2), { 0, 0x201, -72 } },	/* regnum 256 */
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 12, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V2, SORTED | PCREL, S390X, 0, 0, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_BAD(test, F(1), SFRAME_R_BAD_REGNUM);
	EXPECT_BAD(test, F(1) + 4, SFRAME_R_BAD_OFFSET);
	EXPECT_BAD(test, F(1) + 8, SFRAME_R_BAD_REGNUM);
	EXPECT_INVALID(test, SFRAME_R_BAD_REGNUM);
	s.version = V3;
	EXPECT_INIT_OK(test, &s);
	EXPECT_RULE(test, F(1), "cfa=r15+160 ra=[cfa-1] fp=[cfa-72]");
	EXPECT_BAD(test, F(1) + 4, SFRAME_R_BAD_OFFSET);
	EXPECT_RULE(test, F(1) + 8, "cfa=r15+160 ra=[cfa+513] fp=[cfa-72]");
}

#define CTRL_R6_DEREF	FLEX_CTRL(6, 1, 1)
#define CTRL_CFA_DEREF	FLEX_CTRL(0, 1, 0)

static void test_flex_amd64(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		/* DRAP: CFA = *(rbp - 8), RA = *(CFA - 8), FP = *(rbp + 0) */
		{ 0, FRE_INFO(SP, 6, W1), { CTRL_R6_DEREF, -8, CTRL_CFA_DEREF,
					    -8, CTRL_R6_DEREF, 0 } },
		/* CFA = r10 + 0, RA padding, FP = *(CFA - 16) */
		{ 4, FRE_INFO(SP, 5, W1), { FLEX_CTRL(10, 0, 1), 0, 0,
					    CTRL_CFA_DEREF, -16 } },
		/* CFA only */
		{ 8, FRE_INFO(FP, 2, W2), { FLEX_CTRL(7, 0, 1), 0x1000 } },
		/* CFA, RA in a register */
		{ 12, FRE_INFO(SP, 4, W4), { FLEX_CTRL(7, 0, 1), 8,
					     FLEX_CTRL(16, 0, 1), 0 } },
		/* CFA, RA padding, FP padding */
		{ 16, FRE_INFO(SP, 4, W1), { FLEX_CTRL(7, 0, 1), 8, 0, 0 } },
		{ 20, FRE_INFO(SP, 3, W1), { FLEX_CTRL(7, 0, 1), 8, 0 } },
		{ 24, FRE_INFO(SP, 0, W1), { 0 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 28, FDE_INFO(A1, INC), FLEX, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_RANGE(test, F(1), F(1) + 4, "cfa=[r6-8] ra=[cfa-8] fp=[r6+0] flex");
	EXPECT_RULE(test, F(1) + 4, "cfa=r10+0 ra=[cfa-8] fp=[cfa-16] flex");
	EXPECT_RULE(test, F(1) + 8, "cfa=r7+4096 ra=[cfa-8] fp=same flex");
	EXPECT_RULE(test, F(1) + 12, "cfa=r7+8 ra=r16+0 fp=same flex");
	EXPECT_RULE(test, F(1) + 16, "cfa=r7+8 ra=[cfa-8] fp=same flex");
	EXPECT_RULE(test, F(1) + 20, "cfa=r7+8 ra=[cfa-8] fp=same flex");
	EXPECT_RULE(test, F(1) + 24, "cfa=undef ra=undef fp=undef outermost flex");
	EXPECT_VALID(test);
}

/*
 * The CFA offset of a flexible FRE is encoded as in a default FRE on s390x
 * (adjusted by 160, scaled by 8): gas writes 0 for CFA = r15 + 160 at a
 * function entry, and libsframe reads it so.
 */
static void test_flex_s390x(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		/* CFA = r15 + 160, RA in f8 (r24), FP in f9 (r25) */
		{ 0, FRE_INFO(SP, 6, W2), { FLEX_CTRL(15, 0, 1), 0,
					    FLEX_CTRL(24, 0, 1), 0,
					    FLEX_CTRL(25, 0, 1), 0 } },
		/* RA unchanged (padding), FP saved on the stack */
		{ 4, FRE_INFO(SP, 5, W2), { FLEX_CTRL(15, 0, 1), 20, 0,
					    CTRL_CFA_DEREF, -72 } },
		/* CFA = *(r11 - 8): the offset is decoded all the same */
		{ 8, FRE_INFO(SP, 2, W1), { FLEX_CTRL(11, 1, 1), -21 } },
		/* CFA offset * 8 overflows */
		{ 12, FRE_INFO(SP, 2, W4), { FLEX_CTRL(15, 0, 1), 0x7fffffff } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 16, FDE_INFO(A1, INC), FLEX, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, S390X, 0, 0, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_RULE(test, F(1), "cfa=r15+160 ra=r24+0 fp=r25+0 flex");
	EXPECT_RULE(test, F(1) + 4, "cfa=r15+320 ra=same fp=[cfa-72] flex");
	EXPECT_RULE(test, F(1) + 8, "cfa=[r11-8] ra=same fp=same flex");
	EXPECT_BAD(test, F(1) + 12, SFRAME_R_BAD_OFFSET);
	EXPECT_INVALID(test, SFRAME_R_BAD_OFFSET);

	/* Not on other ABIs */
	s.abi = AMD64;
	s.fixed_ra = -8;
	EXPECT_INIT_OK(test, &s);
	EXPECT_RULE(test, F(1) + 4, "cfa=r15+20 ra=[cfa-8] fp=[cfa-72] flex");
	EXPECT_RULE(test, F(1) + 12, "cfa=r15+2147483647 ra=[cfa-8] fp=same flex");
}

static void test_flex_bad(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 2, W1), { CTRL_CFA_DEREF, 8 } },	/* CFA w/o reg */
		{ 1, FRE_INFO(SP, 2, W1), { 0, 8 } },			/* CFA padding */
		{ 2, FRE_INFO(SP, 2, W1), { FLEX_CTRL(7, 0, 1) | 4, 8 } }, /* bit 2 */
		{ 3, FRE_INFO(SP, 4, W1), { FLEX_CTRL(7, 0, 1), 8,
					    FLEX_CTRL(5, 0, 0), 0 } },	/* regnum, !reg_p */
		{ 4, FRE_INFO(SP, 4, W1), { FLEX_CTRL(7, 0, 1), 8,
					    FLEX_CTRL(5, 1, 0), 0 } },
		{ 5, FRE_INFO(SP, 1, W1), { FLEX_CTRL(7, 0, 1) } },	/* count 1 */
		{ 6, FRE_INFO(SP, 3, W1), { FLEX_CTRL(7, 0, 1), 8,
					    CTRL_CFA_DEREF } },		/* half pair */
		{ 7, FRE_INFO(SP, 5, W1), { FLEX_CTRL(7, 0, 1), 8, 0, 0, 1 } },
		{ 8, FRE_INFO(SP, 7, W1), { FLEX_CTRL(7, 0, 1), 8,
					    CTRL_CFA_DEREF, -8, CTRL_CFA_DEREF,
					    -16, 0 } },			/* count 7 */
		{ 9, FRE_INFO(SP, 2, W2), { FLEX_CTRL(300, 0, 1), 8 } },
		{ 10, FRE_INFO(SP, 4, W4), { FLEX_CTRL(7, 0, 1), 8,
					     FLEX_CTRL(0x100000, 1, 1), 8 } },
		{ 11, FRE_INFO(SP, 15, W1), { FLEX_CTRL(7, 0, 1), 8 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 12, FDE_INFO(A1, INC), FLEX, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_BAD(test, F(1), SFRAME_R_BAD_FLEX_CTRL);
	EXPECT_BAD(test, F(1) + 1, SFRAME_R_BAD_FLEX_CTRL);
	EXPECT_BAD(test, F(1) + 2, SFRAME_R_BAD_FLEX_CTRL);
	EXPECT_BAD(test, F(1) + 3, SFRAME_R_BAD_FLEX_CTRL);
	EXPECT_BAD(test, F(1) + 4, SFRAME_R_BAD_FLEX_CTRL);
	EXPECT_BAD(test, F(1) + 5, SFRAME_R_BAD_DATAWORD_COUNT);
	EXPECT_BAD(test, F(1) + 6, SFRAME_R_BAD_DATAWORD_COUNT);
	EXPECT_BAD(test, F(1) + 7, SFRAME_R_BAD_DATAWORD_COUNT);
	EXPECT_BAD(test, F(1) + 8, SFRAME_R_BAD_DATAWORD_COUNT);
	EXPECT_BAD(test, F(1) + 9, SFRAME_R_BAD_REGNUM);
	EXPECT_BAD(test, F(1) + 10, SFRAME_R_BAD_REGNUM);
	EXPECT_BAD(test, F(1) + 11, SFRAME_R_BAD_DATAWORD_COUNT);
	EXPECT_INVALID(test, SFRAME_R_BAD_FLEX_CTRL);
}

static void test_outermost(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 0, W1), { 0 } },
		{ 1, FRE_INFO(SP, 1, W1), { 8 } },
		{ 5, FRE_INFO(FP, 0, W4), { 0 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
		{ F(2), 8, FDE_INFO(A1, INC), 0, 0, 0, NULL },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	int v;

	for (v = V2; v <= V3; v++) {
		s.version = v;
		EXPECT_INIT_OK(test, &s);
		EXPECT_RULE(test, F(1), "cfa=undef ra=undef fp=undef outermost");
		EXPECT_RULE(test, F(1) + 1, "cfa=r7+8 ra=[cfa-8] fp=same");
		EXPECT_RULE(test, F(1) + 7, "cfa=undef ra=undef fp=undef outermost");
		EXPECT_AT(test, F(1) + 6, F(1), 8, 5);
		if (v == V3) {
			/* V3: a default FDE without FREs is an outermost frame */
			EXPECT_RANGE(test, F(2), F(2) + 8,
				     "cfa=undef ra=undef fp=undef outermost");
			EXPECT_AT(test, F(2) + 3, F(2), 8, 0);
		} else {
			/* V2 gives it no meaning: no rule, not the stack's end */
			EXPECT_NOENT(test, F(2));
			EXPECT_NOENT(test, F(2) + 7);
		}
		EXPECT_NOENT(test, F(2) + 8);
		EXPECT_VALID(test);
	}
}

/* A flexible FDE without FREs has no rule either (V3 only) */
static void test_flex_no_fres(struct kunit *test)
{
	const struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC), FLEX, 0, 0, NULL },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_NOENT(test, F(1));
	EXPECT_NOENT(test, F(1) + 7);
	EXPECT_VALID(test);
}

static void test_signal(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W2), { 0x230 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC) | FDE_SIGNAL, 0, 0, FRES(fres) },
		{ F(2), 8, FDE_INFO(A1, INC) | FDE_SIGNAL, 0, 0, 0, NULL },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_RULE(test, F(1), "cfa=r7+560 ra=[cfa-8] fp=same signal");
	EXPECT_RULE(test, F(2), "cfa=undef ra=undef fp=undef outermost signal");
	/* V2 has no signal bit */
	s.version = V2;
	EXPECT_INIT_OK(test, &s);
	EXPECT_RULE(test, F(1), "cfa=r7+560 ra=[cfa-8] fp=same");
}

/*
 * The reader marks the usual rule for the unwinder's short path; every
 * rule of the suite is checked against sfb_rule_usual() as well
 */
static void test_usual(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 0 } },
		{ 4, FRE_INFO(SP, 3, W1), { 32, -24, -32 } },
		{ 8, FRE_INFO(FP, 2, W1), { 16, -8 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 12, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
		{ F(2), 12, FDE_INFO(A1, INC) | FDE_SIGNAL, 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, ARM64, 0, 0, 0, FDES(fdes) };
	const struct {
		unsigned long	pc;
		bool		usual;
	} exp[] = {
		{ F(1), false },	/* RA in its register */
		{ F(1) + 4, true },
		{ F(1) + 8, true },	/* FP unchanged */
		{ F(2) + 4, false },	/* signal frame */
	};
	struct sf_ctx *c = test->priv;
	struct sframe_rule r;
	unsigned int i;

	EXPECT_INIT_OK(test, &s);
	for (i = 0; i < ARRAY_SIZE(exp); i++) {
		KUNIT_EXPECT_EQ(test, sframe_find(&c->sec, exp[i].pc, &r, &c->why), 0);
		KUNIT_EXPECT_EQ_MSG(test, !!(r.flags & SFRAME_RULE_USUAL),
				    exp[i].usual, "pc %#lx", exp[i].pc);
	}
}

static void test_bad_types(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	struct sf_ctx *c = test->priv;
	unsigned int t;

	EXPECT_INIT_OK(test, &s);
	for (t = 2; t < 32; t++) {
		sf_put8(test, c->lay.fde_data[0] + 3, t);
		EXPECT_BAD(test, F(1), SFRAME_R_BAD_FDE_TYPE);
	}
	/* bits 5-7 of info2 are unused */
	sf_put8(test, c->lay.fde_data[0] + 3, 0xe0);
	EXPECT_RULE(test, F(1), "cfa=r7+8 ra=[cfa-8] fp=same");
	for (t = 3; t < 16; t++) {
		sf_put8(test, c->lay.fde_data[0] + 2, t);
		EXPECT_BAD(test, F(1), SFRAME_R_BAD_FRE_TYPE);
	}
	EXPECT_INVALID(test, SFRAME_R_BAD_FRE_TYPE);

	s.version = V2;
	EXPECT_INIT_OK(test, &s);
	sf_put8(test, c->lay.fde[0] + 16, 3);
	EXPECT_BAD(test, F(1), SFRAME_R_BAD_FRE_TYPE);
}

static void test_bad_dataword(struct kunit *test)
{
	static const struct sfb_fre fres_size[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 1, FRE_INFO(SP, 1, 3), { 8 } },
	};
	static const struct sfb_fre fres_count[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 1, FRE_INFO(SP, 3, W1), { 8, 0, 0 } },
		{ 2, FRE_INFO(SP, 4, W1), { 8, 0, 0, 0 } },
		{ 3, FRE_INFO(SP, 1, W1), { 8 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 4, FDE_INFO(A1, INC), 0, 0, FRES(fres_size) },
		{ F(2), 4, FDE_INFO(A1, INC), 0, 0, FRES(fres_count) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	struct sf_ctx *c = test->priv;

	EXPECT_INIT_OK(test, &s);
	/* the header of the next FRE is read, and checked, too */
	EXPECT_BAD(test, F(1), SFRAME_R_BAD_DATAWORD_SIZE);
	EXPECT_BAD(test, F(1) + 1, SFRAME_R_BAD_DATAWORD_SIZE);
	EXPECT_INVALID(test, SFRAME_R_BAD_DATAWORD_SIZE);
	sf_put8(test, c->lay.fre[0][1] + 1, FRE_INFO(SP, 1, W4));
	EXPECT_RULE(test, F(1), "cfa=r7+8 ra=[cfa-8] fp=same");
	EXPECT_RULE(test, F(1) + 1, "cfa=r7+8 ra=[cfa-8] fp=same");

	/* AMD64: at most CFA and FP */
	EXPECT_RULE(test, F(2), "cfa=r7+8 ra=[cfa-8] fp=same");
	EXPECT_BAD(test, F(2) + 1, SFRAME_R_BAD_DATAWORD_COUNT);
	EXPECT_BAD(test, F(2) + 2, SFRAME_R_BAD_DATAWORD_COUNT);
	EXPECT_RULE(test, F(2) + 3, "cfa=r7+8 ra=[cfa-8] fp=same");
	EXPECT_INVALID(test, SFRAME_R_BAD_DATAWORD_COUNT);
	/* AArch64 and s390x: at most CFA, RA and FP */
	sf_put8(test, H_ABI, ARM64);
	EXPECT_REINIT(test, 0, SFRAME_R_NONE);
	EXPECT_RULE(test, F(2) + 1, "cfa=r31+8 ra=[cfa+0] fp=[cfa+0]");
	EXPECT_BAD(test, F(2) + 2, SFRAME_R_BAD_DATAWORD_COUNT);
	sf_put8(test, H_ABI, S390X);
	EXPECT_REINIT(test, 0, SFRAME_R_NONE);
	EXPECT_RULE(test, F(2) + 1, "cfa=r15+224 ra=same fp=[cfa+0]");
	EXPECT_BAD(test, F(2) + 2, SFRAME_R_BAD_DATAWORD_COUNT);
	EXPECT_INVALID(test, SFRAME_R_BAD_DATAWORD_COUNT);
	/* more words than the section holds */
	sf_put8(test, c->lay.fre[1][3] + 1, FRE_INFO(SP, 15, W1));
	EXPECT_BAD(test, F(2) + 3, SFRAME_R_FRE_OUTSIDE);
}

/*
 * No FRE has more than 6 data words (a flexible FRE's three pairs): FREs
 * with 7 to 15 words, all inside the section, fail on every ABI and in
 * both versions before their words are decoded.  The reader decodes into
 * arrays of 6 words, so without that check the lookup writes past them
 * (KASAN in the kernel, ASan and UBSan in the harness see it).
 */
static void test_dataword_count_max(struct kunit *test)
{
	static const struct {
		u8		abi;
		s8		fixed_ra;
		const char	*rule;
	} abis[] = {
		{ AMD64, -8, "cfa=r7+8 ra=[cfa-8] fp=same" },
		{ ARM64, 0, "cfa=r31+8 ra=same fp=same" },
		{ S390X, 0, "cfa=r15+224 ra=same fp=same" },
	};
	const unsigned int nfres = SFRAME_FRE_MAX_DATAWORDS - 6 + 2;
	struct sfb_fre *fres;
	struct sfb_fde fdes[2];
	unsigned int i, n, v;

	/* F(1): 1-byte words, F(2): 4-byte words; FRE n - 6 has n words */
	fres = kunit_kcalloc(test, 2 * nfres, sizeof(*fres), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fres);
	for (i = 0; i < 2; i++) {
		struct sfb_fre *f = fres + i * nfres;
		u8 wsize = i ? W4 : W1;

		f[0] = (struct sfb_fre){ 0, FRE_INFO(SP, 1, wsize), { 8 } };
		for (n = 7; n <= SFRAME_FRE_MAX_DATAWORDS; n++) {
			f[n - 6] = (struct sfb_fre){ n - 6, FRE_INFO(SP, n, wsize),
						     { 0 } };
			for (v = 0; v < n; v++)
				f[n - 6].w[v] = i ? 0x7f7f7f00 + v : 0x70 + v;
		}
		f[nfres - 1] = f[0];
		f[nfres - 1].start = nfres - 1;
		fdes[i] = (struct sfb_fde){ F(1 + i), nfres, FDE_INFO(A1, INC),
					    0, 0, nfres, f };
	}

	for (v = V2; v <= V3; v++) {
		for (i = 0; i < ARRAY_SIZE(abis); i++) {
			struct sfb_sec s = { v, SORTED | PCREL, abis[i].abi, 0,
					     abis[i].fixed_ra, 0, FDES(fdes) };
			unsigned long pc;

			EXPECT_INIT_OK(test, &s);
			for (pc = F(1); pc <= F(2); pc += F(2) - F(1)) {
				EXPECT_RULE(test, pc, abis[i].rule);
				for (n = 7; n <= SFRAME_FRE_MAX_DATAWORDS; n++)
					EXPECT_BAD(test, pc + n - 6,
						   SFRAME_R_BAD_DATAWORD_COUNT);
				EXPECT_RULE(test, pc + nfres - 1, abis[i].rule);
			}
			EXPECT_INVALID(test, SFRAME_R_BAD_DATAWORD_COUNT);
		}
	}
}

/*
 * The work of one lookup is bounded: a function of SFRAME_FDE_MAX_FRES
 * FREs is read to its last FRE, one more FRE makes the section corrupt
 * before any FRE is read.
 */
static void test_fre_limit(struct kunit *test)
{
	const u32 n = SFRAME_FDE_MAX_FRES;
	struct sf_ctx *c = test->priv;
	struct sfb_fde fdes[1];
	struct sframe_rule r;
	struct sfb_fre *fres;
	u32 i, v;

	/* 2-byte starts, no data words: 3 bytes per FRE */
	fres = kunit_kcalloc(test, n + 1, sizeof(*fres), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fres);
	for (i = 0; i <= n; i++)
		fres[i] = (struct sfb_fre){ i, FRE_INFO(SP, 0, W1), { 0 } };

	for (v = V2; v <= V3; v++) {
		struct sfb_sec s = { v, SORTED | PCREL, AMD64, 0, -8, 0,
				     1, fdes };

		fdes[0] = (struct sfb_fde){ F(1), n + 1, FDE_INFO(A2, INC),
					    0, 0, n, fres };
		EXPECT_INIT_OK(test, &s);
		EXPECT_RULE(test, F(1) + n - 1,
			    "cfa=undef ra=undef fp=undef outermost");
		KUNIT_EXPECT_EQ(test, sframe_find(&c->sec, F(1) + n - 1, &r,
						  NULL), 0);
		KUNIT_EXPECT_EQ(test, r.fres_read, n);
		KUNIT_EXPECT_EQ(test, sframe_find(&c->sec, F(1) + 2, &r,
						  NULL), 0);
		KUNIT_EXPECT_EQ(test, r.fres_read, 4U);
		EXPECT_VALID(test);

		fdes[0].nfres = n + 1;
		EXPECT_INIT_OK(test, &s);
		EXPECT_BAD(test, F(1), SFRAME_R_FRE_LIMIT);
		EXPECT_BAD(test, F(1) + n, SFRAME_R_FRE_LIMIT);
		EXPECT_FIND_NOFAULT(test, F(1) + n, -EBADMSG,
				    SFRAME_R_FRE_LIMIT);
		EXPECT_INVALID(test, SFRAME_R_FRE_LIMIT);
	}
}

static void test_fre_not_increasing(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 4, FRE_INFO(SP, 1, W1), { 16 } },
		{ 4, FRE_INFO(SP, 1, W1), { 24 } },
		{ 2, FRE_INFO(SP, 1, W1), { 32 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	struct sf_ctx *c = test->priv;

	EXPECT_INIT_OK(test, &s);
	/* the scan stops at the first FRE past the PC */
	EXPECT_RULE(test, F(1) + 3, "cfa=r7+8 ra=[cfa-8] fp=same");
	EXPECT_BAD(test, F(1) + 4, SFRAME_R_FRE_NOT_INCREASING);
	EXPECT_INVALID(test, SFRAME_R_FRE_NOT_INCREASING);
	sf_put8(test, c->lay.fre[0][2], 5);
	EXPECT_BAD(test, F(1) + 5, SFRAME_R_FRE_NOT_INCREASING);
}

/*
 * Two FREs with the same start, and increasing starts after them: the
 * lookup that reaches the pair fails, not only one that reaches a
 * decreasing start.
 */
static void test_fre_equal_starts(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 4, FRE_INFO(SP, 1, W1), { 16 } },
		{ 4, FRE_INFO(SP, 1, W1), { 24 } },
		{ 6, FRE_INFO(SP, 1, W1), { 32 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	struct sf_ctx *c = test->priv;

	EXPECT_INIT_OK(test, &s);
	EXPECT_RULE(test, F(1) + 3, "cfa=r7+8 ra=[cfa-8] fp=same");
	EXPECT_BAD(test, F(1) + 4, SFRAME_R_FRE_NOT_INCREASING);
	EXPECT_BAD(test, F(1) + 5, SFRAME_R_FRE_NOT_INCREASING);
	EXPECT_BAD(test, F(1) + 7, SFRAME_R_FRE_NOT_INCREASING);
	EXPECT_INVALID(test, SFRAME_R_FRE_NOT_INCREASING);
	/* {0, 4, 5, 6}: every FRE is reached */
	sf_put8(test, c->lay.fre[0][2], 5);
	EXPECT_RULE(test, F(1) + 4, "cfa=r7+16 ra=[cfa-8] fp=same");
	EXPECT_RULE(test, F(1) + 5, "cfa=r7+24 ra=[cfa-8] fp=same");
	EXPECT_RANGE(test, F(1) + 6, F(1) + 8, "cfa=r7+32 ra=[cfa-8] fp=same");
	EXPECT_VALID(test);
}

static void test_pc_before_first_fre(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 4, FRE_INFO(SP, 1, W1), { 16 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V2, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_NOENT(test, F(1));
	EXPECT_NOENT(test, F(1) + 3);
	EXPECT_RULE(test, F(1) + 4, "cfa=r7+16 ra=[cfa-8] fp=same");
	EXPECT_VALID(test);
}

static void test_fre_outside(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED | PCREL);
	struct sf_ctx *c = test->priv;
	size_t fres_off;
	int v;

	/* the last function claims more FREs than there are */
	EXPECT_INIT_OK(test, &s);
	sf_put16(test, c->lay.fde_data[2], 5);
	EXPECT_RULE(test, F(3) + 0x10, "cfa=r7+8 ra=[cfa-8] fp=same");
	EXPECT_BAD(test, F(3) + 0x17, SFRAME_R_FRE_OUTSIDE);
	EXPECT_INVALID(test, SFRAME_R_FRE_OUTSIDE);

	/* FRE data offset beyond the FRE sub-section */
	for (v = V2; v <= V3; v++) {
		s = sf_amd64_sec(test, v, SORTED | PCREL);
		EXPECT_INIT_OK(test, &s);
		fres_off = c->lay.fde[1] + (v == V2 ? 8 : 12);
		sf_put32(test, fres_off, c->lay.len - c->lay.fres + 1);
		EXPECT_BAD(test, F(2), SFRAME_R_FDE_FRES_OUTSIDE);
		EXPECT_INVALID(test, SFRAME_R_FDE_FRES_OUTSIDE);
		sf_put32(test, fres_off, 0xffffffff);
		EXPECT_BAD(test, F(2), SFRAME_R_FDE_FRES_OUTSIDE);
	}

	/* V3 attribute record cut by the end of the FRE sub-section */
	s = sf_amd64_sec(test, V3, SORTED | PCREL);
	EXPECT_INIT_OK(test, &s);
	sf_put32(test, c->lay.fde[1] + 12, c->lay.len - c->lay.fres - 3);
	EXPECT_BAD(test, F(2), SFRAME_R_FRE_OUTSIDE);
	/* FRE sub-section shorter than its FREs */
	EXPECT_INIT_OK(test, &s);
	sf_put32(test, H_FRE_LEN, c->lay.len - c->lay.fres - 1);
	EXPECT_REINIT(test, 0, SFRAME_R_NONE);
	EXPECT_BAD(test, F(3) + 0x17, SFRAME_R_FRE_OUTSIDE);

	/* V2: an FRE count within the limit must end at the section end */
	s = sf_amd64_sec(test, V2, SORTED | PCREL);
	EXPECT_INIT_OK(test, &s);
	sf_put32(test, c->lay.fde[2] + 12, SFRAME_FDE_MAX_FRES);
	EXPECT_BAD(test, F(3) + 0x17, SFRAME_R_FRE_OUTSIDE);
	EXPECT_INVALID(test, SFRAME_R_FRE_OUTSIDE);
	/* and a huge one is refused before any FRE is read */
	sf_put32(test, c->lay.fde[2] + 12, 0xffffffff);
	EXPECT_BAD(test, F(3) + 0x17, SFRAME_R_FRE_LIMIT);
	EXPECT_INVALID(test, SFRAME_R_FRE_LIMIT);
}

/*
 * An FRE header or a V3 attribute record that ends one byte past the FRE
 * sub-section, with section bytes after it: the section is corrupt
 * (-EBADMSG), it is not a short read (-EFAULT).
 */
static void test_fre_straddles_end(struct kunit *test)
{
	struct sf_ctx *c = test->priv;
	struct sfb_sec s;
	int v;

	for (v = V2; v <= V3; v++) {
		s = sf_amd64_sec(test, v, SORTED | PCREL);
		EXPECT_INIT_OK(test, &s);
		/* the sub-section ends after the first byte of the last FRE */
		sf_put32(test, H_FRE_LEN, c->lay.fre[2][1] + 1 - c->lay.fres);
		EXPECT_REINIT(test, 0, SFRAME_R_NONE);
		EXPECT_BAD(test, F(3) + 0x10, SFRAME_R_FRE_OUTSIDE);
		EXPECT_BAD(test, F(3) + 0x17, SFRAME_R_FRE_OUTSIDE);
		EXPECT_RULE(test, F(2) + 4, "cfa=r6+16 ra=[cfa-8] fp=[cfa-16]");
		/*
		 * and so does the section: the same, and no byte past it is
		 * read (the harness's user access window checks it)
		 */
		KUNIT_EXPECT_EQ(test, sf_init_len(test, c->lay.fre[2][1] + 1), 0);
		EXPECT_BAD(test, F(3) + 0x10, SFRAME_R_FRE_OUTSIDE);
		EXPECT_RULE(test, F(2) + 4, "cfa=r6+16 ra=[cfa-8] fp=[cfa-16]");
	}
	/* the attribute record of the last function ends 1 byte too late */
	sf_put32(test, H_FRE_LEN, c->lay.fde_data[2] + 4 - c->lay.fres);
	EXPECT_REINIT(test, 0, SFRAME_R_NONE);
	EXPECT_BAD(test, F(3) + 0x10, SFRAME_R_FRE_OUTSIDE);
	EXPECT_RULE(test, F(2) + 4, "cfa=r6+16 ra=[cfa-8] fp=[cfa-16]");
	/* and so does the section */
	KUNIT_EXPECT_EQ(test, sf_init_len(test, c->lay.fde_data[2] + 4), 0);
	EXPECT_BAD(test, F(3) + 0x10, SFRAME_R_FRE_OUTSIDE);
	EXPECT_RULE(test, F(2) + 4, "cfa=r6+16 ra=[cfa-8] fp=[cfa-16]");
}

/*
 * An FRE longer than a rule uses (15 words of 4 bytes) in a function
 * whose FREs the scan reads without a check per FRE: the scan starts
 * again with the checks, so that the next FRE is still checked against
 * the sub-section's end
 */
static void test_fre_long_fast(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 15, W4), { 8 } },
		{ 1, FRE_INFO(SP, 1, W1), { 8 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 4, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	struct sf_ctx *c = test->priv;
	struct sframe_rule r;

	EXPECT_INIT_OK(test, &s);
	EXPECT_BAD(test, F(1), SFRAME_R_BAD_DATAWORD_COUNT);
	EXPECT_RANGE(test, F(1) + 1, F(1) + 4, "cfa=r7+8 ra=[cfa-8] fp=same");
	/* 1 FRE read without checks, then both with them */
	KUNIT_EXPECT_EQ(test, sframe_find(&c->sec, F(1) + 1, &r, &c->why), 0);
	KUNIT_EXPECT_EQ(test, r.fres_read, 3U);
	/* the sub-section ends 1 byte before the second FRE does */
	sf_put32(test, H_FRE_LEN, c->lay.fre[0][1] + 2 - c->lay.fres);
	EXPECT_REINIT(test, 0, SFRAME_R_NONE);
	EXPECT_BAD(test, F(1) + 1, SFRAME_R_FRE_OUTSIDE);
	EXPECT_BAD(test, F(1), SFRAME_R_FRE_OUTSIDE);
}

/*
 * A function whose FREs end the sub-section, too many to fit there at
 * the length a rule uses: the scan checks each FRE's bytes against the
 * sub-section's end.  The last FRE is the largest with 1-byte starts (62
 * bytes): cut 1 byte short, starting 61 bytes before the end, it must be
 * caught.
 */
static void test_fre_near_end(struct kunit *test)
{
	const u32 n = SFB_MAX_FRES;
	struct sf_ctx *c = test->priv;
	struct sfb_fde fdes[1];
	struct sfb_fre *fres;
	char exp[48];
	u32 i, v;

	/* Not on the stack: the test's frame would exceed 2 KiB on UML */
	fres = kunit_kcalloc(test, n, sizeof(*fres), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fres);
	/* 1-byte starts, two 4-byte data words: 10 bytes per FRE */
	for (i = 0; i < n; i++)
		fres[i] = (struct sfb_fre){ 4 * i, FRE_INFO(SP, 2, W4),
					    { 16 + 8 * i, -16 } };
	/* and the last one with 15 of them: 62 bytes */
	fres[n - 1].info = FRE_INFO(SP, 15, W4);
	for (v = V2; v <= V3; v++) {
		struct sfb_sec s = { v, SORTED | PCREL, AMD64, 0, -8, 0,
				     1, fdes };

		fdes[0] = (struct sfb_fde){ F(1), 4 * n, FDE_INFO(A1, INC),
					    0, 0, .nfres = n, .fres = fres };
		EXPECT_INIT_OK(test, &s);
		for (i = 0; i < n - 1; i++) {
			snprintf(exp, sizeof(exp),
				 "cfa=r7+%u ra=[cfa-8] fp=[cfa-16]", 16 + 8 * i);
			EXPECT_RULE(test, F(1) + 4 * i + 3, exp);
		}
		/* (too many data words for AMD64) */
		EXPECT_BAD(test, F(1) + 4 * (n - 1),
			   SFRAME_R_BAD_DATAWORD_COUNT);

		/* the sub-section ends 1 byte before the last FRE does */
		sf_put32(test, H_FRE_LEN,
			 c->lay.fre[0][n - 1] + 61 - c->lay.fres);
		EXPECT_REINIT(test, 0, SFRAME_R_NONE);
		EXPECT_BAD(test, F(1) + 4 * (n - 1), SFRAME_R_FRE_OUTSIDE);
		EXPECT_BAD(test, F(1) + 4 * (n - 2), SFRAME_R_FRE_OUTSIDE);
		snprintf(exp, sizeof(exp), "cfa=r7+%u ra=[cfa-8] fp=[cfa-16]",
			 16 + 8 * (n - 3));
		EXPECT_RULE(test, F(1) + 4 * (n - 3), exp);
		EXPECT_RULE(test, F(1), "cfa=r7+16 ra=[cfa-8] fp=[cfa-16]");
	}
}

/* ------------------------------------------------------------------ */
/* Faults */

/*
 * A section whose FREs from the second function on lie in an unmapped
 * page: what is mapped decodes, the rest is -EFAULT, never -EBADMSG.
 */
static void test_fault_straddle(struct kunit *test)
{
	struct sf_ctx *c = test->priv;
	struct sfb_sec s;
	int v;

	for (v = V2; v <= V3; v++) {
		/* Where the FREs of the second function start */
		s = sf_amd64_sec(test, v, SORTED | PCREL);
		sf_build(test, &s);
		sf_hole_base(test, c->lay.fde_data[1]);

		s = sf_amd64_sec(test, v, SORTED | PCREL);
		KUNIT_EXPECT_EQ(test, sf_hole_load(test, &s), 0);
		EXPECT_RULE(test, F(1) + 5, "cfa=r6+16 ra=[cfa-8] fp=[cfa-16]");
		EXPECT_RULE_NOFAULT(test, F(1) + 23, "cfa=r7+8 ra=[cfa-8] fp=same");
		EXPECT_FIND(test, F(2), -EFAULT, SFRAME_R_NONE);
		EXPECT_FIND(test, F(3) + 0x17, -EFAULT, SFRAME_R_NONE);
		EXPECT_FIND_NOFAULT(test, F(2) + 4, -EFAULT, SFRAME_R_NONE);
		EXPECT_NOENT(test, F(2) + 24);
		EXPECT_VALIDATE(test, -EFAULT, SFRAME_R_NONE);
	}
}

static void test_nofault(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED | PCREL);
	struct sf_ctx *c = test->priv;
	struct sframe_section fresh;
	char got[SFB_RULE_LEN];
	struct sframe_rule r;
	unsigned long page;
	bool nested;
	int ret;

	/* Memory written by copy_to_user() is present */
	EXPECT_INIT_OK(test, &s);
	EXPECT_RULE_NOFAULT(test, F(1) + 5, "cfa=r6+16 ra=[cfa-8] fp=[cfa-16]");
	KUNIT_EXPECT_FALSE(test, pagefault_disabled());
	EXPECT_FIND_NOFAULT(test, F(1) - 1, -ENOENT, SFRAME_R_NONE);
	KUNIT_EXPECT_FALSE(test, pagefault_disabled());

	/* Nested in an outer pagefault_disable() */
	pagefault_disable();
	ret = sframe_find_nofault(&c->sec, F(2), &r, &c->why);
	nested = pagefault_disabled();
	pagefault_enable();
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, nested);
	KUNIT_EXPECT_STREQ(test, sfb_rulefmt(&r, got, sizeof(got)),
			   "cfa=r7+8 ra=[cfa-8] fp=same");

	/*
	 * The same section moved to a never touched page of a new anonymous
	 * mapping: not present, and the lookup may not fault it in.
	 */
	page = sf_vm_mmap(test, PAGE_SIZE);
	fresh = c->sec;
	fresh.sframe_start = page;
	fresh.sframe_end = page + c->lay.len;
	fresh.fdes_start = page + c->lay.fdes;
	fresh.fres_start = page + c->lay.fres;
	fresh.fres_end = page + c->lay.len;
	ret = sframe_find_nofault(&fresh, F(1) + 5, &r, &c->why);
	KUNIT_EXPECT_EQ(test, ret, -EFAULT);
	KUNIT_EXPECT_EQ(test, c->why, SFRAME_R_NONE);
	KUNIT_EXPECT_FALSE(test, pagefault_disabled());
	/* sframe_find() faults it in: zeroes, no function covers the PC */
	KUNIT_EXPECT_EQ(test, sframe_find(&fresh, F(1) + 5, &r, &c->why), -ENOENT);
	KUNIT_EXPECT_EQ(test, sframe_find_nofault(&fresh, F(1) + 5, &r, &c->why),
			-ENOENT);
}

/* ------------------------------------------------------------------ */
/* Validation */

static void test_validate_unsorted(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
		{ F(3), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
		{ F(2), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	int v;

	for (v = V2; v <= V3; v++) {
		s.version = v;
		EXPECT_INIT_OK(test, &s);
		EXPECT_INVALID(test, SFRAME_R_FDES_NOT_SORTED);
		s.flags = SORTED;
		EXPECT_INIT_OK(test, &s);
		EXPECT_INVALID(test, SFRAME_R_FDES_NOT_SORTED);
		s.flags = SORTED | PCREL;
	}
}

static void test_validate_func_range(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
	};
	struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
		{ F(2), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };

	fdes[1].func = TEXT_END - 4;
	EXPECT_INIT_OK(test, &s);
	EXPECT_INVALID(test, SFRAME_R_FUNC_OUTSIDE_TEXT);
	fdes[1].func = TEXT_END - 8;
	EXPECT_INIT_OK(test, &s);
	EXPECT_VALID(test);
	fdes[0].func = TEXT_START - 8;
	EXPECT_INIT_OK(test, &s);
	EXPECT_INVALID(test, SFRAME_R_FUNC_OUTSIDE_TEXT);
	fdes[0].func = F(1);
	fdes[1].func = ULONG_MAX - 3;
	EXPECT_INIT_OK(test, &s);
	EXPECT_INVALID(test, SFRAME_R_FUNC_RANGE);
}

static void test_validate_fre_beyond(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 8, FRE_INFO(SP, 1, W1), { 16 } },
	};
	struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };

	EXPECT_INIT_OK(test, &s);
	EXPECT_RANGE(test, F(1), F(1) + 8, "cfa=r7+8 ra=[cfa-8] fp=same");
	EXPECT_INVALID(test, SFRAME_R_FRE_BEYOND_FUNC);
	fdes[0].size = 9;
	EXPECT_INIT_OK(test, &s);
	EXPECT_VALID(test);
	/* PCTYPE_MASK: FREs must start inside the repeated block */
	fdes[0] = (struct sfb_fde){ F(1), 32, FDE_INFO(A1, MASK), 0, 8, FRES(fres) };
	EXPECT_INIT_OK(test, &s);
	EXPECT_INVALID(test, SFRAME_R_FRE_BEYOND_FUNC);
	fdes[0].rep_size = 9;
	EXPECT_INIT_OK(test, &s);
	EXPECT_VALID(test);
}

/* Errors in FREs that lookups before them do not reach */
static void test_validate_late_errors(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 4, FRE_INFO(SP, 2, W2), { 16, -16 } },
	};
	const struct sfb_fde fdes[] = {
		{ F(1), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
		{ F(2), 8, FDE_INFO(A1, INC), 0, 0, FRES(fres) },
	};
	struct sfb_sec s = { V3, SORTED | PCREL, AMD64, 0, -8, 0, FDES(fdes) };
	struct sf_ctx *c = test->priv;

	EXPECT_INIT_OK(test, &s);
	EXPECT_VALID(test);
	/* same length, 4 words for AMD64 */
	sf_put8(test, c->lay.fre[1][1] + 1, FRE_INFO(SP, 4, W1));
	EXPECT_RULE(test, F(2), "cfa=r7+8 ra=[cfa-8] fp=same");
	EXPECT_INVALID(test, SFRAME_R_BAD_DATAWORD_COUNT);

	EXPECT_INIT_OK(test, &s);
	sf_put8(test, c->lay.fre[1][1], 0);
	EXPECT_INVALID(test, SFRAME_R_FRE_NOT_INCREASING);
}

static void test_validate_fre_count(struct kunit *test)
{
	struct sfb_sec s;
	int v;

	for (v = V2; v <= V3; v++) {
		s = sf_amd64_sec(test, v, SORTED | PCREL);
		EXPECT_INIT_OK(test, &s);
		sf_put32(test, H_NUM_FRES, 9);
		EXPECT_REINIT(test, 0, SFRAME_R_NONE);
		sf_check_amd64_rules(test);
		EXPECT_INVALID(test, SFRAME_R_FRE_COUNT);
		sf_put32(test, H_NUM_FRES, 11);
		EXPECT_REINIT(test, 0, SFRAME_R_NONE);
		EXPECT_INVALID(test, SFRAME_R_FRE_COUNT);
	}
}

static void test_reason_strings(struct kunit *test)
{
	unsigned int i, j;

	for (i = 0; i < SFRAME_NR_REASONS; i++) {
		const char *s = sframe_reason_str((enum sframe_reason)i);

		KUNIT_ASSERT_NOT_NULL(test, s);
		KUNIT_EXPECT_NE(test, s[0], '\0');
		KUNIT_EXPECT_STRNEQ(test, s, "unknown reason");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, s,
					    sframe_reason_str((enum sframe_reason)j));
	}
	KUNIT_EXPECT_STREQ(test, sframe_reason_str(SFRAME_NR_REASONS),
			   "unknown reason");
	KUNIT_EXPECT_STREQ(test, sframe_reason_str((enum sframe_reason)-1),
			   "unknown reason");
	KUNIT_EXPECT_STREQ(test, sframe_reason_str(SFRAME_R_FDES_NOT_SORTED),
			   "FDEs not sorted");
	KUNIT_EXPECT_STREQ(test, sframe_reason_str(SFRAME_R_FRE_OUTSIDE),
			   "FRE outside section");
}

/* The reason pointer is optional */
static void test_null_reason(struct kunit *test)
{
	struct sfb_sec s = sf_amd64_sec(test, V3, SORTED | PCREL);
	struct sf_ctx *c = test->priv;
	struct sframe_rule r;

	sf_load(test, &s);
	KUNIT_EXPECT_EQ(test, sframe_section_init(&c->sec, NULL), 0);
	KUNIT_EXPECT_EQ(test, sframe_find(&c->sec, F(1), &r, NULL), 0);
	KUNIT_EXPECT_EQ(test, sframe_find_nofault(&c->sec, F(1) - 1, &r, NULL),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, sframe_validate(&c->sec, NULL), 0);
	sf_put8(test, H_VERSION, 1);
	KUNIT_EXPECT_EQ(test, sframe_section_init(&c->sec, NULL), -EBADMSG);
}

/* ------------------------------------------------------------------ */
/* The FDE index */

/* The same result at @pc with and without the section's index */
static void sf_expect_index_same(struct kunit *test, int line,
				 unsigned long pc)
{
	struct sf_ctx *c = test->priv;
	struct sframe_fde_index *index = c->sec.fde_index;
	struct sframe_rule a = {}, b = {};
	enum sframe_reason ra, rb;
	int reta, retb;

	c->sec.fde_index = NULL;
	reta = sframe_find(&c->sec, pc, &a, &ra);
	c->sec.fde_index = index;
	retb = sframe_find(&c->sec, pc, &b, &rb);
	if (reta != retb || ra != rb ||
	    (!reta && (a.func_start != b.func_start ||
		       a.func_size != b.func_size ||
		       a.fre_start != b.fre_start ||
		       a.fres_read != b.fres_read ||
		       a.cfa.off != b.cfa.off || a.flags != b.flags)))
		KUNIT_FAIL(test,
			   "line %d: find(%#lx) = %d func %#lx fre %#x, with the index (shift %u) %d func %#lx fre %#x",
			   line, pc, reta, a.func_start, a.fre_start,
			   index->shift, retb, b.func_start, b.fre_start);
}

#define EXPECT_INDEX_SAME(test, pc) sf_expect_index_same(test, __LINE__, pc)

/* Through the index: -ENOENT, or the rule of a function containing @pc */
static void sf_expect_index_sane(struct kunit *test, int line,
				 unsigned long pc)
{
	struct sf_ctx *c = test->priv;
	struct sframe_rule r = {};
	int ret = sframe_find(&c->sec, pc, &r, &c->why);

	if (ret ? ret != -ENOENT :
		  pc < r.func_start || pc - r.func_start >= r.func_size)
		KUNIT_FAIL(test, "line %d: find(%#lx) = %d func %#lx size %u",
			   line, pc, ret, r.func_start, r.func_size);
}

#define EXPECT_INDEX_SANE(test, pc) sf_expect_index_sane(test, __LINE__, pc)

/*
 * Build the index of the current section with blocks of 1 << @shift bytes
 * and check each entry: the last of @fdes that starts at or before its
 * block, or 0
 */
static struct sframe_fde_index *sf_index(struct kunit *test, u8 shift,
					 const struct sfb_fde *fdes, u32 n)
{
	struct sf_ctx *c = test->priv;
	struct sframe_fde_index *index;
	unsigned long bs;
	u32 blocks, b, i;

	blocks = ((c->sec.text_end - c->sec.text_start - 1) >> shift) + 1;
	index = kunit_kzalloc(test, struct_size(index, from, blocks),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, index);
	index->nr = blocks;
	index->base_off = 0;
	index->shift = shift;
	KUNIT_ASSERT_EQ(test, sframe_index_build(&c->sec, index, &c->why), 0);
	KUNIT_EXPECT_EQ(test, c->why, SFRAME_R_NONE);
	for (b = 0; b < blocks; b++) {
		bs = c->sec.text_start + ((unsigned long)b << shift);
		for (i = n - 1; i && fdes[i].func > bs; i--)
			;
		KUNIT_EXPECT_EQ(test, index->from[b], i);
	}
	return index;
}

/*
 * A lookup through the FDE index finds what the binary search of the
 * whole table finds, at the edges of every function and of the blocks,
 * whatever the block size and the FDE layout; the index is made for its
 * section's text; a table that changes after the index was made is still
 * read with every check; an unsorted table gets no index.
 */
static void test_fde_index(struct kunit *test)
{
	static const struct sfb_fre fre[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 1, FRE_INFO(SP, 1, W1), { 16 } },
	};
	static const u8 shifts[] = { 6, 10, 12, 14, 16, 19 };
	static const u8 layouts[][2] = {
		{ V3, SORTED | PCREL }, { V3, SORTED },
		{ V2, SORTED | PCREL }, { V2, SORTED },
	};
	struct sf_ctx *c = test->priv;
	struct sframe_fde_index *index;
	unsigned long f, bs;
	struct sfb_fde *fdes;
	u32 i, b, n = SFB_MAX_FDES, blocks, size;
	unsigned int k, l;
	struct sfb_sec s;
	u8 shift;

	fdes = kunit_kcalloc(test, n, sizeof(*fdes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fdes);
	/*
	 * Half of the functions packed in the first 3 KiB (sizes 1 to 96,
	 * gaps 0 to 15), the other half spread over the text (gaps of 5 to
	 * 25 KiB): blocks of many functions and blocks of none
	 */
	for (i = 0, f = F(0) + 3; i < n; i++) {
		size = 1 + (i * 37) % 96;
		fdes[i] = (struct sfb_fde){ f, size, FDE_INFO(A1, INC), 0, 0,
					    FRES(fre) };
		f += size + (i < n / 2 ? (i * 11) % 16 : 0x1400 * (1 + i % 5));
	}
	KUNIT_ASSERT_LT(test, f, TEXT_END - 0x123);

	for (l = 0; l < ARRAY_SIZE(layouts); l++) {
		s = (struct sfb_sec){ layouts[l][0], layouts[l][1], AMD64, 0,
				      -8, 0, n, fdes };
		EXPECT_INIT_OK(test, &s);
		/* 80 FDEs, at most 40 blocks over 1 MiB: 32 KiB each */
		blocks = sframe_index_blocks(&c->sec, c->sec.text_start,
					     c->sec.text_end, &shift);
		KUNIT_EXPECT_EQ(test, blocks, 32U);
		KUNIT_EXPECT_EQ(test, shift, 15);
		/* A text end off the blocks: the last block is partial */
		c->sec.text_end = TEXT_END - 0x123;

		/*
		 * The section's own index covers its functions, from the
		 * first one's start to the last one's end: 37 blocks of 16
		 * KiB over their 579 KiB.  The text starts 2 blocks before
		 * the first function, as a segment's headers and read-only
		 * data may: a lookup that counted blocks from there would
		 * search the wrong ones.
		 */
		c->sec.text_start = fdes[0].func - 0x8000;
		KUNIT_ASSERT_EQ(test, sframe_index_attach(&c->sec, &c->why), 0);
		index = c->sec.fde_index;
		KUNIT_ASSERT_NOT_NULL(test, index);
		KUNIT_EXPECT_EQ(test, c->sec.text_start + index->base_off,
				fdes[0].func);
		KUNIT_EXPECT_EQ(test, index->nr,
				sframe_index_blocks(&c->sec, fdes[0].func,
						    fdes[n - 1].func +
						    fdes[n - 1].size, &shift));
		KUNIT_EXPECT_EQ(test, index->nr, 37U);
		KUNIT_EXPECT_EQ(test, index->shift, 14);
		for (i = 0; i < n; i++) {
			f = fdes[i].func;
			EXPECT_INDEX_SAME(test, f - 1);
			EXPECT_INDEX_SAME(test, f);
			EXPECT_INDEX_SAME(test, f + fdes[i].size);
		}
		EXPECT_NOENT(test, TEXT_START);
		EXPECT_NOENT(test, c->sec.text_end - 1);
		c->sec.fde_index = NULL;
		sframe_index_put(index);
		c->sec.text_start = TEXT_START;

		for (k = 0; k < ARRAY_SIZE(shifts); k++) {
			index = sf_index(test, shifts[k], fdes, n);
			c->sec.fde_index = index;
			for (i = 0; i < n; i++) {
				f = fdes[i].func;
				EXPECT_INDEX_SAME(test, f - 1);
				EXPECT_INDEX_SAME(test, f);
				EXPECT_INDEX_SAME(test, f + fdes[i].size - 1);
				EXPECT_INDEX_SAME(test, f + fdes[i].size);
				EXPECT_AT(test, f, f, fdes[i].size, 0);
			}
			/* The blocks of the functions, and the last ones */
			for (b = 0; b < index->nr; b++) {
				if (b > 64 && b + 2 < index->nr)
					continue;
				bs = TEXT_START + ((unsigned long)b << shifts[k]);
				if (b)
					EXPECT_INDEX_SAME(test, bs - 1);
				EXPECT_INDEX_SAME(test, bs);
				EXPECT_INDEX_SAME(test, bs + 1);
			}
			EXPECT_NOENT(test, TEXT_START);
			EXPECT_NOENT(test, c->sec.text_end - 1);
			EXPECT_NOENT(test, c->sec.text_end);
			c->sec.fde_index = NULL;
		}
	}

	/* The index is made for the section's blocks: -EINVAL otherwise */
	index->nr++;
	KUNIT_EXPECT_EQ(test, sframe_index_build(&c->sec, index, NULL), -EINVAL);
	index->nr--;
	index->base_off = ULONG_MAX;	/* before the text */
	KUNIT_EXPECT_EQ(test, sframe_index_build(&c->sec, index, NULL), -EINVAL);
	index->base_off = c->sec.text_end - c->sec.text_start;
	KUNIT_EXPECT_EQ(test, sframe_index_build(&c->sec, index, NULL), -EINVAL);
	index->base_off = 0;
	index->shift = BITS_PER_LONG;
	KUNIT_EXPECT_EQ(test, sframe_index_build(&c->sec, index, NULL), -EINVAL);

	/*
	 * The table changes in user memory after the index was made (every
	 * function moved up by 8 bytes): what a lookup finds through the
	 * index is still checked, a PC outside the function it found gets
	 * -ENOENT
	 */
	index = sf_index(test, 10, fdes, n);
	for (i = 0; i < n; i++)
		fdes[i].func += 8;
	sf_build(test, &s);
	sf_upload(test, 0, c->lay.len);
	c->sec.fde_index = index;
	for (i = 0; i < n; i++) {
		f = fdes[i].func;
		EXPECT_INDEX_SANE(test, f - 8);
		EXPECT_INDEX_SANE(test, f);
		EXPECT_INDEX_SANE(test, f + fdes[i].size - 1);
	}
	/* An index of another section still keeps the search in the table */
	c->sec.num_fdes = 3;
	for (i = 0; i < n; i++)
		EXPECT_INDEX_SANE(test, fdes[i].func);
	c->sec.fde_index = NULL;

	/* Unsorted: the first two functions swapped */
	swap(fdes[0], fdes[1]);
	EXPECT_INIT_OK(test, &s);
	c->sec.text_end = TEXT_END - 0x123;
	KUNIT_EXPECT_EQ(test, sframe_index_build(&c->sec, index, &c->why),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, c->why, SFRAME_R_FDES_NOT_SORTED);

	/*
	 * Too few FDEs for an index of blocks: the starts of the functions,
	 * through which a lookup finds what the whole table's search finds
	 */
	swap(fdes[0], fdes[1]);
	s.nfdes = SFRAME_INDEX_MIN_FDES - 1;
	EXPECT_INIT_OK(test, &s);
	KUNIT_EXPECT_EQ(test, sframe_index_blocks(&c->sec, c->sec.text_start,
						  c->sec.text_end, &shift), 0U);
	KUNIT_ASSERT_EQ(test, sframe_index_attach(&c->sec, &c->why), 0);
	index = c->sec.fde_index;
	KUNIT_ASSERT_NOT_NULL(test, index);
	KUNIT_EXPECT_TRUE(test, index->starts);
	KUNIT_EXPECT_EQ(test, index->nr, SFRAME_INDEX_MIN_FDES);
	KUNIT_EXPECT_EQ(test, c->sec.text_start + index->base_off,
			fdes[0].func);
	KUNIT_EXPECT_EQ(test, index->from[s.nfdes], U32_MAX);
	for (i = 0; i < s.nfdes; i++) {
		f = fdes[i].func;
		KUNIT_EXPECT_EQ(test, index->from[i], f - fdes[0].func);
		EXPECT_INDEX_SAME(test, f - 1);
		EXPECT_INDEX_SAME(test, f);
		EXPECT_INDEX_SAME(test, f + fdes[i].size - 1);
		EXPECT_INDEX_SAME(test, f + fdes[i].size);
		EXPECT_AT(test, f, f, fdes[i].size, 0);
	}
	EXPECT_NOENT(test, TEXT_START);
	EXPECT_NOENT(test, c->sec.text_end - 1);
	/* Starts of another section: the search stays in the table */
	c->sec.num_fdes = 3;
	for (i = 0; i < s.nfdes; i++)
		EXPECT_INDEX_SANE(test, fdes[i].func);
	c->sec.fde_index = NULL;
	sframe_index_put(index);

	/* Starts are made in a table of SFRAME_INDEX_MIN_FDES: -EINVAL else */
	index = kunit_kzalloc(test, struct_size(index, from, 2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, index);
	index->nr = 2;
	index->base_off = 0;
	index->starts = true;
	KUNIT_EXPECT_EQ(test, sframe_index_build(&c->sec, index, NULL), -EINVAL);

	/* One FDE: no index */
	s.nfdes = 1;
	EXPECT_INIT_OK(test, &s);
	KUNIT_EXPECT_EQ(test, sframe_index_attach(&c->sec, &c->why), 0);
	KUNIT_EXPECT_NULL(test, c->sec.fde_index);
}

/* ------------------------------------------------------------------ */

static int sframe_test_init(struct kunit *test)
{
	struct sf_ctx *c;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	c->buf = kunit_kzalloc(test, SF_BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->buf);
	test->priv = c;
	sf_set_base(test, sf_vm_mmap(test, SF_BUF_SIZE));
	return 0;
}

static struct kunit_case sframe_test_cases[] = {
	KUNIT_CASE(test_init_v3),
	KUNIT_CASE(test_init_v2),
	KUNIT_CASE(test_bad_magic),
	KUNIT_CASE(test_versions),
	KUNIT_CASE(test_flags),
	KUNIT_CASE(test_abi),
	KUNIT_CASE(test_truncated_header),
	KUNIT_CASE(test_bad_ranges),
	KUNIT_CASE(test_auxhdr),
	KUNIT_CASE(test_offsets_beyond),
	KUNIT_CASE(test_offsets_overflow),
	KUNIT_CASE(test_header_fault),
	KUNIT_CASE(test_amd64_v3_pcrel),
	KUNIT_CASE(test_amd64_v3_secrel),
	KUNIT_CASE(test_kernel_memory),
	KUNIT_CASE(test_amd64_v2_pcrel),
	KUNIT_CASE(test_amd64_v2_secrel),
	KUNIT_CASE(test_amd64_v3_far_text),
	KUNIT_CASE(test_empty_section),
	KUNIT_CASE(test_binary_search),
	KUNIT_CASE(test_fde_index),
	KUNIT_CASE(test_fre_addr2_addr4),
	KUNIT_CASE(test_fre_skip_lengths),
	KUNIT_CASE(test_dataword_sizes),
	KUNIT_CASE(test_pctype_mask),
	KUNIT_CASE(test_pctype_mask_odd),
	KUNIT_CASE(test_rep_size_zero),
	KUNIT_CASE(test_aarch64),
	KUNIT_CASE(test_amd64_ignores_pauth),
	KUNIT_CASE(test_fixed_fp),
	KUNIT_CASE(test_s390x),
	KUNIT_CASE(test_s390x_bad),
	KUNIT_CASE(test_flex_amd64),
	KUNIT_CASE(test_flex_s390x),
	KUNIT_CASE(test_flex_bad),
	KUNIT_CASE(test_outermost),
	KUNIT_CASE(test_flex_no_fres),
	KUNIT_CASE(test_fre_limit),
	KUNIT_CASE(test_signal),
	KUNIT_CASE(test_usual),
	KUNIT_CASE(test_bad_types),
	KUNIT_CASE(test_bad_dataword),
	KUNIT_CASE(test_dataword_count_max),
	KUNIT_CASE(test_fre_not_increasing),
	KUNIT_CASE(test_fre_equal_starts),
	KUNIT_CASE(test_pc_before_first_fre),
	KUNIT_CASE(test_fre_outside),
	KUNIT_CASE(test_fre_straddles_end),
	KUNIT_CASE(test_fre_near_end),
	KUNIT_CASE(test_fre_long_fast),
	KUNIT_CASE(test_fault_straddle),
	KUNIT_CASE(test_nofault),
	KUNIT_CASE(test_validate_unsorted),
	KUNIT_CASE(test_validate_func_range),
	KUNIT_CASE(test_validate_fre_beyond),
	KUNIT_CASE(test_validate_late_errors),
	KUNIT_CASE(test_validate_fre_count),
	KUNIT_CASE(test_reason_strings),
	KUNIT_CASE(test_null_reason),
	{}
};

static struct kunit_suite sframe_test_suite = {
	.name = "sframe",
	.init = sframe_test_init,
	.test_cases = sframe_test_cases,
};

kunit_test_suite(sframe_test_suite);

MODULE_DESCRIPTION("KUnit tests of the SFrame reader");
MODULE_LICENSE("GPL");
