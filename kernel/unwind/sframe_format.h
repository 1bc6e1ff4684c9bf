/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-disk layout of the SFrame stack trace format, versions 2 and 3.
 *
 * An SFrame section is a header (plus an optional auxiliary header), a
 * table of function descriptor entries (FDEs) and a sub-section of frame
 * row entries (FREs).  All values are stored in the byte order of the
 * target; the kernel only reads sections of its own architecture, so
 * every multi-byte field is read native-endian.
 *
 * Version 1 is obsolete and not supported.
 */
#ifndef _KERNEL_UNWIND_SFRAME_FORMAT_H
#define _KERNEL_UNWIND_SFRAME_FORMAT_H

#include <linux/build_bug.h>
#include <linux/compiler_attributes.h>
#include <linux/types.h>

#define SFRAME_MAGIC				0xdee2

#define SFRAME_VERSION_1			1
#define SFRAME_VERSION_2			2
#define SFRAME_VERSION_3			3

/* Section flags (sframe_preamble.flags) */
#define SFRAME_F_FDE_SORTED			0x1
#define SFRAME_F_FRAME_POINTER			0x2	/* V2 only */
#define SFRAME_F_FDE_FUNC_START_PCREL		0x4

#define SFRAME_V2_F_ALL_FLAGS			(SFRAME_F_FDE_SORTED |		\
						 SFRAME_F_FRAME_POINTER |	\
						 SFRAME_F_FDE_FUNC_START_PCREL)
#define SFRAME_V3_F_ALL_FLAGS			(SFRAME_F_FDE_SORTED |		\
						 SFRAME_F_FDE_FUNC_START_PCREL)

/* ABI/arch identifiers (sframe_header.abi_arch) */
#define SFRAME_ABI_AARCH64_ENDIAN_BIG		1
#define SFRAME_ABI_AARCH64_ENDIAN_LITTLE	2
#define SFRAME_ABI_AMD64_ENDIAN_LITTLE		3
#define SFRAME_ABI_S390X_ENDIAN_BIG		4

/* A fixed FP/RA offset of 0 in the header means "not fixed". */
#define SFRAME_CFA_FIXED_FP_INVALID		0
#define SFRAME_CFA_FIXED_RA_INVALID		0

struct sframe_preamble {
	u16	magic;
	u8	version;
	u8	flags;
} __packed;

/*
 * fdes_off and fres_off are relative to the end of the header, that is
 * sizeof(struct sframe_header) + auxhdr_len bytes into the section.
 */
struct sframe_header {
	struct sframe_preamble	preamble;
	u8			abi_arch;
	s8			cfa_fixed_fp_offset;
	s8			cfa_fixed_ra_offset;
	u8			auxhdr_len;
	u32			num_fdes;
	u32			num_fres;
	u32			fre_len;
	u32			fdes_off;
	u32			fres_off;
} __packed;

/*
 * Version 2 FDE: one 20-byte record per function.  start_addr is relative
 * to the start of the section, or to the start_addr field itself if
 * SFRAME_F_FDE_FUNC_START_PCREL is set.  fres_off is relative to the start
 * of the FRE sub-section.
 */
struct sframe_fde_v2 {
	s32	start_addr;
	u32	func_size;
	u32	fres_off;
	u32	fres_num;
	u8	info;
	u8	rep_size;
	u16	padding;
} __packed;

/*
 * Version 3 FDE index entry: 16 bytes, naturally aligned.  start_off is
 * relative to the start of the section, or to the start_off field itself
 * if SFRAME_F_FDE_FUNC_START_PCREL is set.  fres_off is relative to the
 * start of the FRE sub-section and points at the function's attribute
 * record, which the FREs of the function follow.
 */
struct sframe_fde_v3 {
	s64	start_off;
	u32	func_size;
	u32	fres_off;
} __packed;

/* Version 3 FDE attribute record: 5 bytes, unaligned. */
struct sframe_fda_v3 {
	u16	fres_num;
	u8	info;
	u8	info2;
	u8	rep_size;
} __packed;

static_assert(sizeof(struct sframe_preamble) == 4);
static_assert(sizeof(struct sframe_header) == 28);
static_assert(sizeof(struct sframe_fde_v2) == 20);
static_assert(sizeof(struct sframe_fde_v3) == 16);
static_assert(sizeof(struct sframe_fda_v3) == 5);

/*
 * FDE info byte (V2: sframe_fde_v2.info, V3: sframe_fda_v3.info):
 *
 *   bits 0-3	FRE type (SFRAME_FRE_TYPE_*)
 *   bit  4	PC type (SFRAME_FDE_PCTYPE_*)
 *   bit  5	AArch64 pointer authentication key (SFRAME_AARCH64_PAUTH_KEY_*)
 *   bit  6	unused
 *   bit  7	signal frame (V3 only, unused in V2)
 */
#define SFRAME_FDE_INFO_FRE_TYPE(info)		((info) & 0xf)
#define SFRAME_FDE_INFO_PCTYPE(info)		(((info) >> 4) & 0x1)
#define SFRAME_FDE_INFO_PAUTH_KEY(info)		(((info) >> 5) & 0x1)
#define SFRAME_V3_FDE_INFO_SIGNAL(info)		(((info) >> 7) & 0x1)

#define SFRAME_FDE_PCTYPE_INC			0
#define SFRAME_FDE_PCTYPE_MASK			1

#define SFRAME_AARCH64_PAUTH_KEY_A		0
#define SFRAME_AARCH64_PAUTH_KEY_B		1

/* V3 FDE info2 byte: bits 0-4 FDE type, bits 5-7 unused. */
#define SFRAME_V3_FDE_INFO2_TYPE(info2)		((info2) & 0x1f)

#define SFRAME_FDE_TYPE_DEFAULT			0
#define SFRAME_FDE_TYPE_FLEX			1	/* V3 only */

/* FRE types: width of the FRE start address field */
#define SFRAME_FRE_TYPE_ADDR1			0
#define SFRAME_FRE_TYPE_ADDR2			1
#define SFRAME_FRE_TYPE_ADDR4			2

/*
 * An FRE is a start address (1, 2 or 4 bytes, by FRE type, relative to the
 * function start or, for SFRAME_FDE_PCTYPE_MASK, to the start of the
 * repeated block), an info byte and N data words of S bytes each:
 *
 *   bit  0	CFA base register (SFRAME_BASE_REG_*), default FDEs only
 *   bits 1-4	data word count N; 0 means the RA is undefined (outermost)
 *   bits 5-6	data word size S (SFRAME_FRE_DATAWORD_*)
 *   bit  7	RA is mangled (signed), AArch64
 */
#define SFRAME_FRE_INFO_CFA_BASE_REG(info)	((info) & 0x1)
#define SFRAME_FRE_INFO_DATAWORD_COUNT(info)	(((info) >> 1) & 0xf)
#define SFRAME_FRE_INFO_DATAWORD_SIZE(info)	(((info) >> 5) & 0x3)
#define SFRAME_FRE_INFO_MANGLED_RA(info)	(((info) >> 7) & 0x1)

#define SFRAME_BASE_REG_FP			0
#define SFRAME_BASE_REG_SP			1

#define SFRAME_FRE_DATAWORD_1B			0
#define SFRAME_FRE_DATAWORD_2B			1
#define SFRAME_FRE_DATAWORD_4B			2

#define SFRAME_FRE_MAX_DATAWORDS		15
/* Largest possible FRE: 4-byte start address, info byte, 15 4-byte words */
#define SFRAME_FRE_MAX_SIZE			(4 + 1 + SFRAME_FRE_MAX_DATAWORDS * 4)

/*
 * s390x: the CFA offset is stored adjusted by
 * SFRAME_S390X_CFA_OFFSET_ADJUSTMENT and scaled down by
 * SFRAME_S390X_CFA_OFFSET_ALIGNMENT_FACTOR, in default and (as binutils
 * writes and reads them) flexible FDEs alike; the SP of the caller is
 * CFA + SFRAME_S390X_SP_VAL_OFFSET.
 */
#define SFRAME_S390X_SP_VAL_OFFSET		(-160)
#define SFRAME_S390X_CFA_OFFSET_ADJUSTMENT	SFRAME_S390X_SP_VAL_OFFSET
#define SFRAME_S390X_CFA_OFFSET_ALIGNMENT_FACTOR	8
#define SFRAME_S390X_CFA_OFFSET_DECODE(off)				\
	((off) * SFRAME_S390X_CFA_OFFSET_ALIGNMENT_FACTOR -		\
	 SFRAME_S390X_CFA_OFFSET_ADJUSTMENT)

/* s390x: an RA offset of this value is padding: the RA was not saved. */
#define SFRAME_FRE_RA_OFFSET_INVALID		0

/*
 * s390x, V2 only: an RA or FP offset with its lowest bit set encodes the
 * DWARF number of the register holding the value, shifted left by one.
 */
#define SFRAME_V2_S390X_OFFSET_IS_REGNUM(off)	((off) & 1)
#define SFRAME_V2_S390X_OFFSET_DECODE_REGNUM(off)	((off) >> 1)

/*
 * V3 flexible FDEs: the data words are (control word, offset) pairs for
 * CFA, RA and FP, in that order.  A control word of 0 in place of a pair
 * is padding: no rule for the entity, its default applies.
 *
 *   bit  0	reg_p: base is DWARF register regnum (else the CFA)
 *   bit  1	deref_p: value = *(base + offset) (else base + offset)
 *   bit  2	unused
 *   bits 3+	regnum
 */
#define SFRAME_FLEX_CTRL_REG_P(ctrl)		((ctrl) & 0x1)
#define SFRAME_FLEX_CTRL_DEREF_P(ctrl)		(((ctrl) >> 1) & 0x1)
#define SFRAME_FLEX_CTRL_UNUSED(ctrl)		(((ctrl) >> 2) & 0x1)
#define SFRAME_FLEX_CTRL_REGNUM(ctrl)		((ctrl) >> 3)
#define SFRAME_FLEX_CTRL_PADDING		0

#endif /* _KERNEL_UNWIND_SFRAME_FORMAT_H */
