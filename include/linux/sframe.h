/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-mm registry of the .sframe sections of user space code, and the
 * hooks through which memory management keeps it in step with the
 * address space.  See Documentation/userspace-api/sframe.rst.
 */
#ifndef _LINUX_SFRAME_H
#define _LINUX_SFRAME_H

#include <linux/errno.h>
#include <linux/types.h>

struct file;
struct inode;
struct mm_struct;
struct sframe_entry;
struct sframe_rule;
struct task_struct;

#ifdef CONFIG_SFRAME_REGISTRY

void sframe_mm_init(struct mm_struct *mm);
int sframe_dup_mm(struct mm_struct *oldmm, struct mm_struct *mm);
void sframe_exit_mm(struct mm_struct *mm);
void sframe_vma_removed(struct mm_struct *mm, unsigned long start,
			unsigned long end);

#else /* !CONFIG_SFRAME_REGISTRY */

static inline void sframe_mm_init(struct mm_struct *mm) { }

static inline int sframe_dup_mm(struct mm_struct *oldmm, struct mm_struct *mm)
{
	return 0;
}

static inline void sframe_exit_mm(struct mm_struct *mm) { }

static inline void sframe_vma_removed(struct mm_struct *mm,
				      unsigned long start, unsigned long end) { }

#endif /* CONFIG_SFRAME_REGISTRY */

#ifdef CONFIG_UNWIND_USER_SFRAME

struct vm_area_struct;

#ifdef CONFIG_VDSO_SFRAME
/**
 * arch_vdso_sframe_image() - the vDSO image mapped at a VMA
 * @vma:	an executable VMA without a file, of current's mm
 * @size:	the image's size, if it is one
 *
 * Provided by an architecture whose vDSO has an .sframe section
 * (HAVE_VDSO_SFRAME): the kernel's copy of the vDSO image (an ELF object
 * linked at 0) if @vma maps its text from the image's start, for a task
 * that unwinds with SFrame.
 *
 * Context: Task context, the mmap_lock of @vma's mm held.
 * Return: the image, or NULL.
 */
const void *arch_vdso_sframe_image(struct vm_area_struct *vma, size_t *size);
#else
static inline const void *arch_vdso_sframe_image(struct vm_area_struct *vma,
						 size_t *size)
{
	return NULL;
}
#endif

int sframe_user_find(unsigned long pc, struct sframe_rule *rule,
		     struct sframe_entry **cache, bool nofault);
void sframe_user_release(struct sframe_entry **cache);
bool sframe_unwind_enabled(void);
bool sframe_user_text(unsigned long ip, bool nofault);
void sframe_task_init(struct task_struct *task);

int sframe_prctl(unsigned long op, unsigned long uargs, unsigned long usize,
		 unsigned long arg5);
int sframe_proc_open(struct file *file, struct mm_struct *mm);
int sframe_proc_release(struct inode *inode, struct file *file);

#else /* !CONFIG_UNWIND_USER_SFRAME */

static inline int sframe_user_find(unsigned long pc, struct sframe_rule *rule,
				   struct sframe_entry **cache, bool nofault)
{
	return -ENOENT;
}

static inline void sframe_user_release(struct sframe_entry **cache) { }

static inline bool sframe_unwind_enabled(void)
{
	return false;
}

static inline bool sframe_user_text(unsigned long ip, bool nofault)
{
	return true;
}

static inline void sframe_task_init(struct task_struct *task) { }

static inline int sframe_prctl(unsigned long op, unsigned long uargs,
			       unsigned long usize, unsigned long arg5)
{
	return -EINVAL;
}

#endif /* CONFIG_UNWIND_USER_SFRAME */

#endif /* _LINUX_SFRAME_H */
