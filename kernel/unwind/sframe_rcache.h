/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rule cache of an SFrame registry entry (sframe_rcache.c): its
 * layout, and the lookup, inline because every frame of a walk makes one.
 */
#ifndef _KERNEL_UNWIND_SFRAME_RCACHE_H
#define _KERNEL_UNWIND_SFRAME_RCACHE_H

#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/percpu.h>

#include "sframe_registry.h"

/*
 * Rule cache geometry: SETS x WAYS slots, chosen by replaying the PC
 * streams of real profiles through models of the cache: 8 sets of 8 ways
 * kept the misses of a demo workload, zstd and a chain spread over 100000
 * functions within 2 % of an unbounded cache, where 32 direct-mapped
 * slots missed 11 % to 62 % of the lookups.  A set's PCs fill one cache
 * line.
 */
#define SFRAME_RCACHE_SETS	8
#define SFRAME_RCACHE_WAYS	8

/**
 * struct sframe_rcache_slot - the rule of the PC of one way
 * @seq:	sequence count: odd while a writer changes the way's PC and
 *		its rule
 * @flags:	struct sframe_rule.flags of the rule
 * @cfa:	struct sframe_rule.cfa
 * @ra:		struct sframe_rule.ra
 * @fp:		struct sframe_rule.fp
 *
 * What the unwinder applies, and no more: 32 bytes.
 */
struct sframe_rcache_slot {
	unsigned int		seq;
	u8			flags;
	struct sframe_loc	cfa;
	struct sframe_loc	ra;
	struct sframe_loc	fp;
};

/**
 * struct sframe_rcache - the rules of recently unwound PCs of an entry
 * @pc:		the PC of each way of each set, searched by a lookup; 0 is
 *		an empty way
 * @slot:	the rule of each way
 * @next:	the way of each set that the next store replaces (FIFO)
 * @lookups:	lookups of the entry since it has the cache, hits and misses,
 *		per CPU (NMI counts them without an atomic on a shared line),
 *		see sframe_rcache_lookups()
 *
 * The set of a PC is a hash of the PC.  A store replaces the ways of a
 * set in turn: in the simulation, FIFO missed about as often as LRU,
 * which would write the set at every hit.
 */
struct sframe_rcache {
	unsigned long			pc[SFRAME_RCACHE_SETS][SFRAME_RCACHE_WAYS];
	struct sframe_rcache_slot	slot[SFRAME_RCACHE_SETS][SFRAME_RCACHE_WAYS];
	u8				next[SFRAME_RCACHE_SETS];
	unsigned long __percpu		*lookups;
};

/* Boot or module parameter sframe.rule_cache */
extern bool sframe_rcache_on;

static __always_inline unsigned int sframe_rcache_set(unsigned long pc)
{
	return hash_long(pc, ilog2(SFRAME_RCACHE_SETS));
}

/**
 * sframe_rcache_get() - the cached rule of a PC
 * @e:		a usable entry, referenced by the caller or under RCU
 * @pc:		the PC
 * @rule:	on a hit, its @cfa, @ra, @fp and @flags; @fres_read is 0
 *		(a hit reads nothing), the other fields are not set
 *
 * Lockless: the cache is only read.  A way that a writer is changing
 * gives a miss.  A hit counts as a lookup of @e (sframe_entry_lookups());
 * a hit counted in NMI may be lost where this_cpu_inc() is not NMI-safe.
 *
 * Context: Any context, including NMI.
 * Return: true on a hit.
 */
static __always_inline bool sframe_rcache_get(struct sframe_entry *e,
					      unsigned long pc,
					      struct sframe_rule *rule)
{
	struct sframe_rcache_slot *s, copy;
	struct sframe_rcache *rc;
	unsigned int set, way, seq;

	if (!READ_ONCE(sframe_rcache_on))
		return false;
	/* Pairs with the cmpxchg() publishing the initialized cache */
	rc = smp_load_acquire(&e->rcache);
	if (!rc)
		return false;
	set = sframe_rcache_set(pc);
	for (way = 0; way < SFRAME_RCACHE_WAYS; way++)
		if (READ_ONCE(rc->pc[set][way]) == pc)
			break;
	if (way == SFRAME_RCACHE_WAYS)
		return false;
	s = &rc->slot[set][way];

	/* Pairs with the smp_store_release() ending a write */
	seq = smp_load_acquire(&s->seq);
	if ((seq & 1) || READ_ONCE(rc->pc[set][way]) != pc)
		return false;
	/* A racing writer is caught by the check of @seq below */
	copy = data_race(*s);
	/* Pairs with the full barrier of the cmpxchg() starting a write */
	smp_rmb();
	if (READ_ONCE(s->seq) != seq)
		return false;

	rule->flags = copy.flags;
	rule->cfa = copy.cfa;
	rule->ra = copy.ra;
	rule->fp = copy.fp;

	rule->fres_read = 0;
	this_cpu_inc(*rc->lookups);
	return true;
}

/**
 * sframe_rcache_put() - remember the rule found for a PC
 * @e:		a usable entry, referenced by the caller or under RCU
 * @pc:		the PC
 * @rule:	its rule
 * @may_alloc:	allocate the cache if @e has none yet (may sleep); without
 *		it, a rule is only stored in an existing cache
 *
 * The rule replaces the oldest way of the PC's set, unless another thread
 * is writing that way: then it is not stored.
 *
 * Inline: with the cache off (sframe.rule_cache=0), as for every full
 * lookup of the benchmark, it is not even a call.
 *
 * Context: Task context, may sleep with @may_alloc; any context, including
 * NMI, without.
 * Return: false if the cache is on but @e has none (without @may_alloc,
 * or when the allocation failed), true otherwise.
 */
static __always_inline bool sframe_rcache_put(struct sframe_entry *e,
					      unsigned long pc,
					      const struct sframe_rule *rule,
					      bool may_alloc)
{
	if (!READ_ONCE(sframe_rcache_on))
		return true;
	return __sframe_rcache_put(e, pc, rule, may_alloc);
}

#endif /* _KERNEL_UNWIND_SFRAME_RCACHE_H */
