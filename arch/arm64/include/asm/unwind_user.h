/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_ARM64_UNWIND_USER_H
#define _ASM_ARM64_UNWIND_USER_H

struct unwind_user_state;

#ifdef CONFIG_UNWIND_USER

#include <asm/compiler.h>
#include <asm/ptrace.h>

/* AArch32 tasks are not unwound: their frame layouts differ */
static inline int unwind_user_word_size(struct pt_regs *regs)
{
	return compat_user_mode(regs) ? 0 : 8;
}

#endif /* CONFIG_UNWIND_USER */

#ifdef CONFIG_HAVE_UNWIND_USER_FP

/*
 * An AAPCS64 frame record {x29, x30} is where x29 points: the caller's
 * frame pointer, then the return address.  The record may be anywhere in
 * the frame, so the CFA computed from it is not the caller's stack
 * pointer.  At a function's entry the return address is still in x30,
 * which a frame description cannot express: no entry frame.  Only
 * AArch64 tasks are unwound: @ws is 8.
 */
#define ARCH_INIT_USER_FP_FRAME(ws)			\
	.cfa_off	= 2 * (ws),			\
	.ra_off		= -8,				\
	.fp_off		= -16,				\
	.use_fp		= true,

#define UNWIND_USER_FP_EXACT_SP		0

/* A return address may carry a pointer authentication code: strip it */
static inline unsigned long unwind_user_fp_ra(struct unwind_user_state *state,
					      unsigned long ra)
{
	return ptrauth_strip_user_insn_pac(ra);
}

#define unwind_user_fp_ra unwind_user_fp_ra

#endif /* CONFIG_HAVE_UNWIND_USER_FP */

#ifdef CONFIG_HAVE_UNWIND_USER_SFRAME

/* DWARF register numbers of the AArch64 ABI: x29, sp, x30 (LR) */
#define UNWIND_USER_SFRAME_FP_REG	29
#define UNWIND_USER_SFRAME_SP_REG	31
#define UNWIND_USER_SFRAME_RA_REG	30
/* The abi_arch of the sections of A64 code (sframe_format.h) */
#ifdef CONFIG_CPU_BIG_ENDIAN
#define UNWIND_USER_SFRAME_ABI		SFRAME_ABI_AARCH64_ENDIAN_BIG
#else
#define UNWIND_USER_SFRAME_ABI		SFRAME_ABI_AARCH64_ENDIAN_LITTLE
#endif

/*
 * Stripped whether or not the rule says the address is signed: stripping
 * an unsigned user address changes nothing, and SFrame generated from
 * DWARF CFI does not always record the signing.
 */
static inline unsigned long
unwind_user_sframe_ra(struct unwind_user_state *state, unsigned long ra,
		      unsigned int flags)
{
	return ptrauth_strip_user_insn_pac(ra);
}

#define unwind_user_sframe_ra unwind_user_sframe_ra

/* A step through rt_sigframes, see <linux/unwind_user.h> */
#define unwind_user_sigframe unwind_user_sigframe
#define unwind_user_sigframe_get_reg unwind_user_sigframe_get_reg

#endif /* CONFIG_HAVE_UNWIND_USER_SFRAME */

#endif /* _ASM_ARM64_UNWIND_USER_H */
