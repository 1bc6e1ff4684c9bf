/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rule that the SFrame reader (kernel/unwind/sframe_walk.c) gives for
 * a user PC, in a header of its own so that the state of a user unwind
 * (struct unwind_user_state) can keep the rule of the previous frame.
 */
#ifndef _LINUX_SFRAME_RULE_H
#define _LINUX_SFRAME_RULE_H

#include <linux/types.h>

/* Kinds of struct sframe_loc, see kernel/unwind/sframe_walk.h */
enum sframe_loc_kind {
	SFRAME_LOC_UNDEFINED = 0,	/* no value: outermost frame */
	SFRAME_LOC_SAME,
	SFRAME_LOC_CFA_DEREF,
	SFRAME_LOC_CFA_VAL,
	SFRAME_LOC_REG,
	SFRAME_LOC_REG_DEREF,
};

/**
 * struct sframe_loc - where a value of the caller's frame is
 * @kind:	enum sframe_loc_kind
 * @reg:	DWARF register number for SFRAME_LOC_REG and SFRAME_LOC_REG_DEREF
 * @off:	offset added to the base (CFA or register)
 */
struct sframe_loc {
	u8	kind;
	u8	reg;
	s32	off;
};

/* struct sframe_rule.flags */
#define SFRAME_RULE_OUTERMOST	0x01	/* RA undefined: the stack ends here */
#define SFRAME_RULE_SIGNAL	0x02	/* signal frame (V3) */
#define SFRAME_RULE_MANGLED_RA	0x04	/* RA is signed (AArch64 PAC) */
#define SFRAME_RULE_PAUTH_KEY_B	0x08	/* RA signed with key B, else key A */
#define SFRAME_RULE_FLEX	0x10	/* decoded from a flexible FDE */
/*
 * The usual rule, nearly every frame's: not a signal frame, the CFA is SP
 * or FP plus an offset, the return address is saved at an offset from the
 * CFA, and so is FP or it is unchanged.  Set by the reader (for a default
 * FDE), so that the unwinder can take its short path without testing the
 * rule.
 */
#define SFRAME_RULE_USUAL	0x20

/**
 * struct sframe_rule - how to recover the caller's frame at one PC
 * @cfa:	the CFA, always SFRAME_LOC_REG or SFRAME_LOC_REG_DEREF
 *		(SFRAME_LOC_UNDEFINED for an outermost frame)
 * @ra:		the return address
 * @fp:		the frame pointer
 * @flags:	SFRAME_RULE_* flags
 * @func_start:	start address of the function whose FDE matched
 * @func_size:	size of that function
 * @fre_start:	start offset of the matching FRE (from @func_start, or from
 *		the start of the repeated block for PCTYPE_MASK FDEs); 0 if
 *		the FDE has no FRE
 * @fres_read:	FREs of the function that the lookup read, at most
 *		SFRAME_FDE_MAX_FRES: the lookup's cost, for callers that
 *		bound the work of a whole unwind; set also when the lookup
 *		fails
 */
struct sframe_rule {
	struct sframe_loc	cfa;
	struct sframe_loc	ra;
	struct sframe_loc	fp;
	u8			flags;
	unsigned long		func_start;
	u32			func_size;
	u32			fre_start;
	u32			fres_read;
};

#endif /* _LINUX_SFRAME_RULE_H */
