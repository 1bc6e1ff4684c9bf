// SPDX-License-Identifier: GPL-2.0
/*
 * The user interfaces of SFrame unwinding: prctl(PR_SFRAME) registration
 * for JITs and custom loaders, /proc/<pid>/sframe and the
 * kernel.sframe_unwind sysctl.  See Documentation/userspace-api/sframe.rst.
 */

#define pr_fmt(fmt) "sframe: " fmt

#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/path.h>
#include <linux/prctl.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/sframe.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>

#include "sframe_registry.h"

#include <trace/events/sframe.h>

static int sysctl_sframe_unwind __read_mostly = 1;

/**
 * sframe_unwind_enabled() - is SFrame unwinding switched on
 *
 * Context: Any context.
 * Return: the value of the kernel.sframe_unwind sysctl.
 */
bool sframe_unwind_enabled(void)
{
	return READ_ONCE(sysctl_sframe_unwind);
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

	/*
	 * Read (and fault in) the header, and the FDE table for its index,
	 * before taking the mmap_lock
	 */
	ret = sframe_check(&sec, &reason);
	if (ret == -ENOMEM)
		ret = 0;	/* usable without its index */
	if (ret)
		return ret == -EBADMSG ? -EINVAL : ret;

	if (mmap_write_lock_killable(mm)) {
		sframe_section_release(&sec);
		return -EINTR;
	}
	ret = -EINVAL;
	if (!sframe_range_mapped(mm, sec.text_start, sec.text_end, VM_EXEC) ||
	    !sframe_range_mapped(mm, sec.sframe_start, sec.sframe_end, VM_READ))
		goto unlock;
	ret = -ENOSPC;
	if (atomic_read(&mm->sframe_explicit) >= SFRAME_MAX_EXPLICIT)
		goto unlock;
	/* An explicit registration replaces what discovery found there */
	ret = -EEXIST;
	while ((e = mt_find(&mm->sframe_mt, &index, sec.text_end - 1)))
		if (e->explicit)
			goto unlock;
	sframe_remove_range(mm, sec.text_start, sec.text_end);
	ret = -ENOMEM;
	vma = vma_lookup(mm, sec.text_start);
	e = sframe_entry_alloc(vma->vm_file, sec.text_start, sec.text_end,
			       vma->vm_pgoff + ((sec.text_start - vma->vm_start) >>
						PAGE_SHIFT));
	if (!e)
		goto unlock;
	/* The entry owns the section's index from now on */
	e->sec = sec;
	sec.fde_index = NULL;
	e->explicit = true;
	atomic_set(&e->state, SFRAME_OK);
	ret = sframe_insert(mm, e);
	if (!ret)
		trace_sframe_register(sec.text_start, sec.text_end,
				      sec.sframe_start, sec.sframe_end,
				      "registered");
unlock:
	mmap_write_unlock(mm);
	sframe_section_release(&sec);
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
 * @op:		PR_SFRAME_REGISTER or PR_SFRAME_UNREGISTER, or
 *		PR_SFRAME_STORE_ADD or PR_SFRAME_STORE_REMOVE
 * @uargs:	user pointer to a struct prctl_sframe, or for the store a
 *		struct prctl_sframe_store (see sframe_store_prctl())
 * @usize:	size of that struct as the caller knows it
 * @arg5:	must be 0
 *
 * Register or unregister the .sframe section of text of the calling
 * process, or change the store of sections for objects that ship none,
 * see Documentation/userspace-api/sframe.rst.
 *
 * Context: Process context, may sleep.
 * Return: 0 or a negative error code.
 */
int sframe_prctl(unsigned long op, unsigned long uargs, unsigned long usize,
		 unsigned long arg5)
{
	struct prctl_sframe args;
	int ret;

	/* 32-bit tasks never use SFrame */
	if (in_compat_syscall())
		return -EINVAL;
	if (op == PR_SFRAME_STORE_ADD || op == PR_SFRAME_STORE_REMOVE)
		return arg5 ? -EINVAL : sframe_store_prctl(op, uargs, usize);
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
 * struct sframe_proc - an open /proc/<pid>/sframe
 * @mm:		the mm of the process when the file was opened, grabbed
 *		(NULL for a task without one)
 * @next:	the address from which the next entry is looked up
 * @got_mm:	@mm is held (mmget) between ->start and ->stop
 */
struct sframe_proc {
	struct mm_struct	*mm;
	unsigned long		next;
	bool			got_mm;
};

/*
 * Entries are read one at a time, each referenced while it is printed:
 * neither RCU nor the mmap_lock is held across the output.
 */
static void *sframe_seq_start(struct seq_file *m, loff_t *pos)
{
	struct sframe_proc *p = m->private;

	if (!p->mm || !mmget_not_zero(p->mm))
		return NULL;
	p->got_mm = true;
	if (!*pos)
		p->next = 0;
	return sframe_get_from(p->mm, p->next);
}

static void *sframe_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct sframe_proc *p = m->private;
	struct sframe_entry *e = v;

	p->next = e->end;
	sframe_entry_put(e);
	++*pos;
	return sframe_get_from(p->mm, p->next);
}

static void sframe_seq_stop(struct seq_file *m, void *v)
{
	struct sframe_proc *p = m->private;

	if (v)
		sframe_entry_put(v);
	if (p->got_mm) {
		p->got_mm = false;
		mmput(p->mm);
	}
}

/*
 * Where the section of @e comes from: prctl(), the store, or the ELF file
 * (or the vDSO's image, whose path is [vdso])
 */
static const char *sframe_entry_source(const struct sframe_entry *e,
				       int state)
{
	if (e->explicit)
		return "prctl";
	/* @e->image is set with the section, before the state */
	if ((state == SFRAME_OK || state == SFRAME_BAD) && e->image &&
	    e->image->stored)
		return "store";
	return "elf";
}

static int sframe_seq_show(struct seq_file *m, void *v)
{
	struct sframe_entry *e = v;
	int state = atomic_read_acquire(&e->state);

	seq_printf(m, "%08lx-%08lx %-7s %s ", e->start, e->end,
		   sframe_state_name(state), sframe_entry_source(e, state));
	if (state == SFRAME_OK || state == SFRAME_BAD)
		seq_printf(m, "%08lx-%08lx v%u %u",
			   e->sec.sframe_start, e->sec.sframe_end,
			   e->sec.version, e->sec.num_fdes);
	else
		seq_puts(m, "0-0 v0 0");
	seq_printf(m, " %lu %lu ", sframe_entry_lookups(e),
		   atomic_long_read(&e->failures));
	/* The path the process sees, also for overlayfs (as maps does) */
	if (e->file)
		seq_path(m, file_user_path(e->file), "\n");
	else
		seq_puts(m, e->vdso ? "[vdso]" : "[anon]");
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations sframe_seq_ops = {
	.start	= sframe_seq_start,
	.next	= sframe_seq_next,
	.stop	= sframe_seq_stop,
	.show	= sframe_seq_show,
};

/**
 * sframe_proc_open() - open /proc/<pid>/sframe
 * @file:	the file being opened
 * @mm:		the process's mm, grabbed by proc_mem_open() (which checked
 *		the permission to ptrace-read the process), or NULL; the
 *		file owns the reference from now on
 *
 * The file shows the registry of the mm the process had at open, like
 * /proc/<pid>/maps: after an execve() it shows nothing.
 *
 * Context: Process context.
 * Return: 0 or a negative error code.
 */
int sframe_proc_open(struct file *file, struct mm_struct *mm)
{
	struct sframe_proc *p;

	p = __seq_open_private(file, &sframe_seq_ops, sizeof(*p));
	if (!p) {
		if (mm)
			mmdrop(mm);
		return -ENOMEM;
	}
	p->mm = mm;
	return 0;
}

/**
 * sframe_proc_release() - close /proc/<pid>/sframe
 * @inode:	its inode
 * @file:	the file
 *
 * Context: Process context.
 * Return: 0.
 */
int sframe_proc_release(struct inode *inode, struct file *file)
{
	struct sframe_proc *p = ((struct seq_file *)file->private_data)->private;

	if (p->mm)
		mmdrop(p->mm);
	return seq_release_private(inode, file);
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
