/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated task of unwind_test: its registers and flags (current),
 * the SFrame registry that kernel/unwind/user.c asks through
 * <linux/sframe.h>, the executable text ranges, and counters of what the
 * unwinder did.  User memory is ../uspace.c's.
 */
#ifndef _SFRAME_UNWIND_SIM_H
#define _SFRAME_UNWIND_SIM_H

#include <linux/types.h>

#include "sframe_kunit_builder.h"
#include "sframe_walk.h"

#define SIM_MAX_ENTRIES	8
#define SIM_MAX_TEXT	8
#define SIM_MAX_PCS	64
#define SIM_SEC_SIZE	8192

/* Counters of sim.c's hooks, reset by sim_counts_reset() */
struct sim_counts {
	unsigned long	find;		/* sframe_user_find(), faultable */
	unsigned long	find_nofault;	/* sframe_user_find(), nofault */
	/* nofault without page faults disabled, or faultable with them */
	unsigned long	bad_context;
	unsigned long	gets;		/* entries taken into the cache */
	unsigned long	puts;		/* entries released from it */
	unsigned long	text;		/* sframe_user_text() */
	unsigned long	text_nofault;	/* the same, with nofault */
	unsigned int	nr_pcs;		/* PCs asked to sframe_user_find() */
	unsigned long	pcs[SIM_MAX_PCS];
};

extern struct sim_counts sim_counts;
extern bool sim_sframe_enabled;		/* the sysctl kernel.sframe_unwind */
extern unsigned long sim_get_user_calls;
extern unsigned long sim_warnings;

/* Forget everything: memory, registry, text, counters; a 64-bit task */
void sim_reset(void);

/* Zero the counters: sim_counts, uspace_stats, calls to cond_resched() */
void sim_counts_reset(void);

/*
 * Register a section built from @desc, mapped at @sframe_addr (resident,
 * or not present for page-fault-disabled reads if !@resident), for the
 * text [@text_start, @text_end).  Rules are looked up in it by the real
 * reader, kernel/unwind/sframe_walk.c.  Exits on a bad description.
 */
void sim_sframe_add(unsigned long text_start, unsigned long text_end,
		    unsigned long sframe_addr, const struct sfb_sec *desc,
		    bool resident);

/* Register [@start, @end) with the same @rule for every PC in it */
void sim_sframe_add_rule(unsigned long start, unsigned long end,
			 const struct sframe_rule *rule);

/* Executable text without SFrame (JIT code, a library without .sframe) */
void sim_text_add(unsigned long start, unsigned long end);

/* Entries still referenced by a walk's cache */
unsigned int sim_sframe_refs(void);

#endif
