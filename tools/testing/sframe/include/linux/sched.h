/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: cond_resched() is counted, see uspace.c. */
#ifndef _SFRAME_SHIM_LINUX_SCHED_H
#define _SFRAME_SHIM_LINUX_SCHED_H

extern unsigned long sim_cond_resched_calls;

static inline int cond_resched(void)
{
	sim_cond_resched_calls++;
	return 0;
}

#endif
