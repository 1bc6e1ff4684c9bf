// SPDX-License-Identifier: GPL-2.0
/*
 * The per-mm registry of .sframe sections.
 *
 * Each entry covers one range of executable user text and says where the
 * .sframe section describing it lives in user memory.  Entries hold
 * addresses only: the section itself is read from user memory, through
 * the reader in sframe_walk.c, every time a frame is unwound.
 *
 * Entries are created in two ways:
 *
 *  - discovery: the first faultable unwind that meets a PC in an
 *    executable mapping of a regular file adds a pending entry for the
 *    mapping, reads the file's ELF program headers through the page
 *    cache, finds PT_GNU_SFRAME and computes the load bias from the
 *    mapping; the entry then becomes usable, or is marked as having no
 *    section.  The dynamic loader and the ELF loader need no changes,
 *    and mmap() pays nothing.  A non-faultable unwind (NMI, IRQ) that
 *    misses asks for the same at the next return to user space;
 *  - registration through prctl(PR_SFRAME) for JITs and custom loaders.
 *
 * Entries are removed by munmap (and so mremap and MAP_FIXED) and by
 * mprotect() removing PROT_EXEC, copied by fork and freed at exit.  They
 * are added under the mmap_lock held for reading (discovery: the VMA
 * cannot go away meanwhile) or writing (prctl); removal happens under
 * the mmap_lock after the VMAs are detached.  The maple tree's own lock
 * orders the writers.  Readers (the
 * unwinder) look entries up under RCU; the faultable path then takes a
 * reference so that it may sleep, the non-faultable path stays inside
 * the RCU read-side section.  Entries are freed after a grace period.
 *
 * Profilers unwind the same hot stacks over and over, so the faultable
 * path keeps the rules of recently unwound PCs in a small cache per entry
 * (struct sframe_rcache).  The cache lives and dies with its entry: an
 * entry's section does not move, and a new mapping at the same address is
 * a new entry.  A section that user space rewrites in place may give
 * stale rules until it is mapped or registered anew, no worse than a
 * section that lies.  Boot or module parameter sframe.rule_cache=0
 * switches it off.
 */

#define pr_fmt(fmt) "sframe: " fmt

#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/hash.h>
#include <linux/mmap_lock.h>
#include <linux/moduleparam.h>
#include <linux/prctl.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/sframe.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <linux/wait_bit.h>

#include "sframe_walk.h"

#define CREATE_TRACE_POINTS
#include <trace/events/sframe.h>

/* At most this many program headers are read from a file */
#define SFRAME_MAX_PHNUM	128
/* A larger .sframe section is refused */
#define SFRAME_MAX_SIZE		SZ_1G

enum sframe_state {
	SFRAME_PENDING,		/* discovered, ELF headers not read yet */
	SFRAME_RESOLVING,	/* ELF headers being read */
	SFRAME_OK,		/* usable */
	SFRAME_NONE,		/* the file has no .sframe section */
	SFRAME_BAD,		/* corrupt: not used until mapped anew */
};

static const char * const sframe_state_names[] = {
	[SFRAME_PENDING]	= "pending",
	[SFRAME_RESOLVING]	= "pending",
	[SFRAME_OK]		= "ok",
	[SFRAME_NONE]		= "none",
	[SFRAME_BAD]		= "bad",
};

/* Rule cache slots per entry: a power of two */
#define SFRAME_RCACHE_SLOTS	32

/**
 * struct sframe_rcache - the rules of recently unwound PCs of an entry
 * @lock:	serializes the faultable walks of the mm's threads
 * @slot:	direct mapped by a hash of the PC; @pc 0 is an empty slot
 */
struct sframe_rcache {
	spinlock_t lock;	/* protects @slot */
	struct {
		unsigned long		pc;
		struct sframe_rule	rule;
	} slot[SFRAME_RCACHE_SLOTS];
};

static bool sframe_rcache_on = true;
module_param_named(rule_cache, sframe_rcache_on, bool, 0644);
MODULE_PARM_DESC(rule_cache, "Cache the unwind rules of recently unwound PCs (default: on)");

/**
 * struct sframe_entry - one registered text range
 * @sec:	the section; valid once @state is SFRAME_OK or SFRAME_BAD
 * @file:	the file mapped at @start, or NULL for anonymous text
 * @start:	start of the text range (the registry key)
 * @end:	end (exclusive) of the text range
 * @pgoff:	file offset of @start, in pages
 * @state:	enum sframe_state
 * @explicit:	registered through prctl(), not discovered
 * @ref:	one reference for the registry, one per faultable user
 * @lookups:	frames looked up in this section
 * @failures:	lookups that failed (not covered, fault or corrupt)
 * @rcache:	rule cache of the faultable path, allocated at first use
 * @rcu:	to free after readers are gone
 */
struct sframe_entry {
	struct sframe_section	sec;
	struct file		*file;
	unsigned long		start;
	unsigned long		end;
	unsigned long		pgoff;
	atomic_t		state;
	bool			explicit;
	refcount_t		ref;
	atomic_long_t		lookups;
	atomic_long_t		failures;
	struct sframe_rcache	*rcache;
	struct rcu_head		rcu;
};

static int sysctl_sframe_unwind __read_mostly = 1;

/**
 * sframe_unwind_enabled() - is SFrame unwinding switched on
 *
 * Return: the value of the kernel.sframe_unwind sysctl.
 */
bool sframe_unwind_enabled(void)
{
	return READ_ONCE(sysctl_sframe_unwind);
}

static struct sframe_entry *sframe_entry_alloc(struct file *file,
					       unsigned long start,
					       unsigned long end,
					       unsigned long pgoff)
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

static void sframe_entry_put(struct sframe_entry *e)
{
	if (!refcount_dec_and_test(&e->ref))
		return;
	if (e->file)
		fput(e->file);
	/* Only faultable walks, which hold references, use the cache */
	kfree(e->rcache);
	kfree_rcu(e, rcu);
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
	c->sec = e->sec;
	c->explicit = e->explicit;
	state = atomic_read_acquire(&e->state);
	/* A section being resolved is resolved again by the copy's user */
	if (state == SFRAME_RESOLVING)
		state = SFRAME_PENDING;
	atomic_set(&c->state, state);
	return c;
}

static int sframe_insert(struct mm_struct *mm, struct sframe_entry *e)
{
	int ret;

	ret = mtree_insert_range(&mm->sframe_mt, e->start, e->end - 1, e,
				 GFP_KERNEL_ACCOUNT);
	if (ret)
		sframe_entry_put(e);
	return ret;
}

/*
 * Drop whatever the registry holds in [@start, @end).  An entry that
 * sticks out of the range keeps its outer parts.
 */
static void sframe_remove_range(struct mm_struct *mm, unsigned long start,
				unsigned long end)
{
	unsigned long index = start;
	struct sframe_entry *e, *part;

	while ((e = mt_find(&mm->sframe_mt, &index, end - 1))) {
		mtree_erase(&mm->sframe_mt, e->start);
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
 * sframe_mm_init() - set up the registry of a new mm
 * @mm:		the mm, not yet in use
 */
void sframe_mm_init(struct mm_struct *mm)
{
	mt_init_flags(&mm->sframe_mt, MT_FLAGS_USE_RCU);
}

/**
 * sframe_dup_mm() - copy the registry for fork()
 * @oldmm:	the parent's mm, write-locked
 * @mm:		the child's mm, write-locked, with an empty registry
 *
 * Return: 0 or -ENOMEM.
 */
int sframe_dup_mm(struct mm_struct *oldmm, struct mm_struct *mm)
{
	unsigned long index = 0;
	struct sframe_entry *e, *c;
	int ret;

	mmap_assert_write_locked(oldmm);

	while ((e = mt_find(&oldmm->sframe_mt, &index, ULONG_MAX))) {
		c = sframe_entry_clone(e, e->start, e->end);
		if (!c)
			return -ENOMEM;
		ret = sframe_insert(mm, c);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * sframe_exit_mm() - free the registry of an mm going away
 * @mm:		the mm, with no users left
 */
void sframe_exit_mm(struct mm_struct *mm)
{
	unsigned long index = 0;
	struct sframe_entry *e;

	while ((e = mt_find(&mm->sframe_mt, &index, ULONG_MAX))) {
		mtree_erase(&mm->sframe_mt, e->start);
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
 * mapping over old text) and from mprotect() removing PROT_EXEC, with
 * the mmap_lock held.
 */
void sframe_vma_removed(struct mm_struct *mm, unsigned long start,
			unsigned long end)
{
	if (!mtree_empty(&mm->sframe_mt))
		sframe_remove_range(mm, start, end);
}

/* Mark @e corrupt; the first time, say so once. */
static void sframe_mark_bad(struct sframe_entry *e, enum sframe_reason reason)
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

/*
 * Read the program headers of @e's file and fill in @sec: where
 * PT_GNU_SFRAME is in this mm, and the span of the executable segments.
 * Return: 0, -ENOENT if the file has no usable section.
 */
static int sframe_elf_locate(struct sframe_entry *e, struct sframe_section *sec)
{
	unsigned long off = e->pgoff << PAGE_SHIFT, bias, text_lo, text_hi;
	struct elf64_phdr *phdrs, *sf = NULL, *text = NULL;
	struct elf64_hdr ehdr;
	loff_t pos = 0;
	size_t size;
	int i, ret = -ENOENT;

	if (kernel_read(e->file, &ehdr, sizeof(ehdr), &pos) != sizeof(ehdr))
		return -ENOENT;
	if (memcmp(ehdr.e_ident, ELFMAG, SELFMAG) ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_phentsize != sizeof(struct elf64_phdr) ||
	    !ehdr.e_phnum || ehdr.e_phnum > SFRAME_MAX_PHNUM)
		return -ENOENT;

	size = ehdr.e_phnum * sizeof(struct elf64_phdr);
	phdrs = kmalloc(size, GFP_KERNEL);
	if (!phdrs)
		return -ENOMEM;
	pos = ehdr.e_phoff;
	if (kernel_read(e->file, phdrs, size, &pos) != size)
		goto out;

	text_lo = ULONG_MAX;
	text_hi = 0;
	for (i = 0; i < ehdr.e_phnum; i++) {
		struct elf64_phdr *ph = &phdrs[i];

		if (ph->p_type == PT_GNU_SFRAME)
			sf = ph;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
		    ph->p_vaddr + ph->p_memsz < ph->p_vaddr)
			continue;
		text_lo = min(text_lo, ph->p_vaddr);
		text_hi = max(text_hi, ph->p_vaddr + ph->p_memsz);
		if (round_down(ph->p_offset, PAGE_SIZE) <= off &&
		    off < ph->p_offset + ph->p_filesz)
			text = ph;
	}
	if (!sf || !text || !sf->p_memsz || sf->p_memsz > SFRAME_MAX_SIZE)
		goto out;

	/* The mapping's file offset @off is at this address in the file */
	bias = e->start - (text->p_vaddr - text->p_offset + off);
	sec->sframe_start = bias + sf->p_vaddr;
	sec->sframe_end = sec->sframe_start + sf->p_memsz;
	sec->text_start = bias + text_lo;
	sec->text_end = bias + text_hi;
	if (sec->sframe_end <= sec->sframe_start ||
	    sec->sframe_end > TASK_SIZE_MAX ||
	    sec->text_end <= sec->text_start ||
	    sec->text_start >= e->end || sec->text_end <= e->start)
		goto out;
	ret = 0;
out:
	kfree(phdrs);
	return ret;
}

/* Set up @sec from user memory; a fault leaves the entry pending. */
static int sframe_setup(struct sframe_entry *e, struct sframe_section *sec)
{
	enum sframe_reason reason;
	int ret;

	ret = sframe_section_init(sec, &reason);
	if (!ret && IS_ENABLED(CONFIG_UNWIND_USER_SFRAME_DEBUG))
		ret = sframe_validate(sec, &reason);
	if (ret == -EBADMSG) {
		e->sec = *sec;
		sframe_mark_bad(e, reason);
	}
	return ret;
}

static void sframe_set_state(struct sframe_entry *e, int state)
{
	atomic_set_release(&e->state, state);
	wake_up_var(&e->state);
}

/* Turn a pending entry into a usable one, in faultable context. */
static void sframe_resolve(struct sframe_entry *e)
{
	struct sframe_section sec = {};
	int ret;

	if (atomic_cmpxchg(&e->state, SFRAME_PENDING, SFRAME_RESOLVING) !=
	    SFRAME_PENDING)
		return;

	ret = sframe_elf_locate(e, &sec);
	if (ret) {
		sframe_set_state(e, ret == -ENOENT ? SFRAME_NONE :
						     SFRAME_PENDING);
		return;
	}
	ret = sframe_setup(e, &sec);
	if (ret == -EBADMSG) {
		wake_up_var(&e->state);
		return;
	}
	if (ret) {
		sframe_set_state(e, SFRAME_PENDING);
		return;
	}
	e->sec = sec;
	trace_sframe_register(e->start, e->end, sec.sframe_start,
			      sec.sframe_end, false);
	sframe_set_state(e, SFRAME_OK);
}

/* Page faults are disabled by the caller if @nofault */
static int sframe_lookup(struct sframe_entry *e, unsigned long pc,
			 struct sframe_rule *rule, bool nofault)
{
	enum sframe_reason reason;
	int ret;

	atomic_long_inc(&e->lookups);
	ret = sframe_find(&e->sec, pc, rule, &reason);
	if (ret) {
		atomic_long_inc(&e->failures);
		/* A fault is not corruption: the page may come back */
		if (ret == -EBADMSG && !nofault)
			sframe_mark_bad(e, reason);
		trace_sframe_unwind_error(pc, ret);
	}
	return ret;
}

static unsigned int sframe_rcache_slot(unsigned long pc)
{
	return hash_long(pc, ilog2(SFRAME_RCACHE_SLOTS));
}

/* The cached rule for @pc of a usable entry, if any */
static bool sframe_rcache_get(struct sframe_entry *e, unsigned long pc,
			      struct sframe_rule *rule)
{
	/* Pairs with the cmpxchg() publishing the initialized cache */
	struct sframe_rcache *rc = smp_load_acquire(&e->rcache);
	unsigned int i = sframe_rcache_slot(pc);
	bool hit;

	if (!rc || !READ_ONCE(sframe_rcache_on))
		return false;
	spin_lock(&rc->lock);
	hit = rc->slot[i].pc == pc;
	if (hit)
		*rule = rc->slot[i].rule;
	spin_unlock(&rc->lock);
	return hit;
}

/* Remember the rule found for @pc; faultable context */
static void sframe_rcache_put(struct sframe_entry *e, unsigned long pc,
			      const struct sframe_rule *rule)
{
	/* Pairs with the cmpxchg() below, as in sframe_rcache_get() */
	struct sframe_rcache *rc = smp_load_acquire(&e->rcache);
	unsigned int i = sframe_rcache_slot(pc);

	if (!READ_ONCE(sframe_rcache_on))
		return;
	if (!rc) {
		struct sframe_rcache *old;

		rc = kzalloc_obj(*rc, GFP_KERNEL_ACCOUNT);
		if (!rc)
			return;
		spin_lock_init(&rc->lock);
		old = cmpxchg(&e->rcache, NULL, rc);
		if (old) {
			kfree(rc);
			rc = old;
		}
	}
	spin_lock(&rc->lock);
	rc->slot[i].pc = pc;
	rc->slot[i].rule = *rule;
	spin_unlock(&rc->lock);
}

/* A reference to the entry covering @pc, or NULL */
static struct sframe_entry *sframe_get(struct mm_struct *mm, unsigned long pc)
{
	struct sframe_entry *e;

	rcu_read_lock();
	e = mtree_load(&mm->sframe_mt, pc);
	if (e && !refcount_inc_not_zero(&e->ref))
		e = NULL;
	rcu_read_unlock();
	return e;
}

/*
 * Discovery: @pc has no entry.  If it is in an executable mapping of a
 * regular file, add a pending entry for the mapping and return it,
 * referenced.  The mmap_lock held for reading keeps the VMA in place.
 */
static struct sframe_entry *sframe_discover(struct mm_struct *mm,
					    unsigned long pc)
{
	struct sframe_entry *e = NULL;
	struct vm_area_struct *vma;

	if (mmap_read_lock_killable(mm))
		return NULL;
	vma = vma_lookup(mm, pc);
	if (vma && (vma->vm_flags & VM_EXEC) && vma->vm_file &&
	    S_ISREG(file_inode(vma->vm_file)->i_mode)) {
		e = sframe_entry_alloc(vma->vm_file, vma->vm_start,
				       vma->vm_end, vma->vm_pgoff);
		/* Another thread may have added it meanwhile */
		if (e && sframe_insert(mm, e))
			e = sframe_get(mm, pc);
		else if (e)
			refcount_inc(&e->ref);
	}
	mmap_read_unlock(mm);
	return e;
}

/*
 * Repair of the misses of non-faultable unwinds.  An unwind in NMI or IRQ
 * context can neither read ELF headers nor fault in .sframe pages.  It
 * notes the PCs it had to unwind with frame pointers for that reason and
 * queues a task_work; at the next return to user space the task looks
 * them up in faultable context, which discovers and resolves their
 * mappings and faults in the pages their lookups read.  The next samples
 * at the same places are then unwound with SFrame.
 *
 * The notes are written by interrupts of the task and read by the task
 * itself, all on the task's CPU.  A note lost to a race (a nested
 * interrupt, or an interrupt while the work reads them) costs one more
 * frame-pointer sample, nothing else.  The last PC found in no executable
 * mapping (a stack word that frame pointers took for a return address) is
 * remembered, so that the same word does not cost a lookup per sample.
 */
static void sframe_repair_request(unsigned long pc)
{
	struct sframe_repair *r = &current->unwind_info.sframe;
	int i, nr;

	if (current->flags & (PF_KTHREAD | PF_EXITING))
		return;
	if (pc == READ_ONCE(r->none))
		return;
	nr = atomic_read(&r->nr);
	for (i = 0; i < min(nr, SFRAME_REPAIR_PCS); i++)
		if (READ_ONCE(r->pc[i]) == pc)
			return;
	if (nr < SFRAME_REPAIR_PCS) {
		WRITE_ONCE(r->pc[nr], pc);
		atomic_set(&r->nr, nr + 1);
	}
	if (test_and_set_bit(0, &r->queued))
		return;
	if (task_work_add(current, &r->work,
			  in_nmi() ? TWA_NMI_CURRENT : TWA_RESUME))
		clear_bit(0, &r->queued);
}

static void sframe_repair_work(struct callback_head *head)
{
	struct sframe_repair *r = container_of(head, struct sframe_repair,
					       work);
	unsigned long pc[SFRAME_REPAIR_PCS];
	struct sframe_entry *cache = NULL;
	struct sframe_rule rule;
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
		sframe_user_find(pc[i], &rule, &cache, false);
		/* Not text: do not ask again for the same stack word */
		if (!mtree_load(&current->mm->sframe_mt, pc[i]))
			WRITE_ONCE(r->none, pc[i]);
	}
	sframe_user_release(&cache);
}

/**
 * sframe_task_init() - set up the SFrame state of a new task
 * @task:	the task, being created
 *
 * Called with the rest of its unwind state from unwind_task_init(), which
 * has cleared it.
 */
void sframe_task_init(struct task_struct *task)
{
	init_task_work(&task->unwind_info.sframe.work, sframe_repair_work);
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
 * @nofault, only resolved sections with resident pages are used, under
 * RCU; a PC that could have been found in faultable context is looked up
 * again at the next return to user space, so that the next unwinds find
 * it.
 *
 * The caller checks sframe_unwind_enabled() once per walk.
 *
 * Return: 0 on success; otherwise an error meaning "no SFrame rule here,
 * try frame pointers": -ENOENT (not covered or no usable section),
 * -EFAULT or -EBADMSG.
 */
int sframe_user_find(unsigned long pc, struct sframe_rule *rule,
		     struct sframe_entry **cache, bool nofault)
{
	struct mm_struct *mm = current->mm;
	struct sframe_entry *e;
	int ret = -ENOENT;

	if (!mm)
		return -ENOENT;

	if (nofault) {
		int state = SFRAME_PENDING;

		rcu_read_lock();
		e = mtree_load(&mm->sframe_mt, pc);
		if (e)
			state = atomic_read_acquire(&e->state);
		if (state == SFRAME_OK)
			ret = sframe_lookup(e, pc, rule, true);
		rcu_read_unlock();
		/* Not discovered, not resolved or not resident yet */
		if (state == SFRAME_PENDING || ret == -EFAULT)
			sframe_repair_request(pc);
		return ret;
	}

	e = *cache;
	if (!e || pc < e->start || pc >= e->end) {
		sframe_user_release(cache);
		e = sframe_get(mm, pc);
		if (!e)
			e = sframe_discover(mm, pc);
		if (!e)
			return -ENOENT;
		*cache = e;
	}

	if (atomic_read(&e->state) == SFRAME_PENDING)
		sframe_resolve(e);
	/* Another thread may be resolving it: wait, it does not take long */
	wait_var_event_killable(&e->state,
				atomic_read(&e->state) != SFRAME_RESOLVING);
	if (atomic_read_acquire(&e->state) != SFRAME_OK)
		return ret;
	if (sframe_rcache_get(e, pc, rule)) {
		atomic_long_inc(&e->lookups);
		return 0;
	}
	ret = sframe_lookup(e, pc, rule, false);
	if (!ret)
		sframe_rcache_put(e, pc, rule);
	return ret;
}

/**
 * sframe_user_release() - end of a faultable walk
 * @cache:	the entry cached by sframe_user_find(), or NULL
 *
 * A text range unmapped during the walk stays usable (not reused) until
 * then: its section is read from user memory with the usual checks.
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
 * Return: true if @ip is in registered text, or (without @nofault) in
 * an executable mapping.
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
		 * address.  An unknown one ends the walk and is looked up at
		 * the next return to user space: if it is in an executable
		 * file mapping, the next walks know it.
		 */
		sframe_repair_request(ip);
		return false;
	}
	if (mmap_read_lock_killable(mm))
		return false;
	vma = vma_lookup(mm, ip);
	ret = vma && (vma->vm_flags & VM_EXEC);
	mmap_read_unlock(mm);
	return ret;
}

/* Is [@start, @end) wholly covered by VMAs with all of @flags? */
static bool sframe_range_mapped(struct mm_struct *mm, unsigned long start,
				unsigned long end, vm_flags_t flags)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma;

	for_each_vma_range(vmi, vma, end) {
		if (vma->vm_start > start || (vma->vm_flags & flags) != flags)
			return false;
		start = vma->vm_end;
		if (start >= end)
			return true;
	}
	return false;
}

static int sframe_register(struct prctl_sframe *args)
{
	struct mm_struct *mm = current->mm;
	struct sframe_section sec = {
		.sframe_start	= args->sframe_start,
		.sframe_end	= args->sframe_start + args->sframe_len,
		.text_start	= args->text_start,
		.text_end	= args->text_start + args->text_len,
	};
	unsigned long index = sec.text_start;
	struct vm_area_struct *vma;
	enum sframe_reason reason;
	struct sframe_entry *e;
	int ret;

	if (!args->sframe_len || !args->text_len ||
	    sec.sframe_end < sec.sframe_start || sec.text_end < sec.text_start ||
	    sec.sframe_end > TASK_SIZE || sec.text_end > TASK_SIZE ||
	    args->sframe_len > SFRAME_MAX_SIZE)
		return -EINVAL;

	/* Read (and fault in) the header before taking the mmap_lock */
	ret = sframe_section_init(&sec, &reason);
	if (!ret && IS_ENABLED(CONFIG_UNWIND_USER_SFRAME_DEBUG))
		ret = sframe_validate(&sec, &reason);
	if (ret)
		return ret == -EBADMSG ? -EINVAL : ret;

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	ret = -EINVAL;
	if (!sframe_range_mapped(mm, sec.text_start, sec.text_end, VM_EXEC) ||
	    !sframe_range_mapped(mm, sec.sframe_start, sec.sframe_end, VM_READ))
		goto unlock;
	ret = -EEXIST;
	if (mt_find(&mm->sframe_mt, &index, sec.text_end - 1))
		goto unlock;
	ret = -ENOMEM;
	vma = vma_lookup(mm, sec.text_start);
	e = sframe_entry_alloc(vma->vm_file, sec.text_start, sec.text_end,
			       vma->vm_pgoff + ((sec.text_start - vma->vm_start) >>
						PAGE_SHIFT));
	if (!e)
		goto unlock;
	e->sec = sec;
	e->explicit = true;
	atomic_set(&e->state, SFRAME_OK);
	ret = sframe_insert(mm, e);
	if (!ret)
		trace_sframe_register(sec.text_start, sec.text_end,
				      sec.sframe_start, sec.sframe_end, true);
unlock:
	mmap_write_unlock(mm);
	return ret;
}

static int sframe_unregister(struct prctl_sframe *args)
{
	struct mm_struct *mm = current->mm;
	struct sframe_entry *e;
	int ret = -ENOENT;

	if (args->sframe_start || args->sframe_len || args->text_len)
		return -EINVAL;

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	e = mtree_load(&mm->sframe_mt, args->text_start);
	if (e && e->explicit && e->start == args->text_start) {
		sframe_remove_range(mm, e->start, e->end);
		ret = 0;
	}
	mmap_write_unlock(mm);
	return ret;
}

/**
 * sframe_prctl() - prctl(PR_SFRAME, op, args, size, 0)
 * @op:		PR_SFRAME_REGISTER or PR_SFRAME_UNREGISTER
 * @uargs:	user pointer to a struct prctl_sframe
 * @usize:	size of that struct as the caller knows it
 * @arg5:	must be 0
 *
 * Register or unregister the .sframe section of text of the calling
 * process, see Documentation/userspace-api/sframe.rst.
 *
 * Return: 0 or a negative error code.
 */
int sframe_prctl(unsigned long op, unsigned long uargs, unsigned long usize,
		 unsigned long arg5)
{
	struct prctl_sframe args;
	int ret;

	if (arg5 || usize < PRCTL_SFRAME_SIZE_VER0 || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(&args, sizeof(args),
				    u64_to_user_ptr((u64)uargs), usize);
	if (ret)
		return ret;
	if (args.flags)
		return -EINVAL;

	switch (op) {
	case PR_SFRAME_REGISTER:
		return sframe_register(&args);
	case PR_SFRAME_UNREGISTER:
		return sframe_unregister(&args);
	default:
		return -EINVAL;
	}
}

/**
 * sframe_proc_show() - show /proc/<pid>/sframe
 * @m:		the seq_file
 * @ns:		the pid namespace of the procfs instance
 * @pid:	the pid
 * @task:	the task
 *
 * One line per registry entry, see Documentation/userspace-api/sframe.rst.
 *
 * Return: 0 or a negative error code.
 */
int sframe_proc_show(struct seq_file *m, struct pid_namespace *ns,
		     struct pid *pid, struct task_struct *task)
{
	struct mm_struct *mm;
	struct sframe_entry *e;
	unsigned long index = 0;
	int state;

	mm = mm_access(task, PTRACE_MODE_READ_FSCREDS);
	if (IS_ERR_OR_NULL(mm))
		return mm ? PTR_ERR(mm) : 0;

	rcu_read_lock();
	while ((e = mt_find(&mm->sframe_mt, &index, ULONG_MAX))) {
		state = atomic_read_acquire(&e->state);
		seq_printf(m, "%08lx-%08lx %-7s %s ", e->start, e->end,
			   sframe_state_names[state],
			   e->explicit ? "prctl" : "elf");
		if (state == SFRAME_OK || state == SFRAME_BAD)
			seq_printf(m, "%08lx-%08lx v%u %u",
				   e->sec.sframe_start, e->sec.sframe_end,
				   e->sec.version, e->sec.num_fdes);
		else
			seq_puts(m, "0-0 v0 0");
		seq_printf(m, " %lu %lu ", atomic_long_read(&e->lookups),
			   atomic_long_read(&e->failures));
		/* The path the process sees, also for overlayfs (as maps does) */
		if (e->file)
			seq_path(m, file_user_path(e->file), "\n");
		else
			seq_puts(m, "[anon]");
		seq_putc(m, '\n');
	}
	rcu_read_unlock();
	mmput(mm);
	return 0;
}

static const struct ctl_table sframe_sysctls[] = {
	{
		.procname	= "sframe_unwind",
		.data		= &sysctl_sframe_unwind,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static int __init sframe_sysctl_init(void)
{
	register_sysctl_init("kernel", sframe_sysctls);
	return 0;
}
core_initcall(sframe_sysctl_init);

#ifdef CONFIG_UNWIND_USER_SFRAME_KUNIT_TEST
#include "sframe_registry_kunit.c"
#endif
