/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the x86-64 rt_sigframe that the kernel pushes for a
 * signal handler, in its UAPI layout (<asm/sigcontext.h>, <asm/ucontext.h>)
 * as far as arch/x86/kernel/unwind_user_sframe.c reads it.  The siginfo
 * and FPU state that follow it are left out.
 */
#ifndef _SFRAME_SHIM_ASM_SIGFRAME_H
#define _SFRAME_SHIM_ASM_SIGFRAME_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

struct sigcontext_64 {
	u64	r8, r9, r10, r11, r12, r13, r14, r15;
	u64	di, si, bp, bx, dx, ax, cx, sp, ip, flags;
	u16	cs, gs, fs, ss;
	u64	err, trapno, oldmask, cr2;
	u64	fpstate;
	u64	reserved1[8];
};

struct sim_sigaltstack {
	void	*ss_sp;
	int	ss_flags;
	size_t	ss_size;
};

struct ucontext {
	unsigned long		uc_flags;
	struct ucontext		*uc_link;
	struct sim_sigaltstack	uc_stack;
	struct sigcontext_64	uc_mcontext;
	u64			uc_sigmask;
};

struct rt_sigframe {
	char		*pretcode;
	struct ucontext	uc;
};

/* As in the UAPI: the ucontext's mcontext is 40 bytes in */
static_assert(offsetof(struct ucontext, uc_mcontext) == 40,
	      "struct ucontext layout");

#endif
