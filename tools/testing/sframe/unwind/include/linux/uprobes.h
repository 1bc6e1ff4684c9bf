/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shim of <linux/uprobes.h> for the frame loop: a task is where its
 * registers say (no out-of-line single step), and its pending uretprobe
 * returns are a list that a test sets up, with the trampoline at
 * sim_uretprobe_tramp (sim.c).
 */
#ifndef _SHIM_LINUX_UPROBES_H
#define _SHIM_LINUX_UPROBES_H

#include <asm/ptrace.h>

/* x86's: the trampoline is the first slot of the XOL area */
#define UPROBE_XOL_SLOT_BYTES	128

struct return_instance {
	unsigned long		stack;		/* stack pointer */
	unsigned long		orig_ret_vaddr;	/* original return address */
	bool			chained;	/* true, if instance is nested */
	struct return_instance	*next;		/* keep as stack */
};

struct uprobe_task {
	struct return_instance	*return_instances;
};

extern unsigned long sim_uretprobe_tramp;

static inline unsigned long uprobe_get_trap_addr(struct pt_regs *regs)
{
	return instruction_pointer(regs);
}

static inline unsigned long uprobe_get_trampoline_vaddr(void)
{
	return sim_uretprobe_tramp;
}

#endif
