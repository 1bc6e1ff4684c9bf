// SPDX-License-Identifier: GPL-2.0
/*
 * The per-mm registry of .sframe sections.
 *
 * Each entry covers one range of executable user text and says where the
 * .sframe section describing it lives in user memory.  Entries hold
 * addresses only: the section itself is read from user memory, through
 * the reader in sframe_walk.c, every time a frame is unwound.  Entries
 * are made by discovery (sframe_discover.c) and by prctl(PR_SFRAME)
 * (sframe_uapi.c); this file keeps them in step with the address space:
 * munmap (and so mremap and MAP_FIXED) and mprotect() removing PROT_EXEC
 * drop them, fork copies what it copies of the address space, exit frees
 * them.
 *
 * Entries are added under the mmap_lock held for reading (discovery: the
 * VMA cannot go away meanwhile) or writing (prctl); removal happens under
 * the mmap_lock after the VMAs are detached.  The maple tree's own lock
 * orders the writers.  Readers (the unwinder, /proc/<pid>/sframe) look
 * entries up under RCU and take a reference if they need the entry
 * longer; the non-faultable unwinder stays inside the RCU read-side
 * section.  The last reference to an entry drops its file and its image
 * at once, and frees the entry after a grace period.
 */

#define pr_fmt(fmt) "sframe: " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/maple_tree.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched.h>
#include <linux/sframe.h>
#include <linux/slab.h>

#include "sframe_registry.h"

#define CREATE_TRACE_POINTS
#include <trace/events/sframe.h>

static const char * const sframe_state_names[] = {
	[SFRAME_PENDING]	= "pending",
	[SFRAME_RESOLVING]	= "pending",
	[SFRAME_OK]		= "ok",
	[SFRAME_NONE]		= "none",
	[SFRAME_BAD]		= "bad",
};

/**
 * sframe_state_name() - the name of a state in /proc/<pid>/sframe
 * @state:	enum sframe_state
 *
 * Context: Any context.
 * Return: a constant string.
 */
const char *sframe_state_name(int state)
{
	if ((unsigned int)state >= ARRAY_SIZE(sframe_state_names))
		return "?";
	return sframe_state_names[state];
}

/**
 * sframe_entry_alloc() - a new entry, pending, with one reference
 * @file:	the file mapped at @start, or NULL; the entry references it
 * @start:	start of the text range
 * @end:	end (exclusive) of the text range
 * @pgoff:	file offset of @start, in pages
 *
 * Context: Process context, may sleep.
 * Return: the entry, or NULL.
 */
struct sframe_entry *sframe_entry_alloc(struct file *file, unsigned long start,
					unsigned long end, unsigned long pgoff)
{
	struct sframe_entry *e;

	e = kzalloc_obj(*e, GFP_KERNEL_ACCOUNT);
	if (!e)
		return NULL;
	if (file)
		e->file = get_file(file);
	e->start = start;
	e->end = end;
	e->pgoff = pgoff;
	atomic_set(&e->state, SFRAME_PENDING);
	refcount_set(&e->ref, 1);
	return e;
}

/**
 * sframe_section_release() - drop what a section holds
 * @sec:	a section that sframe_check() accepted, or a copy of one
 *
 * Its reference to its FDE index, if it has one: the index is shared by
 * the copies of an entry (fork(), a range split by munmap()), and freed
 * with the last of them.
 *
 * Context: Process context, or the RCU callback that frees an entry.
 */
void sframe_section_release(struct sframe_section *sec)
{
	sframe_index_put(sec->fde_index);
	sec->fde_index = NULL;
}

static void sframe_entry_free(struct rcu_head *rcu)
{
	struct sframe_entry *e = container_of(rcu, struct sframe_entry, rcu);

	sframe_rcache_free(e->rcache);
	sframe_section_release(&e->sec);
	kfree(e);
}

/**
 * sframe_entry_put() - drop a reference to an entry
 * @e:		the entry
 *
 * The last reference drops the entry's file at once, and frees the entry
 * after an RCU grace period, for the RCU readers of the registry (the
 * walks in the event), which use the section and the rule cache but never
 * the file: every user of @e->file holds a reference to @e.  So the file
 * is closed with the munmap(), exec() or exit that dropped the entry (in
 * task context, at that task's return to user space or before its parent
 * learns of its exit), not after a grace period and the delayed fput
 * work, when a umount of its file system may already have failed with
 * EBUSY.
 *
 * Context: Any context but NMI.
 */
void sframe_entry_put(struct sframe_entry *e)
{
	if (!refcount_dec_and_test(&e->ref))
		return;
	/* Out of the table of images before the inode may go */
	sframe_image_put(e->image);
	if (e->file)
		fput(e->file);
	call_rcu(&e->rcu, sframe_entry_free);
}

/* A copy of @e for the part [@start, @end) of its range, or NULL */
static struct sframe_entry *sframe_entry_clone(struct sframe_entry *e,
					       unsigned long start,
					       unsigned long end)
{
	struct sframe_entry *c;
	int state;

	c = sframe_entry_alloc(e->file, start, end,
			       e->pgoff + ((start - e->start) >> PAGE_SHIFT));
	if (!c)
		return NULL;
	c->explicit = e->explicit;
	c->vdso = e->vdso;
	/*
	 * @e->sec is written without the mmap_lock by sframe_resolve(),
	 * before the release that publishes SFRAME_OK or SFRAME_BAD: read
	 * the state first, and the section only if it is complete.  A
	 * section being resolved is resolved again by the copy's user.
	 */
	state = atomic_read_acquire(&e->state);
	if (state == SFRAME_OK || state == SFRAME_BAD) {
		c->sec = e->sec;
		c->image = e->image;
		if (c->image)
			refcount_inc(&c->image->ref);
	} else if (state == SFRAME_RESOLVING) {
		state = SFRAME_PENDING;
	}
	/*
	 * The index is never changed after the section is published: the
	 * copy shares it.  A corrupt section is not looked up again.
	 */
	if (state == SFRAME_OK && c->sec.fde_index)
		refcount_inc(&c->sec.fde_index->ref);
	else
		c->sec.fde_index = NULL;
	atomic_set(&c->state, state);
	return c;
}

/**
 * sframe_insert() - add an entry to the registry of @mm
 * @mm:		the mm
 * @e:		the entry; on failure, its reference is dropped
 *
 * Context: Process context, with the mmap_lock of @mm held.
 * Return: 0, -EEXIST if the range overlaps an entry, or -ENOMEM.
 */
int sframe_insert(struct mm_struct *mm, struct sframe_entry *e)
{
	int ret;

	ret = mtree_insert_range(&mm->sframe_mt, e->start, e->end - 1, e,
				 GFP_KERNEL_ACCOUNT);
	if (ret) {
		sframe_entry_put(e);
		return ret;
	}
	atomic_inc(&mm->sframe_entries);
	if (e->explicit)
		atomic_inc(&mm->sframe_explicit);
	return 0;
}

static void sframe_erase(struct mm_struct *mm, struct sframe_entry *e)
{
	mtree_erase(&mm->sframe_mt, e->start);
	atomic_dec(&mm->sframe_entries);
	if (e->explicit)
		atomic_dec(&mm->sframe_explicit);
}

/**
 * sframe_remove_range() - drop whatever the registry holds in a range
 * @mm:		the mm
 * @start:	start of the range
 * @end:	end (exclusive) of the range
 *
 * An entry that sticks out of the range keeps its outer parts.
 *
 * Context: Process context, with the mmap_lock of @mm held.
 */
void sframe_remove_range(struct mm_struct *mm, unsigned long start,
			 unsigned long end)
{
	unsigned long index = start;
	struct sframe_entry *e, *part;

	while ((e = mt_find(&mm->sframe_mt, &index, end - 1))) {
		sframe_erase(mm, e);
		if (e->start < start) {
			part = sframe_entry_clone(e, e->start, start);
			if (part)
				sframe_insert(mm, part);
		}
		if (e->end > end) {
			part = sframe_entry_clone(e, end, e->end);
			if (part)
				sframe_insert(mm, part);
		}
		trace_sframe_unregister(e->start, e->end);
		sframe_entry_put(e);
	}
}

/**
 * sframe_get() - a reference to the entry covering an address
 * @mm:		the mm
 * @pc:		the address
 *
 * Context: Any context but NMI.
 * Return: the entry, referenced, or NULL.
 */
struct sframe_entry *sframe_get(struct mm_struct *mm, unsigned long pc)
{
	struct sframe_entry *e;

	rcu_read_lock();
	e = mtree_load(&mm->sframe_mt, pc);
	if (e && !refcount_inc_not_zero(&e->ref))
		e = NULL;
	rcu_read_unlock();
	return e;
}

/**
 * sframe_get_from() - a reference to the first entry at or above an address
 * @mm:		the mm
 * @addr:	the address
 *
 * Context: Any context but NMI.
 * Return: the entry, referenced, or NULL if there is none.
 */
struct sframe_entry *sframe_get_from(struct mm_struct *mm, unsigned long addr)
{
	struct sframe_entry *e;

	rcu_read_lock();
	while ((e = mt_find(&mm->sframe_mt, &addr, ULONG_MAX)) &&
	       !refcount_inc_not_zero(&e->ref))
		;	/* being freed: mt_find() moved @addr past it */
	rcu_read_unlock();
	return e;
}

/**
 * sframe_mark_bad() - mark an entry's section corrupt
 * @e:		the entry
 * @reason:	why
 *
 * The first time, emit the sframe_corrupt event and one rate-limited
 * message naming the file.
 *
 * Context: Task context (the message resolves the file's path).
 */
void sframe_mark_bad(struct sframe_entry *e, enum sframe_reason reason)
{
	const char *why = sframe_reason_str(reason);

	if (atomic_xchg(&e->state, SFRAME_BAD) == SFRAME_BAD)
		return;
	trace_sframe_corrupt(e->start, e->sec.sframe_start, why);
	if (e->file)
		pr_warn_ratelimited("%s[%d]: %pD: corrupt .sframe at %lx (%s), using frame pointers\n",
				    current->comm, task_pid_nr(current),
				    e->file, e->sec.sframe_start, why);
	else
		pr_warn_ratelimited("%s[%d]: [anon]: corrupt .sframe at %lx (%s), using frame pointers\n",
				    current->comm, task_pid_nr(current),
				    e->sec.sframe_start, why);
}

/**
 * sframe_entry_failed() - account a failed lookup of sframe_entry_find()
 * @e:		the entry
 * @pc:		the PC
 * @err:	the lookup's error
 * @reason:	why the section is corrupt, for -EBADMSG
 * @nofault:	true in a context that must not fault or sleep
 *
 * Count the failure.  A fault is not corruption: the page may come back.
 * A section found corrupt is marked bad, except with @nofault, where the
 * file's name cannot be resolved for the message: the caller then asks
 * for the same lookup at the next return to user space
 * (sframe_repair_request()), which marks it.
 *
 * Context: Task context, or any context including NMI with @nofault.
 */
void sframe_entry_failed(struct sframe_entry *e, unsigned long pc, int err,
			 enum sframe_reason reason, bool nofault)
{
	atomic_long_inc(&e->failures);
	if (err == -EBADMSG && !nofault)
		sframe_mark_bad(e, reason);
	trace_sframe_unwind_error(pc, err);
}

/**
 * sframe_entry_lookups() - frames looked up in an entry's section
 * @e:		the entry
 *
 * Context: Any context but NMI.
 * Return: the lookups of sframe_entry_find() and the hits of the rule
 * cache, counted in @e until it has a cache, per CPU in the cache since.
 */
unsigned long sframe_entry_lookups(struct sframe_entry *e)
{
	return atomic_long_read(&e->lookups) + sframe_rcache_lookups(e);
}

/**
 * sframe_mm_init() - set up the registry of a new mm
 * @mm:		the mm, not yet in use (for fork, a copy of the parent's)
 *
 * Context: Process context.
 */
void sframe_mm_init(struct mm_struct *mm)
{
	mt_init_flags(&mm->sframe_mt, MT_FLAGS_USE_RCU);
	atomic_set(&mm->sframe_entries, 0);
	atomic_set(&mm->sframe_explicit, 0);
}

/* Add to @mm a copy of the part [@start, @end) of @e, if not empty */
static int sframe_dup_part(struct mm_struct *mm, struct sframe_entry *e,
			   unsigned long start, unsigned long end)
{
	struct sframe_entry *c;

	if (start >= end)
		return 0;
	c = sframe_entry_clone(e, start, end);
	if (!c)
		return -ENOMEM;
	return sframe_insert(mm, c);
}

/**
 * sframe_dup_mm() - copy the registry for fork()
 * @oldmm:	the parent's mm, write-locked
 * @mm:		the child's mm, write-locked, with an empty registry
 *
 * Only the parts of entries that dup_mmap() copies are copied: text in a
 * VM_DONTCOPY mapping (MADV_DONTFORK) is not the child's.
 *
 * Context: Process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int sframe_dup_mm(struct mm_struct *oldmm, struct mm_struct *mm)
{
	unsigned long index = 0, start, end;
	struct vm_area_struct *vma;
	struct sframe_entry *e;
	int ret;

	mmap_assert_write_locked(oldmm);

	while ((e = mt_find(&oldmm->sframe_mt, &index, ULONG_MAX))) {
		VMA_ITERATOR(vmi, oldmm, e->start);

		/* One copy per run of copied mappings, not one per mapping */
		start = e->start;
		end = start;
		for_each_vma_range(vmi, vma, e->end) {
			if (vma->vm_flags & VM_DONTCOPY) {
				ret = sframe_dup_part(mm, e, start, end);
				if (ret)
					return ret;
				start = min(vma->vm_end, e->end);
				end = start;
				continue;
			}
			end = min(vma->vm_end, e->end);
		}
		ret = sframe_dup_part(mm, e, start, end);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * sframe_exit_mm() - free the registry of an mm going away
 * @mm:		the mm, with no users left
 *
 * Context: Process context.
 */
void sframe_exit_mm(struct mm_struct *mm)
{
	unsigned long index = 0;
	struct sframe_entry *e;

	while ((e = mt_find(&mm->sframe_mt, &index, ULONG_MAX))) {
		sframe_erase(mm, e);
		sframe_entry_put(e);
	}
	mtree_destroy(&mm->sframe_mt);
}

/**
 * sframe_vma_removed() - forget text that was unmapped
 * @mm:		the mm
 * @start:	start of the unmapped range
 * @end:	end of the range
 *
 * Called from munmap() (and so from mremap() and from a MAP_FIXED
 * mapping over old text) and from mprotect() removing PROT_EXEC.
 *
 * Context: Process context, with the mmap_lock of @mm held.
 */
void sframe_vma_removed(struct mm_struct *mm, unsigned long start,
			unsigned long end)
{
	if (!mtree_empty(&mm->sframe_mt))
		sframe_remove_range(mm, start, end);
}

#ifdef CONFIG_UNWIND_USER_SFRAME_KUNIT_TEST
#include "sframe_registry_kunit.c"
#endif
