// SPDX-License-Identifier: GPL-2.0
/*
 * The rule cache of an SFrame registry entry.
 *
 * Profilers unwind the same hot stacks over and over, so the faultable
 * path keeps the rules of recently unwound PCs in a small cache per entry
 * (struct sframe_rcache).  The cache lives and dies with its entry: an
 * entry's section does not move, and a new mapping at the same address is
 * a new entry.  A section that user space rewrites in place may give
 * stale rules until it is mapped or registered anew, no worse than a
 * section that lies.  Boot or module parameter sframe.rule_cache=0
 * switches it off.
 *
 * Every thread of a process that unwinds through the same library reads
 * the same cache, so a hit writes nothing shared: each slot is guarded by
 * a sequence count, which a reader only reads, and a hit is counted in a
 * per-CPU counter.  A writer takes a slot by making its count odd with
 * cmpxchg() and leaves it alone if another writer has it: the slot is a
 * cache, and the next miss stores the rule again.  A reader that sees an
 * odd count, or a count that changed while it copied the rule, misses:
 * it never returns a rule that is half of one PC and half of another.
 */

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "sframe_registry.h"

/* The parameter keeps the name it had: sframe.rule_cache */
#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "sframe."

/* Rule cache slots per entry: a power of two */
#define SFRAME_RCACHE_SLOTS	32

/**
 * struct sframe_rcache_slot - the rule of one PC
 * @seq:	sequence count: odd while a writer changes @pc and @rule
 * @pc:		the PC; 0 is an empty slot
 * @rule:	its rule
 */
struct sframe_rcache_slot {
	unsigned int		seq;
	unsigned long		pc;
	struct sframe_rule	rule;
};

/**
 * struct sframe_rcache - the rules of recently unwound PCs of an entry
 * @hits:	lookups answered by the cache, per CPU, see sframe_rcache_hits()
 * @slot:	direct mapped by a hash of the PC
 */
struct sframe_rcache {
	unsigned long __percpu		*hits;
	struct sframe_rcache_slot	slot[SFRAME_RCACHE_SLOTS];
};

static bool sframe_rcache_on = true;
module_param_named(rule_cache, sframe_rcache_on, bool, 0644);
MODULE_PARM_DESC(rule_cache, "Cache the unwind rules of recently unwound PCs (default: on)");

static struct sframe_rcache_slot *sframe_rcache_slot(struct sframe_rcache *rc,
						     unsigned long pc)
{
	return &rc->slot[hash_long(pc, ilog2(SFRAME_RCACHE_SLOTS))];
}

/**
 * sframe_rcache_get() - the cached rule of a PC
 * @e:		a usable entry, referenced by the caller
 * @pc:		the PC
 * @rule:	the rule, on a hit; its @fres_read is 0
 *
 * Lockless: the slot is only read.  A slot that a writer is changing
 * gives a miss.  A hit counts as a lookup of @e (sframe_entry_lookups()).
 *
 * Context: Task context (the faultable walk).
 * Return: true on a hit.
 */
bool sframe_rcache_get(struct sframe_entry *e, unsigned long pc,
		       struct sframe_rule *rule)
{
	struct sframe_rcache_slot *s;
	struct sframe_rcache *rc;
	unsigned int seq;

	if (!READ_ONCE(sframe_rcache_on))
		return false;
	/* Pairs with the cmpxchg() publishing the initialized cache */
	rc = smp_load_acquire(&e->rcache);
	if (!rc)
		return false;
	s = sframe_rcache_slot(rc, pc);

	/* Pairs with the smp_store_release() ending a write */
	seq = smp_load_acquire(&s->seq);
	if ((seq & 1) || READ_ONCE(s->pc) != pc)
		return false;
	/* A racing writer is caught by the check of @seq below */
	*rule = data_race(s->rule);
	/* Pairs with the full barrier of the cmpxchg() starting a write */
	smp_rmb();
	if (READ_ONCE(s->seq) != seq)
		return false;

	/* A hit costs no reads */
	rule->fres_read = 0;
	this_cpu_inc(*rc->hits);
	return true;
}

/* A new, empty cache for @e, or the one another thread installed first */
static struct sframe_rcache *sframe_rcache_alloc(struct sframe_entry *e)
{
	struct sframe_rcache *rc, *old;

	rc = kzalloc_obj(*rc, GFP_KERNEL_ACCOUNT);
	if (!rc)
		return NULL;
	rc->hits = alloc_percpu_gfp(unsigned long, GFP_KERNEL_ACCOUNT);
	if (!rc->hits) {
		kfree(rc);
		return NULL;
	}
	old = cmpxchg(&e->rcache, NULL, rc);
	if (old) {
		sframe_rcache_free(rc);
		rc = old;
	}
	return rc;
}

/**
 * sframe_rcache_put() - remember the rule found for a PC
 * @e:		a usable entry, referenced by the caller
 * @pc:		the PC
 * @rule:	its rule
 *
 * The rule replaces whatever the PC's slot held, unless another thread is
 * writing the slot: then it is not stored.
 *
 * Context: Task context, may sleep (the cache is allocated at first use).
 */
void sframe_rcache_put(struct sframe_entry *e, unsigned long pc,
		       const struct sframe_rule *rule)
{
	struct sframe_rcache_slot *s;
	struct sframe_rcache *rc;
	unsigned int seq;

	if (!READ_ONCE(sframe_rcache_on))
		return;
	/* Pairs with the cmpxchg() in sframe_rcache_alloc() */
	rc = smp_load_acquire(&e->rcache);
	if (!rc) {
		rc = sframe_rcache_alloc(e);
		if (!rc)
			return;
	}
	s = sframe_rcache_slot(rc, pc);

	/*
	 * Take the slot: an odd count.  The cmpxchg() is a full barrier,
	 * so that readers see the odd count before any of the stores below
	 */
	seq = READ_ONCE(s->seq);
	if ((seq & 1) || !try_cmpxchg(&s->seq, &seq, seq + 1))
		return;
	WRITE_ONCE(s->pc, pc);
	s->rule = *rule;
	/* Pairs with the smp_load_acquire() in sframe_rcache_get() */
	smp_store_release(&s->seq, seq + 2);
}

/**
 * sframe_rcache_hits() - lookups of an entry answered by its rule cache
 * @e:		the entry
 *
 * The sum of the per-CPU counts, each read once: a hit that is counted
 * meanwhile may or may not be in it.
 *
 * Context: Any context but NMI.
 * Return: the number of hits.
 */
unsigned long sframe_rcache_hits(struct sframe_entry *e)
{
	/* Pairs with the cmpxchg() in sframe_rcache_alloc() */
	struct sframe_rcache *rc = smp_load_acquire(&e->rcache);
	unsigned long sum = 0;
	int cpu;

	if (!rc)
		return 0;
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(rc->hits, cpu));
	return sum;
}

/**
 * sframe_rcache_free() - free a rule cache
 * @rc:		the cache of an entry being freed, or NULL
 *
 * Context: Any context but NMI (an RCU callback of the entry).
 */
void sframe_rcache_free(struct sframe_rcache *rc)
{
	if (!rc)
		return;
	free_percpu(rc->hits);
	kfree(rc);
}
