/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __ASM_SIGFRAME_H
#define __ASM_SIGFRAME_H

#include <linux/signal.h>
#include <asm/ucontext.h>

/*
 * The signal frame at the stack pointer of a signal handler, and where
 * the handler returns to the sigreturn trampoline.  These are aligned
 * to 128-bit.
 */
struct rt_sigframe {
	struct siginfo info;
	struct ucontext uc;
};

#endif /* __ASM_SIGFRAME_H */
