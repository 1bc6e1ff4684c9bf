// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the SFrame reader (kernel/unwind/sframe_walk.c,
 * compiled unchanged against the harness shims): an input is a struct
 * fuzz_hdr (how to run it) followed by section bytes, which are mapped in
 * the simulated user address space.  sframe_section_init(),
 * sframe_validate() and sframe_find()/sframe_find_nofault() for several
 * PCs run on it, and their results are checked against the reader's
 * contract; a violation aborts:
 *
 *  - return values are 0 or the documented errors; -EBADMSG always comes
 *    with a reason, success and other errors with SFRAME_R_NONE;
 *  - -EFAULT only when a fault was injected or the memory is not present;
 *    with a fault injected, every result is the fault-free result or
 *    -EFAULT, never another error or another rule;
 *  - sframe_section_init() keeps every sub-section inside the section;
 *  - a rule has known location kinds and flags, a CFA based on a register
 *    unless outermost, and a function that contains the PC;
 *  - lookups are deterministic, and sframe_find_nofault() agrees with
 *    sframe_find() on present memory;
 *  - once sframe_validate() accepted the section, no lookup finds it
 *    corrupt;
 *  - the work of a lookup is bounded whatever the bytes: one user access
 *    window, closed again, and at most MAX_READS reads in it (32 binary
 *    search steps, 5 fields of the FDE, 4 of the attribute record, 2 per
 *    FRE up to SFRAME_FDE_MAX_FRES, 6 data words), and a rule never
 *    claims to have read more than SFRAME_FDE_MAX_FRES FREs.
 *
 * Build and run: devtools/fuzz.sh (or make -C tools/testing/sframe fuzz).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/errno.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <asm/tlb.h>

#include "sframe_kunit_builder.h"
#include "sframe_walk.h"
#include "uspace.h"
#include "fuzz/sframe_fuzz.h"

#define RULE_FLAGS	(SFRAME_RULE_OUTERMOST | SFRAME_RULE_SIGNAL |	\
			 SFRAME_RULE_MANGLED_RA | SFRAME_RULE_PAUTH_KEY_B |	\
			 SFRAME_RULE_FLEX | SFRAME_RULE_USUAL)

#define MAX_READS	(32 + 5 + 4 + 2 * SFRAME_FDE_MAX_FRES + 6)

struct result {
	int			ret;
	enum sframe_reason	why;
	struct sframe_rule	rule;
};

static void fail(const char *what, unsigned long pc, const struct result *r)
{
	char txt[SFB_RULE_LEN];

	fprintf(stderr, "INVARIANT VIOLATED: %s (pc %#lx): ret %d, reason %d (%s), rule %s\n",
		what, pc, r->ret, r->why, sframe_reason_str(r->why),
		r->ret ? "-" : sfb_rulefmt(&r->rule, txt, sizeof(txt)));
	abort();
}

/* Error contract shared by every entry point */
static void check_ret(const char *fn, unsigned long pc, const struct result *r,
		      bool may_fault, bool may_inval)
{
	switch (r->ret) {
	case 0:
	case -ENOENT:
		if (r->why != SFRAME_R_NONE)
			fail("reason set without -EBADMSG", pc, r);
		break;
	case -EBADMSG:
		if (r->why == SFRAME_R_NONE || r->why >= SFRAME_NR_REASONS)
			fail("-EBADMSG without a valid reason", pc, r);
		break;
	case -EFAULT:
		if (!may_fault)
			fail("-EFAULT without a fault", pc, r);
		if (r->why != SFRAME_R_NONE)
			fail("-EFAULT with a reason", pc, r);
		break;
	case -EINVAL:
		if (!may_inval)
			fail("unexpected -EINVAL", pc, r);
		break;
	default:
		fprintf(stderr, "%s: ", fn);
		fail("unknown return value", pc, r);
	}
}

static bool loc_ok(const struct sframe_loc *l)
{
	return l->kind <= SFRAME_LOC_REG_DEREF;
}

static void check_rule(unsigned long pc, const struct result *r)
{
	const struct sframe_rule *rule = &r->rule;

	if (r->ret)
		return;
	if (!loc_ok(&rule->cfa) || !loc_ok(&rule->ra) || !loc_ok(&rule->fp))
		fail("unknown location kind", pc, r);
	if (rule->flags & ~RULE_FLAGS)
		fail("unknown rule flag", pc, r);
	if (!(rule->flags & SFRAME_RULE_USUAL) != !sfb_rule_usual(rule))
		fail("usual flag wrong", pc, r);
	if (!(rule->flags & SFRAME_RULE_OUTERMOST) &&
	    rule->cfa.kind != SFRAME_LOC_REG &&
	    rule->cfa.kind != SFRAME_LOC_REG_DEREF)
		fail("CFA not based on a register", pc, r);
	if (pc < rule->func_start || pc - rule->func_start >= rule->func_size)
		fail("function does not contain the PC", pc, r);
}

static bool same(const struct result *a, const struct result *b)
{
	if (a->ret != b->ret || a->why != b->why)
		return false;
	return a->ret || !memcmp(&a->rule, &b->rule, sizeof(a->rule));
}

static void find(const struct sframe_section *sec, unsigned long pc,
		 bool nofault, struct result *r)
{
	unsigned long calls = uspace_stats.calls, gets = uspace_stats.gets;

	memset(r, 0, sizeof(*r));
	/* Fields the reader must set: poison them */
	memset(&r->rule, 0xa5, sizeof(r->rule));
	r->why = (enum sframe_reason)-1;
	if (nofault)
		r->ret = sframe_find_nofault(sec, pc, &r->rule, &r->why);
	else
		r->ret = sframe_find(sec, pc, &r->rule, &r->why);
	if (uspace_stats.calls - calls > 1)
		fail("more than one user access window for one lookup", pc, r);
	if (uspace_window_open())
		fail("user access window left open", pc, r);
	if (uspace_stats.gets - gets > MAX_READS)
		fail("too many reads for one lookup", pc, r);
	if (r->rule.fres_read > SFRAME_FDE_MAX_FRES)
		fail("lookup read more FREs than the limit", pc, r);
	if (r->ret)
		memset(&r->rule, 0, sizeof(r->rule));
}

/* Map the section as the mode says; @fault: inject the fault range */
static void map(const struct fuzz_hdr *h, const u8 *data, size_t len,
		bool fault)
{
	uspace_reset();
	if (h->mode & FUZZ_M_LAZY)
		uspace_map_lazy(FUZZ_SEC_BASE, data, len);
	else
		uspace_map(FUZZ_SEC_BASE, data, len);
	if (fault)
		uspace_fault_range(FUZZ_SEC_BASE + h->fault_off,
				   FUZZ_SEC_BASE + h->fault_off + h->fault_len);
}

/* The libFuzzer entry point: its symbol is LLVMFuzzerTestOneInput */
int sframe_fuzz_one_input(const u8 *in, size_t size)
	__asm__("LLVMFuzzerTestOneInput");

int sframe_fuzz_one_input(const u8 *in, size_t size)
{
	struct result init, init_f, val, val_f, ref[FUZZ_NPCS], a, b;
	struct sframe_section sec, sec_f;
	unsigned long pcs[FUZZ_NPCS];
	bool fault, lazy, valid;
	struct fuzz_hdr h;
	const u8 *data;
	size_t len;
	unsigned int i;

	if (size < sizeof(h))
		return -1;
	memcpy(&h, in, sizeof(h));
	data = in + sizeof(h);
	len = size - sizeof(h);
	if (!len)
		return -1;
	fault = h.mode & FUZZ_M_FAULT;
	lazy = h.mode & FUZZ_M_LAZY;

	memset(&sec, 0, sizeof(sec));
	sec.sframe_start = FUZZ_SEC_BASE;
	sec.sframe_end = FUZZ_SEC_BASE + len;
	sec.text_start = FUZZ_SEC_BASE + (unsigned long)h.text_rel;
	sec.text_end = sec.text_start + (h.text_size ? h.text_size : 1);
	for (i = 0; i < FUZZ_NPCS; i++) {
		unsigned long off = h.pc[i];

		if (!(h.mode & FUZZ_M_TEXT_RAW))
			off %= sec.text_end - sec.text_start;
		pcs[i] = sec.text_start + off;
	}
	sec_f = sec;

	/* Reference: no fault injected, memory present */
	map(&h, data, len, false);
	memset(&init, 0, sizeof(init));
	init.ret = sframe_section_init(&sec, &init.why);
	check_ret("init", 0, &init, false, true);
	if (init.ret == -EINVAL &&
	    sec.text_start < sec.text_end)
		fail("-EINVAL for a valid range", 0, &init);
	if (init.ret)
		goto faulted;

	if (sec.fdes_start < sec.sframe_start ||
	    sec.fdes_start + (unsigned long)sec.num_fdes * sec.fde_size > sec.fres_start ||
	    sec.fres_start > sec.fres_end || sec.fres_end > sec.sframe_end ||
	    (sec.version != SFRAME_VERSION_2 && sec.version != SFRAME_VERSION_3))
		fail("section layout outside the section", 0, &init);

	memset(&val, 0, sizeof(val));
	val.ret = sframe_validate(&sec, &val.why);
	check_ret("validate", 0, &val, false, false);
	if (val.ret == -ENOENT)
		fail("validate returned -ENOENT", 0, &val);
	valid = !val.ret;

	for (i = 0; i < FUZZ_NPCS; i++) {
		find(&sec, pcs[i], false, &a);
		ref[i] = a;
		check_ret("find", pcs[i], &a, false, false);
		check_rule(pcs[i], &a);
		if (valid && a.ret == -EBADMSG)
			fail("lookup finds a validated section corrupt", pcs[i], &a);
		find(&sec, pcs[i], false, &b);
		if (!same(&a, &b))
			fail("lookup not deterministic", pcs[i], &b);
		find(&sec, pcs[i], true, &b);
		check_ret("find_nofault", pcs[i], &b, lazy, false);
		if (b.ret == -EFAULT && lazy)
			continue;
		if (!same(&a, &b))
			fail("find_nofault differs from find", pcs[i], &b);
	}
	if (sim_pagefault_depth)
		fail("pagefault_disable() not balanced", 0, &val);

faulted:
	if (!fault)
		return 0;

	/* The same with a fault: the same results, or -EFAULT */
	map(&h, data, len, true);
	memset(&init_f, 0, sizeof(init_f));
	init_f.ret = sframe_section_init(&sec_f, &init_f.why);
	check_ret("init (fault)", 0, &init_f, true, true);
	if (init_f.ret == -EFAULT)
		return 0;
	if (!same(&init, &init_f))
		fail("init result changed by a fault", 0, &init_f);
	if (init.ret)
		return 0;

	memset(&val_f, 0, sizeof(val_f));
	val_f.ret = sframe_validate(&sec_f, &val_f.why);
	check_ret("validate (fault)", 0, &val_f, true, false);
	if (val_f.ret != -EFAULT && !same(&val, &val_f))
		fail("validate result changed by a fault", 0, &val_f);

	for (i = 0; i < FUZZ_NPCS; i++) {
		find(&sec_f, pcs[i], false, &b);
		check_ret("find (fault)", pcs[i], &b, true, false);
		if (b.ret != -EFAULT && !same(&ref[i], &b))
			fail("lookup result changed by a fault", pcs[i], &b);
	}
	return 0;
}
