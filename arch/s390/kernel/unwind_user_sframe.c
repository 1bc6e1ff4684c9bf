// SPDX-License-Identifier: GPL-2.0
/*
 * s390 hooks of the SFrame user unwinder, see <linux/unwind_user.h>.
 */
#include <linux/array_size.h>
#include <linux/fpu.h>
#include <linux/nospec.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/unwind_user.h>
#include <asm/sigframe.h>
#include <asm/unistd.h>

/* DWARF r0-r15 are 0-15, the FPRs 16-31 */
#define S390_DWARF_GPRS		16
#define S390_DWARF_REGS		32

/* The FPR of each DWARF number from 16 on, in the s390x ELF ABI's order */
static const u8 s390_dwarf_fpr[S390_DWARF_REGS - S390_DWARF_GPRS] = {
	0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15,
};

/* The user's FPR @fpr: in its thread once the kernel has saved it there */
static unsigned long s390_user_fpr(unsigned int fpr)
{
	save_user_fpu_regs();
	return ((freg_t *)&current->thread.ufpu.vxrs[fpr])->ui;
}

/**
 * unwind_user_sframe_get_reg - a register of the interrupted user frame
 * @regs:	the user registers
 * @reg:	DWARF register number
 * @val:	the value, on success
 *
 * A flexible FDE may say that a leaf function keeps its return address
 * or r11 in a floating-point register: the user's FPRs are saved to the
 * thread first, as the kernel may have used the FPU since the entry.
 * @reg comes from an SFrame section, that is from user space: it is
 * clamped under speculation too.
 *
 * Context: Any context (the perf interrupt saves the user FPRs too).
 * Return: 0, or -EINVAL for a register that is not r0-r15 or f0-f15.
 */
int unwind_user_sframe_get_reg(struct pt_regs *regs, unsigned int reg,
			       unsigned long *val)
{
	if (reg >= S390_DWARF_REGS)
		return -EINVAL;
	reg = array_index_nospec(reg, S390_DWARF_REGS);
	if (reg < S390_DWARF_GPRS)
		*val = regs->gprs[reg];
	else
		*val = s390_user_fpr(s390_dwarf_fpr[reg - S390_DWARF_GPRS]);
	return 0;
}

/* svc @nr: the two bytes of a system call with its number inline */
#define S390_SVC(nr)	(0x0a00 | (nr))

/**
 * unwind_user_sigframe - step from the signal trampoline to the
 *			  interrupted code
 * @state:	unwind state whose ip may be the signal return trampoline
 *
 * A signal handler returns through r14 to the vDSO's
 * __kernel_rt_sigreturn or __kernel_sigreturn, or to its own
 * sa_restorer: "svc 173" or, for a handler installed without
 * SA_SIGINFO, "svc 119".  The handler has restored its stack pointer,
 * which is then at the rt_sigframe or sigframe the kernel built, whose
 * _sigregs hold the PSW and the registers of the interrupted code.  A
 * return address is the trampoline's start; the sampled PC of the
 * topmost frame may also be just past the svc, with the same stack
 * pointer.
 *
 * Context: Any context; with @state->nofault, it neither faults nor sleeps.
 * Return: 0 with @state's ip, sp and fp loaded from the signal frame and
 * @state->sigregs at its saved registers; -ENOENT if @state->ip is not a
 * signal trampoline; -EINVAL if the signal frame cannot be read.
 */
int unwind_user_sigframe(struct unwind_user_state *state)
{
	/* "svc 173" (rt_sigreturn: an rt_sigframe) */
	static const u16 rt_sigreturn = S390_SVC(__NR_rt_sigreturn);
	/* "svc 119" (sigreturn: the sigframe of a handler without SA_SIGINFO) */
	static const u16 sigreturn = S390_SVC(__NR_sigreturn);
	/* Where in the trampoline the PC may be: start, past the svc */
	static const u8 at[] = { 0, 2 };
	unsigned long off, pc, sp, fp;
	_s390_regs_common __user *sr;

	BUILD_BUG_ON(__NR_rt_sigreturn > 0xff || __NR_sigreturn > 0xff);
	BUILD_BUG_ON(offsetof(_sigregs, regs) != 0);
	if (state->ws != 8)
		return -ENOENT;
	if (unwind_user_find_code(state, &rt_sigreturn, sizeof(rt_sigreturn),
				  at, ARRAY_SIZE(at)))
		off = offsetof(struct rt_sigframe, uc.uc_mcontext);
	else if (unwind_user_find_code(state, &sigreturn, sizeof(sigreturn),
				       at, ARRAY_SIZE(at)))
		off = offsetof(struct sigframe, sregs);
	else
		return -ENOENT;

	sr = (void __user *)state->sp + off;
	if (unwind_user_read(state, &pc, &sr->psw.addr, sizeof(pc)) ||
	    unwind_user_read(state, &sp, &sr->gprs[15], sizeof(sp)) ||
	    unwind_user_read(state, &fp, &sr->gprs[11], sizeof(fp)))
		return -EINVAL;
	state->ip = pc;
	state->sp = sp;
	state->fp = fp;
	state->sigregs = (unsigned long)sr;
	return 0;
}

/**
 * unwind_user_sigframe_get_reg - a register of the code a signal interrupted
 * @state:	unwind state just past a signal frame (@state->sigregs set)
 * @reg:	DWARF register number
 * @val:	the value, on success
 *
 * The signal frame saved every general and floating-point register of
 * the interrupted code: the return address of a leaf function still in
 * r14, or kept in an FPR, say.  @reg comes from user space and is
 * clamped under speculation too.
 *
 * Context: Any context; with @state->nofault, it neither faults nor sleeps.
 * Return: 0, -EINVAL for a register that is not r0-r15 or f0-f15, or
 * -EFAULT if the signal frame cannot be read.
 */
int unwind_user_sigframe_get_reg(struct unwind_user_state *state,
				 unsigned int reg, unsigned long *val)
{
	_sigregs __user *sr = (void __user *)state->sigregs;

	if (reg >= S390_DWARF_REGS)
		return -EINVAL;
	reg = array_index_nospec(reg, S390_DWARF_REGS);
	if (reg < S390_DWARF_GPRS)
		return unwind_user_read(state, val, &sr->regs.gprs[reg],
					sizeof(*val));
	return unwind_user_read(state, val,
				&sr->fpregs.fprs[s390_dwarf_fpr[reg - S390_DWARF_GPRS]],
				sizeof(*val));
}
