/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shim of <linux/uprobes.h> for the frame loop: the harness has no
 * uprobes, so a task is always where its registers say.
 */
#ifndef _SHIM_LINUX_UPROBES_H
#define _SHIM_LINUX_UPROBES_H

#include <asm/ptrace.h>

static inline unsigned long uprobe_get_trap_addr(struct pt_regs *regs)
{
	return instruction_pointer(regs);
}

#endif
