// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 hooks of the SFrame user unwinder, see <linux/unwind_user.h>.
 */
#include <linux/array_size.h>
#include <linux/build_bug.h>
#include <linux/nospec.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unwind_user.h>
#include <asm/byteorder.h>
#include <asm/sigframe.h>

/* DWARF x0-x30 are regs[0..30], 31 is sp: contiguous in sigcontext */
#define AARCH64_DWARF_GP_REGS	32

static_assert(offsetof(struct sigcontext, sp) ==
	      offsetof(struct sigcontext, regs[31]));

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
 * Return: 0, or -EINVAL for a register that is not x0-x30 or sp.
 */
int unwind_user_sframe_get_reg(struct pt_regs *regs, unsigned int reg,
			       unsigned long *val)
{
	if (reg >= AARCH64_DWARF_GP_REGS)
		return -EINVAL;
	reg = array_index_nospec(reg, AARCH64_DWARF_GP_REGS);
	*val = reg == 31 ? regs->sp : regs->regs[reg];
	return 0;
}

/**
 * unwind_user_sigframe - step from the signal trampoline to the
 *			  interrupted code
 * @state:	unwind state whose ip may be the signal return trampoline
 *
 * A signal handler returns to the vDSO's __kernel_rt_sigreturn, or to
 * its own sa_restorer: "mov x8, #__NR_rt_sigreturn; svc #0" in both.
 * The handler has restored its stack pointer, which is then at the
 * rt_sigframe the kernel built, whose ucontext holds the registers of
 * the interrupted code.  The code words identify the trampoline; the
 * frame is read like any user memory.  A return address is the
 * trampoline's start; the sampled PC of the topmost frame may also be at
 * the svc or just past it, with the same stack pointer.
 *
 * Context: Any context; with @state->nofault, it neither faults nor sleeps.
 * Return: 0 with @state's ip, sp and fp loaded from the signal frame and
 * @state->sigregs at its saved registers; -ENOENT if @state->ip is not a
 * signal trampoline; -EINVAL if the signal frame cannot be read.
 */
int unwind_user_sigframe(struct unwind_user_state *state)
{
	static const __le32 rt_sigreturn[] = {
		cpu_to_le32(0xd2801168),	/* mov x8, #139 */
		cpu_to_le32(0xd4000001),	/* svc #0 */
	};
	/* Where in the trampoline the PC may be: start, svc, past it */
	static const u8 at[] = { 0, 4, 8 };
	struct sigcontext __user *sc;
	unsigned long pc, sp, fp;

	if (state->ws != 8 ||
	    !unwind_user_find_code(state, rt_sigreturn, sizeof(rt_sigreturn),
				   at, ARRAY_SIZE(at)))
		return -ENOENT;

	sc = (void __user *)state->sp +
	     offsetof(struct rt_sigframe, uc.uc_mcontext);
	if (unwind_user_read(state, &pc, &sc->pc, sizeof(pc)) ||
	    unwind_user_read(state, &sp, &sc->sp, sizeof(sp)) ||
	    unwind_user_read(state, &fp, &sc->regs[29], sizeof(fp)))
		return -EINVAL;
	state->ip = pc;
	state->sp = sp;
	state->fp = fp;
	state->sigregs = (unsigned long)sc + offsetof(struct sigcontext, regs);
	return 0;
}

/**
 * unwind_user_sigframe_get_reg - a register of the code a signal interrupted
 * @state:	unwind state just past a signal frame (@state->sigregs set)
 * @reg:	DWARF register number
 * @val:	the value, on success
 *
 * The signal frame saved every general purpose register of the
 * interrupted code: the return address of a leaf function still in x30,
 * say.  @reg comes from user space and is clamped under speculation too.
 *
 * Context: Any context; with @state->nofault, it neither faults nor sleeps.
 * Return: 0, -EINVAL for a register that is not x0-x30 or sp, or -EFAULT
 * if the signal frame cannot be read.
 */
int unwind_user_sigframe_get_reg(struct unwind_user_state *state,
				 unsigned int reg, unsigned long *val)
{
	if (reg >= AARCH64_DWARF_GP_REGS)
		return -EINVAL;
	reg = array_index_nospec(reg, AARCH64_DWARF_GP_REGS);
	return unwind_user_read(state, val,
				(void __user *)state->sigregs + reg * sizeof(u64),
				sizeof(*val));
}
