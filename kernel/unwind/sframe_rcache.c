// SPDX-License-Identifier: GPL-2.0
/*
 * The rule cache of an SFrame registry entry.
 *
 * Profilers unwind the same hot stacks over and over, so the rules of
 * recently unwound PCs are kept in a small set-associative cache per
 * entry (struct sframe_rcache), allocated by the first faultable lookup
 * and read by both paths: at the return to user space and in the event
 * (NMI or IRQ, where a rule found in resident pages is stored too).  The
 * cache lives and dies with its entry: an entry's section does not move,
 * and a new mapping at the same address is a new entry.  A section that
 * user space rewrites in place may give stale rules until it is mapped
 * or registered anew, no worse than a section that lies.  Boot or module
 * parameter sframe.rule_cache=0 switches it off.
 *
 * Every thread of a process that unwinds through the same library reads
 * the same cache, so a hit writes nothing shared: each way is guarded by
 * a sequence count, which a reader only reads, and a hit is counted in a
 * per-CPU counter.  A writer takes a way by making its count odd with
 * cmpxchg() and leaves it alone if another writer has it: the way is a
 * cache, and the next miss stores the rule again.  A reader that sees an
 * odd count, or a count that changed while it copied the rule, misses:
 * it never returns a rule that is half of one PC and half of another.
 * Nothing here sleeps or spins, so an NMI that interrupts a writer on the
 * same CPU finds the way taken and goes on.
 */

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "sframe_rcache.h"

/* The parameter keeps the name it had: sframe.rule_cache */
#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "sframe."

bool sframe_rcache_on = true;
module_param_named(rule_cache, sframe_rcache_on, bool, 0644);
MODULE_PARM_DESC(rule_cache, "Cache the unwind rules of recently unwound PCs (default: on)");

/* A new, empty cache for @e, or the one another thread installed first */
static struct sframe_rcache *sframe_rcache_alloc(struct sframe_entry *e)
{
	struct sframe_rcache *rc, *old;

	rc = kzalloc_obj(*rc, GFP_KERNEL_ACCOUNT);
	if (!rc)
		return NULL;
	rc->lookups = alloc_percpu_gfp(unsigned long, GFP_KERNEL_ACCOUNT);
	if (!rc->lookups) {
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

/* sframe_rcache_put() with the rule cache on */
bool __sframe_rcache_put(struct sframe_entry *e, unsigned long pc,
			 const struct sframe_rule *rule, bool may_alloc)
{
	struct sframe_rcache_slot *s;
	struct sframe_rcache *rc;
	unsigned int set, way, seq;

	/* Pairs with the cmpxchg() in sframe_rcache_alloc() */
	rc = smp_load_acquire(&e->rcache);
	if (!rc) {
		if (!may_alloc)
			return false;
		rc = sframe_rcache_alloc(e);
		if (!rc)
			return false;
	}
	set = sframe_rcache_set(pc);
	/* Writers that race here may pick the same way: one of them stores */
	way = READ_ONCE(rc->next[set]) % SFRAME_RCACHE_WAYS;
	WRITE_ONCE(rc->next[set], way + 1);
	s = &rc->slot[set][way];

	/*
	 * Take the way: an odd count.  The cmpxchg() is a full barrier, so
	 * that readers see the odd count before any of the stores below
	 */
	seq = READ_ONCE(s->seq);
	if ((seq & 1) || !try_cmpxchg(&s->seq, &seq, seq + 1))
		return true;
	WRITE_ONCE(rc->pc[set][way], pc);
	s->flags = rule->flags;
	s->cfa = rule->cfa;
	s->ra = rule->ra;
	s->fp = rule->fp;
	/* Pairs with the smp_load_acquire() in sframe_rcache_get() */
	smp_store_release(&s->seq, seq + 2);
	return true;
}

/**
 * sframe_rcache_count() - count a lookup that the rule cache did not answer
 * @e:		the entry
 *
 * Per CPU once @e has a cache, so that a walk in NMI makes no atomic
 * write to a line that the other threads of the mm write too; in @e
 * before.  Not inline: the lookup that follows reads the section.
 *
 * Context: Any context, NMI included.
 */
void sframe_rcache_count(struct sframe_entry *e)
{
	/* Pairs with the cmpxchg() in sframe_rcache_alloc() */
	struct sframe_rcache *rc = smp_load_acquire(&e->rcache);

	if (likely(rc))
		this_cpu_inc(*rc->lookups);
	else
		atomic_long_inc(&e->lookups);
}

/**
 * sframe_rcache_lookups() - lookups of an entry since it has a rule cache
 * @e:		the entry
 *
 * The sum of the per-CPU counts, each read once: a hit that is counted
 * meanwhile may or may not be in it.
 *
 * Context: Any context but NMI.
 * Return: the number of lookups, hits of the cache and the others.
 */
unsigned long sframe_rcache_lookups(struct sframe_entry *e)
{
	/* Pairs with the cmpxchg() in sframe_rcache_alloc() */
	struct sframe_rcache *rc = smp_load_acquire(&e->rcache);
	unsigned long sum = 0;
	int cpu;

	if (!rc)
		return 0;
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(rc->lookups, cpu));
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
	free_percpu(rc->lookups);
	kfree(rc);
}
