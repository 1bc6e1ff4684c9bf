/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Input format of the SFrame reader fuzz target (sframe_fuzz.c), shared
 * with the seed writer (sframe_seeds.c): a fixed header, then the bytes of
 * the section.  All header fields are little-endian.
 */
#ifndef _SFRAME_TEST_FUZZ_H
#define _SFRAME_TEST_FUZZ_H

#include <linux/compiler_attributes.h>
#include <linux/types.h>

/* Where the section is mapped in the simulated user address space */
#define FUZZ_SEC_BASE		0x10000000UL

#define FUZZ_NPCS		6

/* struct fuzz_hdr.mode */
#define FUZZ_M_FAULT		0x01	/* a range of the section faults */
#define FUZZ_M_LAZY		0x02	/* section not present: nofault lookups fail */
#define FUZZ_M_TEXT_RAW		0x04	/* PCs are not folded into the text */

/**
 * struct fuzz_hdr - how to run one input
 * @mode:	FUZZ_M_* flags
 * @pad:	unused
 * @fault_len:	length of the faulting range (FUZZ_M_FAULT)
 * @fault_off:	its offset from the section start
 * @text_rel:	text start minus section start (signed)
 * @text_size:	size of the text (0 is made 1)
 * @pc:		lookups: offsets from the text start, folded into the text
 *		unless FUZZ_M_TEXT_RAW
 */
struct fuzz_hdr {
	u8	mode;
	u8	pad;
	u16	fault_len;
	u32	fault_off;
	s64	text_rel;
	u32	text_size;
	u32	pc[FUZZ_NPCS];
} __packed;

#endif
