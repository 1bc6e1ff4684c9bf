/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_S390_UNWIND_USER_H
#define _ASM_S390_UNWIND_USER_H

#ifdef CONFIG_UNWIND_USER

#include <asm/ptrace.h>

/* 31-bit tasks are not unwound: their frame layouts differ */
static inline int unwind_user_word_size(struct pt_regs *regs)
{
	return regs->psw.mask & PSW_MASK_EA ? 8 : 0;
}

#endif /* CONFIG_UNWIND_USER */

#ifdef CONFIG_HAVE_UNWIND_USER_FP

/*
 * s390 keeps no frame pointer chain.  Code built with -mbackchain stores
 * its caller's stack pointer at the bottom of its own frame: the back
 * chain, read at the stack pointer (UNWIND_USER_FP_BACKCHAIN).  The CFA
 * of this step is that caller's stack pointer, not SFrame's (which is
 * 160 above it); a function saves its return address (r14) and r11 in
 * the register save area of its caller's frame, at 112 and 88 (the
 * slots of r14 and r11; only 64-bit tasks are unwound).  The r11 found
 * there is only the caller's if the function saved r11.
 */
#define ARCH_INIT_USER_FP_FRAME(ws)			\
	.cfa_off	= 0,				\
	.ra_off		= 14 * (ws),			\
	.fp_off		= 88,				\
	.use_fp		= false,

#define UNWIND_USER_FP_BACKCHAIN	1

#endif /* CONFIG_HAVE_UNWIND_USER_FP */

#ifdef CONFIG_HAVE_UNWIND_USER_SFRAME

/* DWARF register numbers of the s390x ELF ABI: r11, r15 (SP), r14 (RA) */
#define UNWIND_USER_SFRAME_FP_REG	11
#define UNWIND_USER_SFRAME_SP_REG	15
#define UNWIND_USER_SFRAME_RA_REG	14
/* The abi_arch of the sections of s390x code (sframe_format.h) */
#define UNWIND_USER_SFRAME_ABI		SFRAME_ABI_S390X_ENDIAN_BIG

/* The s390x ELF ABI's CFA is the caller's stack pointer plus 160 */
static inline unsigned long unwind_user_sframe_caller_sp(unsigned long cfa)
{
	return cfa - STACK_FRAME_OVERHEAD;
}

#define unwind_user_sframe_caller_sp unwind_user_sframe_caller_sp

/* A step through rt_sigframes, see <linux/unwind_user.h> */
#define unwind_user_sigframe unwind_user_sigframe
#define unwind_user_sigframe_get_reg unwind_user_sigframe_get_reg

#endif /* CONFIG_HAVE_UNWIND_USER_SFRAME */

#endif /* _ASM_S390_UNWIND_USER_H */
