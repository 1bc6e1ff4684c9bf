/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the task running the unwinder, "current", is the
 * simulated task sim_task (see sim.c): its flags and its user registers.
 * cond_resched() comes from the reader harness's shim (counted).
 */
#ifndef _SFRAME_UNWIND_SHIM_LINUX_SCHED_H
#define _SFRAME_UNWIND_SHIM_LINUX_SCHED_H

#include_next <linux/sched.h>
#include <asm/ptrace.h>

#define PF_KTHREAD	0x00200000	/* I am a kernel thread */

struct uprobe_task;

struct task_struct {
	unsigned int	flags;
	struct pt_regs	regs;		/* the user registers */
	unsigned long	sas_ss_sp;	/* the alternate signal stack */
	size_t		sas_ss_size;
	unsigned int	sas_ss_flags;
	struct uprobe_task *utask;	/* pending uretprobe returns, or NULL */
};

extern struct task_struct sim_task;

#define current		(&sim_task)

#endif
