/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the user registers of a task, see <linux/sched.h>. */
#ifndef _SFRAME_SHIM_LINUX_SCHED_TASK_STACK_H
#define _SFRAME_SHIM_LINUX_SCHED_TASK_STACK_H

#include <linux/sched.h>

#define task_pt_regs(task)	(&(task)->regs)

#endif
