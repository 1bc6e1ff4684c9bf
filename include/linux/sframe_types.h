/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SFRAME_TYPES_H
#define _LINUX_SFRAME_TYPES_H

#include <linux/atomic.h>
#include <linux/types.h>

/* PCs noted per task between two returns to user space */
#define SFRAME_REPAIR_PCS	8

/**
 * struct sframe_repair - SFrame misses of the non-faultable unwinds of a task
 * @work:	the task_work that repairs them at the return to user space
 * @queued:	bit 0 is set while @work is queued
 * @nr:		number of PCs noted in @pc (may exceed SFRAME_REPAIR_PCS)
 * @pc:		PCs whose SFrame rule could not be found without faulting
 * @none:	the last noted PC that turned out to be in no executable mapping
 * @none_exec:	the task's self_exec_id when @none was found: after an
 *		exec, @none is not known any more
 *
 * Written by NMI and IRQ unwinds of the task itself and read by the task,
 * so every access is on the task's own CPU; see kernel/unwind/sframe.c.
 */
struct sframe_repair {
	struct callback_head	work;
	unsigned long		queued;
	atomic_t		nr;
	unsigned long		pc[SFRAME_REPAIR_PCS];
	unsigned long		none;
	u64			none_exec;
};

#endif /* _LINUX_SFRAME_TYPES_H */
