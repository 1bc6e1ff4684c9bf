// SPDX-License-Identifier: GPL-2.0
/*
 * Images: what the kernel derives from the .sframe section of a file,
 * made once per file and shared by every mapping of it, in every mm.
 *
 * Resolving an entry (sframe_discover.c) reads the file's ELF headers,
 * which is cheap, and then checks the section and builds the index of its
 * FDE table, which reads every FDE and may take up to 256 KiB.  The second
 * part depends on the file only: an image keeps its result, the section's
 * header fields and its index at addresses relative to the start of its
 * text, and the state it ended in (usable or corrupt).  The next mapping
 * of the same object, in the same mm or another one, takes a reference to
 * the image and adds its own load bias, instead of reading the section
 * again.  So libc mapped by 500 processes has one index, and one file
 * mapped thousands of times in one mm costs one index and an entry per
 * mapping (whose number is capped, see sframe_discover()).
 *
 * The key is the file's inode (the object is the same whatever path or
 * mount namespace maps it, and the kernel already holds the inode through
 * the entries' files), its modification time and size (a file written in
 * place is another file), the ELF object's offset in the file, and the
 * section's and text's offsets from the object's load address, taken from
 * its program headers.  An image is only made from a section that the
 * mapping shows as the file has it: read from the file's own pages, not
 * from copies that the process may have written (see
 * sframe_section_clean()), so that no process can make another process's
 * unwinding of the same file worse.  A section read from written memory
 * gets an entry of its own, as before.  The index is a search hint that
 * every lookup checks against what it reads, so even a file changed after
 * its image was made costs failed lookups, never a wrong memory access.
 *
 * Images are looked up and added in task context (resolution), and put
 * by the last entry that uses them, in any context but NMI: the table has
 * a spinlock that disables interrupts.  An image is removed from the table
 * when its last entry drops its reference, which happens before that
 * entry drops its file: an inode freed later and reused for another file
 * cannot find an image of the old one.  The index outlives the image as
 * long as entries hold references to it (their RCU readers use it).
 *
 * The memory of an image and of its index is accounted to the memory
 * cgroup of the task that made it, like the page cache of the file it
 * comes from.  An image without entries does not exist, so there are at
 * most as many as entries, which are per mm and capped
 * (SFRAME_MAX_DISCOVERED); an index takes at most 256 KiB.
 */

#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/sframe.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "sframe_registry.h"

#define SFRAME_IMAGE_HASH_BITS	8

static DEFINE_HASHTABLE(sframe_images, SFRAME_IMAGE_HASH_BITS);
static DEFINE_SPINLOCK(sframe_images_lock);

/* Images in the table, for the tests */
static unsigned long sframe_images_nr;

static u32 sframe_image_hash(const struct inode *inode, loff_t off)
{
	return hash_ptr((void *)inode, 32) ^ hash_64(off, 32);
}

/*
 * Whether @img is the image of the object at file offset @off of @inode,
 * as modified at @mtime with @size bytes, with the ranges of @sec, at
 * addresses relative to @sec->text_start
 */
static bool sframe_image_match(const struct sframe_image *img,
			       const struct inode *inode, loff_t off,
			       const struct timespec64 *mtime, loff_t size,
			       const struct sframe_section *sec)
{
	unsigned long base = sec->text_start;

	return img->inode == inode && img->off == off &&
	       timespec64_equal(&img->mtime, mtime) && img->size == size &&
	       img->sec.sframe_start == sec->sframe_start - base &&
	       img->sec.sframe_end == sec->sframe_end - base &&
	       img->sec.text_end == sec->text_end - base;
}

/* Under the lock: the image, referenced, or NULL */
static struct sframe_image *sframe_image_lookup(const struct inode *inode,
						loff_t off,
						const struct timespec64 *mtime,
						loff_t size,
						const struct sframe_section *sec)
{
	struct sframe_image *img;

	hash_for_each_possible(sframe_images, img, node,
			       sframe_image_hash(inode, off))
		if (sframe_image_match(img, inode, off, mtime, size, sec) &&
		    refcount_inc_not_zero(&img->ref))
			return img;
	return NULL;
}

/**
 * sframe_image_get() - the image of an object, if one was made
 * @inode:	the inode of the file that holds the object
 * @off:	the file offset of the ELF object
 * @sec:	the section's and the text's ranges in the mapping, as
 *		sframe_elf_find() gives them
 *
 * Context: Task context.
 * Return: the image, referenced, or NULL.
 */
struct sframe_image *sframe_image_get(const struct inode *inode, loff_t off,
				      const struct sframe_section *sec)
{
	struct timespec64 mtime = inode_get_mtime(inode);
	loff_t size = i_size_read(inode);
	struct sframe_image *img;
	unsigned long flags;

	spin_lock_irqsave(&sframe_images_lock, flags);
	img = sframe_image_lookup(inode, off, &mtime, size, sec);
	spin_unlock_irqrestore(&sframe_images_lock, flags);
	return img;
}

/**
 * sframe_image_init() - make an image of a checked section
 * @img:	the image, with one reference from now on
 * @sec:	the section, checked by sframe_check(); the image takes a
 *		reference to its index
 * @state:	SFRAME_OK, or SFRAME_BAD if the check found it corrupt
 * @reason:	why, for SFRAME_BAD
 *
 * The image keeps the section at addresses relative to the start of its
 * text, for every mapping to add its own (sframe_image_section()).
 *
 * Context: Any context.
 */
void sframe_image_init(struct sframe_image *img,
		       const struct sframe_section *sec, int state,
		       enum sframe_reason reason)
{
	unsigned long base = sec->text_start;

	refcount_set(&img->ref, 1);
	img->state = state;
	img->reason = reason;
	img->sec = *sec;
	img->sec.sframe_start -= base;
	img->sec.sframe_end -= base;
	img->sec.text_start = 0;
	img->sec.text_end -= base;
	img->sec.fdes_start -= base;
	img->sec.fres_start -= base;
	img->sec.fres_end -= base;
	if (state != SFRAME_OK)
		img->sec.fde_index = NULL;
	else if (img->sec.fde_index)
		refcount_inc(&img->sec.fde_index->ref);
}

/**
 * sframe_image_add() - keep what a section's check gave, for other mappings
 * @inode:	the inode of the file that holds the object
 * @off:	the file offset of the ELF object
 * @mtime:	the file's modification time before the check
 * @size:	its size then
 * @sec:	the section, checked by sframe_check(); the image takes a
 *		reference to its index
 * @state:	SFRAME_OK, or SFRAME_BAD if the check found it corrupt
 * @reason:	why, for SFRAME_BAD
 *
 * If another task made an image of the same object meanwhile, that one is
 * returned instead: its caller then uses it as if found by
 * sframe_image_get().  A file modified since @mtime (or of another size)
 * gets none: the check may have read some of both versions.
 *
 * Context: Task context, may sleep.
 * Return: the image, referenced, or NULL (the file changed, or no memory).
 */
struct sframe_image *sframe_image_add(const struct inode *inode, loff_t off,
				      const struct timespec64 *mtime,
				      loff_t size,
				      const struct sframe_section *sec,
				      int state, enum sframe_reason reason)
{
	struct timespec64 now_mtime = inode_get_mtime(inode);
	struct sframe_image *img, *old;
	unsigned long flags;

	if (!timespec64_equal(&now_mtime, mtime) || i_size_read(inode) != size)
		return NULL;

	img = kzalloc_obj(*img, GFP_KERNEL_ACCOUNT);
	if (!img)
		return NULL;
	img->inode = inode;
	img->off = off;
	img->mtime = *mtime;
	img->size = size;
	sframe_image_init(img, sec, state, reason);

	spin_lock_irqsave(&sframe_images_lock, flags);
	old = sframe_image_lookup(inode, off, mtime, size, sec);
	if (!old) {
		hash_add(sframe_images, &img->node,
			 sframe_image_hash(inode, off));
		sframe_images_nr++;
	}
	spin_unlock_irqrestore(&sframe_images_lock, flags);
	if (old) {
		sframe_index_put(img->sec.fde_index);
		kfree(img);
		return old;
	}
	return img;
}

/**
 * sframe_image_section() - the section of an image, at a mapping's address
 * @img:	the image
 * @sec:	the mapping's ranges, as for sframe_image_get(); filled in from
 *		the image, with a reference to its index
 *
 * Context: Any context but NMI.
 */
void sframe_image_section(const struct sframe_image *img,
			  struct sframe_section *sec)
{
	unsigned long base = sec->text_start;

	*sec = img->sec;
	sec->sframe_start += base;
	sec->sframe_end += base;
	sec->text_start += base;
	sec->text_end += base;
	sec->fdes_start += base;
	sec->fres_start += base;
	sec->fres_end += base;
	if (sec->fde_index)
		refcount_inc(&sec->fde_index->ref);
}

/**
 * sframe_image_put() - drop a reference to an image
 * @img:	the image, or NULL
 *
 * The last reference removes it from the table and frees it; its index
 * stays as long as entries reference it.  An image of the store
 * (sframe_store.c) is not in the table: sframe_store_put() drops it.
 *
 * Context: Any context but NMI.
 */
void sframe_image_put(struct sframe_image *img)
{
	unsigned long flags;

	if (img && img->stored) {
		sframe_store_put(img);
		return;
	}
	if (!img ||
	    !refcount_dec_and_lock_irqsave(&img->ref, &sframe_images_lock,
					   &flags))
		return;
	hash_del(&img->node);
	sframe_images_nr--;
	spin_unlock_irqrestore(&sframe_images_lock, flags);
	sframe_index_put(img->sec.fde_index);
	kfree(img);
}

/**
 * sframe_images_count() - the number of images
 *
 * Context: Any context but NMI.
 * Return: the number of images in the table.
 */
unsigned long sframe_images_count(void)
{
	return READ_ONCE(sframe_images_nr);
}
