// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the per-mm SFrame registry: add, remove, overlap,
 * lookup, fork copy and exit, on an mm of its own.
 *
 * Included at the end of sframe_registry.c
 * (CONFIG_UNWIND_USER_SFRAME_KUNIT_TEST) so that the tests reach the
 * registry's static functions.  The registry needs no architecture
 * support, so these tests also run on UML (kernel/unwind/.kunitconfig).
 */
#include <kunit/test.h>
#include <linux/mman.h>
#include <linux/prctl.h>
#include <linux/uaccess.h>
#include <linux/unwind_user.h>

#include "sframe_kunit_builder.h"

#define T0	0x100000UL

struct sframe_test {
	struct mm_struct *mm;
};

static int sframe_reg_init(struct kunit *test)
{
	struct sframe_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, t->mm);
	test->priv = t;
	return 0;
}

static void sframe_reg_exit(struct kunit *test)
{
	struct sframe_test *t = test->priv;

	mmput(t->mm);
}

/*
 * An FDE index for a usable entry's section, of 3 blocks, with the
 * entry's reference: the copies of the entry share it, the last frees it
 */
static struct sframe_fde_index *sframe_reg_index(struct kunit *test)
{
	struct sframe_fde_index *index;
	u32 b;

	index = kvmalloc(struct_size(index, from, 3), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, index);
	refcount_set(&index->ref, 1);
	index->nr = 3;
	index->shift = 12;
	index->starts = false;
	for (b = 0; b < index->nr; b++)
		index->from[b] = b * 7;
	return index;
}

/* Add an anonymous entry [@start, @end) in state @state */
static struct sframe_entry *sframe_reg_add_x(struct kunit *test,
					     unsigned long start,
					     unsigned long end, int state,
					     bool explicit)
{
	struct sframe_test *t = test->priv;
	struct sframe_entry *e;

	e = sframe_entry_alloc(NULL, start, end, start >> PAGE_SHIFT);
	KUNIT_ASSERT_NOT_NULL(test, e);
	atomic_set(&e->state, state);
	e->explicit = explicit;
	e->sec.sframe_start = 0x7000;
	e->sec.num_fdes = 42;
	if (state == SFRAME_OK)
		e->sec.fde_index = sframe_reg_index(test);
	KUNIT_ASSERT_EQ(test, sframe_insert(t->mm, e), 0);
	return e;
}

#define sframe_reg_add(test, start, end, state) \
	sframe_reg_add_x(test, start, end, state, false)

/*
 * The entry covering @addr, checked to span [@start, @end); a usable or
 * corrupt entry has the section of sframe_reg_add(), a pending one none
 */
static void sframe_reg_expect(struct kunit *test, struct mm_struct *mm,
			      unsigned long addr, unsigned long start,
			      unsigned long end)
{
	struct sframe_entry *e = mtree_load(&mm->sframe_mt, addr);
	int state;

	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->start, start);
	KUNIT_EXPECT_EQ(test, e->end, end);
	KUNIT_EXPECT_EQ(test, e->pgoff, start >> PAGE_SHIFT);
	state = atomic_read(&e->state);
	if (state == SFRAME_OK || state == SFRAME_BAD) {
		KUNIT_EXPECT_EQ(test, e->sec.sframe_start, 0x7000UL);
		KUNIT_EXPECT_EQ(test, e->sec.num_fdes, 42U);
	}
	/* The index of a usable section, shared; none for a corrupt one */
	if (state == SFRAME_OK) {
		KUNIT_ASSERT_NOT_NULL(test, e->sec.fde_index);
		KUNIT_EXPECT_EQ(test, e->sec.fde_index->nr, 3U);
		KUNIT_EXPECT_EQ(test, e->sec.fde_index->from[2], 14U);
	} else {
		KUNIT_EXPECT_NULL(test, e->sec.fde_index);
	}
	if (state != SFRAME_OK && state != SFRAME_BAD) {
		KUNIT_EXPECT_EQ(test, e->sec.sframe_start, 0UL);
		KUNIT_EXPECT_EQ(test, e->sec.num_fdes, 0U);
	}
}

/* Map [@start, @end) in the test's mm, anonymous, with @flags */
static void sframe_reg_vma(struct kunit *test, unsigned long start,
			   unsigned long end, vm_flags_t flags)
{
	struct sframe_test *t = test->priv;
	struct vm_area_struct *vma;
	int ret;

	vma = vm_area_alloc(t->mm);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	vma->vm_start = start;
	vma->vm_end = end;
	vma->vm_pgoff = start >> PAGE_SHIFT;
	vm_flags_init(vma, flags);
	vma->vm_page_prot = vm_get_page_prot(flags);
	vma_set_anonymous(vma);
	mmap_write_lock(t->mm);
	ret = insert_vm_struct(t->mm, vma);
	mmap_write_unlock(t->mm);
	if (ret)
		vm_area_free(vma);
	KUNIT_ASSERT_EQ(test, ret, 0);
}

#define SFRAME_REG_TEXT	(VM_READ | VM_EXEC | VM_MAYREAD | VM_MAYEXEC)

static unsigned int sframe_reg_count(struct mm_struct *mm)
{
	unsigned long index = 0;
	unsigned int n = 0;

	while (mt_find(&mm->sframe_mt, &index, ULONG_MAX))
		n++;
	return n;
}

static void sframe_reg_add_lookup(struct kunit *test)
{
	struct sframe_test *t = test->priv;

	sframe_reg_add(test, T0, T0 + 0x3000, SFRAME_OK);
	sframe_reg_expect(test, t->mm, T0, T0, T0 + 0x3000);
	sframe_reg_expect(test, t->mm, T0 + 0x2fff, T0, T0 + 0x3000);
	KUNIT_EXPECT_NULL(test, mtree_load(&t->mm->sframe_mt, T0 - 1));
	KUNIT_EXPECT_NULL(test, mtree_load(&t->mm->sframe_mt, T0 + 0x3000));
}

static void sframe_reg_overlap_refused(struct kunit *test)
{
	struct sframe_test *t = test->priv;
	struct sframe_entry *e;

	sframe_reg_add(test, T0, T0 + 0x3000, SFRAME_OK);
	e = sframe_entry_alloc(NULL, T0 + 0x2000, T0 + 0x5000, 0);
	KUNIT_ASSERT_NOT_NULL(test, e);
	/* The refused entry is freed by sframe_insert() */
	KUNIT_EXPECT_EQ(test, sframe_insert(t->mm, e), -EEXIST);
	KUNIT_EXPECT_EQ(test, sframe_reg_count(t->mm), 1U);
	sframe_reg_expect(test, t->mm, T0 + 0x2000, T0, T0 + 0x3000);
}

static void sframe_reg_remove_exact(struct kunit *test)
{
	struct sframe_test *t = test->priv;
	struct sframe_entry *next;

	sframe_reg_add(test, T0, T0 + 0x3000, SFRAME_OK);
	next = sframe_reg_add(test, T0 + 0x3000, T0 + 0x4000, SFRAME_OK);
	sframe_vma_removed(t->mm, T0, T0 + 0x3000);
	KUNIT_EXPECT_NULL(test, mtree_load(&t->mm->sframe_mt, T0));
	sframe_reg_expect(test, t->mm, T0 + 0x3000, T0 + 0x3000, T0 + 0x4000);
	/* The next entry, right at the end of the range, is not touched */
	KUNIT_EXPECT_PTR_EQ(test, mtree_load(&t->mm->sframe_mt, T0 + 0x3000),
			    next);
	KUNIT_EXPECT_EQ(test, sframe_reg_count(t->mm), 1U);
}

/* Unmapping the middle of a range keeps both outer parts, same rules */
static void sframe_reg_remove_middle(struct kunit *test)
{
	struct sframe_test *t = test->priv;

	sframe_reg_add(test, T0, T0 + 0x5000, SFRAME_OK);
	sframe_vma_removed(t->mm, T0 + 0x1000, T0 + 0x3000);
	KUNIT_EXPECT_EQ(test, sframe_reg_count(t->mm), 2U);
	sframe_reg_expect(test, t->mm, T0, T0, T0 + 0x1000);
	sframe_reg_expect(test, t->mm, T0 + 0x4fff, T0 + 0x3000, T0 + 0x5000);
	KUNIT_EXPECT_NULL(test, mtree_load(&t->mm->sframe_mt, T0 + 0x1000));
	KUNIT_EXPECT_NULL(test, mtree_load(&t->mm->sframe_mt, T0 + 0x2fff));
}

/* One removal spanning several entries and parts of two */
static void sframe_reg_remove_span(struct kunit *test)
{
	struct sframe_test *t = test->priv;

	sframe_reg_add(test, T0, T0 + 0x2000, SFRAME_OK);
	sframe_reg_add(test, T0 + 0x2000, T0 + 0x3000, SFRAME_BAD);
	sframe_reg_add(test, T0 + 0x4000, T0 + 0x6000, SFRAME_PENDING);
	sframe_vma_removed(t->mm, T0 + 0x1000, T0 + 0x5000);
	KUNIT_EXPECT_EQ(test, sframe_reg_count(t->mm), 2U);
	sframe_reg_expect(test, t->mm, T0, T0, T0 + 0x1000);
	sframe_reg_expect(test, t->mm, T0 + 0x5000, T0 + 0x5000, T0 + 0x6000);
	KUNIT_EXPECT_EQ(test, atomic_read(&((struct sframe_entry *)
		mtree_load(&t->mm->sframe_mt, T0 + 0x5000))->state),
		SFRAME_PENDING);
}

/* The registry of a new mm, as fork() copies it from the test's */
static struct mm_struct *sframe_reg_fork(struct kunit *test)
{
	struct sframe_test *t = test->priv;
	struct mm_struct *child = mm_alloc();
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, child);
	mmap_write_lock(t->mm);
	ret = sframe_dup_mm(t->mm, child);
	mmap_write_unlock(t->mm);
	KUNIT_EXPECT_EQ(test, ret, 0);
	return child;
}

/*
 * fork() copies every entry; a section being resolved becomes pending,
 * without the parts of the section its resolver may have written
 */
static void sframe_reg_fork_copy(struct kunit *test)
{
	struct sframe_test *t = test->priv;
	struct sframe_entry *c, *e;
	struct mm_struct *child;

	sframe_reg_vma(test, T0, T0 + 0x2000, SFRAME_REG_TEXT);
	sframe_reg_vma(test, T0 + 0x8000, T0 + 0x9000, SFRAME_REG_TEXT);
	e = sframe_reg_add_x(test, T0, T0 + 0x1000, SFRAME_OK, true);
	sframe_reg_add(test, T0 + 0x1000, T0 + 0x2000, SFRAME_RESOLVING);
	sframe_reg_add(test, T0 + 0x8000, T0 + 0x9000, SFRAME_BAD);

	child = sframe_reg_fork(test);

	KUNIT_EXPECT_EQ(test, sframe_reg_count(child), 3U);
	sframe_reg_expect(test, child, T0, T0, T0 + 0x1000);
	c = mtree_load(&child->sframe_mt, T0);
	KUNIT_EXPECT_PTR_NE(test, c, e);
	KUNIT_EXPECT_TRUE(test, c->explicit);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->state), SFRAME_OK);
	/* The copy shares the index, with a reference of its own */
	KUNIT_EXPECT_PTR_EQ(test, c->sec.fde_index, e->sec.fde_index);
	KUNIT_EXPECT_EQ(test, refcount_read(&e->sec.fde_index->ref), 2U);
	c = mtree_load(&child->sframe_mt, T0 + 0x1000);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->state), SFRAME_PENDING);
	c = mtree_load(&child->sframe_mt, T0 + 0x8000);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->state), SFRAME_BAD);

	sframe_reg_expect(test, child, T0 + 0x1000, T0 + 0x1000, T0 + 0x2000);
	KUNIT_EXPECT_EQ(test, atomic_read(&child->sframe_explicit), 1);

	/* The copies are independent of the parent's entries */
	sframe_vma_removed(t->mm, T0, T0 + 0x9000);
	KUNIT_EXPECT_EQ(test, sframe_reg_count(t->mm), 0U);
	KUNIT_EXPECT_EQ(test, sframe_reg_count(child), 3U);
	mmput(child);
}

/* fork() does not copy what dup_mmap() does not copy: VM_DONTCOPY */
static void sframe_reg_fork_dontcopy(struct kunit *test)
{
	struct mm_struct *child;

	sframe_reg_vma(test, T0, T0 + 0x1000, SFRAME_REG_TEXT);
	sframe_reg_vma(test, T0 + 0x1000, T0 + 0x2000,
		       SFRAME_REG_TEXT | VM_DONTCOPY);
	sframe_reg_vma(test, T0 + 0x2000, T0 + 0x3000, SFRAME_REG_TEXT);
	sframe_reg_vma(test, T0 + 0x8000, T0 + 0x9000,
		       SFRAME_REG_TEXT | VM_DONTCOPY);
	/* Two mappings that differ, copied: one entry over both */
	sframe_reg_vma(test, T0 + 0x4000, T0 + 0x5000, SFRAME_REG_TEXT);
	sframe_reg_vma(test, T0 + 0x5000, T0 + 0x6000,
		       SFRAME_REG_TEXT | VM_MAYWRITE);
	/* One entry over three mappings, one over a VM_DONTCOPY one */
	sframe_reg_add_x(test, T0, T0 + 0x3000, SFRAME_OK, true);
	sframe_reg_add(test, T0 + 0x4000, T0 + 0x6000, SFRAME_OK);
	sframe_reg_add(test, T0 + 0x8000, T0 + 0x9000, SFRAME_OK);

	child = sframe_reg_fork(test);

	KUNIT_EXPECT_EQ(test, sframe_reg_count(child), 3U);
	sframe_reg_expect(test, child, T0, T0, T0 + 0x1000);
	sframe_reg_expect(test, child, T0 + 0x2000, T0 + 0x2000, T0 + 0x3000);
	sframe_reg_expect(test, child, T0 + 0x5fff, T0 + 0x4000, T0 + 0x6000);
	KUNIT_EXPECT_NULL(test, mtree_load(&child->sframe_mt, T0 + 0x1000));
	KUNIT_EXPECT_NULL(test, mtree_load(&child->sframe_mt, T0 + 0x8000));
	KUNIT_EXPECT_EQ(test, atomic_read(&child->sframe_explicit), 2);
	mmput(child);
}

/* Entries are counted, also the parts that removal leaves */
static void sframe_reg_explicit_count(struct kunit *test)
{
	struct sframe_test *t = test->priv;

	sframe_reg_add_x(test, T0, T0 + 0x5000, SFRAME_OK, true);
	sframe_reg_add(test, T0 + 0x8000, T0 + 0x9000, SFRAME_NONE);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->mm->sframe_explicit), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->mm->sframe_entries), 2);
	sframe_vma_removed(t->mm, T0 + 0x1000, T0 + 0x2000);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->mm->sframe_explicit), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->mm->sframe_entries), 3);
	sframe_vma_removed(t->mm, T0, T0 + 0x9000);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->mm->sframe_explicit), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->mm->sframe_entries), 0);
	KUNIT_EXPECT_EQ(test, sframe_reg_count(t->mm), 0U);
}

/* Readers get the entries one after the other, referenced */
static void sframe_reg_get_from(struct kunit *test)
{
	struct sframe_test *t = test->priv;
	struct sframe_entry *a, *b, *e;

	a = sframe_reg_add(test, T0, T0 + 0x1000, SFRAME_OK);
	b = sframe_reg_add(test, T0 + 0x4000, T0 + 0x5000, SFRAME_OK);
	e = sframe_get_from(t->mm, 0);
	KUNIT_EXPECT_PTR_EQ(test, e, a);
	KUNIT_EXPECT_EQ(test, refcount_read(&a->ref), 2);
	sframe_entry_put(e);
	e = sframe_get_from(t->mm, T0 + 0x1000);
	KUNIT_EXPECT_PTR_EQ(test, e, b);
	/* Removed from the registry, the entry lives on while referenced */
	sframe_vma_removed(t->mm, T0 + 0x4000, T0 + 0x5000);
	KUNIT_EXPECT_EQ(test, refcount_read(&b->ref), 1);
	KUNIT_EXPECT_EQ(test, b->start, T0 + 0x4000);
	sframe_entry_put(e);
	/* An address inside an entry finds that entry; past the last, none */
	e = sframe_get_from(t->mm, T0 + 1);
	KUNIT_EXPECT_PTR_EQ(test, e, a);
	if (e)
		sframe_entry_put(e);
	KUNIT_EXPECT_NULL(test, sframe_get_from(t->mm, T0 + 0x1000));
}

/*
 * A lookup that finds the section corrupt marks its entry bad, in
 * faultable context only: without faulting, the repair at the next
 * return to user space does (sframe_repair.c).  The section is in user
 * memory, one function whose third FRE starts where the second does.
 */
static void sframe_reg_find_marks_bad(struct kunit *test)
{
	static const struct sfb_fre fres[] = {
		{ 0, FRE_INFO(SFRAME_BASE_REG_SP, 1, SFRAME_FRE_DATAWORD_1B), { 8 } },
		{ 4, FRE_INFO(SFRAME_BASE_REG_SP, 1, SFRAME_FRE_DATAWORD_1B), { 16 } },
		{ 4, FRE_INFO(SFRAME_BASE_REG_SP, 1, SFRAME_FRE_DATAWORD_1B), { 8 } },
	};
	struct sfb_fde fde = {
		0, 16, FDE_INFO(SFRAME_FRE_TYPE_ADDR1, SFRAME_FDE_PCTYPE_INC),
		0, 0, ARRAY_SIZE(fres), fres,
	};
	const struct sfb_sec s = {
		SFRAME_VERSION_3,
		SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
		SFRAME_ABI_AMD64_ENDIAN_LITTLE, 0, -8, 0, 1, &fde,
	};
	struct sfb_layout *lay;
	struct sframe_rule rule;
	struct sframe_entry *e;
	unsigned long base;
	size_t len;
	u8 *buf;

	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	lay = kunit_kzalloc(test, sizeof(*lay), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, lay);
	base = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(base));
	KUNIT_ASSERT_NE(test, base, 0UL);
	/* The function is the section's first page, as if it were text */
	fde.func = base;
	len = sfb_build(&s, base, buf, PAGE_SIZE, lay);
	KUNIT_ASSERT_NE(test, len, (size_t)0);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)base, buf, len), 0UL);

	e = sframe_reg_add(test, base, base + 16, SFRAME_OK);
	sframe_section_release(&e->sec);
	memset(&e->sec, 0, sizeof(e->sec));
	e->sec.sframe_start = base;
	e->sec.sframe_end = base + len;
	e->sec.text_start = base;
	e->sec.text_end = base + 16;
	KUNIT_ASSERT_EQ(test, sframe_section_init(&e->sec, NULL), 0);

	KUNIT_EXPECT_EQ(test, sframe_entry_find(e, base + 2, &rule, false), 0);
	KUNIT_EXPECT_EQ(test, rule.cfa.off, 8);
	KUNIT_EXPECT_EQ(test, sframe_entry_find(e, base + 5, &rule, true),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), SFRAME_OK);
	KUNIT_EXPECT_EQ(test, sframe_entry_find(e, base + 5, &rule, false),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), SFRAME_BAD);
	KUNIT_EXPECT_EQ(test, sframe_entry_lookups(e), 3UL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&e->failures), 2L);
}

/* The modification time of the zeroed inodes of the image tests */
static const struct timespec64 mtime0;

/* The file of the image tests: an inode of its own, zeroed */
static struct inode *sframe_reg_inode(struct kunit *test)
{
	struct inode *inode = kunit_kzalloc(test, sizeof(*inode), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, inode);
	return inode;
}

/* A checked section of text at @text, as sframe_check() leaves it */
static void sframe_reg_image_sec(struct sframe_section *sec, unsigned long text)
{
	memset(sec, 0, sizeof(*sec));
	sec->text_start = text;
	sec->text_end = text + 0x8000;
	sec->sframe_start = text + 0x10000;
	sec->sframe_end = text + 0x11000;
	sec->fdes_start = text + 0x10020;
	sec->fres_start = text + 0x10200;
	sec->fres_end = text + 0x10800;
	sec->num_fdes = 42;
}

/*
 * Two mms map one file: its section's image is made once and shared by
 * both, each at its own address, with exact references; the last entry
 * that goes frees it.  Other offsets, sizes, files or versions of the
 * file do not match.
 */
static void sframe_reg_image_shared(struct kunit *test)
{
	struct sframe_test *t = test->priv;
	unsigned long nr = sframe_images_count(), high = T0 + SZ_256M;
	struct inode *inode = sframe_reg_inode(test);
	struct sframe_image *img, *again;
	struct sframe_section a, b, c;
	struct sframe_fde_index *index;
	struct sframe_entry *ea, *eb;
	struct mm_struct *mm2;

	sframe_reg_image_sec(&a, T0);
	index = sframe_reg_index(test);
	a.fde_index = index;
	img = sframe_image_add(inode, 0, &mtime0, 0, &a, SFRAME_OK,
			       SFRAME_R_NONE);
	KUNIT_ASSERT_NOT_NULL(test, img);
	KUNIT_EXPECT_EQ(test, sframe_images_count(), nr + 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&img->ref), 1U);
	KUNIT_EXPECT_EQ(test, refcount_read(&index->ref), 2U);
	/* Kept relative to the start of the text */
	KUNIT_EXPECT_EQ(test, img->sec.text_start, 0UL);
	KUNIT_EXPECT_EQ(test, img->sec.fdes_start, 0x10020UL);
	KUNIT_EXPECT_EQ(test, img->sec.fres_end, 0x10800UL);

	/* The same object 256 MiB higher, in another mm */
	sframe_reg_image_sec(&b, high);
	b.fdes_start = 0;
	b.fres_start = 0;
	b.fres_end = 0;
	b.num_fdes = 0;
	again = sframe_image_get(inode, 0, &b);
	KUNIT_EXPECT_PTR_EQ(test, again, img);
	KUNIT_EXPECT_EQ(test, refcount_read(&img->ref), 2U);
	sframe_image_section(img, &b);
	KUNIT_EXPECT_EQ(test, b.text_start, high);
	KUNIT_EXPECT_EQ(test, b.sframe_end, high + 0x11000);
	KUNIT_EXPECT_EQ(test, b.fdes_start, high + 0x10020);
	KUNIT_EXPECT_EQ(test, b.fres_start, high + 0x10200);
	KUNIT_EXPECT_EQ(test, b.fres_end, high + 0x10800);
	KUNIT_EXPECT_EQ(test, b.num_fdes, 42U);
	KUNIT_EXPECT_PTR_EQ(test, b.fde_index, index);
	KUNIT_EXPECT_EQ(test, refcount_read(&index->ref), 3U);

	/* Another size of the section, object offset or file: none */
	c = b;
	c.sframe_end += 8;
	KUNIT_EXPECT_NULL(test, sframe_image_get(inode, 0, &c));
	c = b;
	c.text_end += PAGE_SIZE;
	KUNIT_EXPECT_NULL(test, sframe_image_get(inode, 0, &c));
	KUNIT_EXPECT_NULL(test, sframe_image_get(inode, PAGE_SIZE,
						 &b));
	KUNIT_EXPECT_NULL(test, sframe_image_get(sframe_reg_inode(test), 0,
						 &b));
	/* The file written in place (modified, or of another size) */
	inode_set_mtime(inode, 1, 0);
	KUNIT_EXPECT_NULL(test, sframe_image_get(inode, 0, &b));
	inode_set_mtime(inode, 0, 0);
	i_size_write(inode, PAGE_SIZE);
	KUNIT_EXPECT_NULL(test, sframe_image_get(inode, 0, &b));
	i_size_write(inode, 0);

	/* A second add of the object gives the image there is */
	again = sframe_image_add(inode, 0, &mtime0, 0, &b, SFRAME_OK,
				 SFRAME_R_NONE);
	KUNIT_EXPECT_PTR_EQ(test, again, img);
	KUNIT_EXPECT_EQ(test, refcount_read(&img->ref), 3U);
	KUNIT_EXPECT_EQ(test, refcount_read(&index->ref), 3U);
	KUNIT_EXPECT_EQ(test, sframe_images_count(), nr + 1);
	sframe_image_put(again);
	/* A file written while its section was checked gets no image */
	inode_set_mtime(inode, 1, 0);
	KUNIT_EXPECT_NULL(test, sframe_image_add(inode, 0, &mtime0, 0, &b,
						 SFRAME_OK, SFRAME_R_NONE));
	inode_set_mtime(inode, 0, 0);

	/* Entries in both mms take the references over */
	ea = sframe_entry_alloc(NULL, T0, T0 + 0x8000, 0);
	eb = sframe_entry_alloc(NULL, high, high + 0x8000, 0);
	KUNIT_ASSERT_NOT_NULL(test, ea);
	KUNIT_ASSERT_NOT_NULL(test, eb);
	ea->sec = a;
	ea->image = img;
	atomic_set(&ea->state, SFRAME_OK);
	eb->sec = b;
	eb->image = img;
	atomic_set(&eb->state, SFRAME_OK);
	mm2 = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, mm2);
	KUNIT_ASSERT_EQ(test, sframe_insert(t->mm, ea), 0);
	KUNIT_ASSERT_EQ(test, sframe_insert(mm2, eb), 0);
	/* munmap() of the middle: the two parts each hold a reference */
	sframe_vma_removed(t->mm, T0 + 0x1000, T0 + 0x2000);
	KUNIT_EXPECT_EQ(test, sframe_reg_count(t->mm), 2U);
	KUNIT_EXPECT_EQ(test, refcount_read(&img->ref), 3U);
	ea = mtree_load(&t->mm->sframe_mt, T0);
	KUNIT_ASSERT_NOT_NULL(test, ea);
	KUNIT_EXPECT_PTR_EQ(test, ea->image, img);

	/* The last unmap frees the image; the index goes with the entries */
	mmput(mm2);
	KUNIT_EXPECT_EQ(test, refcount_read(&img->ref), 2U);
	KUNIT_EXPECT_EQ(test, sframe_images_count(), nr + 1);
	sframe_vma_removed(t->mm, T0, T0 + 0x8000);
	KUNIT_EXPECT_EQ(test, sframe_images_count(), nr);
	KUNIT_EXPECT_NULL(test, sframe_image_get(inode, 0, &b));
}

/* A corrupt section's image says so, and holds no index */
static void sframe_reg_image_bad(struct kunit *test)
{
	unsigned long nr = sframe_images_count();
	struct inode *inode = sframe_reg_inode(test);
	struct sframe_image *img, *again;
	struct sframe_section a;

	sframe_reg_image_sec(&a, T0);
	img = sframe_image_add(inode, PAGE_SIZE, &mtime0, 0, &a, SFRAME_BAD,
			       SFRAME_R_FDES_NOT_SORTED);
	KUNIT_ASSERT_NOT_NULL(test, img);
	again = sframe_image_get(inode, PAGE_SIZE, &a);
	KUNIT_EXPECT_PTR_EQ(test, again, img);
	KUNIT_EXPECT_EQ(test, again->state, SFRAME_BAD);
	KUNIT_EXPECT_EQ(test, again->reason, SFRAME_R_FDES_NOT_SORTED);
	KUNIT_EXPECT_NULL(test, again->sec.fde_index);
	sframe_image_put(again);
	sframe_image_put(img);
	KUNIT_EXPECT_EQ(test, sframe_images_count(), nr);
}

#ifdef CONFIG_UNWIND_USER_SFRAME
/* A section of three functions for the store, in memory that it takes */
static void *sframe_reg_store_sec(struct kunit *test, struct sfb_fde *fdes,
				  size_t *len, bool corrupt)
{
	struct sfb_sec s = sfb_amd64_sec(SFRAME_VERSION_3, SFRAME_F_FDE_SORTED,
					 0x400000, fdes);
	struct sfb_layout *lay = kunit_kzalloc(test, sizeof(*lay), GFP_KERNEL);
	u8 *buf = kvzalloc(SZ_4K, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, lay);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* At ELF address 0, as sframe-gen makes it */
	*len = sfb_build(&s, 0, buf, SZ_4K, lay);
	KUNIT_ASSERT_NE(test, *len, (size_t)0);
	if (corrupt)
		buf[0] ^= 0xff;
	return buf;
}

/*
 * The store: a section is found by its object's identity only (build ID,
 * file size, text span), at the load address of a mapping, and read from
 * kernel memory; the refusals and their error codes; a file entry found
 * without a section before an add looks again; an image that an entry
 * uses outlives its removal from the store.
 */
static void sframe_reg_store(struct kunit *test)
{
	struct prctl_sframe_store args = {
		.sframe_addr	= 0,
		.text_start	= 0x401000,
		.text_end	= 0x404000,
		.file_size	= 123456,
		.build_id_len	= 20,
	};
	unsigned long bias = 0x7f0000000000UL;
	struct sframe_image *img;
	struct sframe_entry *e;
	struct sfb_fde fdes[3];
	struct sframe_section sec;
	struct sframe_rule r;
	enum sframe_reason why;
	size_t len;
	void *buf;

	if (UNWIND_USER_SFRAME_ABI != SFRAME_ABI_AMD64_ENDIAN_LITTLE)
		kunit_skip(test, "the test's section is for x86_64");
	memset(args.build_id, 0xee, sizeof(args.build_id));
	KUNIT_ASSERT_NULL(test, sframe_store_get(args.build_id, 20, 123456,
						 0x401000, 0x404000));

	/* A file entry found without a section before the add */
	e = sframe_entry_alloc(NULL, T0, T0 + 0x1000, 0);
	KUNIT_ASSERT_NOT_NULL(test, e);
	atomic_set(&e->state, SFRAME_NONE);
	e->store_gen = sframe_store_generation();
	/* Only tested for being a file entry, never used */
	e->file = (struct file *)e;
	KUNIT_EXPECT_FALSE(test, sframe_recheck(e, false));

	buf = sframe_reg_store_sec(test, fdes, &len, false);
	args.sframe_len = len;
	KUNIT_ASSERT_EQ(test, sframe_store_add(&args, buf), 0);
	KUNIT_EXPECT_TRUE(test, sframe_store_used());
	/* It looks again: in the event only tells, else makes it pending */
	KUNIT_EXPECT_EQ(test, sframe_store_generation(), e->store_gen + 1);
	KUNIT_EXPECT_TRUE(test, sframe_recheck(e, true));
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), SFRAME_NONE);
	KUNIT_EXPECT_TRUE(test, sframe_recheck(e, false));
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), SFRAME_PENDING);
	e->file = NULL;
	sframe_entry_put(e);
	/* The same identity again */
	buf = sframe_reg_store_sec(test, fdes, &len, false);
	KUNIT_EXPECT_EQ(test, sframe_store_add(&args, buf), -EEXIST);
	/* A corrupt section, and one that is not an identity */
	args.build_id[0] = 0xef;
	buf = sframe_reg_store_sec(test, fdes, &len, true);
	KUNIT_EXPECT_EQ(test, sframe_store_add(&args, buf), -EINVAL);
	args.build_id_len = 0;
	buf = sframe_reg_store_sec(test, fdes, &len, false);
	KUNIT_EXPECT_EQ(test, sframe_store_add(&args, buf), -EINVAL);
	args.build_id_len = 20;
	args.build_id[0] = 0xee;

	/* Other objects: same build ID, another size or text; another ID */
	KUNIT_EXPECT_NULL(test, sframe_store_get(args.build_id, 20, 123457,
						 0x401000, 0x404000));
	KUNIT_EXPECT_NULL(test, sframe_store_get(args.build_id, 20, 123456,
						 0x401000, 0x405000));
	KUNIT_EXPECT_NULL(test, sframe_store_get(args.build_id, 19, 123456,
						 0x401000, 0x404000));

	img = sframe_store_get(args.build_id, 20, 123456, 0x401000, 0x404000);
	KUNIT_ASSERT_NOT_NULL(test, img);
	KUNIT_EXPECT_TRUE(test, img->stored);
	KUNIT_EXPECT_EQ(test, refcount_read(&img->ref), 2U);
	/* At a mapping's address, as discovery gives it */
	memset(&sec, 0, sizeof(sec));
	sec.text_start = bias + 0x401000;
	sframe_image_section(img, &sec);
	KUNIT_EXPECT_EQ(test, sec.text_end, bias + 0x404000);
	KUNIT_EXPECT_EQ(test, sec.sframe_start, bias);
	KUNIT_EXPECT_NOT_NULL(test, sec.kdata);
	KUNIT_ASSERT_EQ(test, sframe_find_nofault(&sec, bias + 0x402004, &r,
						  &why), 0);
	KUNIT_EXPECT_EQ(test, r.func_start, bias + 0x402000);
	KUNIT_EXPECT_EQ(test, r.cfa.reg, 6);
	KUNIT_EXPECT_EQ(test, r.cfa.off, 16);
	KUNIT_EXPECT_EQ(test, sframe_find(&sec, bias + 0x403000, &r, &why),
			-ENOENT);

	/* Removed from the store, the image stays for its user */
	KUNIT_EXPECT_EQ(test, sframe_store_remove(&(struct prctl_sframe_store){
		.build_id_len = 20, .build_id = { 0xee, 0xee } }), -ENOENT);
	args.sframe_len = 0;
	args.sframe_addr = 0;
	args.text_start = 0;
	args.text_end = 0;
	KUNIT_EXPECT_EQ(test, sframe_store_remove(&args), 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&img->ref), 1U);
	KUNIT_EXPECT_NULL(test, sframe_store_get(args.build_id, 20, 123456,
						 0x401000, 0x404000));
	KUNIT_EXPECT_EQ(test, sframe_find(&sec, bias + 0x401000, &r, &why), 0);
	KUNIT_EXPECT_EQ(test, sframe_store_remove(&args), -ENOENT);
	sframe_section_release(&sec);
	sframe_image_put(img);
}
#else
static void sframe_reg_store(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_UNWIND_USER_SFRAME");
}
#endif

static void sframe_reg_exit_frees(struct kunit *test)
{
	struct sframe_test *t = test->priv;

	sframe_reg_add(test, T0, T0 + 0x1000, SFRAME_OK);
	sframe_reg_add(test, T0 + 0x1000, T0 + 0x2000, SFRAME_NONE);
	sframe_exit_mm(t->mm);
	KUNIT_EXPECT_EQ(test, sframe_reg_count(t->mm), 0U);
	KUNIT_EXPECT_TRUE(test, mtree_empty(&t->mm->sframe_mt));
	/* mmput() frees the registry again: it must be empty and reusable */
	sframe_mm_init(t->mm);
}

#ifdef CONFIG_UNWIND_USER_SFRAME
/*
 * An mm gets at most SFRAME_MAX_DISCOVERED discovered entries; prctl()
 * registrations do not count, and an unmap makes room again
 */
static void sframe_reg_discover_cap(struct kunit *test)
{
	struct sframe_test *t = test->priv;
	unsigned long a = T0 + (SFRAME_MAX_DISCOVERED + 2) * PAGE_SIZE;
	unsigned long b = a + 2 * PAGE_SIZE;
	struct sframe_entry *e;
	int i;

	/* One registered range, and discovered ones up to one short */
	sframe_reg_add_x(test, T0, T0 + PAGE_SIZE, SFRAME_OK, true);
	for (i = 1; i < SFRAME_MAX_DISCOVERED; i++)
		sframe_reg_add(test, T0 + i * PAGE_SIZE,
			       T0 + (i + 1) * PAGE_SIZE, SFRAME_NONE);
	sframe_reg_vma(test, a, a + PAGE_SIZE, SFRAME_REG_TEXT);
	sframe_reg_vma(test, b, b + PAGE_SIZE, SFRAME_REG_TEXT);
	e = sframe_discover(t->mm, a);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), SFRAME_NONE);
	sframe_entry_put(e);
	KUNIT_EXPECT_NULL(test, sframe_discover(t->mm, b));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->mm->sframe_entries),
			SFRAME_MAX_DISCOVERED + 1);

	sframe_vma_removed(t->mm, T0 + PAGE_SIZE, T0 + 2 * PAGE_SIZE);
	e = sframe_discover(t->mm, b);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->start, b);
	sframe_entry_put(e);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->mm->sframe_entries),
			SFRAME_MAX_DISCOVERED + 1);
}

/*
 * The PC found in no executable mapping is not looked up again, until
 * the task execs: then it may be text of the new program.  The test
 * plays the exec by changing its own self_exec_id, as begin_new_exec()
 * does, and restores it and the task's memo.
 */
static void sframe_reg_memo_exec(struct kunit *test)
{
	struct sframe_repair *r = &current->unwind_info.sframe;
	unsigned long none = r->none;
	u64 exec_id = current->self_exec_id, none_exec = r->none_exec;

	sframe_repair_none(T0 + 4);
	KUNIT_EXPECT_EQ(test, r->none, T0 + 4);
	KUNIT_EXPECT_FALSE(test, sframe_repair_request(T0 + 4));
	/* Another PC is looked up (a kthread's request queues nothing) */
	KUNIT_EXPECT_TRUE(test, sframe_repair_request(T0 + 8));

	current->self_exec_id = exec_id + 1;
	KUNIT_EXPECT_TRUE(test, sframe_repair_request(T0 + 4));
	/* Found again in the new program */
	sframe_repair_none(T0 + 4);
	KUNIT_EXPECT_FALSE(test, sframe_repair_request(T0 + 4));

	current->self_exec_id = exec_id;
	KUNIT_EXPECT_TRUE(test, sframe_repair_request(T0 + 4));
	r->none = none;
	r->none_exec = none_exec;
}
#endif

static struct kunit_case sframe_registry_cases[] = {
	KUNIT_CASE(sframe_reg_add_lookup),
	KUNIT_CASE(sframe_reg_overlap_refused),
	KUNIT_CASE(sframe_reg_remove_exact),
	KUNIT_CASE(sframe_reg_remove_middle),
	KUNIT_CASE(sframe_reg_remove_span),
	KUNIT_CASE(sframe_reg_fork_copy),
	KUNIT_CASE(sframe_reg_fork_dontcopy),
	KUNIT_CASE(sframe_reg_explicit_count),
	KUNIT_CASE(sframe_reg_get_from),
	KUNIT_CASE(sframe_reg_find_marks_bad),
	KUNIT_CASE(sframe_reg_image_shared),
	KUNIT_CASE(sframe_reg_image_bad),
	KUNIT_CASE(sframe_reg_store),
	KUNIT_CASE(sframe_reg_exit_frees),
#ifdef CONFIG_UNWIND_USER_SFRAME
	KUNIT_CASE(sframe_reg_discover_cap),
	KUNIT_CASE(sframe_reg_memo_exec),
#endif
	{}
};

static struct kunit_suite sframe_registry_suite = {
	.name = "sframe_registry",
	.init = sframe_reg_init,
	.exit = sframe_reg_exit,
	.test_cases = sframe_registry_cases,
};

kunit_test_suite(sframe_registry_suite);
