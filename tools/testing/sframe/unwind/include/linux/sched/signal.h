/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the alternate signal stack of the simulated task. */
#ifndef _SFRAME_UNWIND_SHIM_LINUX_SCHED_SIGNAL_H
#define _SFRAME_UNWIND_SHIM_LINUX_SCHED_SIGNAL_H

#include <linux/bits.h>
#include <linux/sched.h>

#define SS_AUTODISARM	BIT(31)

/* As the kernel's: is @sp on current's alternate signal stack */
static inline int on_sig_stack(unsigned long sp)
{
	if (current->sas_ss_flags & SS_AUTODISARM)
		return 0;
	return sp > current->sas_ss_sp &&
	       sp - current->sas_ss_sp <= current->sas_ss_size;
}

#endif
