// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame reader: find the stack trace rule for a user PC.
 *
 * The section is read from user memory inside user access windows
 * (user_read_access_begin() over the whole section, one window per
 * lookup) with unsafe_get_user(), a field or a few adjacent fields per
 * load, after checking every address against the bounds of the part of
 * the section it belongs to.  A section that the kernel holds in memory
 * of its own (the store, see sframe_store.c) is read by the same code,
 * at the same section addresses, from its copy (sframe_read_raw()),
 * without faults.
 * sframe_find_nofault() reads with page faults disabled.  Nothing read
 * from the section is trusted:
 * offsets and counts are checked before use and every loop is bounded,
 * so a corrupt or hostile section makes the lookup fail with -EBADMSG,
 * never misbehave, and the work of one lookup is bounded (see
 * sframe_find()).  A fault while reading is reported as -EFAULT and is
 * never mistaken for corruption: the memory may simply not be paged in.
 *
 * The kernel only reads sections of its own architecture, so all fields
 * are read in native byte order.
 */
#include <linux/array_size.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/unroll.h>
#include <linux/unwind_user.h>
#include <asm/tlb.h>

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
	u32		len;		/* including the data words */
	u8		info;
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
	[SFRAME_R_OTHER_ABI]		= "ABI of another architecture",
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

static __always_inline bool sframe_abi_aarch64(u8 abi)
{
	return abi == SFRAME_ABI_AARCH64_ENDIAN_BIG ||
	       abi == SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
}

static __always_inline int sframe_bad(enum sframe_reason *reason,
				      enum sframe_reason why)
{
	if (reason)
		*reason = why;
	return -EBADMSG;
}

/*
 * Reading the section.  The functions below read inside a user access
 * window that the caller opened over the whole section with
 * sframe_uaccess_begin(): they are __always_inline, because nothing
 * inside a window may call a function (objtool checks it on x86), and
 * each returns -EFAULT if a read faults.  The format packs its fields
 * without alignment; the architectures that unwind with SFrame load
 * unaligned user words.
 *
 * A section in kernel memory (@sec->kdata) is read with
 * __get_kernel_nofault(): one load, which is not instrumented and calls
 * nothing either, so the paths that objtool follows through a window
 * stay free of calls whichever kind of memory a read takes.  Every read
 * is inside the section, as for user memory: the bounds checks are the
 * same.
 *
 * The window is opened over the section's user range also for a section in
 * kernel memory, whose reads then take no user memory: one path, which
 * objtool can follow (a test of @sec->kdata at each end would let it
 * follow a path that opens a window and skips its close).
 */
static __always_inline bool sframe_uaccess_begin(const struct sframe_section *sec)
{
	return user_read_access_begin((const void __user *)sec->sframe_start,
				      sec->sframe_end - sec->sframe_start);
}

/* Where the byte at section address @addr of a section in kernel memory is */
static __always_inline const void *sframe_kaddr(const struct sframe_section *sec,
						unsigned long addr)
{
	return sec->kdata + (addr - sec->sframe_start);
}

/*
 * Read @size bytes (1, 2, 4 or 8) at section address @addr into @v, one
 * load, from kernel or user memory: -EFAULT if it faults
 */
static __always_inline int sframe_read_raw(const struct sframe_section *sec,
					   unsigned long addr,
					   unsigned int size, void *v)
{
	const void __user *u = (const void __user *)addr;

	switch (size) {
	case 1:
		if (sec->kdata)
			__get_kernel_nofault(v, sframe_kaddr(sec, addr), u8,
					     efault);
		else
			unsafe_get_user(*(u8 *)v, (const u8 __user *)u, efault);
		break;
	case 2:
		if (sec->kdata)
			__get_kernel_nofault(v, sframe_kaddr(sec, addr), u16,
					     efault);
		else
			unsafe_get_user(*(u16 *)v, (const u16 __user *)u,
					efault);
		break;
	case 4:
		if (sec->kdata)
			__get_kernel_nofault(v, sframe_kaddr(sec, addr), u32,
					     efault);
		else
			unsafe_get_user(*(u32 *)v, (const u32 __user *)u,
					efault);
		break;
	default:
		if (sec->kdata)
			__get_kernel_nofault(v, sframe_kaddr(sec, addr), u64,
					     efault);
		else
			unsafe_get_user(*(u64 *)v, (const u64 __user *)u,
					efault);
		break;
	}
	return 0;
efault:
	return -EFAULT;
}

/* sframe_read_raw() of each size, into a variable of that size */
static __always_inline int sframe_read8(const struct sframe_section *sec,
					unsigned long addr, u8 *v)
{
	return sframe_read_raw(sec, addr, sizeof(*v), v);
}

static __always_inline int sframe_read16(const struct sframe_section *sec,
					 unsigned long addr, u16 *v)
{
	return sframe_read_raw(sec, addr, sizeof(*v), v);
}

static __always_inline int sframe_read32(const struct sframe_section *sec,
					 unsigned long addr, u32 *v)
{
	return sframe_read_raw(sec, addr, sizeof(*v), v);
}

static __always_inline int sframe_read64(const struct sframe_section *sec,
					 unsigned long addr, u64 *v)
{
	return sframe_read_raw(sec, addr, sizeof(*v), v);
}

/*
 * The start address of the function of the FDE table entry at @addr,
 * relative to @addr if @pcrel, else to the section; @v2 and @pcrel are
 * constants where the caller knows the layout
 */
static __always_inline int sframe_fde_start_at(const struct sframe_section *sec,
					       unsigned long addr, bool v2,
					       bool pcrel, unsigned long *start)
{
	unsigned long base = pcrel ? addr : sec->sframe_start;

	if (v2) {
		u32 off;

		if (sframe_read32(sec, addr + offsetof(struct sframe_fde_v2,
						       start_addr), &off))
			return -EFAULT;
		*start = base + (long)(s32)off;
	} else {
		u64 off;

		if (sframe_read64(sec, addr + offsetof(struct sframe_fde_v3,
						       start_off), &off))
			return -EFAULT;
		*start = base + (unsigned long)off;
	}
	return 0;
}

/* The start address of the function of FDE @idx (< sec->num_fdes) */
static __always_inline int sframe_fde_start(const struct sframe_section *sec,
					    u32 idx, unsigned long *start)
{
	return sframe_fde_start_at(sec, sec->fdes_start +
				   (unsigned long)idx * sec->fde_size,
				   sec->version == SFRAME_VERSION_2,
				   sec->flags & SFRAME_F_FDE_FUNC_START_PCREL,
				   start);
}

/*
 * Fields that a lookup reads together, in one load: a union, so that each
 * is at its offset in the section whatever the byte order.  The function
 * size and FRE offset of an FDE (V2 and V3); the start of a V3 attribute
 * record.
 */
union sframe_fde_size_off {
	u64	word;
	struct {
		u32	func_size;
		u32	fres_off;
	} f;
};

union sframe_fda_head {
	u32	word;
	struct {
		u16	fres_num;
		u8	info;
		u8	info2;
	} f;
};

static_assert(offsetof(struct sframe_fde_v2, fres_off) ==
	      offsetof(struct sframe_fde_v2, func_size) + 4);
static_assert(offsetof(struct sframe_fde_v3, fres_off) ==
	      offsetof(struct sframe_fde_v3, func_size) + 4);
static_assert(offsetof(struct sframe_fda_v3, info2) == 3);
static_assert(sizeof(union sframe_fde_size_off) == 8 &&
	      sizeof(union sframe_fda_head) == 4);

/*
 * Read the FDE table entry @idx (< sec->num_fdes).  For V3 this is the
 * index entry only: sframe_fde_attr() reads the rest.  @v2: the section is
 * of version 2, as the caller read it once for this function and
 * sframe_fde_attr().
 */
static __always_inline int sframe_fde_read(const struct sframe_section *sec,
					   bool v2, u32 idx,
					   struct sframe_fde *fde,
					   enum sframe_reason *reason)
{
	unsigned int size = v2 ? sizeof(struct sframe_fde_v2) :
				 sizeof(struct sframe_fde_v3);
	unsigned long addr = sec->fdes_start + (unsigned long)idx * size;
	union sframe_fde_size_off so;
	int ret;

	ret = sframe_fde_start_at(sec, addr, v2,
				  sec->flags & SFRAME_F_FDE_FUNC_START_PCREL,
				  &fde->func_start);
	if (ret)
		return ret;
	if (v2) {
		if (sframe_read64(sec, addr + offsetof(struct sframe_fde_v2,
						       func_size), &so.word) ||
		    sframe_read32(sec, addr + offsetof(struct sframe_fde_v2,
						       fres_num), &fde->fres_num) ||
		    sframe_read8(sec, addr + offsetof(struct sframe_fde_v2, info),
				 &fde->info) ||
		    sframe_read8(sec, addr + offsetof(struct sframe_fde_v2,
						      rep_size), &fde->rep_size))
			return -EFAULT;
		fde->info2 = SFRAME_FDE_TYPE_DEFAULT;
	} else {
		if (sframe_read64(sec, addr + offsetof(struct sframe_fde_v3,
						       func_size), &so.word))
			return -EFAULT;
		/*
		 * Read by sframe_fde_attr(); set here too, or gcc 16 warns
		 * that they may be used uninitialized (-Wmaybe-uninitialized)
		 */
		fde->fres_num = 0;
		fde->info = 0;
		fde->info2 = 0;
		fde->rep_size = 0;
	}
	fde->func_size = so.f.func_size;

	if (so.f.fres_off > sec->fres_end - sec->fres_start)
		return sframe_bad(reason, SFRAME_R_FDE_FRES_OUTSIDE);
	fde->fres_addr = sec->fres_start + so.f.fres_off;
	return 0;
}

/*
 * Complete @fde: read the V3 attribute record (its repetition size only
 * for an FDE whose PC type needs one), check the info bytes.
 */
static __always_inline int sframe_fde_attr(const struct sframe_section *sec,
					   bool v2, struct sframe_fde *fde,
					   enum sframe_reason *reason)
{
	unsigned long addr = fde->fres_addr;
	union sframe_fda_head h;

	if (!v2) {
		if (sizeof(struct sframe_fda_v3) > sec->fres_end - addr)
			return sframe_bad(reason, SFRAME_R_FRE_OUTSIDE);
		if (sframe_read32(sec, addr, &h.word))
			return -EFAULT;
		fde->fres_num = h.f.fres_num;
		fde->info = h.f.info;
		fde->info2 = h.f.info2;
		fde->rep_size = 0;
		if (SFRAME_FDE_INFO_PCTYPE(h.f.info) == SFRAME_FDE_PCTYPE_MASK)
			if (sframe_read8(sec, addr + offsetof(struct sframe_fda_v3,
							      rep_size),
					 &fde->rep_size))
				return -EFAULT;
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

/*
 * The data words of an FRE that a rule can use: SFRAME_MAX_WORDS of 4
 * bytes.  The scan of an FDE's FREs that fit in the FRE sub-section at
 * this length does without a check per FRE (sframe_fre_scan_asize()); an
 * FRE longer than that (7 to 15 words, which only a broken section
 * holds, but which the scan must step over) makes it start again with
 * the checks.
 */
#define SFRAME_FRE_FAST_WORDS_LEN	(SFRAME_MAX_WORDS << SFRAME_FRE_DATAWORD_4B)

/*
 * The length of an FRE, indexed by its FDE's FRE type (the size of its
 * start address: 1, 2 or 4 bytes) and by its word count and size
 * (SFRAME_FRE_WORDS()): the start address, the info byte, then count <<
 * size bytes of data words, marked SFRAME_FRE_SLOW above
 * SFRAME_FRE_FAST_WORDS_LEN bytes of data words; SFRAME_FRE_BAD_LEN
 * (SFRAME_FRE_SLOW alone) for the reserved size 3.  A table, because a
 * lookup needs it for every FRE it passes; one bit tells the scan without
 * checks whether to stop.
 */
#define SFRAME_FRE_WORDS(info)		(((info) >> 1) & 0x3f)
#define SFRAME_FRE_SLOW			0x80
#define SFRAME_FRE_SLOW_LEN(len)	(SFRAME_FRE_SLOW | (len))
#define SFRAME_FRE_BAD_LEN		SFRAME_FRE_SLOW
#define SFRAME_FRE_MAX_WORDS_LEN	(0xf << SFRAME_FRE_DATAWORD_4B)
/* Every value of SFRAME_FRE_WORDS() has its entry in each row */
#define SFRAME_FRE_WORDS_NR		(SFRAME_FRE_WORDS(0xff) + 1)

static const u8 sframe_fre_len[][SFRAME_FRE_WORDS_NR] = {
	[SFRAME_FRE_TYPE_ADDR1] = {	/* 1 + 1 + count << size */
		2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 2, 4, 6,
		8, 10, 12, 14, 16, 18, 20, 22, 24, 26, SFRAME_FRE_SLOW_LEN(28),
		SFRAME_FRE_SLOW_LEN(30), SFRAME_FRE_SLOW_LEN(32), 2, 6, 10, 14,
		18, 22, 26, SFRAME_FRE_SLOW_LEN(30), SFRAME_FRE_SLOW_LEN(34),
		SFRAME_FRE_SLOW_LEN(38), SFRAME_FRE_SLOW_LEN(42),
		SFRAME_FRE_SLOW_LEN(46), SFRAME_FRE_SLOW_LEN(50),
		SFRAME_FRE_SLOW_LEN(54), SFRAME_FRE_SLOW_LEN(58),
		SFRAME_FRE_SLOW_LEN(62),
		[48 ... 63] = SFRAME_FRE_BAD_LEN,
	},
	[SFRAME_FRE_TYPE_ADDR2] = {	/* 2 + 1 + count << size */
		3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 3, 5,
		7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27,
		SFRAME_FRE_SLOW_LEN(29), SFRAME_FRE_SLOW_LEN(31),
		SFRAME_FRE_SLOW_LEN(33), 3, 7, 11, 15, 19, 23, 27,
		SFRAME_FRE_SLOW_LEN(31), SFRAME_FRE_SLOW_LEN(35),
		SFRAME_FRE_SLOW_LEN(39), SFRAME_FRE_SLOW_LEN(43),
		SFRAME_FRE_SLOW_LEN(47), SFRAME_FRE_SLOW_LEN(51),
		SFRAME_FRE_SLOW_LEN(55), SFRAME_FRE_SLOW_LEN(59),
		SFRAME_FRE_SLOW_LEN(63),
		[48 ... 63] = SFRAME_FRE_BAD_LEN,
	},
	[SFRAME_FRE_TYPE_ADDR4] = {	/* 4 + 1 + count << size */
		5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 5, 7,
		9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29,
		SFRAME_FRE_SLOW_LEN(31), SFRAME_FRE_SLOW_LEN(33),
		SFRAME_FRE_SLOW_LEN(35), 5, 9, 13, 17, 21, 25, 29,
		SFRAME_FRE_SLOW_LEN(33), SFRAME_FRE_SLOW_LEN(37),
		SFRAME_FRE_SLOW_LEN(41), SFRAME_FRE_SLOW_LEN(45),
		SFRAME_FRE_SLOW_LEN(49), SFRAME_FRE_SLOW_LEN(53),
		SFRAME_FRE_SLOW_LEN(57), SFRAME_FRE_SLOW_LEN(61),
		SFRAME_FRE_SLOW_LEN(65),
		[48 ... 63] = SFRAME_FRE_BAD_LEN,
	},
};

static_assert(4 + 1 + SFRAME_FRE_MAX_WORDS_LEN < SFRAME_FRE_SLOW);

/*
 * The start address and info byte of an FRE with 1 byte of start address,
 * read as one word.  A union, so that each field is at its offset whatever
 * the byte order.
 */
union sframe_fre_head1 {
	u16	word;
	struct {
		u8	start;
		u8	info;
	} f;
};

static_assert(sizeof(union sframe_fre_head1) == 2);

/* The last 4 bytes of an FRE, read as one word: see sframe_fre_words() */
union sframe_fre_tail4 {
	u32	word;
	s8	b[4];
};

static_assert(sizeof(union sframe_fre_tail4) == 4);

/*
 * Read the start address and info byte of the FRE at @addr, of @asize
 * bytes of start address, and set its length.  @addr is in the FRE
 * sub-section (at most at its end).  With @checked, the FRE's bytes are
 * checked to lie in the sub-section before they are read; without, the
 * caller knows that they do up to SFRAME_FRE_FAST_WORDS_LEN bytes of data
 * words, and a longer FRE gives -EAGAIN.  A start address of 1 byte is
 * read with the info byte in one load (sframe_fre_head1).
 */
static __always_inline int sframe_fre_head(const struct sframe_section *sec,
					   unsigned long addr,
					   unsigned int asize, bool checked,
					   struct sframe_fre *fre,
					   enum sframe_reason *reason)
{
	union sframe_fre_head1 h1;
	const u8 *lens;
	unsigned int len;
	u16 start16;

	if (checked && asize + 1 > sec->fres_end - addr)
		return sframe_bad(reason, SFRAME_R_FRE_OUTSIDE);
	switch (asize) {
	case 1:
		if (sframe_read16(sec, addr, &h1.word))
			return -EFAULT;
		fre->start = h1.f.start;
		fre->info = h1.f.info;
		break;
	case 2:
		if (sframe_read16(sec, addr, &start16) ||
		    sframe_read8(sec, addr + 2, &fre->info))
			return -EFAULT;
		fre->start = start16;
		break;
	default:
		if (sframe_read32(sec, addr, &fre->start) ||
		    sframe_read8(sec, addr + 4, &fre->info))
			return -EFAULT;
		break;
	}
	fre->addr = addr;

	/*
	 * The row by constant indices, then the masked word count through
	 * a pointer: inside the user access window, where a bounds check
	 * that the compiler cannot prove (UBSAN's, for a row chosen at run
	 * time) would be a call
	 */
	lens = asize == 1 ? sframe_fre_len[SFRAME_FRE_TYPE_ADDR1] :
	       asize == 2 ? sframe_fre_len[SFRAME_FRE_TYPE_ADDR2] :
			    sframe_fre_len[SFRAME_FRE_TYPE_ADDR4];
	len = lens[SFRAME_FRE_WORDS(fre->info)];
	if (len & SFRAME_FRE_SLOW) {
		if (len == SFRAME_FRE_BAD_LEN)
			return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_SIZE);
		if (!checked)
			return -EAGAIN;
		len &= ~SFRAME_FRE_SLOW;
	}
	fre->len = len;
	if (checked && fre->len > sec->fres_end - addr)
		return sframe_bad(reason, SFRAME_R_FRE_OUTSIDE);
	return 0;
}

/* Read the start address and info byte of the FRE at @addr. */
static __always_inline int sframe_fre_hdr(const struct sframe_section *sec,
					  const struct sframe_fde *fde,
					  unsigned long addr,
					  struct sframe_fre *fre,
					  enum sframe_reason *reason)
{
	unsigned int asize = 1U << SFRAME_FDE_INFO_FRE_TYPE(fde->info);

	if (addr < sec->fres_start || addr > sec->fres_end)
		return sframe_bad(reason, SFRAME_R_FRE_OUTSIDE);
	return sframe_fre_head(sec, addr, asize, true, fre, reason);
}

/*
 * Read the data words of @fre (inside the FRE sub-section, as
 * sframe_fre_hdr() checked) as sign-extended offsets in @word; a flexible
 * FDE's control words are taken from them, see sframe_flex_ctrl().
 */
static __always_inline int sframe_fre_words(const struct sframe_section *sec,
					    const struct sframe_fre *fre,
					    s32 *word,
					    enum sframe_reason *reason)
{
	unsigned int count = SFRAME_FRE_INFO_DATAWORD_COUNT(fre->info);
	unsigned int wsize = 1U << SFRAME_FRE_INFO_DATAWORD_SIZE(fre->info);
	unsigned long p = fre->addr + fre->len - count * wsize;
	union {
		u8	b;
		u16	h;
		u32	w;
	} w;
	unsigned int i;

	if (count > SFRAME_MAX_WORDS)
		return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_COUNT);

	/*
	 * Up to 3 words of 1 byte, as in most FREs: one load of the FRE's
	 * last 4 bytes, which are its own when it has 4 or more (the start
	 * address and info byte come before the words)
	 */
	if (wsize == 1 && count <= 3 && fre->len >= 4) {
		union sframe_fre_tail4 t;

		if (sframe_read32(sec, fre->addr + fre->len - 4, &t.word))
			return -EFAULT;
		switch (count) {
		case 3:
			word[0] = t.b[1];
			word[1] = t.b[2];
			word[2] = t.b[3];
			break;
		case 2:
			word[0] = t.b[2];
			word[1] = t.b[3];
			break;
		case 1:
			word[0] = t.b[3];
			break;
		}
		return 0;
	}

	/* A loop per size, each word sign-extended from its size */
	switch (wsize) {
	case 1:
		for (i = 0; i < count; i++, p++) {
			if (sframe_read8(sec, p, &w.b))
				return -EFAULT;
			word[i] = (s8)w.b;
		}
		break;
	case 2:
		for (i = 0; i < count; i++, p += 2) {
			if (sframe_read16(sec, p, &w.h))
				return -EFAULT;
			word[i] = (s16)w.h;
		}
		break;
	default:
		for (i = 0; i < count; i++, p += 4) {
			if (sframe_read32(sec, p, &w.w))
				return -EFAULT;
			word[i] = (s32)w.w;
		}
		break;
	}
	return 0;
}

/*
 * Decoding an FRE into a rule.  The functions below take the section's
 * ABI as @abi: sframe_fre_decode_fast() passes a constant for the ABI of
 * the architecture, so that its copy of them has no test of another ABI.
 */

/*
 * A location is written whole, its register number 0 where its kind has
 * none, so that no field of a rule is left from an earlier one (the rule
 * cache keeps rules, tests compare them).
 */
static __always_inline void sframe_loc_set(struct sframe_loc *loc, u8 kind,
					   u8 reg, s32 off)
{
	*loc = (struct sframe_loc) { .kind = kind, .reg = reg, .off = off };
}

/* RA or FP location when no data word gives one */
static __always_inline void sframe_loc_default(struct sframe_loc *loc,
					       s8 fixed_off)
{
	if (fixed_off)
		sframe_loc_set(loc, SFRAME_LOC_CFA_DEREF, 0, fixed_off);
	else
		sframe_loc_set(loc, SFRAME_LOC_SAME, 0, 0);
}

/* An outermost frame, with the FDE's @flags: no location has a value */
static __always_inline void sframe_rule_outermost(struct sframe_rule *rule,
						  u8 flags)
{
	sframe_loc_set(&rule->cfa, SFRAME_LOC_UNDEFINED, 0, 0);
	sframe_loc_set(&rule->ra, SFRAME_LOC_UNDEFINED, 0, 0);
	sframe_loc_set(&rule->fp, SFRAME_LOC_UNDEFINED, 0, 0);
	rule->flags = flags | SFRAME_RULE_OUTERMOST;
}

/*
 * RA or FP location from the stack offset @off of a default FRE.  Returns
 * the location's kind, known to the compiler on each path (unlike the
 * kind read back from @loc), or -EBADMSG.
 */
static __always_inline int sframe_loc_stack(const struct sframe_section *sec,
					    u8 abi, struct sframe_loc *loc,
					    s32 off, bool ra,
					    enum sframe_reason *reason)
{
	if (abi == SFRAME_ABI_S390X_ENDIAN_BIG) {
		if (ra && off == SFRAME_FRE_RA_OFFSET_INVALID) {
			sframe_loc_set(loc, SFRAME_LOC_SAME, 0, 0);
			return SFRAME_LOC_SAME;
		}
		if (sec->version == SFRAME_VERSION_2 &&
		    SFRAME_V2_S390X_OFFSET_IS_REGNUM(off)) {
			s32 regnum = SFRAME_V2_S390X_OFFSET_DECODE_REGNUM(off);

			if (regnum < 0 || regnum > U8_MAX)
				return sframe_bad(reason, SFRAME_R_BAD_REGNUM);
			sframe_loc_set(loc, SFRAME_LOC_REG, regnum, 0);
			return SFRAME_LOC_REG;
		}
	}
	sframe_loc_set(loc, SFRAME_LOC_CFA_DEREF, 0, off);
	return SFRAME_LOC_CFA_DEREF;
}

/*
 * The CFA offset from its data word: s390x stores it adjusted and scaled
 * down (SFRAME_S390X_CFA_OFFSET_DECODE()), in default and flexible FDEs.
 */
static __always_inline int sframe_cfa_off(u8 abi, s32 word, s32 *off,
					  enum sframe_reason *reason)
{
	*off = word;
	if (abi == SFRAME_ABI_S390X_ENDIAN_BIG &&
	    (check_mul_overflow(word, SFRAME_S390X_CFA_OFFSET_ALIGNMENT_FACTOR, off) ||
	     check_sub_overflow(*off, SFRAME_S390X_CFA_OFFSET_ADJUSTMENT, off)))
		return sframe_bad(reason, SFRAME_R_BAD_OFFSET);
	return 0;
}

/*
 * Decode a default FRE into @rule, whose flags so far are @flags: those
 * of its FDE and FRE, written here with SFRAME_RULE_USUAL if the rule
 * qualifies
 */
static __always_inline int sframe_rule_default(const struct sframe_section *sec,
					       u8 abi_id, u8 info,
					       const s32 *word,
					       unsigned int count, u8 flags,
					       struct sframe_rule *rule,
					       enum sframe_reason *reason)
{
	const struct sframe_abi *abi = &sframe_abis[abi_id];
	bool ra_saved, fp_reg = false;
	s32 off;
	int ret;

	if (count > abi->max_words)
		return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_COUNT);

	ret = sframe_cfa_off(abi_id, word[0], &off, reason);
	if (ret)
		return ret;

	sframe_loc_set(&rule->cfa, SFRAME_LOC_REG,
		       SFRAME_FRE_INFO_CFA_BASE_REG(info) == SFRAME_BASE_REG_SP ?
		       abi->sp : abi->fp, off);

	/* Each location written once: from its data word, or the default */
	if (abi->ra_word && count > abi->ra_word) {
		ret = sframe_loc_stack(sec, abi_id, &rule->ra,
				       word[abi->ra_word], true, reason);
		if (ret < 0)
			return ret;
		ra_saved = ret == SFRAME_LOC_CFA_DEREF;
	} else {
		sframe_loc_default(&rule->ra, sec->fixed_ra_off);
		ra_saved = sec->fixed_ra_off;
	}
	if (count > abi->fp_word) {
		ret = sframe_loc_stack(sec, abi_id, &rule->fp,
				       word[abi->fp_word], false, reason);
		if (ret < 0)
			return ret;
		fp_reg = ret == SFRAME_LOC_REG;
	} else {
		sframe_loc_default(&rule->fp, sec->fixed_fp_off);
	}
	if (ra_saved && !fp_reg && !(flags & SFRAME_RULE_SIGNAL))
		flags |= SFRAME_RULE_USUAL;
	rule->flags = flags;
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
		sframe_loc_set(loc, deref ? SFRAME_LOC_REG_DEREF : SFRAME_LOC_REG,
			       regnum, off);
	} else {
		/* The CFA needs a register; "CFA + off" is not encodable */
		if (cfa || regnum || !deref)
			return sframe_bad(reason, SFRAME_R_BAD_FLEX_CTRL);
		sframe_loc_set(loc, SFRAME_LOC_CFA_DEREF, 0, off);
	}
	return 0;
}

/* Data word @word of an FRE with info byte @info, as an unsigned word */
static __always_inline u32 sframe_flex_ctrl(u8 info, s32 word)
{
	switch (SFRAME_FRE_INFO_DATAWORD_SIZE(info)) {
	case SFRAME_FRE_DATAWORD_1B:
		return (u8)word;
	case SFRAME_FRE_DATAWORD_2B:
		return (u16)word;
	default:
		return (u32)word;
	}
}

static __always_inline int sframe_rule_flex(const struct sframe_section *sec,
					    u8 abi, u8 info, const s32 *word,
					    unsigned int count,
					    struct sframe_rule *rule,
					    enum sframe_reason *reason)
{
	struct sframe_loc *locs[] = { &rule->ra, &rule->fp };
	unsigned int i = 2, e;
	s32 cfa_off;
	int ret;

	if (count < 2 || count > SFRAME_FLEX_MAX_WORDS)
		return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_COUNT);

	ret = sframe_cfa_off(abi, word[1], &cfa_off, reason);
	if (ret)
		return ret;
	ret = sframe_loc_flex(&rule->cfa, sframe_flex_ctrl(info, word[0]),
			      cfa_off, true, reason);
	if (ret)
		return ret;

	sframe_loc_default(&rule->ra, sec->fixed_ra_off);
	sframe_loc_default(&rule->fp, sec->fixed_fp_off);

	/* RA, then FP: a (control, offset) pair, a padding word, or nothing */
	for (e = 0; e < ARRAY_SIZE(locs) && i < count; e++) {
		u32 ctrl = sframe_flex_ctrl(info, word[i]);

		if (ctrl == SFRAME_FLEX_CTRL_PADDING) {
			i++;
			continue;
		}
		if (i + 1 >= count)
			return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_COUNT);
		ret = sframe_loc_flex(locs[e], ctrl, word[i + 1], false, reason);
		if (ret)
			return ret;
		i += 2;
	}
	if (i != count)
		return sframe_bad(reason, SFRAME_R_BAD_DATAWORD_COUNT);
	return 0;
}

static_assert(SFRAME_AARCH64_PAUTH_KEY_B == 1);

/*
 * The flags of a rule that come from its FDE: each bit of the info bytes
 * moved to its flag, not tested
 */
static __always_inline u8 sframe_fde_flags(const struct sframe_section *sec,
					   u8 abi,
					   const struct sframe_fde *fde)
{
	u8 flags = (SFRAME_V3_FDE_INFO2_TYPE(fde->info2) ==
		    SFRAME_FDE_TYPE_FLEX) * SFRAME_RULE_FLEX;

	if (sec->version == SFRAME_VERSION_3)
		flags |= SFRAME_V3_FDE_INFO_SIGNAL(fde->info) *
			 SFRAME_RULE_SIGNAL;
	if (sframe_abi_aarch64(abi))
		flags |= SFRAME_FDE_INFO_PAUTH_KEY(fde->info) *
			 SFRAME_RULE_PAUTH_KEY_B;
	return flags;
}

/*
 * Fill the parts of @rule that come from @fde, and a start of 0 for the
 * FRE (an FDE without FREs has none).  The locations and flags are
 * written by the decoding of the FRE, or by sframe_rule_outermost().
 */
static __always_inline void sframe_rule_init(const struct sframe_fde *fde,
					     struct sframe_rule *rule)
{
	rule->func_start = fde->func_start;
	rule->func_size = fde->func_size;
	rule->fre_start = 0;
}

/* Decode @fre, whose data words sframe_fre_words() read, into @rule. */
static __always_inline int sframe_fre_rule(const struct sframe_section *sec,
					   u8 abi,
					   const struct sframe_fde *fde,
					   const struct sframe_fre *fre,
					   const s32 *word,
					   struct sframe_rule *rule,
					   enum sframe_reason *reason)
{
	unsigned int count = SFRAME_FRE_INFO_DATAWORD_COUNT(fre->info);
	u8 flags = sframe_fde_flags(sec, abi, fde);

	sframe_rule_init(fde, rule);
	rule->fre_start = fre->start;
	if (sframe_abi_aarch64(abi))
		flags |= SFRAME_FRE_INFO_MANGLED_RA(fre->info) *
			 SFRAME_RULE_MANGLED_RA;

	if (!count) {
		sframe_rule_outermost(rule, flags);
		return 0;
	}
	if (flags & SFRAME_RULE_FLEX) {
		rule->flags = flags;
		return sframe_rule_flex(sec, abi, fre->info, word, count, rule,
					reason);
	}
	return sframe_rule_default(sec, abi, fre->info, word, count, flags,
				   rule, reason);
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

/*
 * What a lookup reads inside its window, except the data words: apart, so
 * that the compiler can keep these fields in registers (an array indexed
 * by a variable stays in memory, and so would a structure holding one).
 */
struct sframe_match {
	struct sframe_fde	fde;
	struct sframe_fre	fre;
	u32			fres_read;
};

/*
 * Inside the window: the index of the last FDE in [@lo, @lo + @n) whose
 * function starts at or before @pc, or @lo if there is none (the caller's
 * range check of that FDE then fails).  @v2 and @pcrel are constants in
 * each of the copies the compiler makes, so that a probe is one load and
 * no test of the layout.  Each probe halves @n: at most 32 probes.
 */
static __always_inline int sframe_fde_search(const struct sframe_section *sec,
					     unsigned long pc, bool v2,
					     bool pcrel, u32 lo, u32 n,
					     u32 *idx)
{
	unsigned int size = v2 ? sizeof(struct sframe_fde_v2) :
				 sizeof(struct sframe_fde_v3);
	unsigned long base = sec->fdes_start + (unsigned long)lo * size;

	/* The answer is in the @n FDEs from @base */
	while (n > 1) {
		u32 half = n / 2;
		unsigned long mid = base + (unsigned long)half * size;
		unsigned long start;
		int ret;

		ret = sframe_fde_start_at(sec, mid, v2, pcrel, &start);
		if (ret)
			return ret;
		if (start <= pc)
			base = mid;
		n -= half;
	}
	*idx = (base - sec->fdes_start) / size;
	return 0;
}

/*
 * Inside the window: the last FRE of @m->fde that starts at or before
 * @pc_off, into @m->fre.  @asize, the size of an FRE's start address, and
 * @checked are constants in each of the copies the compiler makes.  Every
 * FRE's bytes lie in the FRE sub-section before they are read: if
 * @checked, checked one by one (two comparisons, cheaper than telling
 * which FREs need them), else known from the caller's check that the
 * FDE's FREs fit at the largest a rule uses, and -EAGAIN for a longer
 * one.  At most SFRAME_FDE_MAX_FRES iterations, see sframe_fde_attr().
 */
static __always_inline int sframe_fre_scan(const struct sframe_section *sec,
					   struct sframe_match *m, u32 pc_off,
					   unsigned int asize, bool checked,
					   enum sframe_reason *reason)
{
	unsigned long addr = m->fde.fres_addr, found = 0;
	struct sframe_fre fre;
	u32 min = 0;		/* where the next FRE may start */
	int ret = 0;
	u32 i, left;

	/* fres_addr is in the sub-section and @addr only grows */
	for (left = m->fde.fres_num; left; left--, addr += fre.len) {
		ret = sframe_fre_head(sec, addr, asize, checked, &fre, reason);
		if (ret)
			break;
		if (fre.start > pc_off)
			break;
		if (fre.start < min) {
			ret = sframe_bad(reason, SFRAME_R_FRE_NOT_INCREASING);
			break;
		}
		/* No overflow: fre.start <= pc_off < U32_MAX */
		min = fre.start + 1;
		found = addr;
	}
	/* The FREs before the one that ended the scan, if any */
	i = m->fde.fres_num - left;
	m->fres_read = left ? i + 1 : i;
	if (ret)
		return ret;
	/* No FRE starts at or before the PC */
	if (!i)
		return -ENOENT;
	/*
	 * The FRE found: its head read again, checked as in the loop (once,
	 * which costs less than keeping it at every step), with the start
	 * that the loop compared
	 */
	ret = sframe_fre_head(sec, found, asize, checked, &m->fre, reason);
	m->fre.start = min - 1;
	return ret;
}

/*
 * sframe_fre_scan() for FREs of @asize bytes of start address: without a
 * check per FRE where all of them fit in the sub-section at the largest a
 * rule uses (SFRAME_FDE_MAX_FRES FREs of at most 29 bytes: no overflow),
 * again with the checks if one of them is longer (-EAGAIN): then the
 * lookup reads up to twice SFRAME_FDE_MAX_FRES FREs, and says so in
 * @m->fres_read.
 */
static __always_inline int sframe_fre_scan_asize(const struct sframe_section *sec,
						 struct sframe_match *m,
						 u32 pc_off, unsigned int asize,
						 enum sframe_reason *reason)
{
	unsigned long room = sec->fres_end - m->fde.fres_addr;
	u32 fast = 0;
	int ret;

	if ((unsigned long)m->fde.fres_num *
	    (asize + 1 + SFRAME_FRE_FAST_WORDS_LEN) <= room) {
		ret = sframe_fre_scan(sec, m, pc_off, asize, false, reason);
		if (ret != -EAGAIN)
			return ret;
		/* The FREs read before starting again count too */
		fast = m->fres_read;
	}
	ret = sframe_fre_scan(sec, m, pc_off, asize, true, reason);
	m->fres_read += fast;
	return ret;
}

/*
 * sframe_index_range() through the starts of a small section's functions
 * (@index->starts): the one FDE to read, the last whose function starts
 * at or before @pc, found in kernel memory by 6 probes without a loop
 * (the starts padded to SFRAME_INDEX_MIN_FDES entries, see
 * sframe_index_build()); the whole table [0, @n) where the index does not
 * say (a PC before the first function, an index of another section).
 */
static __always_inline void sframe_index_starts(const struct sframe_fde_index *index,
						unsigned long base,
						unsigned long pc, u32 *lo,
						u32 *n)
{
	unsigned long off = pc - base;
	u32 i = 0, step;

	if (pc < base || off >= U32_MAX)
		return;
	unrolled_full
	for (step = SFRAME_INDEX_MIN_FDES / 2; step; step /= 2)
		if (index->from[i + step] <= off)
			i += step;
	if (i < *n) {
		*lo = i;
		*n = 1;
	}
}

/*
 * The FDEs [@lo, @lo + @n) to search for @pc (in the text range, of a
 * section with FDEs): those between the index entries of its block and of
 * the next, or all.  Outside the user access window: a bounds check that
 * the compiler adds to the reads of the index is a call.  The index is
 * kernel memory made from a sorted table of @sec, but an index of another
 * section (a stale copy) still gives a range inside the table.
 */
static __always_inline void sframe_index_range(const struct sframe_section *sec,
					       unsigned long pc, u32 *lo, u32 *n)
{
	const struct sframe_fde_index *index = sec->fde_index;
	u32 last = sec->num_fdes - 1;
	unsigned long base, b;

	*lo = 0;
	*n = sec->num_fdes;
	if (!index)
		return;
	base = sec->text_start + index->base_off;
	if (index->starts) {
		sframe_index_starts(index, base, pc, lo, n);
		return;
	}
	/* Below @base, @b is past the index: the whole table */
	b = (pc - base) >> index->shift;
	if (b >= index->nr)
		return;
	/*
	 * @pc is the user's: no speculative read past the index, of entry
	 * @b or, after a mispredicted test below, of entry @b + 1
	 */
	b = array_index_nospec(b, index->nr);
	if (b + 1 < index->nr)
		last = min_t(u32, last,
			     index->from[array_index_nospec(b + 1, index->nr)]);
	if (index->from[b] > last)
		return;
	*lo = index->from[b];
	*n = last - *lo + 1;
}

/*
 * Inside the window: the FDE of the function containing @pc (binary
 * search over the start addresses of FDEs [@lo, @lo + @n), then the whole
 * entry), the last FRE that starts at or before @pc, and its data words
 * in @word.  An FDE without FREs leaves @m->fde.fres_num 0.
 */
static __always_inline int sframe_find_fre(const struct sframe_section *sec,
					   unsigned long pc, u32 lo, u32 n,
					   struct sframe_match *m, s32 *word,
					   enum sframe_reason *reason)
{
	bool pcrel = sec->flags & SFRAME_F_FDE_FUNC_START_PCREL;
	bool v2 = sec->version == SFRAME_VERSION_2;
	unsigned long start;
	u32 idx, pc_off;
	int ret;

	if (v2 && pcrel)
		ret = sframe_fde_search(sec, pc, true, true, lo, n, &idx);
	else if (v2)
		ret = sframe_fde_search(sec, pc, true, false, lo, n, &idx);
	else if (pcrel)
		ret = sframe_fde_search(sec, pc, false, true, lo, n, &idx);
	else
		ret = sframe_fde_search(sec, pc, false, false, lo, n, &idx);
	if (ret)
		return ret;
	/* A @pc below the first function: the search did not look */
	if (!idx) {
		ret = sframe_fde_start(sec, 0, &start);
		if (ret || pc < start)
			return ret ?: -ENOENT;
	}
	ret = sframe_fde_read(sec, v2, idx, &m->fde, reason);
	if (ret)
		return ret;
	/* The section may have changed since the search: check again */
	if (pc < m->fde.func_start ||
	    pc - m->fde.func_start >= m->fde.func_size)
		return -ENOENT;
	ret = sframe_fde_attr(sec, v2, &m->fde, reason);
	if (ret || !m->fde.fres_num)
		return ret;

	pc_off = pc - m->fde.func_start;
	if (SFRAME_FDE_INFO_PCTYPE(m->fde.info) == SFRAME_FDE_PCTYPE_MASK)
		pc_off %= m->fde.rep_size;

	switch (SFRAME_FDE_INFO_FRE_TYPE(m->fde.info)) {
	case SFRAME_FRE_TYPE_ADDR1:
		ret = sframe_fre_scan_asize(sec, m, pc_off, 1, reason);
		break;
	case SFRAME_FRE_TYPE_ADDR2:
		ret = sframe_fre_scan_asize(sec, m, pc_off, 2, reason);
		break;
	default:
		ret = sframe_fre_scan_asize(sec, m, pc_off, 4, reason);
		break;
	}
	if (ret)
		return ret;
	return sframe_fre_words(sec, &m->fre, word, reason);
}

/* Decode @fre of @fde into @rule: sections of any ABI */
static noinline int sframe_fre_decode(const struct sframe_section *sec,
				      const struct sframe_fde *fde,
				      const struct sframe_fre *fre,
				      const s32 *word,
				      struct sframe_rule *rule,
				      enum sframe_reason *reason)
{
	return sframe_fre_rule(sec, sec->abi, fde, fre, word, rule, reason);
}

/*
 * The same, on the unwinder's path: it only reads sections of its
 * architecture's ABI (UNWIND_USER_SFRAME_ABI, see sframe_check()), decoded
 * here by a copy of their own, with the ABI a constant.  The other ABIs
 * (the reader's tests, an architecture without SFrame unwinding) take the
 * general copy.
 */
static __always_inline int sframe_fre_decode_fast(const struct sframe_section *sec,
						  const struct sframe_fde *fde,
						  const struct sframe_fre *fre,
						  const s32 *word,
						  struct sframe_rule *rule,
						  enum sframe_reason *reason)
{
#ifdef UNWIND_USER_SFRAME_ABI
	if (sec->abi == UNWIND_USER_SFRAME_ABI) {
		return sframe_fre_rule(sec, UNWIND_USER_SFRAME_ABI, fde, fre,
				       word, rule, reason);
	}
#endif
	return sframe_fre_decode(sec, fde, fre, word, rule, reason);
}

/**
 * __sframe_find() - find the rule to recover the caller's frame at a PC
 * @sec:	section set up by sframe_section_init()
 * @pc:		user PC
 * @rule:	the rule, on success
 * @nofault:	the caller has disabled page faults: nothing is read while
 *		the user address space cannot be accessed
 *		(nmi_uaccess_okay())
 * @reason:	why the section is corrupt on -EBADMSG, else SFRAME_R_NONE;
 *		not NULL
 *
 * sframe_find() and sframe_find_nofault(), inline wrappers of this, are
 * the interface; one function, so that the unwinder's lookup of a frame
 * calls the reader directly.  The wrappers pass a @reason of their own
 * when their caller has none, which saves a test per lookup here.
 *
 * Context: Any context that may access user memory; any context,
 * including NMI, with @nofault and page faults disabled.
 * Return: as for sframe_find().
 */
int __sframe_find(const struct sframe_section *sec, unsigned long pc,
		  struct sframe_rule *rule, bool nofault,
		  enum sframe_reason *reason)
{
	/* Written before it is read: not worth zeroing at every lookup */
	struct sframe_match m __uninitialized;
	s32 word[SFRAME_MAX_WORDS] __uninitialized;
	u32 lo, n;
	int ret;

	*reason = SFRAME_R_NONE;
	m.fres_read = 0;
	ret = -ENOENT;
	if (pc < sec->text_start || pc >= sec->text_end || !sec->num_fdes)
		goto out;
	/* As copy_from_user_nofault(): not while another mm is loaded */
	ret = -EFAULT;
	if (nofault && !sec->kdata && !nmi_uaccess_okay())
		goto out;

	sframe_index_range(sec, pc, &lo, &n);
	if (!sframe_uaccess_begin(sec))
		goto out;
	ret = sframe_find_fre(sec, pc, lo, n, &m, word, reason);
	user_read_access_end();
	if (ret)
		goto out;

	if (!m.fde.fres_num) {
		rule->fres_read = m.fres_read;
		if (!sframe_fde_outermost(sec, &m.fde))
			return -ENOENT;
		sframe_rule_init(&m.fde, rule);
		sframe_rule_outermost(rule, sframe_fde_flags(sec, sec->abi,
							     &m.fde));
		return 0;
	}
	ret = sframe_fre_decode_fast(sec, &m.fde, &m.fre, word, rule, reason);
out:
	rule->fres_read = m.fres_read;
	return ret;
}

/* Read FDE @idx and its attribute record, in a window of their own. */
static int sframe_fde_get(const struct sframe_section *sec, u32 idx,
			  struct sframe_fde *fde, bool attr,
			  enum sframe_reason *reason)
{
	bool v2 = sec->version == SFRAME_VERSION_2;
	int ret;

	if (!sframe_uaccess_begin(sec))
		return -EFAULT;
	if (attr)
		ret = sframe_fde_attr(sec, v2, fde, reason);
	else
		ret = sframe_fde_read(sec, v2, idx, fde, reason);
	user_read_access_end();
	return ret;
}

/* Read the FRE at @addr, or its data words, in a window of their own. */
static int sframe_fre_get(const struct sframe_section *sec,
			  const struct sframe_fde *fde, unsigned long addr,
			  struct sframe_fre *fre, s32 *word,
			  enum sframe_reason *reason)
{
	int ret;

	if (!sframe_uaccess_begin(sec))
		return -EFAULT;
	if (word)
		ret = sframe_fre_words(sec, fre, word, reason);
	else
		ret = sframe_fre_hdr(sec, fde, addr, fre, reason);
	user_read_access_end();
	return ret;
}

/* Check every FRE of @fde. */
static int sframe_fres_validate(const struct sframe_section *sec,
				const struct sframe_fde *fde,
				enum sframe_reason *reason)
{
	unsigned long addr = fde->fres_addr;
	s32 word[SFRAME_MAX_WORDS];
	struct sframe_rule rule;
	struct sframe_fre fre;
	u32 limit = fde->func_size;
	u32 prev = 0, i;
	int ret;

	if (SFRAME_FDE_INFO_PCTYPE(fde->info) == SFRAME_FDE_PCTYPE_MASK)
		limit = fde->rep_size;

	for (i = 0; i < fde->fres_num; i++) {
		ret = sframe_fre_get(sec, fde, addr, &fre, NULL, reason);
		if (ret)
			return ret;
		if (i && fre.start <= prev)
			return sframe_bad(reason, SFRAME_R_FRE_NOT_INCREASING);
		if (fre.start >= limit)
			return sframe_bad(reason, SFRAME_R_FRE_BEYOND_FUNC);
		ret = sframe_fre_get(sec, fde, addr, &fre, word, reason);
		if (ret)
			return ret;
		ret = sframe_fre_decode(sec, fde, &fre, word, &rule, reason);
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
	struct sframe_fde fde = {};
	u64 num_fres = 0;
	u32 i;
	int ret;

	if (reason)
		*reason = SFRAME_R_NONE;
	for (i = 0; i < sec->num_fdes; i++) {
		ret = sframe_fde_get(sec, i, &fde, false, reason);
		if (ret)
			return ret;
		if (i && fde.func_start < prev_start)
			return sframe_bad(reason, SFRAME_R_FDES_NOT_SORTED);
		prev_start = fde.func_start;

		if (check_add_overflow(fde.func_start, fde.func_size, &end))
			return sframe_bad(reason, SFRAME_R_FUNC_RANGE);
		if (fde.func_start < sec->text_start || end > sec->text_end)
			return sframe_bad(reason, SFRAME_R_FUNC_OUTSIDE_TEXT);

		ret = sframe_fde_get(sec, i, &fde, true, reason);
		if (ret)
			return ret;
		num_fres += fde.fres_num;

		ret = sframe_fres_validate(sec, &fde, reason);
		if (ret)
			return ret;

		cond_resched();
	}

	if (num_fres != sec->num_fres)
		return sframe_bad(reason, SFRAME_R_FRE_COUNT);
	return 0;
}

/* Enough FDEs for an index to pay, few enough to make it */
static bool sframe_index_wanted(const struct sframe_section *sec)
{
	return sec->num_fdes >= SFRAME_INDEX_MIN_FDES &&
	       sec->num_fdes <= SFRAME_INDEX_MAX_FDES;
}

/* A small section: an index of the starts of its functions */
static bool sframe_index_starts_wanted(const struct sframe_section *sec)
{
	return sec->num_fdes >= 2 && sec->num_fdes < SFRAME_INDEX_MIN_FDES;
}

/**
 * sframe_index_blocks() - how large an index of the FDE table to make
 * @sec:	section set up by sframe_section_init()
 * @base:	where the blocks start, in the section's text
 * @end:	where they end, after @base
 * @shift:	log2 of the block size, if the section gets an index
 *
 * The smallest blocks over [@base, @end) that keep the index within one
 * block per SFRAME_INDEX_FDES_PER_BLOCK FDEs and SFRAME_INDEX_MAX_BLOCKS
 * blocks.  Allocate struct_size(index, from, blocks) bytes for
 * sframe_index_build().
 *
 * Context: Any context.
 * Return: the number of blocks of the index; 0 if the section is better
 * searched without one (fewer than SFRAME_INDEX_MIN_FDES FDEs) or has too
 * many FDEs (more than SFRAME_INDEX_MAX_FDES), or for an empty range.
 */
u32 sframe_index_blocks(const struct sframe_section *sec, unsigned long base,
			unsigned long end, u8 *shift)
{
	unsigned long last = end - base - 1;
	u32 max;

	if (!sframe_index_wanted(sec) || end <= base)
		return 0;
	max = min_t(u32, sec->num_fdes / SFRAME_INDEX_FDES_PER_BLOCK,
		    SFRAME_INDEX_MAX_BLOCKS);
	/* At most BITS_PER_LONG - 1 steps: max is at least 32 */
	for (*shift = 0; (last >> *shift) + 1 > max; (*shift)++)
		;
	return (last >> *shift) + 1;
}

/* FDE starts read in one user access window by sframe_index_build() */
#define SFRAME_INDEX_CHUNK	256

static_assert(struct_size_t(struct sframe_fde_index, from,
			    SFRAME_INDEX_MAX_BLOCKS) <= SZ_256K);

/*
 * Inside the window: the starts of FDEs *@i to @end - 1 into @index, see
 * sframe_index_build(); *@i, *@prev and *@b carry on to the next chunk
 */
static __always_inline int sframe_index_chunk(const struct sframe_section *sec,
					      struct sframe_fde_index *index,
					      unsigned long base, u32 *i,
					      u32 end, unsigned long *prev,
					      u32 *b,
					      enum sframe_reason *reason)
{
	/* Written inside user access windows: no bounds check calls there */
	u32 *from = index->from;
	unsigned long start;
	int ret;

	for (; *i < end; (*i)++) {
		ret = sframe_fde_start(sec, *i, &start);
		if (ret)
			return ret;
		if (*i && start < *prev)
			return sframe_bad(reason, SFRAME_R_FDES_NOT_SORTED);
		*prev = start;
		if (index->starts) {
			if (start < base || start - base >= U32_MAX)
				return -EINVAL;
			from[*i] = start - base;
			continue;
		}
		/*
		 * The blocks that start before this function: the previous
		 * FDE is the last one at or before their start
		 */
		while (*b < index->nr &&
		       base + ((unsigned long)*b << index->shift) < start)
			from[(*b)++] = *i ? *i - 1 : 0;
	}
	return 0;
}

/**
 * sframe_index_build() - make the index of a section's FDE table
 * @sec:	section set up by sframe_section_init(), without an index
 * @index:	the index to fill in; the caller sets @index->nr,
 *		@index->base_off, @index->shift (see sframe_index_blocks()) and
 *		@index->starts, @index->from has room for @index->nr entries
 * @reason:	if not NULL, why the section is corrupt on -EBADMSG, else
 *		SFRAME_R_NONE
 *
 * Read the start of every FDE's function, once, and note for each block
 * of text the last FDE that starts at or before its first byte; or, for
 * an index of starts, each start's offset from block 0, then U32_MAX
 * up to @index->nr entries.  The
 * caller then sets @sec->fde_index to @index.  A lookup through the index
 * searches a few FDEs, and finds the same one as without it as long as
 * the table does not change; if it does, the lookup still checks what it
 * reads, as without an index.
 *
 * Context: Process context, may sleep.  Reads at most
 * SFRAME_INDEX_MAX_FDES starts.
 * Return: 0; -EBADMSG if the FDEs are not sorted (SFRAME_R_FDES_NOT_SORTED);
 * -EFAULT if the table could not be read; -EINVAL if block 0 is not in
 * the section's text, or @index->nr blocks from it would start a block at
 * or past the text's end; for an index of starts, if @index->nr is not
 * SFRAME_INDEX_MIN_FDES, the section has as many FDEs or more, or a
 * function starts before block 0 or 4 GiB - 1 or more after it.
 */
int sframe_index_build(const struct sframe_section *sec,
		       struct sframe_fde_index *index,
		       enum sframe_reason *reason)
{
	/* Written inside user access windows: no bounds check calls there */
	u32 *from = index->from;
	unsigned long prev = 0, last, base;
	u32 i = 0, end, b = 0;
	int ret = 0;

	if (reason)
		*reason = SFRAME_R_NONE;
	if (!sec->num_fdes || sec->num_fdes > SFRAME_INDEX_MAX_FDES ||
	    sec->text_end <= sec->text_start ||
	    index->base_off >= sec->text_end - sec->text_start ||
	    index->shift >= BITS_PER_LONG || !index->nr)
		return -EINVAL;
	base = sec->text_start + index->base_off;
	last = sec->text_end - base - 1;
	if (index->starts) {
		if (index->nr != SFRAME_INDEX_MIN_FDES ||
		    sec->num_fdes >= SFRAME_INDEX_MIN_FDES)
			return -EINVAL;
	} else if ((last >> index->shift) + 1 < index->nr) {
		return -EINVAL;
	}

	while (i < sec->num_fdes) {
		end = min_t(u32, sec->num_fdes, i + SFRAME_INDEX_CHUNK);
		if (!sframe_uaccess_begin(sec))
			return -EFAULT;
		ret = sframe_index_chunk(sec, index, base, &i, end, &prev, &b,
					 reason);
		user_read_access_end();
		if (ret)
			return ret;
		cond_resched();
	}
	/* Past the last start, no PC: see sframe_index_starts() */
	if (index->starts)
		for (; i < index->nr; i++)
			from[i] = U32_MAX;
	while (!index->starts && b < index->nr)
		from[b++] = sec->num_fdes - 1;
	return 0;
}

/* Inside the window: the start and size of the function of FDE @idx */
static __always_inline int sframe_fde_extent(const struct sframe_section *sec,
					     u32 idx, unsigned long *start,
					     u32 *size)
{
	unsigned long addr = sec->fdes_start + (unsigned long)idx * sec->fde_size;
	int ret;

	ret = sframe_fde_start(sec, idx, start);
	if (ret)
		return ret;
	if (sec->version == SFRAME_VERSION_2)
		addr += offsetof(struct sframe_fde_v2, func_size);
	else
		addr += offsetof(struct sframe_fde_v3, func_size);
	return sframe_read32(sec, addr, size);
}

/* Inside the window: the start of the first function, the last one's extent */
static __always_inline int sframe_fde_span(const struct sframe_section *sec,
					   unsigned long *base,
					   unsigned long *end, u32 *size)
{
	int ret;

	ret = sframe_fde_start(sec, 0, base);
	if (!ret)
		ret = sframe_fde_extent(sec, sec->num_fdes - 1, end, size);
	return ret;
}

/*
 * The text that the functions of a section with FDEs span: from the start
 * of the first one to the end of the last one, or the whole text where
 * the table says otherwise (it is still checked at every lookup).
 */
static int sframe_index_span(const struct sframe_section *sec,
			     unsigned long *base, unsigned long *end)
{
	u32 size;
	int ret;

	if (!sframe_uaccess_begin(sec))
		return -EFAULT;
	ret = sframe_fde_span(sec, base, end, &size);
	user_read_access_end();
	if (ret)
		return ret;
	if (*base < sec->text_start || *base >= sec->text_end)
		*base = sec->text_start;
	if (check_add_overflow(*end, (unsigned long)size, end) ||
	    *end <= *base || *end > sec->text_end)
		*end = sec->text_end;
	return 0;
}

/**
 * sframe_index_attach() - give a section an index of its FDE table
 * @sec:	section set up by sframe_section_init(), without an index
 * @reason:	if not NULL, why the section is corrupt on -EBADMSG, else
 *		SFRAME_R_NONE
 *
 * If the section has enough FDEs for one (sframe_index_blocks()), make its
 * index (sframe_index_build()) over the text that its functions span, in
 * memory of its own, with one reference, and set @sec->fde_index.  A
 * section of 2 to SFRAME_INDEX_MIN_FDES - 1 FDEs gets an index of the
 * starts of its functions, if they span less than 4 GiB.
 * Without memory for it, the section has none, and its lookups search the
 * whole table.  Drop the reference with sframe_index_put().
 *
 * Context: Process context, may sleep.
 * Return: 0, with or without an index; -ENOMEM if the section wants one
 * and there was no memory for it (the section is usable without); as
 * sframe_index_build() if it failed: -EBADMSG for an unsorted table,
 * -EFAULT if it could not be read.
 */
int sframe_index_attach(struct sframe_section *sec, enum sframe_reason *reason)
{
	struct sframe_fde_index *index;
	unsigned long base, end;
	bool starts;
	u32 blocks;
	u8 shift;
	int ret;

	if (reason)
		*reason = SFRAME_R_NONE;
	starts = sframe_index_starts_wanted(sec);
	if (!starts && !sframe_index_wanted(sec))
		return 0;
	ret = sframe_index_span(sec, &base, &end);
	if (ret)
		return ret;
	if (starts) {
		if (end - base >= U32_MAX)
			return 0;
		blocks = SFRAME_INDEX_MIN_FDES;
		shift = 0;
	} else {
		blocks = sframe_index_blocks(sec, base, end, &shift);
		if (!blocks)
			return 0;
	}
	index = kvmalloc(struct_size(index, from, blocks),
			 GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!index)
		return -ENOMEM;
	refcount_set(&index->ref, 1);
	index->nr = blocks;
	index->base_off = base - sec->text_start;
	index->shift = shift;
	index->starts = starts;
	ret = sframe_index_build(sec, index, reason);
	if (ret) {
		kvfree(index);
		/* The table changed since the span was read: no index */
		return ret == -EINVAL ? 0 : ret;
	}
	sec->fde_index = index;
	return 0;
}

/**
 * sframe_index_put() - drop a reference to an FDE index
 * @index:	an index made by sframe_index_attach(), or NULL
 *
 * The last reference frees it.
 *
 * Context: Any context but NMI (kvfree() defers a vfree() from an
 * interrupt or an RCU callback).
 */
void sframe_index_put(struct sframe_fde_index *index)
{
	/* kvfree() defers a vfree() itself from an RCU callback */
	if (index && refcount_dec_and_test(&index->ref))
		kvfree(index);
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

	if (reason)
		*reason = SFRAME_R_NONE;
	if (sec->sframe_start >= sec->sframe_end ||
	    sec->text_start >= sec->text_end) {
		if (reason)
			*reason = SFRAME_R_BAD_RANGE;
		return -EINVAL;
	}

	if (sizeof(h) > sec->sframe_end - sec->sframe_start)
		return sframe_bad(reason, SFRAME_R_TRUNCATED);
	if (sec->kdata)
		memcpy(&h, sec->kdata, sizeof(h));
	else if (copy_from_user(&h, (const void __user *)sec->sframe_start,
				sizeof(h)))
		return -EFAULT;

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
