// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated task and its SFrame registry, for kernel/unwind/user.c.
 *
 * The registry stands in for kernel/unwind/sframe.c and keeps to the
 * contract of its kernel-doc: sframe_user_find() sets rule->fres_read
 * on every return (the rest of the rule is poisoned on failure),
 * returns -ENOENT for a PC without a section, and otherwise the result of
 * the real reader (sframe_find(), or sframe_find_nofault() for nofault
 * walks, which must run with page faults disabled); the faultable lookup
 * keeps the entry in the walk's cache until sframe_user_release().
 * sframe_user_text() vouches for registered text; for other addresses it
 * says what the registry can say without the mmap_lock: unknown, taken
 * (nofault), or not executable (faultable).
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/sched.h>
#include <linux/sframe.h>
#include <linux/uaccess.h>

#include "sim.h"
#include "uspace.h"

struct sframe_entry {
	unsigned long		start;
	unsigned long		end;
	bool			fixed;		/* @rule for every PC */
	struct sframe_rule	rule;
	struct sframe_section	sec;
	unsigned int		refs;
	u8			buf[SIM_SEC_SIZE];
};

static struct sframe_entry entries[SIM_MAX_ENTRIES];
static unsigned int nr_entries;
static struct { unsigned long start, end; } text[SIM_MAX_TEXT];
static unsigned int nr_text;

struct task_struct sim_task;
struct sim_counts sim_counts;
bool sim_sframe_enabled;
bool sim_uprobe_at_func_entry;
unsigned long sim_uretprobe_tramp;
unsigned long sim_get_user_calls;
unsigned long sim_warnings;

void sim_counts_reset(void)
{
	memset(&sim_counts, 0, sizeof(sim_counts));
	memset(&uspace_stats, 0, sizeof(uspace_stats));
	sim_cond_resched_calls = 0;
	sim_get_user_calls = 0;
}

void sim_reset(void)
{
	uspace_reset();
	memset(entries, 0, sizeof(entries));
	nr_entries = 0;
	nr_text = 0;
	memset(&sim_task, 0, sizeof(sim_task));
	sim_task.regs.cs = __USER_CS;
	memset(&sim_counts, 0, sizeof(sim_counts));
	sim_sframe_enabled = true;
	sim_uprobe_at_func_entry = false;
	sim_uretprobe_tramp = 0;
	sim_get_user_calls = 0;
	sim_warnings = 0;
}

static struct sframe_entry *sim_entry_new(unsigned long start,
					  unsigned long end)
{
	struct sframe_entry *e;

	if (nr_entries == SIM_MAX_ENTRIES || start >= end) {
		fprintf(stderr, "sim: bad or too many registry entries\n");
		exit(2);
	}
	e = &entries[nr_entries++];
	e->start = start;
	e->end = end;
	return e;
}

void sim_sframe_add(unsigned long text_start, unsigned long text_end,
		    unsigned long sframe_addr, const struct sfb_sec *desc,
		    bool resident)
{
	struct sframe_entry *e = sim_entry_new(text_start, text_end);
	enum sframe_reason reason;
	struct sfb_layout lay;
	size_t len;

	len = sfb_build(desc, sframe_addr, e->buf, sizeof(e->buf), &lay);
	if (!len) {
		fprintf(stderr, "sim: section does not fit\n");
		exit(2);
	}
	if (resident)
		uspace_map(sframe_addr, e->buf, len);
	else
		uspace_map_lazy(sframe_addr, e->buf, len);
	e->sec.sframe_start = sframe_addr;
	e->sec.sframe_end = sframe_addr + len;
	e->sec.text_start = text_start;
	e->sec.text_end = text_end;
	if (sframe_section_init(&e->sec, &reason) ||
	    sframe_validate(&e->sec, &reason)) {
		fprintf(stderr, "sim: bad section: %s\n",
			sframe_reason_str(reason));
		exit(2);
	}
}

void sim_sframe_add_rule(unsigned long start, unsigned long end,
			 const struct sframe_rule *rule)
{
	struct sframe_entry *e = sim_entry_new(start, end);

	e->fixed = true;
	e->rule = *rule;
	e->rule.fres_read = 0;
}

void sim_text_add(unsigned long start, unsigned long end)
{
	if (nr_text == SIM_MAX_TEXT) {
		fprintf(stderr, "sim: too many text ranges\n");
		exit(2);
	}
	text[nr_text].start = start;
	text[nr_text].end = end;
	nr_text++;
}

unsigned int sim_sframe_refs(void)
{
	unsigned int i, refs = 0;

	for (i = 0; i < nr_entries; i++)
		refs += entries[i].refs;
	return refs;
}

static struct sframe_entry *sim_entry_find(unsigned long pc)
{
	unsigned int i;

	for (i = 0; i < nr_entries; i++) {
		if (pc >= entries[i].start && pc < entries[i].end)
			return &entries[i];
	}
	return NULL;
}

static int sim_lookup(struct sframe_entry *e, unsigned long pc,
		      struct sframe_rule *rule, bool nofault)
{
	if (e->fixed) {
		*rule = e->rule;
		return 0;
	}
	if (nofault)
		return sframe_find_nofault(&e->sec, pc, rule, NULL);
	return sframe_find(&e->sec, pc, rule, NULL);
}

int sframe_user_find(unsigned long pc, struct sframe_rule *rule,
		     struct sframe_entry **cache, bool nofault)
{
	struct sframe_entry *e;

	/* Only fres_read is meaningful after a failure */
	memset(rule, 0xa5, sizeof(*rule));
	rule->fres_read = 0;
	if (sim_counts.nr_pcs < SIM_MAX_PCS)
		sim_counts.pcs[sim_counts.nr_pcs++] = pc;
	if (nofault) {
		sim_counts.find_nofault++;
		if (!pagefault_disabled())
			sim_counts.bad_context++;
		e = sim_entry_find(pc);
		if (!e)
			return -ENOENT;
		return sim_lookup(e, pc, rule, true);
	}

	sim_counts.find++;
	if (pagefault_disabled())
		sim_counts.bad_context++;
	e = *cache;
	if (!e || pc < e->start || pc >= e->end) {
		sframe_user_release(cache);
		e = sim_entry_find(pc);
		if (!e)
			return -ENOENT;
		e->refs++;
		sim_counts.gets++;
		*cache = e;
	}
	return sim_lookup(e, pc, rule, false);
}

void sframe_user_release(struct sframe_entry **cache)
{
	if (*cache) {
		(*cache)->refs--;
		sim_counts.puts++;
	}
	*cache = NULL;
}

bool sframe_unwind_enabled(void)
{
	return sim_sframe_enabled;
}

bool sframe_user_text(unsigned long ip, bool nofault)
{
	unsigned int i;

	if (nofault) {
		sim_counts.text_nofault++;
		if (!pagefault_disabled())
			sim_counts.bad_context++;
	} else {
		sim_counts.text++;
	}
	if (sim_entry_find(ip))
		return true;
	for (i = 0; i < nr_text; i++) {
		if (ip >= text[i].start && ip < text[i].end)
			return true;
	}
	/* Without the mmap_lock, an unknown address is taken */
	return nofault;
}
