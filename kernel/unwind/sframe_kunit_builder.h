/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build SFrame V2 and V3 sections from a description, and print the rules
 * that the reader returns, for the SFrame reader tests: the KUnit suite
 * (sframe_kunit.c) and the userspace harness in tools/testing/sframe
 * (unit tests, sframe_dump, sframe_diff, fuzzer), which compiles this
 * header unchanged.
 *
 * Everything is written in native byte order.  Only kernel types,
 * memcpy()/memset() and snprintf() are used.
 */
#ifndef _KERNEL_UNWIND_SFRAME_KUNIT_BUILDER_H
#define _KERNEL_UNWIND_SFRAME_KUNIT_BUILDER_H

#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/types.h>

#include "sframe_format.h"
#include "sframe_walk.h"

#define SFB_MAX_FDES	80
#define SFB_MAX_FRES	16

/* FRE info byte: CFA base (SFRAME_BASE_REG_*), word count, word size code */
#define FRE_INFO(base, count, wsize)	\
	((u8)(((wsize) << 5) | ((count) << 1) | (base)))
#define FRE_MANGLED			0x80
/* FDE info byte */
#define FDE_INFO(fre_type, pctype)	((u8)(((pctype) << 4) | (fre_type)))
#define FDE_KEY_B			0x20
#define FDE_SIGNAL			0x80
/* Flex control word */
#define FLEX_CTRL(reg, deref, reg_p)	(((reg) << 3) | ((deref) << 1) | (reg_p))

/*
 * Short names for the tables of test sections, for the files that define
 * SFB_SHORT_NAMES before including this header (the KUnit cases and the
 * fuzz seeds).
 */
#ifdef SFB_SHORT_NAMES
#define SP		SFRAME_BASE_REG_SP
#define FP		SFRAME_BASE_REG_FP
#define W1		SFRAME_FRE_DATAWORD_1B
#define W2		SFRAME_FRE_DATAWORD_2B
#define W4		SFRAME_FRE_DATAWORD_4B
#define A1		SFRAME_FRE_TYPE_ADDR1
#define A2		SFRAME_FRE_TYPE_ADDR2
#define A4		SFRAME_FRE_TYPE_ADDR4
#define INC		SFRAME_FDE_PCTYPE_INC
#define MASK		SFRAME_FDE_PCTYPE_MASK
#define V2		SFRAME_VERSION_2
#define V3		SFRAME_VERSION_3
#define SORTED		SFRAME_F_FDE_SORTED
#define PCREL		SFRAME_F_FDE_FUNC_START_PCREL
#define AMD64		SFRAME_ABI_AMD64_ENDIAN_LITTLE
#define ARM64		SFRAME_ABI_AARCH64_ENDIAN_LITTLE
#define S390X		SFRAME_ABI_S390X_ENDIAN_BIG
#define FLEX		SFRAME_FDE_TYPE_FLEX
#define CTRL(r, d, p)	FLEX_CTRL(r, d, p)
#endif

/**
 * struct sfb_fre - an FRE to build
 * @start:	start address, relative to the function (or repeated block)
 * @info:	FRE info byte, see FRE_INFO()
 * @w:		data words; as many as the info byte says are written
 */
struct sfb_fre {
	u32	start;
	u8	info;
	s64	w[SFRAME_FRE_MAX_DATAWORDS];
};

/**
 * struct sfb_fde - a function to build
 * @func:	function start address
 * @size:	function size
 * @info:	FDE info byte, see FDE_INFO()
 * @info2:	V3 only: FDE info2 byte (FDE type)
 * @rep_size:	repetition block size, for SFRAME_FDE_PCTYPE_MASK
 * @nfres:	number of FREs
 * @fres:	the FREs
 */
struct sfb_fde {
	unsigned long		func;
	u32			size;
	u8			info;
	u8			info2;
	u8			rep_size;
	u32			nfres;
	const struct sfb_fre	*fres;
};

/**
 * struct sfb_sec - a section to build
 * @version:	SFRAME_VERSION_2 or SFRAME_VERSION_3
 * @flags:	header flags
 * @abi:	header ABI
 * @fixed_fp:	header fixed FP offset
 * @fixed_ra:	header fixed RA offset
 * @auxlen:	length of the auxiliary header (filled with 0xa5)
 * @nfdes:	number of functions
 * @fdes:	the functions, in FDE table order
 */
struct sfb_sec {
	u8			version;
	u8			flags;
	u8			abi;
	s8			fixed_fp;
	s8			fixed_ra;
	u8			auxlen;
	u32			nfdes;
	const struct sfb_fde	*fdes;
};

/**
 * struct sfb_layout - where things ended up, as offsets from the section start
 * @len:	length of the whole section
 * @fdes:	FDE table
 * @fres:	FRE sub-section
 * @fde:	FDE table entries
 * @fde_data:	V3: attribute record of each FDE; V2: its first FRE
 * @fre:	FREs of each FDE
 */
struct sfb_layout {
	size_t	len;
	size_t	fdes;
	size_t	fres;
	size_t	fde[SFB_MAX_FDES];
	size_t	fde_data[SFB_MAX_FDES];
	size_t	fre[SFB_MAX_FDES][SFB_MAX_FRES];
};

/* Header field offsets */
#define H_MAGIC		0
#define H_VERSION	2
#define H_FLAGS		3
#define H_ABI		4
#define H_FIXED_FP	5
#define H_FIXED_RA	6
#define H_AUXLEN	7
#define H_NUM_FDES	8
#define H_NUM_FRES	12
#define H_FRE_LEN	16
#define H_FDEOFF	20
#define H_FREOFF	24

static inline void sfb_put8(u8 *p, u8 v)
{
	*p = v;
}

static inline void sfb_put16(u8 *p, u16 v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void sfb_put32(u8 *p, u32 v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void sfb_put64(u8 *p, u64 v)
{
	memcpy(p, &v, sizeof(v));
}

/* Write @v in @size bytes (1, 2 or 4) */
static inline void sfb_put_sized(u8 *p, unsigned int size, u64 v)
{
	switch (size) {
	case 1:
		sfb_put8(p, v);
		break;
	case 2:
		sfb_put16(p, v);
		break;
	default:
		sfb_put32(p, v);
		break;
	}
}

/**
 * sfb_build() - emit an SFrame section
 * @s:		the section to build
 * @base:	user address at which the section will be
 * @out:	output buffer
 * @cap:	size of @out
 * @lay:	where things ended up
 *
 * Return: the length of the section, or 0 if it does not fit in @out or
 * has more than SFB_MAX_FDES functions.
 */
static inline size_t sfb_build(const struct sfb_sec *s, unsigned long base,
			       u8 *out, size_t cap, struct sfb_layout *lay)
{
	size_t hdr_end = sizeof(struct sframe_header) + s->auxlen;
	size_t fde_size = s->version == SFRAME_VERSION_2 ?
			  sizeof(struct sframe_fde_v2) :
			  sizeof(struct sframe_fde_v3);
	size_t fdes = hdr_end, fres = fdes + s->nfdes * fde_size, pos;
	u32 num_fres = 0, i, j, k;

	if (s->nfdes > SFB_MAX_FDES || fres > cap)
		return 0;
	memset(out, 0, cap);
	memset(lay, 0, sizeof(*lay));

	/* FRE sub-section first: the FDEs need the offsets */
	pos = fres;
	for (i = 0; i < s->nfdes; i++) {
		const struct sfb_fde *f = &s->fdes[i];
		unsigned int asize = 1U << SFRAME_FDE_INFO_FRE_TYPE(f->info);

		if (asize > 4)
			asize = 4;
		lay->fde_data[i] = pos;
		if (s->version == SFRAME_VERSION_3) {
			if (pos + sizeof(struct sframe_fda_v3) > cap)
				return 0;
			sfb_put16(out + pos, f->nfres);
			sfb_put8(out + pos + 2, f->info);
			sfb_put8(out + pos + 3, f->info2);
			sfb_put8(out + pos + 4, f->rep_size);
			pos += sizeof(struct sframe_fda_v3);
		}
		for (j = 0; j < f->nfres; j++) {
			const struct sfb_fre *r = &f->fres[j];
			unsigned int n = SFRAME_FRE_INFO_DATAWORD_COUNT(r->info);
			unsigned int ws = 1U << SFRAME_FRE_INFO_DATAWORD_SIZE(r->info);

			if (ws > 4)
				ws = 4;
			if (j < SFB_MAX_FRES)
				lay->fre[i][j] = pos;
			if (pos + asize + 1 + n * ws > cap)
				return 0;
			sfb_put_sized(out + pos, asize, r->start);
			pos += asize;
			out[pos++] = r->info;
			for (k = 0; k < n; k++, pos += ws)
				sfb_put_sized(out + pos, ws, r->w[k]);
		}
		num_fres += f->nfres;
	}

	for (i = 0; i < s->nfdes; i++) {
		const struct sfb_fde *f = &s->fdes[i];
		size_t at = fdes + i * fde_size;
		unsigned long from = base;

		if (s->flags & SFRAME_F_FDE_FUNC_START_PCREL)
			from = base + at;
		lay->fde[i] = at;
		if (s->version == SFRAME_VERSION_2) {
			sfb_put32(out + at, (u32)(f->func - from));
			sfb_put32(out + at + 4, f->size);
			sfb_put32(out + at + 8, lay->fde_data[i] - fres);
			sfb_put32(out + at + 12, f->nfres);
			sfb_put8(out + at + 16, f->info);
			sfb_put8(out + at + 17, f->rep_size);
		} else {
			sfb_put64(out + at, (u64)(f->func - from));
			sfb_put32(out + at + 8, f->size);
			sfb_put32(out + at + 12, lay->fde_data[i] - fres);
		}
	}

	sfb_put16(out + H_MAGIC, SFRAME_MAGIC);
	sfb_put8(out + H_VERSION, s->version);
	sfb_put8(out + H_FLAGS, s->flags);
	sfb_put8(out + H_ABI, s->abi);
	sfb_put8(out + H_FIXED_FP, s->fixed_fp);
	sfb_put8(out + H_FIXED_RA, s->fixed_ra);
	sfb_put8(out + H_AUXLEN, s->auxlen);
	memset(out + sizeof(struct sframe_header), 0xa5, s->auxlen);
	sfb_put32(out + H_NUM_FDES, s->nfdes);
	sfb_put32(out + H_NUM_FRES, num_fres);
	sfb_put32(out + H_FRE_LEN, pos - fres);
	sfb_put32(out + H_FDEOFF, fdes - hdr_end);
	sfb_put32(out + H_FREOFF, fres - hdr_end);

	lay->len = pos;
	lay->fdes = fdes;
	lay->fres = fres;
	return pos;
}

/* Room for any sfb_rulefmt() output */
#define SFB_RULE_LEN	160

/**
 * sfb_locfmt() - print a location of a rule
 * @loc:	the location
 * @buf:	output buffer
 * @len:	size of @buf
 *
 * "undef", "same", "[cfa+N]", "cfa+N", "rR+N" or "[rR+N]"; "?K" for a
 * kind the reader never returns.
 *
 * Return: @buf.
 */
static inline char *sfb_locfmt(const struct sframe_loc *loc, char *buf,
			       size_t len)
{
	switch (loc->kind) {
	case SFRAME_LOC_UNDEFINED:
		snprintf(buf, len, "undef");
		break;
	case SFRAME_LOC_SAME:
		snprintf(buf, len, "same");
		break;
	case SFRAME_LOC_CFA_DEREF:
		snprintf(buf, len, "[cfa%+d]", loc->off);
		break;
	case SFRAME_LOC_CFA_VAL:
		snprintf(buf, len, "cfa%+d", loc->off);
		break;
	case SFRAME_LOC_REG:
		snprintf(buf, len, "r%u%+d", loc->reg, loc->off);
		break;
	case SFRAME_LOC_REG_DEREF:
		snprintf(buf, len, "[r%u%+d]", loc->reg, loc->off);
		break;
	default:
		snprintf(buf, len, "?%u", loc->kind);
		break;
	}
	return buf;
}

/**
 * sfb_rule_usual() - whether a rule is of the usual form
 * @rule:	a rule the reader gave
 *
 * The tests' own statement of SFRAME_RULE_USUAL, against which every rule
 * they get is checked: from a default FDE, neither outermost nor a signal
 * frame, the CFA a register plus an offset, RA saved at an offset from the
 * CFA, FP saved at one or unchanged.  sfb_rulefmt() does not print the
 * flag.
 *
 * Return: true if the reader must have set SFRAME_RULE_USUAL.
 */
static inline bool sfb_rule_usual(const struct sframe_rule *rule)
{
	return !(rule->flags & (SFRAME_RULE_OUTERMOST | SFRAME_RULE_SIGNAL |
				SFRAME_RULE_FLEX)) &&
	       rule->cfa.kind == SFRAME_LOC_REG &&
	       rule->ra.kind == SFRAME_LOC_CFA_DEREF &&
	       (rule->fp.kind == SFRAME_LOC_CFA_DEREF ||
		rule->fp.kind == SFRAME_LOC_SAME);
}

/**
 * sfb_rulefmt() - print a rule as one line
 * @rule:	the rule
 * @buf:	output buffer, SFB_RULE_LEN bytes are enough
 * @len:	size of @buf
 *
 * "cfa=r7+16 ra=[cfa-8] fp=same" and the flags, if any: " outermost",
 * " signal", " mangled-ra", " key-b", " flex".
 *
 * Return: @buf.
 */
static inline char *sfb_rulefmt(const struct sframe_rule *rule, char *buf,
				size_t len)
{
	char cfa[32], ra[32], fp[32];

	snprintf(buf, len, "cfa=%s ra=%s fp=%s%s%s%s%s%s",
		 sfb_locfmt(&rule->cfa, cfa, sizeof(cfa)),
		 sfb_locfmt(&rule->ra, ra, sizeof(ra)),
		 sfb_locfmt(&rule->fp, fp, sizeof(fp)),
		 rule->flags & SFRAME_RULE_OUTERMOST ? " outermost" : "",
		 rule->flags & SFRAME_RULE_SIGNAL ? " signal" : "",
		 rule->flags & SFRAME_RULE_MANGLED_RA ? " mangled-ra" : "",
		 rule->flags & SFRAME_RULE_PAUTH_KEY_B ? " key-b" : "",
		 rule->flags & SFRAME_RULE_FLEX ? " flex" : "");
	return buf;
}

/**
 * sfb_amd64_sec() - a small typical AMD64 section
 * @version:	SFRAME_VERSION_2 or SFRAME_VERSION_3
 * @flags:	header flags
 * @text:	start of the text
 * @fdes:	storage for the three functions, which the result points to
 *
 * Three functions at @text + 0x1000, + 0x2000 (24 bytes each: push %rbp;
 * mov %rsp,%rbp; ...; leave; ret) and + 0x3010 (8 bytes, two FREs).
 *
 * Return: the section description.
 */
static inline struct sfb_sec sfb_amd64_sec(u8 version, u8 flags,
					   unsigned long text,
					   struct sfb_fde fdes[3])
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SFRAME_BASE_REG_SP, 1, SFRAME_FRE_DATAWORD_1B), { 8 } },
		{ 1, FRE_INFO(SFRAME_BASE_REG_SP, 2, SFRAME_FRE_DATAWORD_1B), { 16, -16 } },
		{ 4, FRE_INFO(SFRAME_BASE_REG_FP, 2, SFRAME_FRE_DATAWORD_1B), { 16, -16 } },
		{ 20, FRE_INFO(SFRAME_BASE_REG_SP, 1, SFRAME_FRE_DATAWORD_1B), { 8 } },
	};
	static const struct sfb_fre fres_short[] = {
		{ 0, FRE_INFO(SFRAME_BASE_REG_SP, 1, SFRAME_FRE_DATAWORD_1B), { 8 } },
		{ 4, FRE_INFO(SFRAME_BASE_REG_FP, 2, SFRAME_FRE_DATAWORD_1B), { 16, -16 } },
	};
	const u8 info = FDE_INFO(SFRAME_FRE_TYPE_ADDR1, SFRAME_FDE_PCTYPE_INC);

	fdes[0] = (struct sfb_fde){ text + 0x1000, 24, info, 0, 0, 4, fres };
	fdes[1] = (struct sfb_fde){ text + 0x2000, 24, info, 0, 0, 4, fres };
	fdes[2] = (struct sfb_fde){ text + 0x3010, 8, info, 0, 0, 2, fres_short };
	return (struct sfb_sec){ version, flags, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
				 0, -8, 0, 3, fdes };
}

#endif /* _KERNEL_UNWIND_SFRAME_KUNIT_BUILDER_H */
