/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: a test says whether a uprobe hit a function's entry. */
#ifndef _SFRAME_SHIM_ASM_UPROBES_H
#define _SFRAME_SHIM_ASM_UPROBES_H

#include <linux/types.h>

struct pt_regs;

extern bool sim_uprobe_at_func_entry;

static inline bool is_uprobe_at_func_entry(struct pt_regs *regs)
{
	return sim_uprobe_at_func_entry;
}

#endif
