// SPDX-License-Identifier: GPL-2.0
/*
 * Repair of the misses of non-faultable unwinds.
 *
 * An unwind in NMI or IRQ context can neither read ELF headers nor fault
 * in .sframe pages.  It notes the PCs it had to unwind with frame
 * pointers for that reason, or whose section it found corrupt, and queues
 * a task_work; at the next return to user space the task looks them up in
 * faultable context, which discovers and resolves their mappings, faults
 * in the pages their lookups read and reports corruption.  When one of
 * those lookups now succeeds, it then walks its whole user stack, still
 * the interrupted one, in faultable context: the frames past the first
 * miss, which the interrupted walk never reached, get their sections and
 * pages too.  A lookup that keeps failing (a section that cannot be
 * read) costs no walk.  The next samples at the
 * same places are then unwound with SFrame.
 *
 * The notes are written by interrupts of the task and read by the task
 * itself, all on the task's CPU.  A note lost to a race (a nested
 * interrupt, or an interrupt while the work reads them) costs one more
 * frame-pointer sample, nothing else.  The last PC found in no executable
 * mapping (a stack word that frame pointers took for a return address) is
 * remembered, so that the same word does not cost a lookup per sample,
 * until the task execs another program.
 */

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/maple_tree.h>
#include <linux/minmax.h>
#include <linux/mm_types.h>
#include <linux/sched.h>
#include <linux/sframe.h>
#include <linux/task_work.h>
#include <linux/unwind_user.h>

#include "sframe_registry.h"

/* The most frames the repair walks: about what a deferred unwind stores */
#define SFRAME_REPAIR_FRAMES	512

/**
 * sframe_repair_request() - look a PC up at the next return to user space
 * @pc:		a PC of current that a non-faultable unwind could not use
 *
 * Context: Any context, including NMI.
 * Return: false if @pc is the last address found to be in no executable
 * mapping, in the program that the task runs now (it is not looked up
 * again), true otherwise.
 */
bool sframe_repair_request(unsigned long pc)
{
	struct sframe_repair *r = &current->unwind_info.sframe;
	int i, nr;

	/* Only the task itself changes its self_exec_id */
	if (pc == READ_ONCE(r->none) &&
	    READ_ONCE(r->none_exec) == current->self_exec_id)
		return false;
	if (current->flags & (PF_KTHREAD | PF_EXITING))
		return true;
	nr = atomic_read(&r->nr);
	for (i = 0; i < min(nr, SFRAME_REPAIR_PCS); i++)
		if (READ_ONCE(r->pc[i]) == pc)
			return true;
	if (nr < SFRAME_REPAIR_PCS) {
		WRITE_ONCE(r->pc[nr], pc);
		atomic_set(&r->nr, nr + 1);
	}
	if (!test_and_set_bit(0, &r->queued) &&
	    task_work_add(current, &r->work,
			  in_nmi() ? TWA_NMI_CURRENT : TWA_RESUME))
		clear_bit(0, &r->queued);
	return true;
}

/**
 * sframe_repair_none() - remember a PC found in no executable mapping
 * @pc:		a PC of current, for which sframe_repair_request() now
 *		returns false until the next exec
 *
 * An unwind of the task that interrupts these writes sees no PC, or the
 * new one with this program's self_exec_id; never the new PC as known in
 * an earlier program, nor the old one as known in this one.
 *
 * Context: Task context, current.
 */
void sframe_repair_none(unsigned long pc)
{
	struct sframe_repair *r = &current->unwind_info.sframe;

	WRITE_ONCE(r->none, 0);
	WRITE_ONCE(r->none_exec, current->self_exec_id);
	WRITE_ONCE(r->none, pc);
}

static void sframe_repair_work(struct callback_head *head)
{
	struct sframe_repair *r = container_of(head, struct sframe_repair,
					       work);
	unsigned long pc[SFRAME_REPAIR_PCS];
	struct sframe_entry *cache = NULL;
	struct sframe_rule rule;
	bool repaired = false;
	int i, nr;

	nr = min(atomic_read(&r->nr), SFRAME_REPAIR_PCS);
	for (i = 0; i < nr; i++)
		pc[i] = READ_ONCE(r->pc[i]);
	atomic_set(&r->nr, 0);
	clear_bit_unlock(0, &r->queued);

	if (!sframe_unwind_enabled() || !current->mm ||
	    (current->flags & PF_EXITING))
		return;
	for (i = 0; i < nr; i++) {
		if (!sframe_user_find(pc[i], &rule, &cache, false))
			repaired = true;
		/*
		 * Not text: do not ask again for the same stack word.  Text
		 * that has no entry (past SFRAME_MAX_DISCOVERED) is text.
		 */
		if (!mtree_load(&current->mm->sframe_mt, pc[i]) &&
		    !sframe_user_text(pc[i], false))
			sframe_repair_none(pc[i]);
	}
	sframe_user_release(&cache);
	if (repaired)
		unwind_user_faultin(SFRAME_REPAIR_FRAMES);
}

/**
 * sframe_task_init() - set up the SFrame state of a new task
 * @task:	the task, being created
 *
 * Called with the rest of its unwind state from unwind_task_init(), which
 * has cleared it.
 *
 * Context: Process context.
 */
void sframe_task_init(struct task_struct *task)
{
	init_task_work(&task->unwind_info.sframe.work, sframe_repair_work);
}
