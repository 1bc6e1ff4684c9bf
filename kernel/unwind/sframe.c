// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame rules for the user unwinder (kernel/unwind/user.c): the entry of
 * the registry that covers a PC, made usable if needed, and the rule the
 * section gives for the PC.
 *
 * In faultable context (at the return to user space), an address without
 * an entry is discovered, a pending entry resolved, the section faulted
 * in, and the rule kept in the entry's rule cache.  In NMI or IRQ context
 * only usable entries serve, under RCU: the rule cache, then the
 * section's resident pages through the reader's nofault path; a miss is
 * repaired at the next return to user space (sframe_repair.c).  See
 * sframe_registry.c for the registry itself.
 */

#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sframe.h>
#include <linux/wait_bit.h>

#include "sframe_rcache.h"

#include <trace/events/sframe.h>

/* sframe_user_find() in NMI or IRQ context */
static int sframe_user_find_nofault(unsigned long pc, struct sframe_rule *rule)
{
	int state = SFRAME_PENDING, ret = -ENOENT;
	struct mm_struct *mm = current->mm;
	bool uncached = false, recheck = false;
	struct sframe_entry *e;

	rule->fres_read = 0;
	if (!mm)
		return -ENOENT;
	rcu_read_lock();
	e = mtree_load(&mm->sframe_mt, pc);
	if (e)
		state = atomic_read_acquire(&e->state);
	if (state == SFRAME_OK && sframe_rcache_get(e, pc, rule)) {
		ret = 0;
	} else if (state == SFRAME_OK) {
		ret = sframe_entry_find(e, pc, rule, true);
		trace_sframe_lookup(pc, rule->fres_read, true, ret);
		if (!ret)
			uncached = !sframe_rcache_put(e, pc, rule, false);
	} else if (state == SFRAME_NONE) {
		recheck = sframe_recheck(e, true);
	}
	rcu_read_unlock();
	/*
	 * Not discovered, not resolved or not resident yet; or corrupt,
	 * which the faultable lookup confirms and reports, so that the next
	 * unwinds skip the section.  Or found in an entry that has no rule
	 * cache yet, which only a faultable lookup allocates: without one,
	 * every later walk in the event would read the PC's FREs again, up
	 * to SFRAME_FDE_MAX_FRES of them per frame.
	 */
	if (state == SFRAME_PENDING || ret == -EFAULT || ret == -EBADMSG ||
	    uncached || recheck)
		sframe_repair_request(pc);
	return ret;
}

/*
 * A faultable lookup in a usable entry, its rule kept in the cache.
 * Inline: a call here costs about 10 instructions per frame not cached.
 */
static __always_inline int sframe_entry_find_cached(struct sframe_entry *e,
						    unsigned long pc,
						    struct sframe_rule *rule)
{
	int ret = sframe_entry_find(e, pc, rule, false);

	trace_sframe_lookup(pc, rule->fres_read, false, ret);
	if (!ret)
		sframe_rcache_put(e, pc, rule, true);
	return ret;
}

/*
 * sframe_user_find() at the return to user space, for a PC outside the
 * walk's entry or an entry not usable yet
 */
static noinline int sframe_user_find_slow(unsigned long pc,
					  struct sframe_rule *rule,
					  struct sframe_entry **cache)
{
	struct mm_struct *mm = current->mm;
	struct sframe_entry *e = *cache;

	rule->fres_read = 0;
	if (!mm)
		return -ENOENT;
	if (!e || pc < e->start || pc >= e->end) {
		sframe_user_release(cache);
		e = sframe_get(mm, pc);
		if (!e)
			e = sframe_discover(mm, pc);
		if (!e)
			return -ENOENT;
		*cache = e;
	}

	/* A section may have been stored for it since it was found without */
	if (atomic_read(&e->state) == SFRAME_NONE)
		sframe_recheck(e, false);
	if (atomic_read(&e->state) == SFRAME_PENDING)
		sframe_resolve(e);
	/* Another thread may be resolving it: wait, it does not take long */
	wait_var_event_killable(&e->state,
				atomic_read(&e->state) != SFRAME_RESOLVING);
	if (atomic_read_acquire(&e->state) != SFRAME_OK)
		return -ENOENT;
	/* A hit is counted by the cache, per CPU */
	if (sframe_rcache_get(e, pc, rule))
		return 0;
	return sframe_entry_find_cached(e, pc, rule);
}

/**
 * sframe_user_find() - find the unwind rule for a PC of current
 * @pc:		user PC (for a caller's frame, one byte into the call)
 * @rule:	the rule, on success
 * @cache:	the entry used for the previous frame of this walk, or NULL;
 *		faultable context only, see sframe_user_release()
 * @nofault:	true in a context that must not fault or sleep, where the
 *		caller has disabled page faults
 *
 * In faultable context, a pending entry is resolved and the section may
 * be faulted in; the entry stays referenced in @cache, so that the next
 * frames in the same object need no lookup in the registry, and the rules
 * of recently unwound PCs come from the entry's rule cache.  With
 * @nofault, only resolved sections are used, under RCU: their rule cache,
 * else their resident pages; a PC that could have been found in faultable
 * context, or whose rule could not be cached because the entry has no
 * rule cache yet, is looked up again at the next return to user space, so
 * that the next unwinds find it without reading the section.
 *
 * The caller checks sframe_unwind_enabled() once per walk.  Whatever the
 * outcome, @rule->fres_read says how many FREs the lookup read.
 *
 * Context: Task context (faultable; may sleep) or, with @nofault, any
 * context including NMI.
 * Return: 0 on success; otherwise an error meaning "no SFrame rule here,
 * try frame pointers": -ENOENT (not covered or no usable section),
 * -EFAULT or -EBADMSG.
 */
int sframe_user_find(unsigned long pc, struct sframe_rule *rule,
		     struct sframe_entry **cache, bool nofault)
{
	struct sframe_entry *e = *cache;

	if (nofault)
		return sframe_user_find_nofault(pc, rule);

	/*
	 * The usual frame: in the object of the previous one, whose entry
	 * the walk holds, usable; its rule in the cache, else looked up.
	 * Both set @rule->fres_read.
	 */
	if (likely(e && pc >= e->start && pc < e->end &&
		   atomic_read_acquire(&e->state) == SFRAME_OK)) {
		if (sframe_rcache_get(e, pc, rule))
			return 0;
		return sframe_entry_find_cached(e, pc, rule);
	}
	return sframe_user_find_slow(pc, rule, cache);
}

/**
 * sframe_user_release() - end of a faultable walk
 * @cache:	the entry cached by sframe_user_find(), or NULL
 *
 * A text range unmapped during the walk stays usable (not reused) until
 * then: its section is read from user memory with the usual checks.
 *
 * Context: Task context.
 */
void sframe_user_release(struct sframe_entry **cache)
{
	if (*cache)
		sframe_entry_put(*cache);
	*cache = NULL;
}

/**
 * sframe_user_text() - is a return address plausible
 * @ip:		a return address found with frame pointers
 * @nofault:	true in a context that must not sleep
 *
 * Frame pointer unwinding through code built without them reads stack
 * words as return addresses.  A word that is not in executable text ends
 * the walk instead of adding garbage frames.
 *
 * Context: Task context (may sleep) or, with @nofault, any context
 * including NMI.
 * Return: true if @ip is in registered text, in an executable mapping
 * (without @nofault), or not known yet (with @nofault).
 */
bool sframe_user_text(unsigned long ip, bool nofault)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool ret;

	if (!mm)
		return false;
	if (mtree_load(&mm->sframe_mt, ip))
		return true;
	if (nofault) {
		/*
		 * Without the mmap_lock only the registry can vouch for an
		 * address.  An unknown one is taken, as frame pointer
		 * unwinding without SFrame takes it (JIT code, the vDSO),
		 * and looked up at the next return to user space: the next
		 * walks know whether it is text.  The last word found to be
		 * no text is known.
		 */
		return sframe_repair_request(ip);
	}
	if (mmap_read_lock_killable(mm))
		return false;
	vma = vma_lookup(mm, ip);
	ret = vma && (vma->vm_flags & VM_EXEC);
	mmap_read_unlock(mm);
	return ret;
}
