// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 hooks of the SFrame user unwinder, see <linux/unwind_user.h>.
 */
#include <linux/array_size.h>
#include <linux/nospec.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unwind_user.h>
#include <asm/sigframe.h>

/* pt_regs offsets by x86-64 DWARF register number */
static const u8 dwarf_regs[] = {
	offsetof(struct pt_regs, ax),  offsetof(struct pt_regs, dx),
	offsetof(struct pt_regs, cx),  offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, si),  offsetof(struct pt_regs, di),
	offsetof(struct pt_regs, bp),  offsetof(struct pt_regs, sp),
	offsetof(struct pt_regs, r8),  offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
};

/**
 * unwind_user_sframe_get_reg - a register of the interrupted user frame
 * @regs:	the user registers
 * @reg:	DWARF register number
 * @val:	the value, on success
 *
 * @reg comes from an SFrame section, that is from user space: it is
 * clamped under speculation too.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL for a register that is not a general purpose one.
 */
int unwind_user_sframe_get_reg(struct pt_regs *regs, unsigned int reg,
			       unsigned long *val)
{
	if (reg >= ARRAY_SIZE(dwarf_regs))
		return -EINVAL;
	reg = array_index_nospec(reg, ARRAY_SIZE(dwarf_regs));
	*val = *(unsigned long *)((void *)regs + dwarf_regs[reg]);
	return 0;
}

/* sigcontext_64 offsets by x86-64 DWARF register number */
static const u8 dwarf_sigregs[] = {
	offsetof(struct sigcontext_64, ax),  offsetof(struct sigcontext_64, dx),
	offsetof(struct sigcontext_64, cx),  offsetof(struct sigcontext_64, bx),
	offsetof(struct sigcontext_64, si),  offsetof(struct sigcontext_64, di),
	offsetof(struct sigcontext_64, bp),  offsetof(struct sigcontext_64, sp),
	offsetof(struct sigcontext_64, r8),  offsetof(struct sigcontext_64, r9),
	offsetof(struct sigcontext_64, r10), offsetof(struct sigcontext_64, r11),
	offsetof(struct sigcontext_64, r12), offsetof(struct sigcontext_64, r13),
	offsetof(struct sigcontext_64, r14), offsetof(struct sigcontext_64, r15),
};

/**
 * unwind_user_sigframe - step from the signal trampoline to the
 *			  interrupted code
 * @state:	unwind state whose ip may be the signal return trampoline
 *
 * A signal handler returns to its sa_restorer, which is
 * "mov $__NR_rt_sigreturn, %rax; syscall" in every libc.  The stack
 * pointer is then at the ucontext of the rt_sigframe the kernel built,
 * which holds the registers of the interrupted code.  Only the code
 * bytes identify the trampoline; the frame is read like any user memory.
 * A return address is the trampoline's start; an exact PC (the sampled
 * PC of the topmost frame, or the interrupted PC that a signal frame
 * saved, for a signal that arrived while a handler returned) may also be
 * at the syscall or just past it (a sample taken at the rt_sigreturn
 * system call), with the same stack pointer.
 *
 * Context: Any context; with @state->nofault, it neither faults nor sleeps.
 * Return: 0 with @state's ip, sp and fp loaded from the signal frame and
 * @state->sigregs at its saved registers; -ENOENT if @state->ip is not a
 * signal trampoline; -EINVAL if the signal frame cannot be read.
 */
int unwind_user_sigframe(struct unwind_user_state *state)
{
	static const u8 rt_sigreturn[] = {
		0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,	/* mov $15, %rax */
		0x0f, 0x05,					/* syscall */
	};
	/* Where in the trampoline the PC may be: start, syscall, past it */
	static const u8 at[] = { 0, 7, 9 };
	struct sigcontext_64 __user *sc;
	unsigned long ip, sp, bp;

	if (state->ws != 8 ||
	    !unwind_user_find_code(state, rt_sigreturn, sizeof(rt_sigreturn),
				   at, ARRAY_SIZE(at)))
		return -ENOENT;

	/* The handler's return popped pretcode: sp is at the ucontext */
	sc = (void __user *)state->sp +
	     offsetof(struct rt_sigframe, uc.uc_mcontext) -
	     offsetof(struct rt_sigframe, uc);
	if (unwind_user_read(state, &ip, &sc->ip, sizeof(ip)) ||
	    unwind_user_read(state, &sp, &sc->sp, sizeof(sp)) ||
	    unwind_user_read(state, &bp, &sc->bp, sizeof(bp)))
		return -EINVAL;
	state->ip = ip;
	state->sp = sp;
	state->fp = bp;
	state->sigregs = (unsigned long)sc;
	return 0;
}

/**
 * unwind_user_sigframe_get_reg - a register of the code a signal interrupted
 * @state:	unwind state just past a signal frame (@state->sigregs set)
 * @reg:	DWARF register number
 * @val:	the value, on success
 *
 * The signal frame saved every general purpose register of the
 * interrupted code: a rule of that frame may use any of them, such as
 * the DRAP register (%r10) of a function that realigns its stack.
 * @reg comes from user space and is clamped under speculation too.
 *
 * Context: Any context; with @state->nofault, it neither faults nor sleeps.
 * Return: 0, -EINVAL for a register that is not a general purpose one,
 * or -EFAULT if the signal frame cannot be read.
 */
int unwind_user_sigframe_get_reg(struct unwind_user_state *state,
				 unsigned int reg, unsigned long *val)
{
	if (reg >= ARRAY_SIZE(dwarf_sigregs))
		return -EINVAL;
	reg = array_index_nospec(reg, ARRAY_SIZE(dwarf_sigregs));
	return unwind_user_read(state, val,
				(void __user *)state->sigregs + dwarf_sigregs[reg],
				sizeof(*val));
}
