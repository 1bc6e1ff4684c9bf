/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame reader: look up how to recover the caller's frame for a user PC.
 *
 * The reader is architecture and environment neutral.  It reads the
 * section from user memory only, inside user access windows
 * (user_read_access_begin(), unsafe_get_user()), and turns the FRE
 * covering a PC into a struct sframe_rule: one location each for the CFA,
 * the return address and the frame pointer.  Applying the rule to the
 * registers of a frame is left to a small architecture hook:
 *
 *	cfa = value of rule.cfa	(SFRAME_LOC_REG or SFRAME_LOC_REG_DEREF)
 *	ra  = value of rule.ra	(relative to cfa, a register, or unchanged)
 *	fp  = value of rule.fp
 *
 * where, for a location loc and a base b (the CFA for SFRAME_LOC_CFA_*,
 * register loc.reg for SFRAME_LOC_REG*):
 *
 *	SFRAME_LOC_SAME		the value is unchanged from the younger frame
 *	SFRAME_LOC_CFA_VAL,
 *	SFRAME_LOC_REG		b + loc.off
 *	SFRAME_LOC_CFA_DEREF,
 *	SFRAME_LOC_REG_DEREF	the word at b + loc.off
 *
 * Register numbers are DWARF numbers.
 */
#ifndef _KERNEL_UNWIND_SFRAME_WALK_H
#define _KERNEL_UNWIND_SFRAME_WALK_H

#include <linux/bits.h>
#include <linux/refcount.h>
#include <linux/sframe_rule.h>
#include <linux/types.h>
#include <linux/uaccess.h>

/**
 * struct sframe_section - an SFrame section, in user or kernel memory
 * @sframe_start:	user address of the first byte of the section
 * @sframe_end:		user address one past the last byte of the section
 * @text_start:		start of the code the section describes
 * @text_end:		end (exclusive) of the code the section describes
 * @fdes_start:		user address of the FDE table
 * @fres_start:		user address of the FRE sub-section
 * @fres_end:		end (exclusive) of the FRE sub-section
 * @num_fdes:		number of FDEs
 * @num_fres:		number of FREs, as claimed by the header
 * @version:		SFRAME_VERSION_2 or SFRAME_VERSION_3
 * @abi:		SFRAME_ABI_*
 * @flags:		SFRAME_F_* flags of the header
 * @fde_size:		size of one FDE table entry
 * @fixed_ra_off:	RA offset from the CFA fixed by the header, or 0
 * @fixed_fp_off:	FP offset from the CFA fixed by the header, or 0
 * @fde_index:		an index of the FDE table in kernel memory, or NULL:
 *			see struct sframe_fde_index
 * @kdata:		NULL for a section in user memory; else the section's
 *			bytes in kernel memory, which the reader reads
 *			instead, and @sframe_start is the address that the
 *			section's function start offsets count from, as if
 *			the section were mapped there
 *
 * The caller fills in the first four fields, and @kdata; sframe_section_init()
 * checks the header and fills in the others but @fde_index, which are
 * trusted afterwards.  The caller may give the section an index, and then
 * owns it; the caller keeps @kdata while the section is used.
 */
struct sframe_section {
	unsigned long	sframe_start;
	unsigned long	sframe_end;
	unsigned long	text_start;
	unsigned long	text_end;

	unsigned long	fdes_start;
	unsigned long	fres_start;
	unsigned long	fres_end;
	u32		num_fdes;
	u32		num_fres;
	u8		version;
	u8		abi;
	u8		flags;
	u8		fde_size;
	s8		fixed_ra_off;
	s8		fixed_fp_off;
	struct sframe_fde_index *fde_index;
	const u8	*kdata;
};

/**
 * struct sframe_fde_index - where to search the FDE table, by block of text
 * @ref:	references of its users; the reader does not use it (the
 *		registry's entries share an index, see sframe_registry.c)
 * @nr:		number of blocks, and of entries in @from
 * @base_off:	where block 0 starts, as an offset from the section's
 *		@text_start: the first function of the FDE table
 *		(sframe_index_attach()).  An offset, so that the mappings of
 *		one file at other addresses share the index (sframe_image.c)
 * @shift:	a block is 1 << @shift bytes
 * @starts:	the index of a small section: @from holds the start of each
 *		FDE's function, as an offset from block 0, then U32_MAX (@nr is
 *		SFRAME_INDEX_MIN_FDES, @shift is 0)
 * @from:	for each block, the index of the last FDE whose function
 *		starts at or before the block's first byte (0 if none): where
 *		the search for a PC in the block starts
 *
 * A lookup of a PC in block b then only searches the FDEs @from[b] to
 * @from[b + 1] (or to the last FDE): a few instead of the whole table.
 * A section of fewer than SFRAME_INDEX_MIN_FDES FDEs gets the starts of
 * its functions instead (@starts), where a lookup searches kernel memory
 * alone and reads one FDE from user memory.  Made once per section by
 * sframe_index_build(), and not changed after; kernel memory, so it is
 * trusted, but the FDE table it indexes is still read from user memory
 * and checked at every lookup.  sframe_index_blocks() says how large to
 * make an index of blocks.
 */
struct sframe_fde_index {
	refcount_t	ref;
	u32		nr;
	unsigned long	base_off;
	u8		shift;
	bool		starts;
	u32		from[] __counted_by(nr);
};

/*
 * A section gets an index of blocks if it has at least
 * SFRAME_INDEX_MIN_FDES FDEs and at most SFRAME_INDEX_MAX_FDES (the bound
 * of the work of sframe_index_build()); one of 2 FDEs or more but fewer
 * than SFRAME_INDEX_MIN_FDES gets the starts of its functions (in a table
 * of SFRAME_INDEX_MIN_FDES entries, 256 bytes): a search of 6 probes in
 * kernel memory.
 * The index has at most one block per SFRAME_INDEX_FDES_PER_BLOCK FDEs,
 * and SFRAME_INDEX_MAX_BLOCKS blocks: 256 KiB with its header.  The blocks
 * cover the functions, from the first one's start to the last one's end:
 * not the whole executable segment, which on arm64 and s390x also holds
 * read-only data and the .sframe section itself.
 */
#define SFRAME_INDEX_MIN_FDES		64
#define SFRAME_INDEX_MAX_FDES		BIT(22)
#define SFRAME_INDEX_FDES_PER_BLOCK	2
#define SFRAME_INDEX_MAX_BLOCKS		65530

/*
 * FREs are variable-sized and read one after the other, so a lookup reads
 * all the FREs of its function up to the PC.  A function with more FREs
 * than this makes the section corrupt (SFRAME_R_FRE_LIMIT): a lookup never
 * reads more.  Real functions have far fewer: see
 * Documentation/userspace-api/sframe.rst for the measured maximum.
 */
#define SFRAME_FDE_MAX_FRES	1024

/* Why a section is considered corrupt, see sframe_reason_str() */
enum sframe_reason {
	SFRAME_R_NONE = 0,
	SFRAME_R_BAD_RANGE,
	SFRAME_R_TRUNCATED,
	SFRAME_R_BAD_MAGIC,
	SFRAME_R_VERSION_1,
	SFRAME_R_BAD_VERSION,
	SFRAME_R_BAD_FLAGS,
	SFRAME_R_NOT_SORTED_FLAG,
	SFRAME_R_BAD_ABI,
	SFRAME_R_NO_FIXED_RA,
	SFRAME_R_AUXHDR_OUTSIDE,
	SFRAME_R_FDES_OUTSIDE,
	SFRAME_R_FRES_OUTSIDE,
	SFRAME_R_FDES_OVERLAP,
	SFRAME_R_FDES_NOT_SORTED,
	SFRAME_R_FUNC_RANGE,
	SFRAME_R_FUNC_OUTSIDE_TEXT,
	SFRAME_R_FDE_FRES_OUTSIDE,
	SFRAME_R_BAD_FDE_TYPE,
	SFRAME_R_BAD_FRE_TYPE,
	SFRAME_R_REP_SIZE_ZERO,
	SFRAME_R_FRE_OUTSIDE,
	SFRAME_R_FRE_NOT_INCREASING,
	SFRAME_R_FRE_BEYOND_FUNC,
	SFRAME_R_BAD_DATAWORD_SIZE,
	SFRAME_R_BAD_DATAWORD_COUNT,
	SFRAME_R_BAD_FLEX_CTRL,
	SFRAME_R_BAD_REGNUM,
	SFRAME_R_BAD_OFFSET,
	SFRAME_R_FRE_COUNT,
	SFRAME_R_FRE_LIMIT,
	SFRAME_R_OTHER_ABI,
	SFRAME_NR_REASONS
};

const char *sframe_reason_str(enum sframe_reason reason);

int sframe_section_init(struct sframe_section *sec, enum sframe_reason *reason);
int __sframe_find(const struct sframe_section *sec, unsigned long pc,
		  struct sframe_rule *rule, bool nofault,
		  enum sframe_reason *reason);
int sframe_validate(const struct sframe_section *sec, enum sframe_reason *reason);
u32 sframe_index_blocks(const struct sframe_section *sec, unsigned long base,
			unsigned long end, u8 *shift);
int sframe_index_build(const struct sframe_section *sec,
		       struct sframe_fde_index *index,
		       enum sframe_reason *reason);
int sframe_index_attach(struct sframe_section *sec, enum sframe_reason *reason);
void sframe_index_put(struct sframe_fde_index *index);

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
static inline int sframe_find(const struct sframe_section *sec,
			      unsigned long pc, struct sframe_rule *rule,
			      enum sframe_reason *reason)
{
	enum sframe_reason none;

	return __sframe_find(sec, pc, rule, false, reason ?: &none);
}

/**
 * sframe_find_nofault() - sframe_find() without faulting or sleeping
 * @sec:	section set up by sframe_section_init()
 * @pc:		user PC
 * @rule:	the rule, on success
 * @reason:	as for sframe_find()
 *
 * Same as sframe_find(), but with page faults disabled: a read of memory
 * that is not present fails with -EFAULT instead of faulting it in, and
 * nothing is read while the user address space cannot be accessed
 * (nmi_uaccess_okay()).
 *
 * Context: Any context, including NMI.
 * Return: as for sframe_find().
 */
static inline int sframe_find_nofault(const struct sframe_section *sec,
				      unsigned long pc,
				      struct sframe_rule *rule,
				      enum sframe_reason *reason)
{
	enum sframe_reason none;
	int ret;

	pagefault_disable();
	ret = __sframe_find(sec, pc, rule, true, reason ?: &none);
	pagefault_enable();
	return ret;
}

#endif /* _KERNEL_UNWIND_SFRAME_WALK_H */
