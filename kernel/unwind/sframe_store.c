// SPDX-License-Identifier: GPL-2.0
/*
 * The store: SFrame sections for ELF objects that ship none.
 *
 * Most of a distribution's libraries have no .sframe section, only the
 * DWARF call frame information that tools such as sframe-gen turn into
 * one.  A process with CAP_PERFMON (or CAP_SYS_ADMIN) hands the kernel
 * such a section for an object, with prctl(PR_SFRAME,
 * PR_SFRAME_STORE_ADD), identified by the object's build ID, its file's
 * size and the span of its executable segments.  The section is checked
 * whole when it is added (header, ABI, every FDE and FRE) and kept in
 * kernel memory with the index of its FDE table, as an image (struct
 * sframe_image, see sframe_image.c) that is in the store instead of the
 * table of file images.  From then on, every mapping of an object of that
 * identity without PT_GNU_SFRAME, in any process, whatever its path,
 * mount namespace or privilege, and whether it was mapped before or
 * after, is unwound through the stored section when discovery resolves
 * it (sframe_discover.c): the entry takes a reference to the image and
 * adds its load bias, as for a shared file image.  An entry that was
 * resolved without a section before the add is resolved again at its
 * next lookup (sframe_store_generation()).
 *
 * The reader reads a stored section from its kernel copy
 * (struct sframe_section.@kdata), with the same code as a section in user
 * memory: no user access, no fault, so a lookup in the event finds a rule
 * whenever the entry is resolved, without the repair that a user section
 * whose pages are not resident needs.
 *
 * The identity cannot be checked against the object's contents without
 * reading them all, so a wrong section (another object with the same
 * build ID, size and text span: only made on purpose) gives wrong frames
 * for that object, never a wrong memory access: every lookup checks what
 * it reads, as for any section.  That is why adding needs CAP_PERFMON: a
 * stored section changes what unwinders report for every process, as the
 * privileged profiler that fills the store may already see.
 *
 * Memory: the sections and their indexes count against
 * kernel.sframe_store_max_kb until they are freed, which is when they are
 * removed from the store and no mapping uses them any more.  They are
 * accounted to the memory cgroup of the process that added them.
 *
 * Removing a section from the store stops new mappings from finding it;
 * mappings that already use it keep it until they are unmapped.
 *
 * Context: the store is changed and looked up in task context under a
 * mutex; an image of the store is put (sframe_store_put()) in any context
 * but NMI, and freed after an RCU grace period, as the readers of the
 * entries that used it may still read its section.
 */

#define pr_fmt(fmt) "sframe: " fmt

#include <linux/buildid.h>
#include <linux/capability.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/prctl.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/sframe.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>

#include "sframe_registry.h"

#define SFRAME_STORE_HASH_BITS	8

/**
 * struct sframe_stored - a section of the store
 * @img:	its image: @img.sec at addresses relative to the start of the
 *		text, with @img.sec.kdata at @data; @img.ref counts the
 *		store's reference (while in @sframe_store) and the entries'
 * @rcu:	freed after a grace period
 * @text_start:	the object's ELF addresses of its executable segments
 * @text_end:
 * @sframe_addr: the ELF address that the section's function start
 *		offsets count from
 * @build_id_len: length of @build_id
 * @build_id:	the object's NT_GNU_BUILD_ID
 * @charge:	bytes counted against the store's limit
 * @data:	the section
 *
 * @img.size holds the size of the object's file.
 */
struct sframe_stored {
	struct sframe_image	img;
	struct rcu_head		rcu;
	u64			text_start;
	u64			text_end;
	u64			sframe_addr;
	u32			build_id_len;
	u8			build_id[BUILD_ID_SIZE_MAX];
	size_t			charge;
	void			*data;
};

static DEFINE_HASHTABLE(sframe_store, SFRAME_STORE_HASH_BITS);
static DEFINE_MUTEX(sframe_store_lock);

/* Sections in the store, and the bytes of all not freed yet */
static unsigned int sframe_store_nr;
static atomic_long_t sframe_store_bytes;
/* Sections added so far: entries found without one look again after an add */
static atomic_t sframe_store_gen;

static unsigned int sysctl_sframe_store_max_kb __read_mostly = 65536;

/* The largest section the store takes: its limit, and at most 1 GiB */
static u64 sframe_store_max(void)
{
	return min_t(u64, (u64)READ_ONCE(sysctl_sframe_store_max_kb) * SZ_1K,
		     SFRAME_MAX_SIZE);
}

static u32 sframe_store_hash(const u8 *id, u32 len)
{
	return jhash(id, len, 0);
}

static struct sframe_stored *to_stored(struct sframe_image *img)
{
	return container_of(img, struct sframe_stored, img);
}

static void sframe_stored_free(struct rcu_head *rcu)
{
	struct sframe_stored *st = container_of(rcu, struct sframe_stored, rcu);

	atomic_long_sub(st->charge, &sframe_store_bytes);
	sframe_index_put(st->img.sec.fde_index);
	kvfree(st->data);
	kfree(st);
}

/**
 * sframe_store_put() - drop a reference to an image of the store
 * @img:	the image, whose @stored is set
 *
 * Called by sframe_image_put().  The last reference frees the section
 * after a grace period: RCU readers of an entry that used it may still
 * read it.
 *
 * Context: Any context but NMI.
 */
void sframe_store_put(struct sframe_image *img)
{
	if (refcount_dec_and_test(&img->ref))
		call_rcu(&to_stored(img)->rcu, sframe_stored_free);
}

static bool sframe_stored_match(const struct sframe_stored *st, const u8 *id,
				u32 id_len, loff_t size)
{
	return st->build_id_len == id_len &&
	       !memcmp(st->build_id, id, id_len) &&
	       (!size || st->img.size == size);
}

/**
 * sframe_store_used() - whether the store holds any section
 *
 * Discovery reads an object's build ID only then.
 *
 * Context: Any context.
 * Return: true if the store is not empty.
 */
bool sframe_store_used(void)
{
	return READ_ONCE(sframe_store_nr);
}

/**
 * sframe_store_generation() - how many sections the store was given
 *
 * An entry of a file found without a section notes it
 * (sframe_entry.@store_gen); after a later add, the entry is resolved
 * again (sframe_recheck()), so that processes already running use what
 * was added since.
 *
 * Context: Any context.
 * Return: the number of sections added since boot.
 */
unsigned int sframe_store_generation(void)
{
	return atomic_read(&sframe_store_gen);
}

/**
 * sframe_store_get() - the stored section of an object
 * @id:		the object's build ID
 * @id_len:	its length
 * @size:	the size of the object's file
 * @text_start:	the ELF addresses of its executable segments
 * @text_end:
 *
 * Context: Task context, may sleep.
 * Return: the image of the section, referenced, or NULL if the store has
 * none for an object of this identity.
 */
struct sframe_image *sframe_store_get(const u8 *id, u32 id_len, loff_t size,
				      unsigned long text_start,
				      unsigned long text_end)
{
	struct sframe_stored *st, *found = NULL;

	if (!size || !id_len || id_len > BUILD_ID_SIZE_MAX)
		return NULL;
	mutex_lock(&sframe_store_lock);
	hash_for_each_possible(sframe_store, st, img.node,
			       sframe_store_hash(id, id_len))
		if (sframe_stored_match(st, id, id_len, size) &&
		    st->text_start == text_start && st->text_end == text_end) {
			refcount_inc(&st->img.ref);
			found = st;
			break;
		}
	mutex_unlock(&sframe_store_lock);
	return found ? &found->img : NULL;
}

/* Check @st's section, at ELF addresses, and give it its index */
static int sframe_stored_check(struct sframe_stored *st, size_t len,
			       enum sframe_reason *reason)
{
	struct sframe_section sec = {
		.sframe_start	= st->sframe_addr,
		.sframe_end	= st->sframe_addr + len,
		.text_start	= st->text_start,
		.text_end	= st->text_end,
		.kdata		= st->data,
	};
	int ret;

	ret = sframe_check(&sec, reason);
	/* A section is checked whole here, with or without the debug option */
	if (!ret && !IS_ENABLED(CONFIG_UNWIND_USER_SFRAME_DEBUG))
		ret = sframe_validate(&sec, reason);
	if (!ret) {
		sframe_image_init(&st->img, &sec, SFRAME_OK, SFRAME_R_NONE);
		if (sec.fde_index)
			st->charge += struct_size(sec.fde_index, from,
						  sec.fde_index->nr);
	}
	sframe_section_release(&sec);
	return ret;
}

/**
 * sframe_store_add() - add a section to the store
 * @args:	the object's identity and where its section is
 * @data:	the section, args->sframe_len bytes of kernel memory from
 *		kvmalloc(), which the store owns from now on (freed on error)
 *
 * Context: Task context, may sleep.
 * Return: 0; -EINVAL for an identity that is not one, or a section that
 * is corrupt, for another architecture, or not sorted (with a message);
 * -EEXIST if the store has a section for that identity; -E2BIG if the
 * section alone is above the limit, -ENOSPC if the store is full; -ENOMEM.
 */
int sframe_store_add(const struct prctl_sframe_store *args, void *data)
{
	enum sframe_reason reason = SFRAME_R_NONE;
	u64 limit = (u64)READ_ONCE(sysctl_sframe_store_max_kb) * SZ_1K;
	struct sframe_stored *st, *old;
	u32 len = args->build_id_len;
	int ret;

	ret = -E2BIG;
	if (args->sframe_len > sframe_store_max())
		goto free_data;
	ret = -EINVAL;
	if (!len || len > BUILD_ID_SIZE_MAX || !args->file_size ||
	    args->file_size > MAX_LFS_FILESIZE ||
	    args->text_start >= args->text_end ||
	    args->text_end > TASK_SIZE_MAX || !args->sframe_len ||
	    args->sframe_addr > TASK_SIZE_MAX - args->sframe_len)
		goto free_data;

	ret = -ENOMEM;
	st = kzalloc_obj(*st, GFP_KERNEL_ACCOUNT);
	if (!st)
		goto free_data;
	st->data = data;
	st->text_start = args->text_start;
	st->text_end = args->text_end;
	st->sframe_addr = args->sframe_addr;
	st->build_id_len = len;
	memcpy(st->build_id, args->build_id, len);
	st->charge = sizeof(*st) + args->sframe_len;

	ret = sframe_stored_check(st, args->sframe_len, &reason);
	if (ret) {
		if (ret == -EBADMSG) {
			pr_warn_ratelimited("store: section for build ID %*phN refused: %s\n",
					    len, st->build_id,
					    sframe_reason_str(reason));
			ret = -EINVAL;
		}
		goto free_st;
	}
	st->img.size = args->file_size;
	st->img.stored = true;

	mutex_lock(&sframe_store_lock);
	ret = -EEXIST;
	hash_for_each_possible(sframe_store, old, img.node,
			       sframe_store_hash(st->build_id, len))
		if (sframe_stored_match(old, st->build_id, len,
					st->img.size) &&
		    old->text_start == st->text_start &&
		    old->text_end == st->text_end)
			goto unlock;
	ret = -ENOSPC;
	if (atomic_long_read(&sframe_store_bytes) + st->charge > limit)
		goto unlock;
	atomic_long_add(st->charge, &sframe_store_bytes);
	hash_add(sframe_store, &st->img.node,
		 sframe_store_hash(st->build_id, len));
	WRITE_ONCE(sframe_store_nr, sframe_store_nr + 1);
	atomic_inc(&sframe_store_gen);
	ret = 0;
unlock:
	mutex_unlock(&sframe_store_lock);
	if (!ret)
		return 0;
	sframe_index_put(st->img.sec.fde_index);
free_st:
	kfree(st);
free_data:
	kvfree(data);
	return ret;
}

/**
 * sframe_store_remove() - remove sections from the store
 * @args:	with PR_SFRAME_STORE_ALL in @args->flags, every section
 *		(the other fields 0); else the sections of the build ID in
 *		@args, of the file size in @args->file_size unless 0
 *
 * Mappings that use a removed section keep it until they are unmapped.
 *
 * Context: Task context, may sleep.
 * Return: 0 if a section was removed (or none was stored, for all);
 * -ENOENT if none matched; -EINVAL.
 */
int sframe_store_remove(const struct prctl_sframe_store *args)
{
	u32 len = args->build_id_len;
	bool all = args->flags & PR_SFRAME_STORE_ALL;
	struct sframe_stored *st;
	struct hlist_node *tmp;
	int ret = -ENOENT, bkt;

	if (all ? len || args->file_size :
		  !len || len > BUILD_ID_SIZE_MAX)
		return -EINVAL;
	if (args->sframe || args->sframe_len || args->sframe_addr ||
	    args->text_start || args->text_end)
		return -EINVAL;

	mutex_lock(&sframe_store_lock);
	hash_for_each_safe(sframe_store, bkt, tmp, st, img.node) {
		if (!all && !sframe_stored_match(st, args->build_id, len,
						 args->file_size))
			continue;
		hash_del(&st->img.node);
		WRITE_ONCE(sframe_store_nr, sframe_store_nr - 1);
		sframe_store_put(&st->img);
		ret = 0;
	}
	mutex_unlock(&sframe_store_lock);
	return all ? 0 : ret;
}

/**
 * sframe_store_prctl() - prctl(PR_SFRAME, PR_SFRAME_STORE_ADD or
 *			  PR_SFRAME_STORE_REMOVE, args, size, 0)
 * @op:		the operation
 * @uargs:	user pointer to a struct prctl_sframe_store
 * @usize:	its size as the caller knows it
 *
 * Context: Process context, may sleep.
 * Return: 0 or a negative error code: -EPERM without CAP_PERFMON, and
 * as sframe_store_add() and sframe_store_remove().
 */
int sframe_store_prctl(unsigned long op, unsigned long uargs,
		       unsigned long usize)
{
	struct prctl_sframe_store args;
	void *data;
	int ret;

	if (!perfmon_capable())
		return -EPERM;
	if (usize < PRCTL_SFRAME_STORE_SIZE_VER0 || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(&args, sizeof(args),
				    u64_to_user_ptr((u64)uargs), usize);
	if (ret)
		return ret;
	if (op == PR_SFRAME_STORE_REMOVE)
		return sframe_store_remove(&args);
	if (args.flags || !args.sframe_len)
		return -EINVAL;
	/* Before the copy, which may be large */
	if (args.sframe_len > sframe_store_max())
		return -E2BIG;
	data = kvmalloc(args.sframe_len, GFP_KERNEL_ACCOUNT);
	if (!data)
		return -ENOMEM;
	if (copy_from_user(data, u64_to_user_ptr(args.sframe),
			   args.sframe_len)) {
		kvfree(data);
		return -EFAULT;
	}
	return sframe_store_add(&args, data);
}

/*
 * /proc/sframe_store: a line per section, "build-id file-size
 * text_start-text_end sframe-bytes fdes mappings", in no set order
 */
static int sframe_store_show(struct seq_file *m, void *v)
{
	struct sframe_stored *st;
	int bkt;

	mutex_lock(&sframe_store_lock);
	hash_for_each(sframe_store, bkt, st, img.node)
		seq_printf(m, "%*phN %lld %llx-%llx %lu %u %u\n",
			   st->build_id_len, st->build_id, st->img.size,
			   st->text_start, st->text_end,
			   st->img.sec.sframe_end - st->img.sec.sframe_start,
			   st->img.sec.num_fdes,
			   refcount_read(&st->img.ref) - 1);
	mutex_unlock(&sframe_store_lock);
	return 0;
}

static const struct ctl_table sframe_store_sysctls[] = {
	{
		.procname	= "sframe_store_max_kb",
		.data		= &sysctl_sframe_store_max_kb,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
};

static int __init sframe_store_init(void)
{
	register_sysctl_init("kernel", sframe_store_sysctls);
	proc_create_single("sframe_store", 0400, NULL, sframe_store_show);
	return 0;
}
fs_initcall(sframe_store_init);
