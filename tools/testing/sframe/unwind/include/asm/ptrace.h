/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: x86-64 user registers, in the kernel's struct pt_regs
 * layout, and the accessors the unwinder uses.  A test picks 64-bit or
 * compat mode with regs.cs (__USER_CS, __USER32_CS) and kernel mode with
 * a cs whose privilege level is 0.
 */
#ifndef _SFRAME_SHIM_ASM_PTRACE_H
#define _SFRAME_SHIM_ASM_PTRACE_H

#include <linux/types.h>

struct pt_regs {
	unsigned long r15;
	unsigned long r14;
	unsigned long r13;
	unsigned long r12;
	unsigned long bp;
	unsigned long bx;
	unsigned long r11;
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ip;
	unsigned long cs;
	unsigned long flags;
	unsigned long sp;
	unsigned long ss;
};

#define __USER32_CS	0x23
#define __USER_CS	0x33

#define X86_EFLAGS_VM	0x00020000	/* virtual 8086 mode */
#define X86_VM_MASK	X86_EFLAGS_VM

static inline int user_mode(struct pt_regs *regs)
{
	return !!(regs->cs & 3);
}

static inline bool user_64bit_mode(struct pt_regs *regs)
{
	return regs->cs == __USER_CS;
}

static inline unsigned long instruction_pointer(struct pt_regs *regs)
{
	return regs->ip;
}

static inline unsigned long user_stack_pointer(struct pt_regs *regs)
{
	return regs->sp;
}

static inline unsigned long frame_pointer(struct pt_regs *regs)
{
	return regs->bp;
}

#endif
