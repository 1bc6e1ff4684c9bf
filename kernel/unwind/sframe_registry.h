/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-mm registry of .sframe sections, shared by the parts of the
 * SFrame user unwinder in kernel/unwind:
 *
 *	sframe_registry.c	entries, their lifetime, the mm hooks
 *	sframe_discover.c	finding the section of a mapped ELF file
 *	sframe_image.c		what a file's section gives, shared by its
 *				mappings
 *	sframe_store.c		sections for objects that ship none
 *	sframe_rcache.[ch]	the rule cache of an entry
 *	sframe_repair.c		lookups that NMI/IRQ unwinds could not make
 *	sframe.c		the lookup used by the unwinder (user.c)
 *	sframe_uapi.c		prctl(PR_SFRAME) and /proc/<pid>/sframe
 */
#ifndef _KERNEL_UNWIND_SFRAME_REGISTRY_H
#define _KERNEL_UNWIND_SFRAME_REGISTRY_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/time64.h>
#include <linux/types.h>

#include "sframe_walk.h"

struct file;
struct inode;
struct mm_struct;
struct seq_file;
struct sframe_rcache;

enum sframe_state {
	SFRAME_PENDING,		/* discovered, ELF headers not read yet */
	SFRAME_RESOLVING,	/* ELF headers being read */
	SFRAME_OK,		/* usable */
	SFRAME_NONE,		/* no .sframe section: frame pointers */
	SFRAME_BAD,		/* corrupt: not used until mapped anew */
};

/* Entries registered with prctl() per mm, see sframe_register() */
#define SFRAME_MAX_EXPLICIT	4096

/*
 * Entries discovered per mm, see sframe_discover(): past this many, the
 * text of further mappings is unwound with frame pointers.  An entry with
 * its rule cache takes about 4.5 KiB, accounted to the mm's memory cgroup.
 */
#define SFRAME_MAX_DISCOVERED	4096

/* A larger .sframe section is refused */
#define SFRAME_MAX_SIZE		SZ_1G

/*
 * After n failed resolutions of an entry in a row, the next 2^n - 1
 * requests to resolve it are skipped, n at most this
 */
#define SFRAME_RESOLVE_MAX_SHIFT	8

/**
 * struct sframe_image - what the section of one file gives, see sframe_image.c
 * @node:	in the table of images
 * @ref:	one reference per entry that uses it
 * @inode:	the inode of the file: its identity, not a reference (every
 *		entry that references the image holds the file)
 * @off:	the file offset of the ELF object
 * @mtime:	the file's modification time when the image was made: a file
 *		written since (in place, the same inode) has another one
 * @size:	the file's size then
 * @sec:	the section, at addresses relative to the start of its text
 *		(@sec.text_start is 0); with a reference to its index if
 *		@state is SFRAME_OK
 * @state:	SFRAME_OK, or SFRAME_BAD if found corrupt when checked
 * @reason:	why, for SFRAME_BAD
 * @stored:	an image of the store (sframe_store.c), for the objects of
 *		an identity rather than one file: @node is in the store's
 *		table, @inode is NULL and @off and @mtime are unused, and
 *		@sec.kdata holds the section
 */
struct sframe_image {
	struct hlist_node	node;
	refcount_t		ref;
	const struct inode	*inode;
	loff_t			off;
	struct timespec64	mtime;
	loff_t			size;
	struct sframe_section	sec;
	int			state;
	enum sframe_reason	reason;
	bool			stored;
};

/**
 * struct sframe_entry - one text range of the registry
 * @sec:	the section; valid once @state is SFRAME_OK or SFRAME_BAD
 * @file:	the file mapped at @start, or NULL for anonymous text
 * @image:	the image of the file's section that @sec was taken from, if
 *		shared (sframe_image.c), else NULL
 * @start:	start of the text range (the registry key)
 * @end:	end (exclusive) of the text range
 * @pgoff:	file offset of @start, in pages
 * @state:	enum sframe_state
 * @explicit:	registered through prctl(), not discovered
 * @vdso:	the vDSO's text, whose section the kernel's copy of the
 *		vDSO image locates (@file is NULL)
 * @resolve_fails: resolutions of the pending entry that failed in a row
 *		in a way that may not happen again, at most
 *		SFRAME_RESOLVE_MAX_SHIFT
 * @resolve_skip: resolutions still to skip before the next attempt;
 *		both written by the resolver only, see sframe_resolve()
 * @store_gen:	for a file entry found without a section (SFRAME_NONE),
 *		sframe_store_generation() before the store was looked up
 * @rcache:	rule cache, allocated by the first faultable lookup
 * @rcu:	the entry is freed after a grace period, so that RCU readers
 *		of the registry may use it (not @file, which the last
 *		reference drops at once: its users hold a reference)
 * @ref:	one reference for the registry, one per other user (a
 *		faultable walk, a reader of /proc/<pid>/sframe)
 * @lookups:	frames looked up in this section before it had @rcache
 *		(or without one), which counts them per CPU once it has one:
 *		see sframe_entry_lookups()
 * @failures:	lookups that failed (not covered, fault or corrupt), and
 *		resolutions that failed (see sframe_resolve())
 */
struct sframe_entry {
	struct sframe_section	sec;
	struct file		*file;
	struct sframe_image	*image;
	unsigned long		start;
	unsigned long		end;
	unsigned long		pgoff;
	atomic_t		state;
	bool			explicit;
	bool			vdso;
	u8			resolve_fails;
	u16			resolve_skip;
	unsigned int		store_gen;
	struct sframe_rcache	*rcache;
	struct rcu_head		rcu;

	/*
	 * Written by the walks of all the mm's threads: not in the cache
	 * line of what every frame reads (@start, @end, @state, @rcache)
	 */
	refcount_t		ref ____cacheline_aligned_in_smp;
	atomic_long_t		lookups;
	atomic_long_t		failures;
};

/* sframe_registry.c */
struct sframe_entry *sframe_entry_alloc(struct file *file, unsigned long start,
					unsigned long end, unsigned long pgoff);
void sframe_entry_put(struct sframe_entry *e);
int sframe_insert(struct mm_struct *mm, struct sframe_entry *e);
void sframe_remove_range(struct mm_struct *mm, unsigned long start,
			 unsigned long end);
struct sframe_entry *sframe_get(struct mm_struct *mm, unsigned long pc);
struct sframe_entry *sframe_get_from(struct mm_struct *mm, unsigned long addr);
void sframe_mark_bad(struct sframe_entry *e, enum sframe_reason reason);
void sframe_entry_failed(struct sframe_entry *e, unsigned long pc, int err,
			 enum sframe_reason reason, bool nofault);
unsigned long sframe_entry_lookups(struct sframe_entry *e);
void sframe_section_release(struct sframe_section *sec);
const char *sframe_state_name(int state);

/* sframe_discover.c */
struct sframe_entry *sframe_discover(struct mm_struct *mm, unsigned long pc);
void sframe_resolve(struct sframe_entry *e);
bool sframe_recheck(struct sframe_entry *e, bool nofault);
int sframe_check(struct sframe_section *sec, enum sframe_reason *reason);

/* sframe_image.c */
struct sframe_image *sframe_image_get(const struct inode *inode, loff_t off,
				      const struct sframe_section *sec);
struct sframe_image *sframe_image_add(const struct inode *inode, loff_t off,
				      const struct timespec64 *mtime,
				      loff_t size,
				      const struct sframe_section *sec,
				      int state, enum sframe_reason reason);
void sframe_image_init(struct sframe_image *img,
		       const struct sframe_section *sec, int state,
		       enum sframe_reason reason);
void sframe_image_section(const struct sframe_image *img,
			  struct sframe_section *sec);
void sframe_image_put(struct sframe_image *img);
unsigned long sframe_images_count(void);

/* sframe_store.c */
struct prctl_sframe_store;
bool sframe_store_used(void);
unsigned int sframe_store_generation(void);
struct sframe_image *sframe_store_get(const u8 *id, u32 id_len, loff_t size,
				      unsigned long text_start,
				      unsigned long text_end);
int sframe_store_add(const struct prctl_sframe_store *args, void *data);
int sframe_store_remove(const struct prctl_sframe_store *args);
int sframe_store_prctl(unsigned long op, unsigned long uargs,
		       unsigned long usize);
#ifdef CONFIG_UNWIND_USER_SFRAME
void sframe_store_put(struct sframe_image *img);
#else
/* The registry without the unwinder (its KUnit tests) has no store */
static inline void sframe_store_put(struct sframe_image *img) { }
#endif

/* sframe_rcache.c, and sframe_rcache_get()/_put() in sframe_rcache.h */
bool __sframe_rcache_put(struct sframe_entry *e, unsigned long pc,
			 const struct sframe_rule *rule, bool may_alloc);
void sframe_rcache_count(struct sframe_entry *e);
unsigned long sframe_rcache_lookups(struct sframe_entry *e);
void sframe_rcache_free(struct sframe_rcache *rc);

/* sframe_repair.c */
bool sframe_repair_request(unsigned long pc);
void sframe_repair_none(unsigned long pc);

/**
 * sframe_entry_find() - look a PC up in the section of a usable entry
 * @e:		the entry, SFRAME_OK
 * @pc:		the PC
 * @rule:	the rule, on success; its @fres_read in any case
 * @nofault:	true in a context that must not fault or sleep
 *
 * Count the lookup, and its failure with sframe_entry_failed().  Inline:
 * the unwinder makes it for nearly every frame whose rule is not cached.
 * With a rule cache, the count is per CPU (a walk in NMI makes no atomic
 * write to a line that the mm's other threads write too).
 *
 * Context: Task context, or any context including NMI with @nofault.
 * Return: as sframe_find().
 */
static __always_inline int sframe_entry_find(struct sframe_entry *e,
					     unsigned long pc,
					     struct sframe_rule *rule,
					     bool nofault)
{
	/* Written by the reader before it is read */
	enum sframe_reason reason __uninitialized;
	int ret;

	sframe_rcache_count(e);
	if (nofault)
		ret = sframe_find_nofault(&e->sec, pc, rule, &reason);
	else
		ret = sframe_find(&e->sec, pc, rule, &reason);
	if (ret)
		sframe_entry_failed(e, pc, ret, reason, nofault);
	return ret;
}

#endif /* _KERNEL_UNWIND_SFRAME_REGISTRY_H */
