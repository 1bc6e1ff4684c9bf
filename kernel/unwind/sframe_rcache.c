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
 */

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "sframe_registry.h"

/* The parameter keeps the name it had: sframe.rule_cache */
#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "sframe."

/* Rule cache slots per entry: a power of two */
#define SFRAME_RCACHE_SLOTS	32

/**
 * struct sframe_rcache - the rules of recently unwound PCs of an entry
 * @lock:	serializes the faultable walks of the mm's threads
 * @slot:	direct mapped by a hash of the PC; @pc 0 is an empty slot
 */
struct sframe_rcache {
	spinlock_t lock;	/* protects @slot */
	struct {
		unsigned long		pc;
		struct sframe_rule	rule;
	} slot[SFRAME_RCACHE_SLOTS];
};

static bool sframe_rcache_on = true;
module_param_named(rule_cache, sframe_rcache_on, bool, 0644);
MODULE_PARM_DESC(rule_cache, "Cache the unwind rules of recently unwound PCs (default: on)");

static unsigned int sframe_rcache_slot(unsigned long pc)
{
	return hash_long(pc, ilog2(SFRAME_RCACHE_SLOTS));
}

/**
 * sframe_rcache_get() - the cached rule of a PC
 * @e:		a usable entry, referenced by the caller
 * @pc:		the PC
 * @rule:	the rule, on a hit; its @fres_read is 0
 *
 * Context: Task context (the faultable walk).
 * Return: true on a hit.
 */
bool sframe_rcache_get(struct sframe_entry *e, unsigned long pc,
		       struct sframe_rule *rule)
{
	/* Pairs with the cmpxchg() publishing the initialized cache */
	struct sframe_rcache *rc = smp_load_acquire(&e->rcache);
	unsigned int i = sframe_rcache_slot(pc);
	bool hit;

	if (!rc || !READ_ONCE(sframe_rcache_on))
		return false;
	spin_lock(&rc->lock);
	hit = rc->slot[i].pc == pc;
	if (hit)
		*rule = rc->slot[i].rule;
	spin_unlock(&rc->lock);
	/* A hit costs no reads */
	if (hit)
		rule->fres_read = 0;
	return hit;
}

/**
 * sframe_rcache_put() - remember the rule found for a PC
 * @e:		a usable entry, referenced by the caller
 * @pc:		the PC
 * @rule:	its rule
 *
 * Context: Task context, may sleep (the cache is allocated at first use).
 */
void sframe_rcache_put(struct sframe_entry *e, unsigned long pc,
		       const struct sframe_rule *rule)
{
	/* Pairs with the cmpxchg() below, as in sframe_rcache_get() */
	struct sframe_rcache *rc = smp_load_acquire(&e->rcache);
	unsigned int i = sframe_rcache_slot(pc);

	if (!READ_ONCE(sframe_rcache_on))
		return;
	if (!rc) {
		struct sframe_rcache *old;

		rc = kzalloc_obj(*rc, GFP_KERNEL_ACCOUNT);
		if (!rc)
			return;
		spin_lock_init(&rc->lock);
		old = cmpxchg(&e->rcache, NULL, rc);
		if (old) {
			kfree(rc);
			rc = old;
		}
	}
	spin_lock(&rc->lock);
	rc->slot[i].pc = pc;
	rc->slot[i].rule = *rule;
	spin_unlock(&rc->lock);
}
