// SPDX-License-Identifier: GPL-2.0
/*
 * Discovery of .sframe sections: the first faultable unwind that meets a
 * PC in an executable mapping without an entry adds one for the mapping.
 * For a regular file, the entry is pending until its ELF program headers,
 * read through the page cache, say where PT_GNU_SFRAME is and the mapping
 * gives the load bias; it then becomes usable, or is marked as having no
 * section.  The ELF object is at the start of the file, or embedded in it
 * at a page-aligned offset (a library loaded out of an APK), where the
 * load maps its first page.  The vDSO's section is located in the
 * kernel's copy of its image (arch_vdso_sframe_image()), and read from
 * the mapping like any other.  Other anonymous text (JIT code that did
 * not register) is noted as text without a section, so that the
 * unwinders know it is text and do not look it up again.  The dynamic
 * loader and the ELF loader need no changes, and mmap() pays nothing.  A
 * non-faultable unwind (NMI, IRQ) that misses asks for the same at the
 * next return to user space, see sframe_repair.c.
 */

#define pr_fmt(fmt) "sframe: " fmt

#include <linux/buildid.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/maple_tree.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched.h>
#include <linux/sframe.h>
#include <linux/slab.h>
#include <linux/unwind_user.h>
#include <linux/wait_bit.h>

#include "sframe_format.h"
#include "sframe_registry.h"

#include <trace/events/sframe.h>

#ifndef UNWIND_USER_SFRAME_ABI
#error "<asm/unwind_user.h> must define UNWIND_USER_SFRAME_ABI"
#endif

/* At most this many program headers are read from a file */
#define SFRAME_MAX_PHNUM	128

/*
 * An ELF object embedded in a larger file (a library loaded straight out
 * of an APK) starts where its first page is mapped: at most this many
 * VMAs below a mapping are looked at for it, and at most this many
 * starts are tried.
 */
#define SFRAME_MAX_WALK		8
#define SFRAME_MAX_STARTS	4

/**
 * struct sframe_elf_start - where an ELF object may start in a file
 * @off:	file offset of the object's ELF header
 * @addr:	address at which @off is mapped, or 0 if not known
 */
struct sframe_elf_start {
	unsigned long	off;
	unsigned long	addr;
};

/*
 * A section read from its file's pages may be shared by the mappings of
 * the file (sframe_image.c): at most this many VMAs may map it.
 */
#define SFRAME_MAX_CLEAN_VMAS	4

/* Notes of at most this size are searched for a build ID */
#define SFRAME_MAX_NOTES	SZ_4K
/* The note type of a build ID, in notes named "GNU" */
#define SFRAME_NT_GNU_BUILD_ID	3

/**
 * struct sframe_elf_obj - where a mapped ELF object's section is in its file
 * @off:	file offset of the object's ELF header
 * @sframe_off:	file offset of its .sframe section
 * @store:	for an object without one, the image of the section that
 *		the store has for it (referenced), else NULL
 */
struct sframe_elf_obj {
	loff_t			off;
	loff_t			sframe_off;
	struct sframe_image	*store;
};

/*
 * Read @size bytes at @pos of @file into @buf.  The unwinder reads the
 * headers of files that the task may only be allowed to execute, on
 * behalf of a profiler, so it reads like the kernel's build ID parser
 * (lib/buildid.c): from the page cache, which raises no fanotify
 * permission event, consults no LSM hook, updates no atime and sends no
 * notification; the headers of a mapped file are there nearly always.
 * Only for pages not cached does it read the file with __kernel_read(),
 * still without permission events or LSM checks.
 */
static int sframe_file_read(struct file *file, void *buf, size_t size,
			    loff_t pos)
{
	loff_t isize = i_size_read(file_inode(file));
	struct freader r;
	const void *p;
	int ret = 0;
	bool io;

	/* Beyond the end of the file: not an ELF object we can use */
	if (pos < 0 || pos > isize || size > isize - pos)
		return -ENOENT;
	for (io = false; ; io = true) {
		freader_init_from_file(&r, buf, size, file, io);
		p = freader_fetch(&r, pos, size);
		if (p && p != buf)
			memcpy(buf, p, size);
		ret = p ? 0 : r.err;
		freader_cleanup(&r);
		if (ret != -EFAULT || io)
			return ret;
	}
}

/*
 * Is segment @sf loaded from the file: inside a PT_LOAD, at the file
 * offset that PT_LOAD maps it from?  Otherwise its bytes in memory are
 * not the section.
 */
static bool sframe_elf_loaded(const struct elf64_phdr *phdrs, int phnum,
			      const struct elf64_phdr *sf)
{
	const struct elf64_phdr *ph;
	int i;

	for (i = 0; i < phnum; i++) {
		ph = &phdrs[i];
		if (ph->p_type == PT_LOAD && ph->p_vaddr <= sf->p_vaddr &&
		    sf->p_memsz <= ph->p_filesz &&
		    sf->p_vaddr - ph->p_vaddr <= ph->p_filesz - sf->p_memsz &&
		    sf->p_offset - ph->p_offset == sf->p_vaddr - ph->p_vaddr)
			return true;
	}
	return false;
}

/**
 * sframe_elf_first_page_at() - is the object's first page mapped at @addr
 * @phdrs:	the object's program headers
 * @phnum:	their number
 * @bias:	the load bias that the text mapping gives
 * @addr:	where a VMA maps the start of the object
 *
 * Does a PT_LOAD that holds the object's first page (the ELF header) map
 * it at @addr with load bias @bias?  That ties a start found from the
 * VMAs to the load that maps the text.
 *
 * Context: Any context.
 * Return: true if it does.
 */
static bool sframe_elf_first_page_at(const struct elf64_phdr *phdrs,
				     int phnum, unsigned long bias,
				     unsigned long addr)
{
	const struct elf64_phdr *ph;
	int i;

	for (i = 0; i < phnum; i++) {
		ph = &phdrs[i];
		if (ph->p_type == PT_LOAD && ph->p_offset < PAGE_SIZE &&
		    ph->p_filesz &&
		    bias + ph->p_vaddr - ph->p_offset == addr)
			return true;
	}
	return false;
}

/*
 * The NT_GNU_BUILD_ID of the ELF object at file offset @start of @file,
 * whose program headers are @phdrs, into @id: its length, or 0 if none
 * was found in the first SFRAME_MAX_NOTES bytes of each PT_NOTE
 */
static u32 sframe_elf_build_id(struct file *file, loff_t start,
			       const struct elf64_phdr *phdrs, int phnum, u8 *id)
{
	u32 len = 0;
	void *buf;
	int i;

	buf = kmalloc(SFRAME_MAX_NOTES, GFP_KERNEL);
	if (!buf)
		return 0;
	for (i = 0; i < phnum && !len; i++) {
		const struct elf64_phdr *ph = &phdrs[i];
		size_t size = ph->p_filesz, at = 0, name, desc;

		if (ph->p_type != PT_NOTE || !size || size > SFRAME_MAX_NOTES ||
		    ph->p_offset > MAX_LFS_FILESIZE - start ||
		    sframe_file_read(file, buf, size, start + ph->p_offset))
			continue;
		while (size - at >= sizeof(struct elf64_note)) {
			const struct elf64_note *n = buf + at;

			/* The notes of ELF files are 4-byte aligned in practice */
			name = ALIGN((size_t)n->n_namesz, 4);
			desc = ALIGN((size_t)n->n_descsz, 4);
			at += sizeof(*n);
			if (name > size - at || desc > size - at - name)
				break;
			if (n->n_type == SFRAME_NT_GNU_BUILD_ID &&
			    n->n_namesz == sizeof("GNU") &&
			    !memcmp(buf + at, "GNU", sizeof("GNU")) &&
			    n->n_descsz && n->n_descsz <= BUILD_ID_SIZE_MAX) {
				memcpy(id, buf + at + name, n->n_descsz);
				len = n->n_descsz;
				break;
			}
			at += name + desc;
		}
	}
	kfree(buf);
	return len;
}

/*
 * The section that the store has (sframe_store.c) for the object at
 * @start of @e's file, which has no PT_GNU_SFRAME: found by its build ID,
 * its file's size and the ELF addresses of its text [@text_lo, @text_hi),
 * which is at @bias.  Return 0 with @sec's text and @obj->store set, or
 * -ENOENT.
 */
static int sframe_elf_stored(struct sframe_entry *e, loff_t start,
			     const struct elf64_phdr *phdrs, int phnum,
			     unsigned long bias, unsigned long text_lo,
			     unsigned long text_hi, struct sframe_section *sec,
			     struct sframe_elf_obj *obj)
{
	u8 id[BUILD_ID_SIZE_MAX];
	struct sframe_image *img;
	u32 len;

	if (!sframe_store_used())
		return -ENOENT;
	len = sframe_elf_build_id(e->file, start, phdrs, phnum, id);
	if (!len)
		return -ENOENT;
	img = sframe_store_get(id, len, i_size_read(file_inode(e->file)),
			       text_lo, text_hi);
	if (!img)
		return -ENOENT;
	sec->text_start = bias + text_lo;
	sec->text_end = bias + text_hi;
	if (sec->text_end <= sec->text_start ||
	    sec->text_end > TASK_SIZE_MAX ||
	    sec->text_start >= e->end || sec->text_end <= e->start) {
		sframe_image_put(img);
		return -ENOENT;
	}
	obj->off = start;
	obj->sframe_off = 0;
	obj->store = img;
	return 0;
}

/**
 * sframe_elf_locate() - find the section of @e in an ELF object of its file
 * @e:		the entry
 * @start:	where the object may start in @e's file: its ELF header, and
 *		where that is mapped if known
 * @sec:	the section's and the text's ranges, on success
 * @obj:	where the object and its section are in the file, on success
 *
 * Read the ELF header and program headers of the object at @start->off
 * of @e's file.  Every file offset of the object (program headers,
 * PT_LOAD, PT_GNU_SFRAME) is relative to @start->off.  The object is the
 * one mapped at @e if it is a 64-bit ELF object of the task's kind, one
 * of its executable PT_LOAD segments maps @e's file offset and, with
 * @start->addr, its first page is mapped at @start->addr for the same
 * load bias.  Its section is usable if PT_GNU_SFRAME lies in a PT_LOAD
 * at the file offset that PT_LOAD maps.  An object without PT_GNU_SFRAME
 * may have a section in the store (sframe_elf_stored()).
 *
 * Context: Task context, may sleep; no lock held.
 * Return: 0; -ENOEXEC if the object at @start->off is not the one mapped
 * at @e; -ENOENT if it is but has no usable section; -EAGAIN if its
 * headers could not be read (this time); -ENOMEM.
 */
static int sframe_elf_locate(struct sframe_entry *e,
			     const struct sframe_elf_start *start,
			     struct sframe_section *sec,
			     struct sframe_elf_obj *obj)
{
	unsigned long off = e->pgoff << PAGE_SHIFT, bias, text_lo, text_hi;
	struct elf64_phdr *phdrs, *sf = NULL, *text = NULL;
	struct elf64_hdr ehdr;
	size_t size;
	int i, ret;

	if (start->off > off)
		return -ENOEXEC;
	/* From here on, file offsets are relative to the object's start */
	off -= start->off;
	/* A failed read may not fail again: try again later */
	ret = sframe_file_read(e->file, &ehdr, sizeof(ehdr), start->off);
	if (ret)
		return ret == -ENOENT ? -ENOEXEC : -EAGAIN;
	/* An object of the task's own kind only: SFrame is per ABI */
	if (memcmp(ehdr.e_ident, ELFMAG, SELFMAG) ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_ident[EI_DATA] != ELF_DATA ||
	    ehdr.e_machine != ELF_ARCH ||
	    ehdr.e_phentsize != sizeof(struct elf64_phdr) ||
	    !ehdr.e_phnum || ehdr.e_phnum > SFRAME_MAX_PHNUM ||
	    ehdr.e_phoff > MAX_LFS_FILESIZE - start->off)
		return -ENOEXEC;

	size = ehdr.e_phnum * sizeof(struct elf64_phdr);
	phdrs = kmalloc(size, GFP_KERNEL);
	if (!phdrs)
		return -ENOMEM;
	ret = sframe_file_read(e->file, phdrs, size,
			       start->off + ehdr.e_phoff);
	if (ret) {
		ret = ret == -ENOENT ? -ENOEXEC : -EAGAIN;
		goto out;
	}

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
	/* No text of this object is mapped at @e */
	ret = -ENOEXEC;
	if (!text)
		goto out;
	/* The mapping's file offset @off is at this address in the object */
	bias = e->start - (text->p_vaddr - text->p_offset + off);
	if (start->addr &&
	    !sframe_elf_first_page_at(phdrs, ehdr.e_phnum, bias, start->addr))
		goto out;

	if (!sf) {
		ret = sframe_elf_stored(e, start->off, phdrs, ehdr.e_phnum,
					bias, text_lo, text_hi, sec, obj);
		goto out;
	}
	ret = -ENOENT;
	if (!sf->p_memsz || sf->p_memsz > SFRAME_MAX_SIZE ||
	    !sframe_elf_loaded(phdrs, ehdr.e_phnum, sf))
		goto out;
	sec->sframe_start = bias + sf->p_vaddr;
	sec->sframe_end = sec->sframe_start + sf->p_memsz;
	sec->text_start = bias + text_lo;
	sec->text_end = bias + text_hi;
	if (sec->sframe_end <= sec->sframe_start ||
	    sec->sframe_end > TASK_SIZE_MAX ||
	    sec->text_end <= sec->text_start ||
	    sec->text_start >= e->end || sec->text_end <= e->start)
		goto out;
	obj->off = start->off;
	obj->sframe_off = start->off + sf->p_offset;
	ret = 0;
out:
	kfree(phdrs);
	return ret;
}

/**
 * sframe_elf_starts() - where the ELF object mapped at @e may start
 * @e:		the entry, of current's mm
 * @starts:	the candidates, at most SFRAME_MAX_STARTS, nearest first
 *
 * An object embedded in a larger file at a page-aligned offset is mapped
 * like any other: the loader maps its first PT_LOAD, which holds the ELF
 * header, from the object's start, below its text.  Look at the VMA of
 * @e and the VMAs below it, SFRAME_MAX_WALK in all, down to the first
 * VMA of another file: each VMA of @e's file maps a page that may be the
 * object's first.  The VMAs are only read: the headers are read after
 * the mmap_lock is dropped, and sframe_elf_locate() checks that the
 * candidate belongs to the load that maps @e.
 *
 * Context: Task context, may sleep; takes the mmap_lock of current's mm
 * for reading.
 * Return: the number of candidates, 0 if @e is no longer mapped from its
 * file, or -EAGAIN if a fatal signal interrupted the wait for the lock.
 */
static int sframe_elf_starts(struct sframe_entry *e,
			     struct sframe_elf_start *starts)
{
	VMA_ITERATOR(vmi, current->mm, e->start);
	struct vm_area_struct *vma;
	unsigned long off;
	int n = 0, walked, i;

	if (mmap_read_lock_killable(current->mm))
		return -EAGAIN;
	/* Still the mapping that was discovered? */
	vma = vma_find(&vmi, e->start + 1);
	if (!vma || vma->vm_start > e->start || vma->vm_file != e->file ||
	    vma->vm_pgoff + ((e->start - vma->vm_start) >> PAGE_SHIFT) !=
	    e->pgoff)
		goto unlock;
	for (walked = 0; vma && walked < SFRAME_MAX_WALK;
	     walked++, vma = vma_prev(&vmi)) {
		if (!vma->vm_file)
			continue;	/* bss, or a reservation between segments */
		if (file_inode(vma->vm_file) != file_inode(e->file))
			break;		/* another object's mapping */
		off = vma->vm_pgoff << PAGE_SHIFT;
		if (off > e->pgoff << PAGE_SHIFT)
			continue;
		for (i = 0; i < n && starts[i].off != off; i++)
			;
		if (i < n)
			continue;	/* the nearest one is kept */
		starts[n].off = off;
		starts[n].addr = vma->vm_start;
		if (++n == SFRAME_MAX_STARTS)
			break;
	}
unlock:
	mmap_read_unlock(current->mm);
	return n;
}

/**
 * sframe_elf_find() - find the section of the ELF object mapped at @e
 * @e:		the entry, of current's mm
 * @sec:	the section's and the text's ranges, on success
 * @obj:	where the object and its section are in the file, on success
 *
 * In the usual case the file is the ELF object, which starts at file
 * offset 0: that costs what it always did.  Otherwise, the object is
 * looked for where the mappings below @e may have its first page.
 *
 * Context: Task context, may sleep; no lock held.  Takes the mmap_lock of
 * current's mm for reading if the file does not start with the object.
 * Return: 0; -ENOENT if no object of the task's kind with a usable
 * section maps @e; -EAGAIN if that could not be told (this time); -ENOMEM.
 */
static int sframe_elf_find(struct sframe_entry *e, struct sframe_section *sec,
			   struct sframe_elf_obj *obj)
{
	struct sframe_elf_start starts[SFRAME_MAX_STARTS] = {};
	int n, i, ret;

	ret = sframe_elf_locate(e, &starts[0], sec, obj);
	if (ret != -ENOEXEC)
		return ret;
	n = sframe_elf_starts(e, starts);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		/* Offset 0 was tried without the mapping: no better with it */
		if (!starts[i].off)
			continue;
		ret = sframe_elf_locate(e, &starts[i], sec, obj);
		if (ret != -ENOEXEC)
			return ret;
	}
	return -ENOENT;
}

/*
 * The PT_GNU_SFRAME and executable PT_LOAD segments of the kernel's vDSO
 * image of @size bytes at @image, as offsets from its start.  The image is
 * the kernel's own, but checked like a file.
 */
static int sframe_vdso_parse(const void *image, size_t size,
			     struct sframe_section *sec)
{
	const struct elf64_hdr *eh = image;
	const struct elf64_phdr *ph, *sf = NULL, *text = NULL;
	int i;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(*ph) || eh->e_phoff > size ||
	    eh->e_phnum > (size - eh->e_phoff) / sizeof(*ph))
		return -ENOENT;
	ph = image + eh->e_phoff;
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_GNU_SFRAME)
			sf = &ph[i];
		else if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X))
			text = &ph[i];
	}
	if (!sf || !text || !sf->p_memsz || sf->p_vaddr > size ||
	    sf->p_memsz > size - sf->p_vaddr || text->p_vaddr > size ||
	    text->p_memsz > size - text->p_vaddr)
		return -ENOENT;
	sec->sframe_start = sf->p_vaddr;
	sec->sframe_end = sf->p_vaddr + sf->p_memsz;
	sec->text_start = text->p_vaddr;
	sec->text_end = text->p_vaddr + text->p_memsz;
	return 0;
}

/**
 * sframe_vdso_find() - find the section of the vDSO mapped at @e
 * @e:		the entry, of current's mm, with @e->vdso set
 * @sec:	the section's and the text's ranges, on success
 *
 * Context: Task context, may sleep; takes the mmap_lock of current's mm
 * for reading.
 * Return: 0; -ENOENT if the vDSO is no longer mapped at @e or has no
 * section; -EAGAIN if a fatal signal interrupted the wait for the lock.
 */
static int sframe_vdso_find(struct sframe_entry *e, struct sframe_section *sec)
{
	struct vm_area_struct *vma;
	const void *image;
	size_t size;
	int ret = -ENOENT;

	if (mmap_read_lock_killable(current->mm))
		return -EAGAIN;
	vma = vma_lookup(current->mm, e->start);
	if (!vma || vma->vm_file || vma->vm_start != e->start)
		goto unlock;
	image = arch_vdso_sframe_image(vma, &size);
	if (!image || sframe_vdso_parse(image, size, sec))
		goto unlock;
	sec->sframe_start += vma->vm_start;
	sec->sframe_end += vma->vm_start;
	sec->text_start += vma->vm_start;
	sec->text_end += vma->vm_start;
	if (sec->sframe_end > vma->vm_end || sec->text_end > vma->vm_end)
		goto unlock;
	ret = 0;
unlock:
	mmap_read_unlock(current->mm);
	return ret;
}

/**
 * sframe_check() - check a section before it is used
 * @sec:	the section, with its ranges filled in
 * @reason:	why it is corrupt, on -EBADMSG
 *
 * Its header, that it is for the ABI of this architecture
 * (UNWIND_USER_SFRAME_ABI: the rules of another one would be misread), and
 * with CONFIG_UNWIND_USER_SFRAME_DEBUG every FDE and FRE.  A section with
 * enough FDEs gets an index of its FDE table (sframe_index_build(), which
 * reads the start of every FDE and so also finds an unsorted table); the
 * caller owns it and frees it with sframe_section_release().
 *
 * Context: Process context, may sleep; no mmap_lock held (the section is
 * read, and may be faulted in).
 * Return: as sframe_section_init() and sframe_validate(); -EBADMSG with
 * SFRAME_R_OTHER_ABI for another architecture's section; -ENOMEM for a
 * section that is usable, but without the index it should have (no
 * memory for it).
 */
int sframe_check(struct sframe_section *sec, enum sframe_reason *reason)
{
	int ret;

	ret = sframe_section_init(sec, reason);
	if (!ret && sec->abi != UNWIND_USER_SFRAME_ABI) {
		if (reason)
			*reason = SFRAME_R_OTHER_ABI;
		ret = -EBADMSG;
	}
	if (!ret && IS_ENABLED(CONFIG_UNWIND_USER_SFRAME_DEBUG))
		ret = sframe_validate(sec, reason);
	/* -EFAULT leaves it to be checked again later, as for the header */
	if (!ret)
		ret = sframe_index_attach(sec, reason);
	return ret;
}

/*
 * Publish the end of a resolution and wake the threads that wait for it
 * in sframe_user_find().
 */
static void sframe_set_state(struct sframe_entry *e, int state)
{
	atomic_set_release(&e->state, state);
	/*
	 * wake_up_var() looks at the wait queue without its lock: order the
	 * store before that look.  Pairs with the barrier of a waiter between
	 * joining the queue and reading the state (set_current_state() in
	 * prepare_to_wait_event()): the waiter sees the new state, or the
	 * wake-up sees the waiter.  Without it, both could miss, and the
	 * waiter would sleep in its return to user space until killed.
	 */
	smp_mb();
	wake_up_var(&e->state);
}

/*
 * A resolution of @e failed in a way that may not happen again (a fault,
 * a failed read): @e stays pending, and after n such failures in a row
 * the next 2^n - 1 requests to resolve it are skipped, so that an entry
 * whose section stays unreadable costs a few reads of its ELF headers,
 * not one per sample.  The failure counts as one of @e's failed lookups.
 * Called by the resolver, which owns the two fields.
 */
static void sframe_resolve_failed(struct sframe_entry *e)
{
	if (e->resolve_fails < SFRAME_RESOLVE_MAX_SHIFT)
		e->resolve_fails++;
	e->resolve_skip = (1U << e->resolve_fails) - 1;
	atomic_long_inc(&e->failures);
	sframe_set_state(e, SFRAME_PENDING);
}

/*
 * Does current's mm show the section of @sec as @e's file has it at
 * @obj->sframe_off: mapped from that file at those offsets, by at most
 * SFRAME_MAX_CLEAN_VMAS VMAs, none of which has private pages (an
 * anon_vma: pages that a write, or ptrace writing through a COW, made)
 * or may write the file (a shared writable mapping)?
 * Then what the section's check reads is the file's, and may be shared.
 * Called with the mmap_lock held for reading.
 */
static bool sframe_section_clean(struct sframe_entry *e,
				 const struct sframe_section *sec,
				 const struct sframe_elf_obj *obj)
{
	VMA_ITERATOR(vmi, current->mm, sec->sframe_start);
	unsigned long addr = sec->sframe_start;
	struct vm_area_struct *vma;
	int n = 0;

	for_each_vma_range(vmi, vma, sec->sframe_end) {
		if (vma->vm_start > addr || ++n > SFRAME_MAX_CLEAN_VMAS ||
		    !vma->vm_file ||
		    (vma->vm_flags & (VM_SHARED | VM_MAYWRITE)) ==
		    (VM_SHARED | VM_MAYWRITE) ||
		    file_inode(vma->vm_file) != file_inode(e->file) ||
		    READ_ONCE(vma->anon_vma) ||
		    ((loff_t)vma->vm_pgoff << PAGE_SHIFT) + (addr - vma->vm_start) !=
		    obj->sframe_off + (loff_t)(addr - sec->sframe_start))
			return false;
		addr = vma->vm_end;
	}
	return addr >= sec->sframe_end;
}

/*
 * Before the check of @e's section: is it clean (sframe_section_clean()),
 * and the sequence count of the mm's VMA changes in @seq.  The check runs
 * without the mmap_lock, so sframe_clean_end() tells afterwards whether
 * it stayed clean.
 */
static bool sframe_clean_begin(struct sframe_entry *e,
			       const struct sframe_section *sec,
			       const struct sframe_elf_obj *obj,
			       unsigned int *seq)
{
	struct mm_struct *mm = current->mm;
	bool clean;

	if (mmap_read_lock_killable(mm))
		return false;
	clean = sframe_section_clean(e, sec, obj) &&
		mmap_lock_speculate_try_begin(mm, seq);
	mmap_read_unlock(mm);
	return clean;
}

/*
 * After the check: no VMA of the mm changed since sframe_clean_begin()
 * (a change takes the mmap_lock for writing, and so changes the count),
 * and none of those that map the section got private pages (which only
 * needs it for reading): what the check read was the file's
 */
static bool sframe_clean_end(struct sframe_entry *e,
			     const struct sframe_section *sec,
			     const struct sframe_elf_obj *obj, unsigned int seq)
{
	struct mm_struct *mm = current->mm;
	bool clean;

	if (mmap_read_lock_killable(mm))
		return false;
	clean = !mmap_lock_speculate_retry(mm, seq) &&
		sframe_section_clean(e, sec, obj);
	mmap_read_unlock(mm);
	return clean;
}

/*
 * The end of a resolution that found a section: usable, or corrupt for
 * @reason.  @sec is now @e's, and @img (if not NULL) the image it comes
 * from, whose reference @e takes over; @how for the sframe_register
 * event: "discovered", "shared" if that image was made by the check of
 * another mapping, "stored" if it is the store's.
 */
static void sframe_resolved(struct sframe_entry *e, struct sframe_image *img,
			    const struct sframe_section *sec, int state,
			    enum sframe_reason reason, const char *how)
{
	e->sec = *sec;
	e->image = img;
	if (state == SFRAME_BAD) {
		sframe_mark_bad(e, reason);
		wake_up_var(&e->state);
		return;
	}
	e->resolve_fails = 0;
	trace_sframe_register(e->start, e->end, sec->sframe_start,
			      sec->sframe_end, how);
	sframe_set_state(e, SFRAME_OK);
}

/*
 * Check the section of the file entry @e, found at @sec, or take what an
 * image of it says.  A section read from the file's pages gets an image
 * (or, if another task made one meanwhile, @e takes that one's).
 */
static void sframe_resolve_file(struct sframe_entry *e,
				struct sframe_section *sec,
				const struct sframe_elf_obj *obj)
{
	const struct inode *inode = file_inode(e->file);
	enum sframe_reason reason = SFRAME_R_NONE;
	struct timespec64 mtime;
	struct sframe_image *img;
	unsigned int seq = 0;
	bool clean;
	loff_t size;
	int ret;

	img = sframe_image_get(inode, obj->off, sec);
	if (img) {
		sframe_image_section(img, sec);
		sframe_resolved(e, img, sec, img->state, img->reason, "shared");
		return;
	}
	/* The version of the file that the check reads, and no writer */
	mtime = inode_get_mtime(inode);
	size = i_size_read(inode);
	clean = !inode_is_open_for_write(inode) &&
		sframe_clean_begin(e, sec, obj, &seq);
	ret = sframe_check(sec, &reason);
	/*
	 * Usable without its index: for this mapping only, not as what the
	 * file gives (one process short of memory must not slow others)
	 */
	if (ret == -ENOMEM) {
		clean = false;
		ret = 0;
	}
	if (ret && ret != -EBADMSG) {
		sframe_resolve_failed(e);
		return;
	}
	if (clean && sframe_clean_end(e, sec, obj, seq))
		img = sframe_image_add(inode, obj->off, &mtime, size, sec,
				       ret ? SFRAME_BAD : SFRAME_OK, reason);
	if (img) {
		/* The image's section: ours, or another task's */
		sframe_section_release(sec);
		sframe_image_section(img, sec);
		sframe_resolved(e, img, sec, img->state, img->reason,
				"discovered");
		return;
	}
	sframe_resolved(e, NULL, sec, ret ? SFRAME_BAD : SFRAME_OK, reason,
			"discovered");
}

/**
 * sframe_resolve() - make a pending entry usable
 * @e:		the entry, referenced by the caller
 *
 * Read the ELF headers of the object mapped at @e and check the section
 * they point to, or take what the image of that object's section says
 * (sframe_image.c).  The object starts at file offset 0 of @e's file, or,
 * embedded in a larger file, where the load that maps @e maps the
 * object's first page (see sframe_elf_starts()).  The entry becomes
 * usable, has no section, or is marked corrupt; after a failure that may
 * not happen again (a fault, a failed read), it stays pending, and the
 * next requests back off (sframe_resolve_failed()).  Only one caller
 * resolves an entry; the others find it SFRAME_RESOLVING and wait.
 *
 * Context: Task context of a task of the mm that holds @e, may sleep; no
 * lock held.  Takes the mmap_lock for reading.
 */
void sframe_resolve(struct sframe_entry *e)
{
	struct sframe_section sec = {};
	enum sframe_reason reason = SFRAME_R_NONE;
	struct sframe_elf_obj obj = {};
	int ret;

	if (atomic_cmpxchg(&e->state, SFRAME_PENDING, SFRAME_RESOLVING) !=
	    SFRAME_PENDING)
		return;
	if (e->resolve_skip) {
		e->resolve_skip--;
		sframe_set_state(e, SFRAME_PENDING);
		return;
	}

	/* Before the store is looked up: an add from now on is seen */
	e->store_gen = sframe_store_generation();
	ret = e->vdso ? sframe_vdso_find(e, &sec) :
			sframe_elf_find(e, &sec, &obj);
	if (ret == -ENOENT) {
		sframe_set_state(e, SFRAME_NONE);
		if (e->file)
			trace_sframe_missing(e->start, e->end, e->file);
		return;
	}
	if (ret) {
		sframe_resolve_failed(e);
		return;
	}
	if (obj.store) {
		sframe_image_section(obj.store, &sec);
		sframe_resolved(e, obj.store, &sec, SFRAME_OK, SFRAME_R_NONE,
				"stored");
		return;
	}
	if (!e->vdso) {
		sframe_resolve_file(e, &sec, &obj);
		return;
	}
	ret = sframe_check(&sec, &reason);
	if (ret == -ENOMEM)
		ret = 0;	/* usable without its index */
	if (ret && ret != -EBADMSG) {
		sframe_resolve_failed(e);
		return;
	}
	sframe_resolved(e, NULL, &sec, ret ? SFRAME_BAD : SFRAME_OK, reason,
			"discovered");
}

/**
 * sframe_recheck() - whether a file entry without a section should look again
 * @e:		the entry, SFRAME_NONE
 * @nofault:	in NMI or IRQ context: only tell
 *
 * A section may have been added to the store for the entry's object since
 * it was resolved (sframe_store.c): then the entry is made pending again,
 * to be resolved at its next faultable lookup.
 *
 * Context: Any context; with @nofault, including NMI.
 * Return: true if the store changed since @e was resolved (and, without
 * @nofault, @e is pending again, or being resolved by another task).
 */
bool sframe_recheck(struct sframe_entry *e, bool nofault)
{
	if (!e->file || e->explicit ||
	    READ_ONCE(e->store_gen) == sframe_store_generation())
		return false;
	if (!nofault)
		atomic_cmpxchg(&e->state, SFRAME_NONE, SFRAME_PENDING);
	return true;
}

/*
 * The part [@start, @end) of @vma around @pc that no entry covers: VMAs
 * grow and merge after their first part was discovered.  False if an
 * entry covers @pc (added meanwhile by another thread).
 */
static bool sframe_gap(struct mm_struct *mm, struct vm_area_struct *vma,
		       unsigned long pc, unsigned long *start,
		       unsigned long *end)
{
	unsigned long index = vma->vm_start;
	struct sframe_entry *e;

	*start = vma->vm_start;
	*end = vma->vm_end;
	while ((e = mt_find(&mm->sframe_mt, &index, vma->vm_end - 1))) {
		if (e->start > pc) {
			*end = e->start;
			break;
		}
		if (e->end > pc)
			return false;
		*start = e->end;
	}
	return true;
}

/**
 * sframe_discover() - add an entry for the mapping of an address
 * @mm:		the mm of current
 * @pc:		an address that has no entry
 *
 * If @pc is in an executable mapping, add an entry for the part of the
 * mapping around @pc that has none: pending for a regular file and the
 * vDSO, without a section for other anonymous text.  The mmap_lock held for reading keeps the
 * VMA in place meanwhile.  An mm gets at most SFRAME_MAX_DISCOVERED
 * discovered entries (one process mapping a file thousands of times must
 * not make the kernel hold thousands of entries and rule caches): past
 * them, the rest of its text has none, and is unwound with frame pointers.
 *
 * Context: Task context, may sleep.
 * Return: the entry covering @pc, referenced, or NULL.
 */
struct sframe_entry *sframe_discover(struct mm_struct *mm, unsigned long pc)
{
	struct sframe_entry *e = NULL;
	struct vm_area_struct *vma;
	unsigned long start, end;
	struct file *file;
	size_t size;

	if (mmap_read_lock_killable(mm))
		return NULL;
	vma = vma_lookup(mm, pc);
	if (!vma || !(vma->vm_flags & VM_EXEC))
		goto unlock;
	file = vma->vm_file;
	if (file && !S_ISREG(file_inode(file)->i_mode))
		goto unlock;
	if (!sframe_gap(mm, vma, pc, &start, &end)) {
		e = sframe_get(mm, pc);
		goto unlock;
	}
	/* Bounded: further text is unwound with frame pointers */
	if (atomic_read(&mm->sframe_entries) -
	    atomic_read(&mm->sframe_explicit) >= SFRAME_MAX_DISCOVERED) {
		pr_notice_ratelimited("%s[%d]: more than %d text mappings, using frame pointers for the others\n",
				      current->comm, task_pid_nr(current),
				      SFRAME_MAX_DISCOVERED);
		goto unlock;
	}
	e = sframe_entry_alloc(file, start, end, vma->vm_pgoff +
			       ((start - vma->vm_start) >> PAGE_SHIFT));
	if (!e)
		goto unlock;
	/* The vDSO is resolved like a file, other anonymous text has none */
	if (!file && start == vma->vm_start &&
	    arch_vdso_sframe_image(vma, &size))
		e->vdso = true;
	else if (!file)
		atomic_set(&e->state, SFRAME_NONE);
	/* Another thread may have added it meanwhile */
	if (sframe_insert(mm, e))
		e = sframe_get(mm, pc);
	else
		refcount_inc(&e->ref);
unlock:
	mmap_read_unlock(mm);
	return e;
}
