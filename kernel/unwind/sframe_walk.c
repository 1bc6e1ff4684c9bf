// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame reader: find the stack trace rule for a user PC.
 *
 * Every byte of the section is read from user memory by sframe_read(),
 * which checks it against the section bounds before calling
 * copy_from_user(), or copy_from_user_nofault() for
 * sframe_find_nofault().  Nothing read from the section is trusted:
 * offsets and counts are checked before use and every loop is bounded,
 * so a corrupt or hostile section makes the lookup fail with -EBADMSG,
 * never misbehave, and the work of one lookup is bounded (see
 * sframe_find()).  A fault while reading is reported as -EFAULT and is
 * never mistaken for corruption: the memory may simply not be paged in.
 *
 * The kernel only reads sections of its own architecture, so all fields
 * are read in native byte order.
 */
#include <linux/build_bug.h>
#include <linux/array_size.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>

#include "sframe_format.h"
#include "sframe_walk.h"

/*
 * How default FDEs are interpreted for an ABI: data word 0 is the CFA
 * offset, data words ra_word (if non-zero) and fp_word hold the RA and FP
 * offsets from the CFA.  A default FRE has 1 to max_words data words.
 */
struct sframe_abi {
	u8	sp;		/* DWARF number of the stack pointer */
	u8	fp;		/* DWARF number of the frame pointer */
	u8	ra_word;
	u8	fp_word;
	u8	max_words;
};

static const struct sframe_abi sframe_abis[] = {
	[SFRAME_ABI_AARCH64_ENDIAN_BIG]		= { 31, 29, 1, 2, 3 },
	[SFRAME_ABI_AARCH64_ENDIAN_LITTLE]	= { 31, 29, 1, 2, 3 },
	[SFRAME_ABI_AMD64_ENDIAN_LITTLE]	= {  7,  6, 0, 1, 2 },
	[SFRAME_ABI_S390X_ENDIAN_BIG]		= { 15, 11, 1, 2, 3 },
};

/* A flexible FRE has at most a (control, offset) pair for CFA, RA and FP */
#define SFRAME_FLEX_MAX_WORDS	6
#define SFRAME_MAX_WORDS	SFRAME_FLEX_MAX_WORDS

/*
 * FRE bytes are read through a small buffer, so that a lookup typically
 * copies the attribute record and all FREs of a function at once.
 */
#define SFRAME_CURSOR_SIZE	128

static_assert(SFRAME_FRE_MAX_SIZE <= SFRAME_CURSOR_SIZE);

struct sframe_cursor {
	unsigned long	base;	/* user address of buf[0] */
	unsigned int	len;	/* number of valid bytes in buf */
	bool		nofault;	/* read with copy_from_user_nofault() */
	u8		buf[SFRAME_CURSOR_SIZE];
};

/* An FDE, decoded from its V2 or V3 form */
struct sframe_fde {
	unsigned long	func_start;
	u32		func_size;
	u32		fres_num;
	unsigned long	fres_addr;	/* V3: the attribute record, then FREs */
	u8		info;
	u8		info2;
	u8		rep_size;
};

/* The fixed part of an FRE */
struct sframe_fre {
	unsigned long	addr;
	u32		start;
	u8		info;
	u8		len;		/* including the data words */
};

static const char * const sframe_reasons[SFRAME_NR_REASONS] = {
	[SFRAME_R_NONE]			= "no error",
	[SFRAME_R_BAD_RANGE]		= "bad section or text range",
	[SFRAME_R_TRUNCATED]		= "section truncated",
	[SFRAME_R_BAD_MAGIC]		= "bad magic",
	[SFRAME_R_VERSION_1]		= "obsolete version 1",
	[SFRAME_R_BAD_VERSION]		= "unknown version",
	[SFRAME_R_BAD_FLAGS]		= "unknown flags",
	[SFRAME_R_NOT_SORTED_FLAG]	= "FDEs not flagged sorted",
	[SFRAME_R_BAD_ABI]		= "unknown ABI",
	[SFRAME_R_NO_FIXED_RA]		= "no fixed RA offset",
	[SFRAME_R_AUXHDR_OUTSIDE]	= "auxiliary header outside section",
	[SFRAME_R_FDES_OUTSIDE]		= "FDE table outside section",
	[SFRAME_R_FRES_OUTSIDE]		= "FRE sub-section outside section",
	[SFRAME_R_FDES_OVERLAP]		= "FDE table overlaps FRE sub-section",
	[SFRAME_R_FDES_NOT_SORTED]	= "FDEs not sorted",
	[SFRAME_R_FUNC_RANGE]		= "function range overflows",
	[SFRAME_R_FUNC_OUTSIDE_TEXT]	= "function outside text",
	[SFRAME_R_FDE_FRES_OUTSIDE]	= "FDE FRE offset outside FRE sub-section",
	[SFRAME_R_BAD_FDE_TYPE]		= "unknown FDE type",
	[SFRAME_R_BAD_FRE_TYPE]		= "unknown FRE type",
	[SFRAME_R_REP_SIZE_ZERO]	= "zero repetition size",
	[SFRAME_R_FRE_OUTSIDE]		= "FRE outside section",
	[SFRAME_R_FRE_NOT_INCREASING]	= "FRE starts not increasing",
	[SFRAME_R_FRE_BEYOND_FUNC]	= "FRE start beyond function end",
	[SFRAME_R_BAD_DATAWORD_SIZE]	= "bad data word size",
	[SFRAME_R_BAD_DATAWORD_COUNT]	= "bad data word count",
	[SFRAME_R_BAD_FLEX_CTRL]	= "bad flex control word",
	[SFRAME_R_BAD_REGNUM]		= "bad register number",
	[SFRAME_R_BAD_OFFSET]		= "offset out of range",
	[SFRAME_R_FRE_COUNT]		= "FRE count mismatch",
	[SFRAME_R_FRE_LIMIT]		= "too many FREs in a function",
};

/**
 * sframe_reason_str() - name the reason why a section is corrupt
 * @reason: a reason stored by one of the sframe functions
 *
 * Return: a constant string, never NULL.
 */
const char *sframe_reason_str(enum sframe_reason reason)
{
	if ((unsigned int)reason >= SFRAME_NR_REASONS)
		return "unknown reason";
	return sframe_reasons[reason];
}

static bool sframe_abi_aarch64(const struct sframe_section *sec)
{
	return sec->abi == SFRAME_ABI_AARCH64_ENDIAN_BIG ||
	       sec->abi == SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
}

static int sframe_bad(enum sframe_reason *reason, enum sframe_reason why)
{
	if (reason)
		*reason = why;
	return -EBADMSG;
}

/*
 * sframe_read() - copy section bytes from user memory
 *
 * Copy up to @max bytes from user address @addr to @buf.  The first @min
 * bytes must lie inside the section, else the section is corrupt (@oob
 * names why); the copy stops at the end of the section.  With @nofault,
 * copy_from_user_nofault() reads all or nothing: if the @max bytes are
 * not all resident, only @min are read.
 *
 * Return: the number of bytes copied (at least @min), -EBADMSG, or -EFAULT
 * if fewer than @min bytes could be copied.
 */
static int sframe_read(const struct sframe_section *sec, unsigned long addr,
		       void *buf, unsigned int min, unsigned int max,
		       bool nofault, enum sframe_reason oob,
		       enum sframe_reason *reason)
{
	const void __user *src = (const void __user *)addr;
	unsigned long left;

	if (addr < sec->sframe_start || addr > sec->sframe_end)
		return sframe_bad(reason, oob);
	left = sec->sframe_end - addr;
	if (min > left)
		return sframe_bad(reason, oob);
	max = min_t(unsigned long, max, left);

	if (nofault) {
		if (!copy_from_user_nofault(buf, src, max))
			return max;
		if (max > min && !copy_from_user_nofault(buf, src, min))
			return min;
		return -EFAULT;
	}
	left = copy_from_user(buf, src, max);
	if (max - left < min)
		return -EFAULT;
	return max - left;
}

/*
 * Make @size bytes of the FRE sub-section at @addr available at *@p,
 * copying from user memory only if they are not buffered already.
 */
static int sframe_cursor_get(const struct sframe_section *sec,
			     struct sframe_cursor *c, unsigned long addr,
			     unsigned int size, const u8 **p,
			     enum sframe_reason *reason)
{
	int ret;

	if (addr < sec->fres_start || addr > sec->fres_end ||
	    size > sec->fres_end - addr)
		return sframe_bad(reason, SFRAME_R_FRE_OUTSIDE);

	if (addr < c->base || addr - c->base > c->len ||
	    size > c->len - (addr - c->base)) {
		unsigned int max;

		max = min_t(unsigned long, sizeof(c->buf), sec->fres_end - addr);
		c->len = 0;
		ret = sframe_read(sec, addr, c->buf, size, max, c->nofault,
				  SFRAME_R_FRE_OUTSIDE, reason);
		if (ret < 0)
			return ret;
		c->base = addr;
		c->len = ret;
	}
	*p = c->buf + (addr - c->base);
	return 0;
}

/*
 * Read the FDE table entry @idx (< sec->num_fdes).  For V3 this is the
 * index entry only: sframe_fde_attr() reads the rest.
 */
static int sframe_fde_read(const struct sframe_section *sec, u32 idx,
			   struct sframe_fde *fde, bool nofault,
			   enum sframe_reason *reason)
{
	unsigned long addr = sec->fdes_start + (unsigned long)idx * sec->fde_size;
	unsigned long base = sec->sframe_start;
	u32 fres_off;
	int ret;

	if (sec->flags & SFRAME_F_FDE_FUNC_START_PCREL)
		base = addr;

	if (sec->version == SFRAME_VERSION_2) {
		struct sframe_fde_v2 e;

		ret = sframe_read(sec, addr, &e, sizeof(e), sizeof(e), nofault,
				  SFRAME_R_FDES_OUTSIDE, reason);
		if (ret < 0)
			return ret;
		fde->func_start = base + (long)e.start_addr;
		fde->func_size = e.func_size;
		fde->fres_num = e.fres_num;
		fde->info = e.info;
		fde->info2 = SFRAME_FDE_TYPE_DEFAULT;
		fde->rep_size = e.rep_size;
		fres_off = e.fres_off;
	} else {
		struct sframe_fde_v3 e;

		ret = sframe_read(sec, addr, &e, sizeof(e), sizeof(e), nofault,
				  SFRAME_R_FDES_OUTSIDE, reason);
		if (ret < 0)
			return ret;
		fde->func_start = base + (unsigned long)e.start_off;
		fde->func_size = e.func_size;
		fres_off = e.fres_off;
	}

	if (fres_off > sec->fres_end - sec->fres_start)
		return sframe_bad(reason, SFRAME_R_FDE_FRES_OUTSIDE);
	fde->fres_addr = sec->fres_start + fres_off;
	return 0;
}

/* Complete @fde: read the V3 attribute record, check the info bytes. */
static int sframe_fde_attr(const struct sframe_section *sec,
			   struct sframe_cursor *c, struct sframe_fde *fde,
			   enum sframe_reason *reason)
{
	const u8 *p;
	int ret;

	if (sec->version == SFRAME_VERSION_3) {
		ret = sframe_cursor_get(sec, c, fde->fres_addr,
					sizeof(struct sframe_fda_v3), &p, reason);
		if (ret)
			return ret;
		fde->fres_num = get_unaligned((const u16 *)p);
		fde->info = p[offsetof(struct sframe_fda_v3, info)];
		fde->info2 = p[offsetof(struct sframe_fda_v3, info2)];
		fde->rep_size = p[offsetof(struct sframe_fda_v3, rep_size)];
		fde->fres_addr += sizeof(struct sframe_fda_v3);
	}

	if (SFRAME_FDE_INFO_FRE_TYPE(fde->info) > SFRAME_FRE_TYPE_ADDR4)
		return sframe_bad(reason, SFRAME_R_BAD_FRE_TYPE);
	if (SFRAME_V3_FDE_INFO2_TYPE(fde->info2) > SFRAME_FDE_TYPE_FLEX)
		return sframe_bad(reason, SFRAME_R_BAD_FDE_TYPE);
	if (SFRAME_FDE_INFO_PCTYPE(fde->info) == SFRAME_FDE_PCTYPE_MASK &&
	    !fde->rep_size)
		return sframe_bad(reason, SFRAME_R_REP_SIZE_ZERO);
	/* Bounds the FREs one lookup reads, see SFRAME_FDE_MAX_FRES */
	if (fde->fres_num > SFRAME_FDE_MAX_FRES)
		return sframe_bad(reason, SFRAME_R_FRE_LIMIT);
	return 0;
}

/* Read the start address and info byte of the FRE at @addr. */
static int sframe_fre_hdr(const struct sframe_section *sec,
			  struct sframe_cursor *c, const struct sframe_fde *fde,
			  unsigned long addr, struct sframe_fre *fre,
			  enum sframe_reason *reason)
{
	unsigned int asize = 1U << SFRAME_FDE_INFO_FRE_TYPE(fde->info);
	unsigned int wsize;
	const u8 *p;
	int ret;

	ret = sframe_cursor_get(sec, c, addr, asize + 1, &p, reason);
	if (ret)
		return ret;

	switch (asize) {
	case 1:
		fre->start = *p;
		break;
	case 2:
		fre->start = get_unaligned((const u16 *)p);
		break;
	default:
		fre->start = get_unaligned((const u32 *)p);
		break;
	}
	fre->info = p[asize];
	fre->addr = addr;

	wsize = SFRAME_FRE_INFO_DATAWORD_SIZE(fre->info);
	if (wsize > SFRAME_FRE_DATAWORD_4B)
		return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_SIZE);
	fre->len = asize + 1 + (SFRAME_FRE_INFO_DATAWORD_COUNT(fre->info) << wsize);
	if (fre->len > sec->fres_end - addr)
		return sframe_bad(reason, SFRAME_R_FRE_OUTSIDE);
	return 0;
}

/* RA or FP location when no data word gives one */
static void sframe_loc_default(struct sframe_loc *loc, s8 fixed_off)
{
	if (fixed_off) {
		loc->kind = SFRAME_LOC_CFA_DEREF;
		loc->off = fixed_off;
	} else {
		loc->kind = SFRAME_LOC_SAME;
	}
}

/* RA or FP location from the stack offset @off of a default FRE */
static int sframe_loc_stack(const struct sframe_section *sec,
			    struct sframe_loc *loc, s32 off, bool ra,
			    enum sframe_reason *reason)
{
	if (sec->abi == SFRAME_ABI_S390X_ENDIAN_BIG) {
		if (ra && off == SFRAME_FRE_RA_OFFSET_INVALID) {
			loc->kind = SFRAME_LOC_SAME;
			return 0;
		}
		if (sec->version == SFRAME_VERSION_2 &&
		    SFRAME_V2_S390X_OFFSET_IS_REGNUM(off)) {
			s32 regnum = SFRAME_V2_S390X_OFFSET_DECODE_REGNUM(off);

			if (regnum < 0 || regnum > U8_MAX)
				return sframe_bad(reason, SFRAME_R_BAD_REGNUM);
			loc->kind = SFRAME_LOC_REG;
			loc->reg = regnum;
			loc->off = 0;
			return 0;
		}
	}
	loc->kind = SFRAME_LOC_CFA_DEREF;
	loc->off = off;
	return 0;
}

/*
 * The CFA offset from its data word: s390x stores it adjusted and scaled
 * down (SFRAME_S390X_CFA_OFFSET_DECODE()), in default and flexible FDEs.
 */
static int sframe_cfa_off(const struct sframe_section *sec, s32 word,
			  s32 *off, enum sframe_reason *reason)
{
	*off = word;
	if (sec->abi == SFRAME_ABI_S390X_ENDIAN_BIG &&
	    (check_mul_overflow(word, SFRAME_S390X_CFA_OFFSET_ALIGNMENT_FACTOR, off) ||
	     check_sub_overflow(*off, SFRAME_S390X_CFA_OFFSET_ADJUSTMENT, off)))
		return sframe_bad(reason, SFRAME_R_BAD_OFFSET);
	return 0;
}

static int sframe_rule_default(const struct sframe_section *sec, u8 info,
			       const s32 *word, unsigned int count,
			       struct sframe_rule *rule,
			       enum sframe_reason *reason)
{
	const struct sframe_abi *abi = &sframe_abis[sec->abi];
	s32 off;
	int ret;

	if (count > abi->max_words)
		return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_COUNT);

	ret = sframe_cfa_off(sec, word[0], &off, reason);
	if (ret)
		return ret;

	rule->cfa.kind = SFRAME_LOC_REG;
	if (SFRAME_FRE_INFO_CFA_BASE_REG(info) == SFRAME_BASE_REG_SP)
		rule->cfa.reg = abi->sp;
	else
		rule->cfa.reg = abi->fp;
	rule->cfa.off = off;

	sframe_loc_default(&rule->ra, sec->fixed_ra_off);
	sframe_loc_default(&rule->fp, sec->fixed_fp_off);

	if (abi->ra_word && count > abi->ra_word) {
		ret = sframe_loc_stack(sec, &rule->ra, word[abi->ra_word],
				       true, reason);
		if (ret)
			return ret;
	}
	if (count > abi->fp_word)
		return sframe_loc_stack(sec, &rule->fp, word[abi->fp_word],
					false, reason);
	return 0;
}

/* Location from a flexible FDE (control word, offset) pair */
static int sframe_loc_flex(struct sframe_loc *loc, u32 ctrl, s32 off,
			   bool cfa, enum sframe_reason *reason)
{
	u32 regnum = SFRAME_FLEX_CTRL_REGNUM(ctrl);
	bool deref = SFRAME_FLEX_CTRL_DEREF_P(ctrl);

	if (SFRAME_FLEX_CTRL_UNUSED(ctrl))
		return sframe_bad(reason, SFRAME_R_BAD_FLEX_CTRL);

	if (SFRAME_FLEX_CTRL_REG_P(ctrl)) {
		if (regnum > U8_MAX)
			return sframe_bad(reason, SFRAME_R_BAD_REGNUM);
		loc->kind = deref ? SFRAME_LOC_REG_DEREF : SFRAME_LOC_REG;
		loc->reg = regnum;
	} else {
		/* The CFA needs a register; "CFA + off" is not encodable */
		if (cfa || regnum || !deref)
			return sframe_bad(reason, SFRAME_R_BAD_FLEX_CTRL);
		loc->kind = SFRAME_LOC_CFA_DEREF;
	}
	loc->off = off;
	return 0;
}

static int sframe_rule_flex(const struct sframe_section *sec,
			    const u32 *ctrl, const s32 *word,
			    unsigned int count, struct sframe_rule *rule,
			    enum sframe_reason *reason)
{
	struct sframe_loc *locs[] = { &rule->ra, &rule->fp };
	unsigned int i = 2, e;
	s32 cfa_off;
	int ret;

	if (count < 2 || count > SFRAME_FLEX_MAX_WORDS)
		return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_COUNT);

	ret = sframe_cfa_off(sec, word[1], &cfa_off, reason);
	if (ret)
		return ret;
	ret = sframe_loc_flex(&rule->cfa, ctrl[0], cfa_off, true, reason);
	if (ret)
		return ret;

	sframe_loc_default(&rule->ra, sec->fixed_ra_off);
	sframe_loc_default(&rule->fp, sec->fixed_fp_off);

	/* RA, then FP: a (control, offset) pair, a padding word, or nothing */
	for (e = 0; e < ARRAY_SIZE(locs) && i < count; e++) {
		if (ctrl[i] == SFRAME_FLEX_CTRL_PADDING) {
			i++;
			continue;
		}
		if (i + 1 >= count)
			return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_COUNT);
		ret = sframe_loc_flex(locs[e], ctrl[i], word[i + 1], false,
				      reason);
		if (ret)
			return ret;
		i += 2;
	}
	if (i != count)
		return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_COUNT);
	return 0;
}

/* Decode the data words of @fre into @rule. */
static int sframe_fre_rule(const struct sframe_section *sec,
			   struct sframe_cursor *c, const struct sframe_fde *fde,
			   const struct sframe_fre *fre, struct sframe_rule *rule,
			   enum sframe_reason *reason)
{
	unsigned int count = SFRAME_FRE_INFO_DATAWORD_COUNT(fre->info);
	unsigned int wsize = 1U << SFRAME_FRE_INFO_DATAWORD_SIZE(fre->info);
	unsigned int words_len = count * wsize;
	u32 ctrl[SFRAME_MAX_WORDS];
	s32 word[SFRAME_MAX_WORDS];
	const u8 *p;
	unsigned int i;
	int ret;

	rule->fre_start = fre->start;
	if (sframe_abi_aarch64(sec) && SFRAME_FRE_INFO_MANGLED_RA(fre->info))
		rule->flags |= SFRAME_RULE_MANGLED_RA;

	if (!count) {
		rule->flags |= SFRAME_RULE_OUTERMOST;
		return 0;
	}
	if (count > SFRAME_MAX_WORDS)
		return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_COUNT);

	ret = sframe_cursor_get(sec, c, fre->addr + fre->len - words_len,
				words_len, &p, reason);
	if (ret)
		return ret;

	for (i = 0; i < count; i++, p += wsize) {
		switch (wsize) {
		case 1:
			ctrl[i] = *p;
			word[i] = (s8)*p;
			break;
		case 2:
			ctrl[i] = get_unaligned((const u16 *)p);
			word[i] = (s16)ctrl[i];
			break;
		default:
			ctrl[i] = get_unaligned((const u32 *)p);
			word[i] = (s32)ctrl[i];
			break;
		}
	}

	if (SFRAME_V3_FDE_INFO2_TYPE(fde->info2) == SFRAME_FDE_TYPE_FLEX)
		return sframe_rule_flex(sec, ctrl, word, count, rule, reason);
	return sframe_rule_default(sec, fre->info, word, count, rule, reason);
}

/* Fill the parts of @rule that come from @fde. */
static void sframe_rule_init(const struct sframe_section *sec,
			     const struct sframe_fde *fde,
			     struct sframe_rule *rule)
{
	*rule = (struct sframe_rule) {
		.func_start	= fde->func_start,
		.func_size	= fde->func_size,
	};

	if (sec->version == SFRAME_VERSION_3 &&
	    SFRAME_V3_FDE_INFO_SIGNAL(fde->info))
		rule->flags |= SFRAME_RULE_SIGNAL;
	if (sframe_abi_aarch64(sec) &&
	    SFRAME_FDE_INFO_PAUTH_KEY(fde->info) == SFRAME_AARCH64_PAUTH_KEY_B)
		rule->flags |= SFRAME_RULE_PAUTH_KEY_B;
	if (SFRAME_V3_FDE_INFO2_TYPE(fde->info2) == SFRAME_FDE_TYPE_FLEX)
		rule->flags |= SFRAME_RULE_FLEX;
}

/*
 * A V3 default FDE without FREs marks an outermost frame.  Version 2 gives
 * no meaning to an FDE without FREs, nor does V3 to a flexible one: such
 * a function has no rule, and the unwinder falls back to frame pointers
 * rather than ending the stack there.
 */
static bool sframe_fde_outermost(const struct sframe_section *sec,
				 const struct sframe_fde *fde)
{
	return sec->version == SFRAME_VERSION_3 &&
	       SFRAME_V3_FDE_INFO2_TYPE(fde->info2) == SFRAME_FDE_TYPE_DEFAULT;
}

/* Binary search for the FDE of the function containing @pc. */
static int sframe_fde_find(const struct sframe_section *sec, unsigned long pc,
			   struct sframe_fde *fde, bool nofault,
			   enum sframe_reason *reason)
{
	u32 lo = 0, hi = sec->num_fdes;
	struct sframe_fde tmp;
	bool found = false;
	int ret;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		ret = sframe_fde_read(sec, mid, &tmp, nofault, reason);
		if (ret)
			return ret;
		if (tmp.func_start <= pc) {
			*fde = tmp;
			found = true;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}

	if (!found || pc - fde->func_start >= fde->func_size)
		return -ENOENT;
	return 0;
}

static int __sframe_find(const struct sframe_section *sec, unsigned long pc,
			 struct sframe_rule *rule, bool nofault,
			 enum sframe_reason *reason)
{
	struct sframe_fre fre, match = {};
	struct sframe_cursor c;
	struct sframe_fde fde;
	unsigned long addr;
	bool found = false;
	u32 pc_off, i;
	int ret;

	if (reason)
		*reason = SFRAME_R_NONE;
	rule->fres_read = 0;
	if (pc < sec->text_start || pc >= sec->text_end)
		return -ENOENT;

	ret = sframe_fde_find(sec, pc, &fde, nofault, reason);
	if (ret)
		return ret;

	c.base = 0;
	c.len = 0;
	c.nofault = nofault;
	ret = sframe_fde_attr(sec, &c, &fde, reason);
	if (ret)
		return ret;

	sframe_rule_init(sec, &fde, rule);
	if (!fde.fres_num) {
		if (!sframe_fde_outermost(sec, &fde))
			return -ENOENT;
		rule->flags |= SFRAME_RULE_OUTERMOST;
		return 0;
	}

	pc_off = pc - fde.func_start;
	if (SFRAME_FDE_INFO_PCTYPE(fde.info) == SFRAME_FDE_PCTYPE_MASK)
		pc_off %= fde.rep_size;

	/* At most SFRAME_FDE_MAX_FRES iterations, see sframe_fde_attr() */
	addr = fde.fres_addr;
	for (i = 0; i < fde.fres_num; i++) {
		rule->fres_read = i + 1;
		ret = sframe_fre_hdr(sec, &c, &fde, addr, &fre, reason);
		if (ret)
			return ret;
		if (found && fre.start <= match.start)
			return sframe_bad(reason, SFRAME_R_FRE_NOT_INCREASING);
		if (fre.start > pc_off)
			break;
		match = fre;
		found = true;
		addr += fre.len;
	}
	if (!found)
		return -ENOENT;

	return sframe_fre_rule(sec, &c, &fde, &match, rule, reason);
}

/**
 * sframe_find() - find the rule to recover the caller's frame at a PC
 * @sec:	section set up by sframe_section_init()
 * @pc:		user PC
 * @rule:	the rule, on success
 * @reason:	if not NULL, why the section is corrupt on -EBADMSG, else
 *		SFRAME_R_NONE
 *
 * Look up the FDE of the function containing @pc (binary search), then
 * the last FRE starting at or before @pc.  An FRE without data words, or
 * a V3 default FDE without FREs, yields an outermost rule.
 *
 * The work is bounded whatever the section holds: at most 32 FDE reads
 * for the binary search and SFRAME_FDE_MAX_FRES FREs; a function with
 * more FREs makes the section corrupt (SFRAME_R_FRE_LIMIT).
 * @rule->fres_read tells the caller how many FREs were read, also when
 * the lookup fails; the rest of @rule is only meaningful on success.
 *
 * Context: Any context that may access user memory.  May sleep to fault
 * in pages unless page faults are disabled, see sframe_find_nofault().
 * Return: 0 on success; -ENOENT if the section does not cover @pc; -EBADMSG
 * if the section is corrupt; -EFAULT if the section could not be read.
 */
int sframe_find(const struct sframe_section *sec, unsigned long pc,
		struct sframe_rule *rule, enum sframe_reason *reason)
{
	return __sframe_find(sec, pc, rule, false, reason);
}

/**
 * sframe_find_nofault() - sframe_find() without faulting or sleeping
 * @sec:	section set up by sframe_section_init()
 * @pc:		user PC
 * @rule:	the rule, on success
 * @reason:	as for sframe_find()
 *
 * Same as sframe_find(), but every read goes through
 * copy_from_user_nofault(): a read of memory that is not present fails
 * with -EFAULT instead of faulting it in, and nothing is read while the
 * user address space cannot be accessed (nmi_uaccess_okay()).
 *
 * Context: Any context, including NMI.
 * Return: as for sframe_find().
 */
int sframe_find_nofault(const struct sframe_section *sec, unsigned long pc,
			struct sframe_rule *rule, enum sframe_reason *reason)
{
	return __sframe_find(sec, pc, rule, true, reason);
}

/* Check every FRE of @fde. */
static int sframe_fres_validate(const struct sframe_section *sec,
				struct sframe_cursor *c,
				const struct sframe_fde *fde,
				enum sframe_reason *reason)
{
	unsigned long addr = fde->fres_addr;
	struct sframe_rule rule;
	struct sframe_fre fre;
	u32 limit = fde->func_size;
	u32 prev = 0, i;
	int ret;

	if (SFRAME_FDE_INFO_PCTYPE(fde->info) == SFRAME_FDE_PCTYPE_MASK)
		limit = fde->rep_size;

	for (i = 0; i < fde->fres_num; i++) {
		ret = sframe_fre_hdr(sec, c, fde, addr, &fre, reason);
		if (ret)
			return ret;
		if (i && fre.start <= prev)
			return sframe_bad(reason, SFRAME_R_FRE_NOT_INCREASING);
		if (fre.start >= limit)
			return sframe_bad(reason, SFRAME_R_FRE_BEYOND_FUNC);
		sframe_rule_init(sec, fde, &rule);
		ret = sframe_fre_rule(sec, c, fde, &fre, &rule, reason);
		if (ret)
			return ret;
		prev = fre.start;
		addr += fre.len;
	}
	return 0;
}

/**
 * sframe_validate() - check a whole section
 * @sec:	section set up by sframe_section_init()
 * @reason:	if not NULL, why the section is corrupt on -EBADMSG, else
 *		SFRAME_R_NONE
 *
 * Check that the FDEs are sorted and describe functions inside the text
 * range, and that every FRE is inside the FRE sub-section, starts inside
 * its function, after the previous FRE, and has data words that are valid
 * for the ABI and FDE type.  The FRE count must match the header.
 *
 * A section that passes can still change in user memory afterwards, so
 * sframe_find() does not rely on it.
 *
 * Context: Process context, may sleep.
 * Return: 0 if the section is valid; -EBADMSG if it is corrupt; -EFAULT if
 * it could not be read.
 */
int sframe_validate(const struct sframe_section *sec, enum sframe_reason *reason)
{
	unsigned long prev_start = 0, end;
	struct sframe_cursor c;
	struct sframe_fde fde;
	u64 num_fres = 0;
	u32 i;
	int ret;

	if (reason)
		*reason = SFRAME_R_NONE;
	c.base = 0;
	c.len = 0;
	c.nofault = false;

	for (i = 0; i < sec->num_fdes; i++) {
		ret = sframe_fde_read(sec, i, &fde, false, reason);
		if (ret)
			return ret;
		if (i && fde.func_start < prev_start)
			return sframe_bad(reason, SFRAME_R_FDES_NOT_SORTED);
		prev_start = fde.func_start;

		if (check_add_overflow(fde.func_start, fde.func_size, &end))
			return sframe_bad(reason, SFRAME_R_FUNC_RANGE);
		if (fde.func_start < sec->text_start || end > sec->text_end)
			return sframe_bad(reason, SFRAME_R_FUNC_OUTSIDE_TEXT);

		ret = sframe_fde_attr(sec, &c, &fde, reason);
		if (ret)
			return ret;
		num_fres += fde.fres_num;

		ret = sframe_fres_validate(sec, &c, &fde, reason);
		if (ret)
			return ret;

		cond_resched();
	}

	if (num_fres != sec->num_fres)
		return sframe_bad(reason, SFRAME_R_FRE_COUNT);
	return 0;
}

/**
 * sframe_section_init() - check the header of a section
 * @sec:	section; the caller sets @sec->sframe_start, @sec->sframe_end,
 *		@sec->text_start and @sec->text_end, the other fields are set
 *		from the header
 * @reason:	if not NULL, why the section is rejected on -EBADMSG or
 *		-EINVAL, else SFRAME_R_NONE
 *
 * Read the header, check magic, version (2 or 3), flags and ABI, and that
 * the FDE table and the FRE sub-section lie inside the section.  Sections
 * whose FDEs are not flagged sorted are rejected.  The auxiliary header,
 * if any, is skipped.
 *
 * Context: Any context that may access user memory.
 * Return: 0 on success; -EINVAL if the section or text range is empty or
 * inverted; -EBADMSG if the header is corrupt or unsupported; -EFAULT if
 * the header could not be read.
 */
int sframe_section_init(struct sframe_section *sec, enum sframe_reason *reason)
{
	unsigned long hdr_end, fdes_end, fdes_len, fres_start, fres_end;
	struct sframe_header h;
	unsigned int fde_size;
	u8 all_flags;
	int ret;

	if (reason)
		*reason = SFRAME_R_NONE;
	if (sec->sframe_start >= sec->sframe_end ||
	    sec->text_start >= sec->text_end) {
		if (reason)
			*reason = SFRAME_R_BAD_RANGE;
		return -EINVAL;
	}

	ret = sframe_read(sec, sec->sframe_start, &h, sizeof(h), sizeof(h),
			  false, SFRAME_R_TRUNCATED, reason);
	if (ret < 0)
		return ret;

	if (h.preamble.magic != SFRAME_MAGIC)
		return sframe_bad(reason, SFRAME_R_BAD_MAGIC);

	switch (h.preamble.version) {
	case SFRAME_VERSION_2:
		all_flags = SFRAME_V2_F_ALL_FLAGS;
		fde_size = sizeof(struct sframe_fde_v2);
		break;
	case SFRAME_VERSION_3:
		all_flags = SFRAME_V3_F_ALL_FLAGS;
		fde_size = sizeof(struct sframe_fde_v3);
		break;
	case SFRAME_VERSION_1:
		return sframe_bad(reason, SFRAME_R_VERSION_1);
	default:
		return sframe_bad(reason, SFRAME_R_BAD_VERSION);
	}

	if (h.preamble.flags & ~all_flags)
		return sframe_bad(reason, SFRAME_R_BAD_FLAGS);
	if (!(h.preamble.flags & SFRAME_F_FDE_SORTED))
		return sframe_bad(reason, SFRAME_R_NOT_SORTED_FLAG);

	switch (h.abi_arch) {
	case SFRAME_ABI_AMD64_ENDIAN_LITTLE:
		if (h.cfa_fixed_ra_offset == SFRAME_CFA_FIXED_RA_INVALID)
			return sframe_bad(reason, SFRAME_R_NO_FIXED_RA);
		break;
	case SFRAME_ABI_AARCH64_ENDIAN_BIG:
	case SFRAME_ABI_AARCH64_ENDIAN_LITTLE:
	case SFRAME_ABI_S390X_ENDIAN_BIG:
		break;
	default:
		return sframe_bad(reason, SFRAME_R_BAD_ABI);
	}

	/* The sub-section offsets are relative to the end of the aux header */
	if (h.auxhdr_len > sec->sframe_end - sec->sframe_start - sizeof(h))
		return sframe_bad(reason, SFRAME_R_AUXHDR_OUTSIDE);
	hdr_end = sec->sframe_start + sizeof(h) + h.auxhdr_len;

	if (check_mul_overflow((unsigned long)h.num_fdes, (unsigned long)fde_size,
			       &fdes_len) ||
	    check_add_overflow(hdr_end, (unsigned long)h.fdes_off, &sec->fdes_start) ||
	    check_add_overflow(sec->fdes_start, fdes_len, &fdes_end) ||
	    fdes_end > sec->sframe_end)
		return sframe_bad(reason, SFRAME_R_FDES_OUTSIDE);

	if (check_add_overflow(hdr_end, (unsigned long)h.fres_off, &fres_start) ||
	    check_add_overflow(fres_start, (unsigned long)h.fre_len, &fres_end) ||
	    fres_end > sec->sframe_end)
		return sframe_bad(reason, SFRAME_R_FRES_OUTSIDE);

	if (fdes_end > fres_start)
		return sframe_bad(reason, SFRAME_R_FDES_OVERLAP);

	sec->fres_start = fres_start;
	sec->fres_end = fres_end;
	sec->num_fdes = h.num_fdes;
	sec->num_fres = h.num_fres;
	sec->version = h.preamble.version;
	sec->abi = h.abi_arch;
	sec->flags = h.preamble.flags;
	sec->fde_size = fde_size;
	sec->fixed_ra_off = h.cfa_fixed_ra_offset;
	sec->fixed_fp_off = h.cfa_fixed_fp_offset;
	return 0;
}
