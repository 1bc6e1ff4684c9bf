// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the user stack unwinder's frame loop, kernel/unwind/user.c,
 * compiled unchanged in user space (as tools/testing/vma does for mm/):
 *
 *   kernel/unwind/user.c			the code under test (copied from
 *						KSRC, see the Makefile)
 *   arch/x86/kernel/unwind_user_sframe.c	the x86-64 hooks: registers of
 *						the topmost frame, rt_sigreturn
 *   kernel/unwind/sframe_walk.c		the real SFrame reader
 *   ../uspace.c				simulated user memory, with
 *						counters of every read
 *   sim.c					current, and a fake per-mm
 *						registry serving rules from
 *						sections built with
 *						sframe_kunit_builder.h
 *
 * Each test builds a stack in simulated memory for a small synthetic
 * program (one SFrame section over the text at TEXT, a library without
 * SFrame at LIB, a function whose rule keeps the return address in a
 * register at LEAF) and asserts the exact chain of IPs that unwind_user()
 * or unwind_user_nofault() returns, and what the unwinder asked for on
 * the way (lookups, reads, cond_resched()).
 *
 *	unwind_test [TEST...]	only the tests named
 *
 * Output: one TAP line per test, then "N passed, N failed"; the exit
 * status is non-zero if a test failed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/array_size.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sframe.h>
#include <linux/uaccess.h>
#include <linux/unwind_user.h>
#include <linux/uprobes.h>
#include <asm/sigframe.h>

#define SFB_SHORT_NAMES
#include "sframe_kunit_builder.h"
#include "sim.h"
#include "uspace.h"

/* The synthetic program */
#define TEXT		0x400000UL
#define TEXT_END	(TEXT + 0x20000)
#define SEC_ADDR	0x600000UL
#define F_START		(TEXT + 0x1000)	/* outermost: no FRE (V3) */
#define F_MAIN		(TEXT + 0x2000)	/* push %rbp; mov %rsp,%rbp */
#define F_A		(TEXT + 0x3000)	/* sub $24,%rsp: no frame pointer */
#define F_B		(TEXT + 0x4000)	/* push; ends with a call */
#define F_B_SIZE	0x40
#define F_REG		(TEXT + 0x5000)	/* CFA = %rbx + 16 (flex FDE) */
#define F_SIG		(TEXT + 0x6000)	/* sa_restorer without FDE */
#define F_SIG2		(TEXT + 0x6100)	/* sa_restorer with a signal FDE */
#define F_Z		(TEXT + 0x7000)	/* CFA = SP: does not move up */
#define F_U		(TEXT + 0x7100)	/* CFA = SP + 12: misaligned */
#define F_DRAP		(TEXT + 0x7200)	/* CFA = %r10 (flex FDE) */
#define F_BIG		(TEXT + 0x10000) /* BIG_FRES FREs, 2 bytes apart */
#define BIG_FRES	1000
#define BIG_SIZE	0x1000

#define RA_MAIN		(F_MAIN + 0x20)	/* in main's body: CFA = FP + 16 */
#define RA_START	(F_START + 0x10)

#define LEAF		0x500000UL	/* CFA = SP + 16, RA in a register */
#define LEAF_END	(LEAF + 0x1000)
#define LEAF0		0x510000UL	/* CFA = SP, RA in a register */
#define LEAF0_END	(LEAF0 + 0x1000)
#define LIB		0x7f0000000000UL /* text without SFrame */
#define LIB_END		(LIB + 0x10000)

#define STACK		0x7ffe00000000UL
#define STACK_SIZE	0x2000
#define SP0		(STACK + 0x400)
#define FP_MAIN		(SP0 + 0x100)

/* A compat (32-bit) task */
#define CSTACK		0xff0000UL
#define CTEXT		0x08048000UL

#define MAX_CHAIN	64

static u8 stack_mem[STACK_SIZE];
static u8 cstack_mem[0x1000];
static struct sfb_fre big_fres[BIG_FRES];

/* mov $15,%rax; syscall */
static const u8 rt_sigreturn_code[] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05,
};

static bool test_failed;

/* UNWIND_USER_FP_EXACT_SP of the harness (harness_config.h) */
bool sim_fp_inexact_sp;
/* UNWIND_USER_FP_BACKCHAIN of the harness (harness_config.h) */
bool sim_fp_backchain;
/* How far the CFA is above the caller's SP (harness_config.h) */
unsigned long sim_caller_sp_off;

static void fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("    # %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	test_failed = true;
}

#define CHECK(cond) do {						\
	if (!(cond))							\
		fail(__FILE__, __LINE__, "%s", #cond);			\
} while (0)

#define CHECK_EQ(a, b) do {						\
	unsigned long __a = (a), __b = (b);				\
									\
	if (__a != __b)							\
		fail(__FILE__, __LINE__, "%s == %#lx, expected %s == %#lx", \
		     #a, __a, #b, __b);					\
} while (0)

static void print_chain(const char *what, const unsigned long *ips,
			unsigned int n)
{
	unsigned int i;

	printf("    #   %s:", what);
	for (i = 0; i < n; i++)
		printf(" %#lx", ips[i]);
	printf("\n");
}

static void check_chain(const char *file, int line, const char *what,
			const unsigned long *got, unsigned int n,
			const unsigned long *want, unsigned int m)
{
	if (n == m && !memcmp(got, want, n * sizeof(*got)))
		return;
	fail(file, line, "%s: wrong chain", what);
	print_chain("got ", got, n);
	print_chain("want", want, m);
}

#define CHECK_CHAIN(what, got, n, ...) do {				\
	const unsigned long __want[] = { __VA_ARGS__ };			\
									\
	check_chain(__FILE__, __LINE__, what, got, n, __want,		\
		    ARRAY_SIZE(__want));				\
} while (0)

#define CHECK_PCS(...) do {						\
	const unsigned long __want[] = { __VA_ARGS__ };			\
									\
	check_chain(__FILE__, __LINE__, "PCs looked up", sim_counts.pcs, \
		    sim_counts.nr_pcs, __want, ARRAY_SIZE(__want));	\
} while (0)

/* --- The program and its stacks --- */

static void put64(unsigned long addr, u64 val)
{
	if (addr < STACK || addr + 8 > STACK + STACK_SIZE) {
		fprintf(stderr, "%s: %#lx outside the stack\n", __func__, addr);
		exit(2);
	}
	memcpy(stack_mem + (addr - STACK), &val, sizeof(val));
}

static void put32(unsigned long addr, u32 val)
{
	if (addr < CSTACK || addr + 4 > CSTACK + sizeof(cstack_mem)) {
		fprintf(stderr, "%s: %#lx outside the stack\n", __func__, addr);
		exit(2);
	}
	memcpy(cstack_mem + (addr - CSTACK), &val, sizeof(val));
}

/*
 * Reset the simulation and set up the program: its SFrame section
 * (resident or not), stack, library, signal trampolines and LEAF's rule.
 */
static void prog_setup(bool resident)
{
	static const struct sfb_fre main_fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 1, FRE_INFO(SP, 2, W1), { 16, -16 } },
		{ 4, FRE_INFO(FP, 2, W1), { 16, -16 } },
	};
	static const struct sfb_fre a_fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 4, FRE_INFO(SP, 1, W1), { 32 } },
	};
	static const struct sfb_fre b_fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
		{ 1, FRE_INFO(SP, 1, W1), { 16 } },
	};
	static const struct sfb_fre reg_fres[] = {
		{ 0, FRE_INFO(SP, 2, W1), { CTRL(3, 0, 1), 16 } },
	};
	static const struct sfb_fre drap_fres[] = {
		{ 0, FRE_INFO(SP, 2, W1), { CTRL(10, 0, 1), 0 } },
	};
	static const struct sfb_fre sig_fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 8 } },
	};
	static const struct sfb_fre z_fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 0 } },
	};
	static const struct sfb_fre u_fres[] = {
		{ 0, FRE_INFO(SP, 1, W1), { 12 } },
	};
	const u8 a1 = FDE_INFO(A1, INC);
	const struct sfb_fde fdes[] = {
		{ F_START, 0x40, a1, 0, 0, 0, NULL },
		{ F_MAIN, 0x100, a1, 0, 0, ARRAY_SIZE(main_fres), main_fres },
		{ F_A, 0x80, a1, 0, 0, ARRAY_SIZE(a_fres), a_fres },
		{ F_B, F_B_SIZE, a1, 0, 0, ARRAY_SIZE(b_fres), b_fres },
		{ F_REG, 0x40, a1, FLEX, 0, ARRAY_SIZE(reg_fres), reg_fres },
		/* as in libc, the FDE starts one byte before the restorer */
		{ F_SIG2 - 1, 0x10, a1 | FDE_SIGNAL, 0, 0, ARRAY_SIZE(sig_fres),
		  sig_fres },
		{ F_Z, 0x40, a1, 0, 0, ARRAY_SIZE(z_fres), z_fres },
		{ F_U, 0x40, a1, 0, 0, ARRAY_SIZE(u_fres), u_fres },
		{ F_DRAP, 0x40, a1, FLEX, 0, ARRAY_SIZE(drap_fres),
		  drap_fres },
		{ F_BIG, BIG_SIZE, FDE_INFO(A2, INC), 0, 0, BIG_FRES,
		  big_fres },
	};
	const struct sfb_sec sec = {
		V3, SORTED, AMD64, 0, -8, 0, ARRAY_SIZE(fdes), fdes
	};
	/* LEAF: CFA = SP + 16, the return address still in its register */
	const struct sframe_rule leaf_rule = {
		.cfa = { SFRAME_LOC_REG, UNWIND_USER_SFRAME_SP_REG, 16 },
		.ra = { SFRAME_LOC_SAME, 0, 0 },
		.fp = { SFRAME_LOC_SAME, 0, 0 },
	};
	/* LEAF0: an arm64 leaf, which pushes nothing: CFA = SP */
	const struct sframe_rule leaf0_rule = {
		.cfa = { SFRAME_LOC_REG, UNWIND_USER_SFRAME_SP_REG, 0 },
		.ra = { SFRAME_LOC_SAME, 0, 0 },
		.fp = { SFRAME_LOC_SAME, 0, 0 },
	};
	unsigned int i;

	for (i = 0; i < BIG_FRES; i++)
		big_fres[i] = (struct sfb_fre){ 2 * i, FRE_INFO(SP, 1, W1),
						{ 32 } };

	sim_reset();
	sim_sframe_add(TEXT, TEXT_END, SEC_ADDR, &sec, resident);
	sim_sframe_add_rule(LEAF, LEAF_END, &leaf_rule);
	sim_sframe_add_rule(LEAF0, LEAF0_END, &leaf0_rule);
	sim_fp_inexact_sp = false;
	sim_fp_backchain = false;
	sim_caller_sp_off = 0;
	sim_text_add(LIB, LIB_END);
	sim_text_add(CTEXT, CTEXT + 0x1000);
	memset(stack_mem, 0, sizeof(stack_mem));
	uspace_map(STACK, stack_mem, sizeof(stack_mem));
	memset(cstack_mem, 0, sizeof(cstack_mem));
	uspace_map(CSTACK, cstack_mem, sizeof(cstack_mem));
	uspace_map(F_SIG, rt_sigreturn_code, sizeof(rt_sigreturn_code));
	uspace_map(F_SIG2, rt_sigreturn_code, sizeof(rt_sigreturn_code));
}

static void set_regs(unsigned long ip, unsigned long sp, unsigned long bp)
{
	sim_task.regs.ip = ip;
	sim_task.regs.sp = sp;
	sim_task.regs.bp = bp;
}

/* main's frame at @fp: called from _start, frame pointer chain ends */
static void main_frame(unsigned long fp)
{
	put64(fp, 0);
	put64(fp + 8, RA_START);
}

/*
 * A (SP0) called from B, which called A as its last instruction, B
 * called from main (frame pointer FP_MAIN), main from _start.
 */
static void stack_sframe(void)
{
	set_regs(F_A + 0x10, SP0, FP_MAIN);
	put64(SP0 + 24, F_B + F_B_SIZE);	/* A: CFA = SP + 32 */
	put64(SP0 + 32 + 8, RA_MAIN);		/* B: CFA = SP + 16 */
	main_frame(FP_MAIN);
}

#define FP_LIB		(SP0 + 0x80)
#define RA_LIB		(LIB + 0x123)

/* A called from a library function without SFrame, called from main */
static void stack_lib(void)
{
	set_regs(F_A + 0x10, SP0, FP_LIB);
	put64(SP0 + 24, RA_LIB);
	put64(FP_LIB, FP_MAIN);
	put64(FP_LIB + 8, RA_MAIN);
	main_frame(FP_MAIN);
}

/* The faultable walk of current; guard entries after @max */
static unsigned int walk(unsigned long *ips, unsigned int max)
{
	unsigned long entries[MAX_CHAIN + 4];
	struct unwind_stacktrace trace = { .entries = entries };
	unsigned int i;
	int ret;

	sim_counts_reset();
	for (i = 0; i < ARRAY_SIZE(entries); i++)
		entries[i] = 0xdeadbeef;
	ret = unwind_user(&trace, max);
	CHECK_EQ(ret, 0);
	CHECK(trace.nr <= max);
	for (i = max; i < ARRAY_SIZE(entries); i++)
		CHECK_EQ(entries[i], 0xdeadbeef);
	memcpy(ips, entries, sizeof(*ips) * (trace.nr < max ? trace.nr : max));
	return trace.nr < max ? trace.nr : max;
}

struct store_data {
	unsigned long	ips[MAX_CHAIN];
	unsigned int	nr;
	unsigned int	limit;		/* stop after this many */
	bool		atomic;		/* page faults disabled at every call */
};

static bool store(void *data, unsigned long ip)
{
	struct store_data *d = data;

	if (!pagefault_disabled())
		d->atomic = false;
	if (d->nr == MAX_CHAIN)
		return false;
	d->ips[d->nr++] = ip;
	return d->nr < d->limit;
}

/* The nofault walk of current's registers */
static int walk_nofault(struct store_data *d, unsigned int limit)
{
	sim_counts_reset();
	memset(d, 0, sizeof(*d));
	d->limit = limit;
	d->atomic = true;
	return unwind_user_nofault(&sim_task.regs, store, d);
}

static void check_clean(void)
{
	CHECK_EQ(sim_sframe_refs(), 0);
	CHECK_EQ(sim_counts.bad_context, 0);
	CHECK_EQ(sim_pagefault_depth, 0);
	CHECK_EQ(sim_warnings, 0);
}

/* --- Tests --- */

/* SFrame alone, to the outermost frame; a return address past its function */
static void test_sframe_chain(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	stack_sframe();
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("sframe", ips, n, F_A + 0x10, F_B + F_B_SIZE, RA_MAIN,
		    RA_START);
	/* the topmost IP is exact, return addresses are looked up at -1 */
	CHECK_PCS(F_A + 0x10, F_B + F_B_SIZE - 1, RA_MAIN - 1, RA_START - 1);
	CHECK_EQ(sim_counts.find_nofault, 0);
	CHECK_EQ(sim_counts.text, 0);
	check_clean();
}

/* A frame without SFrame: frame pointers, then SFrame again */
static void test_fp_fallback(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	stack_lib();
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("sframe, fp, sframe", ips, n, F_A + 0x10, RA_LIB, RA_MAIN,
		    RA_START);
	CHECK_PCS(F_A + 0x10, RA_LIB - 1, RA_MAIN - 1, RA_START - 1);
	/* the return address found with frame pointers was checked */
	CHECK_EQ(sim_counts.text, 1);
	check_clean();
}

/* A return address found with frame pointers must be in text */
static void test_fp_text_check(void)
{
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int n;

	prog_setup(true);
	stack_lib();
	put64(FP_LIB, 0);
	put64(FP_LIB + 8, 0x1234);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("no text: the stack ends", ips, n, F_A + 0x10, RA_LIB);
	CHECK_EQ(sim_counts.text, 1);
	check_clean();

	/* without the mmap_lock, an unknown address is taken */
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("nofault: unknown taken", d.ips, d.nr, F_A + 0x10, RA_LIB,
		    0x1234);
	CHECK_EQ(sim_counts.text_nofault, 1);
	check_clean();

	/* without SFrame, frame pointers are taken as they are */
	sim_sframe_enabled = false;
	set_regs(LIB + 0x10, SP0, FP_LIB);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("fp only: no check", ips, n, LIB + 0x10, 0x1234);
	CHECK_EQ(sim_counts.text, 0);
}

/* A zero return address ends the stack */
static void test_zero_ra(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	stack_sframe();
	put64(SP0 + 24, 0);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("sframe, topmost", ips, n, F_A + 0x10);

	stack_sframe();
	put64(SP0 + 32 + 8, 0);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("sframe, caller", ips, n, F_A + 0x10, F_B + F_B_SIZE);

	stack_lib();
	put64(FP_LIB + 8, 0);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("frame pointer", ips, n, F_A + 0x10, RA_LIB);
	check_clean();
}

/*
 * A CFA that does not move up the stack, or is misaligned, is not used:
 * the frame is unwound with frame pointers, whose chain is never cut
 * short by a rule that cannot be applied (a stale or bogus registration)
 */
static void test_cfa_not_up(void)
{
	unsigned long ips[MAX_CHAIN], fp_ips[MAX_CHAIN];
	unsigned int n, fp_n;
	struct store_data d;

	prog_setup(true);
	main_frame(FP_MAIN);
	/* SFrame: CFA = SP; a valid frame-pointer chain to _start */
	set_regs(F_Z + 4, SP0, FP_MAIN);
	put64(SP0 - 8, RA_MAIN);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("sframe: CFA == SP, then fp", ips, n, F_Z + 4, RA_START);
	CHECK_EQ(sim_counts.text, 1);
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("nofault: CFA == SP, then fp", d.ips, d.nr, F_Z + 4,
		    RA_START);
	/* as long as the chain of frame pointers alone */
	sim_sframe_enabled = false;
	fp_n = walk(fp_ips, MAX_CHAIN);
	sim_sframe_enabled = true;
	CHECK_CHAIN("fp only: CFA == SP", fp_ips, fp_n, F_Z + 4, RA_START);

	/* SFrame: CFA = SP + 12 */
	set_regs(F_U + 4, SP0, FP_MAIN);
	put64(SP0, RA_MAIN);
	put64(SP0 + 8, RA_MAIN);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("sframe: CFA misaligned, then fp", ips, n, F_U + 4,
		    RA_START);

	/* frame pointer below the stack pointer */
	set_regs(LIB + 0x10, SP0, SP0 - 8);
	put64(SP0 - 8, FP_MAIN);
	put64(SP0, RA_MAIN);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("fp: FP < SP", ips, n, LIB + 0x10);

	/* frame pointer misaligned */
	set_regs(LIB + 0x10, SP0, SP0 + 0x21);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("fp: misaligned", ips, n, LIB + 0x10);
	check_clean();
}

/*
 * A rule based on another register than SP or FP: topmost frame only;
 * in a caller, frame pointers
 */
static void test_reg_topmost(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	main_frame(FP_MAIN);
	set_regs(F_REG + 8, SP0, FP_MAIN);
	sim_task.regs.bx = SP0 + 0x10;
	put64(SP0 + 0x18, RA_MAIN);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("topmost: %rbx + 16", ips, n, F_REG + 8, RA_MAIN, RA_START);

	/* called from F_REG: its %rbx is not known */
	set_regs(F_A + 0x10, SP0, FP_MAIN);
	sim_task.regs.bx = SP0 + 0x30;
	put64(SP0 + 24, F_REG + 9);
	put64(SP0 + 0x38, RA_MAIN);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("caller: frame pointers", ips, n, F_A + 0x10, F_REG + 9,
		    RA_START);
	check_clean();
}

/*
 * A return address still in its register: topmost frame only; in a
 * caller, frame pointers
 */
static void test_ra_same_topmost(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	main_frame(FP_MAIN);
	set_regs(LEAF + 4, SP0, FP_MAIN);
	sim_task.regs.r14 = RA_MAIN;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("topmost: RA in r14", ips, n, LEAF + 4, RA_MAIN, RA_START);

	set_regs(F_A + 0x10, SP0, FP_MAIN);
	put64(SP0 + 24, LEAF + 5);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("caller: frame pointers", ips, n, F_A + 0x10, LEAF + 5,
		    RA_START);
	check_clean();
}

/*
 * A leaf that pushed nothing has its CFA at the stack pointer: fine when
 * it was interrupted, frame pointers when it would be a caller
 */
static void test_leaf_cfa_sp(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	main_frame(FP_MAIN);
	set_regs(LEAF0 + 4, SP0, FP_MAIN);
	sim_task.regs.r14 = RA_MAIN;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("topmost: CFA = SP", ips, n, LEAF0 + 4, RA_MAIN, RA_START);

	set_regs(F_A + 0x10, SP0, FP_MAIN);
	put64(SP0 + 24, LEAF0 + 5);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("caller: frame pointers", ips, n, F_A + 0x10, LEAF0 + 5,
		    RA_START);
	check_clean();
}

#define FP_X		(SP0 + 0xc0)

/*
 * Where a frame-pointer step does not give the caller's stack pointer
 * (arm64), the next frame's SFrame rule is used only if it finds the CFA
 * from the frame pointer: A (CFA = SP + 32) is unwound with its frame
 * record, main (CFA = FP + 16) with SFrame again
 */
static void test_fp_inexact_sp(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	main_frame(FP_MAIN);
	set_regs(LIB + 0x10, SP0, FP_LIB);
	put64(FP_LIB, FP_X);
	put64(FP_LIB + 8, F_A + 0x10);
	put64(FP_X, FP_MAIN);
	put64(FP_X + 8, RA_MAIN);
	/* What A's rule would read from the stack pointer of the FP step */
	put64(FP_LIB + 16 + 24, F_B + F_B_SIZE);
	sim_fp_inexact_sp = true;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("inexact SP", ips, n, LIB + 0x10, F_A + 0x10, RA_MAIN,
		    RA_START);
	/* x86: the CFA of a frame record is the caller's stack pointer */
	sim_fp_inexact_sp = false;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("exact SP", ips, n, LIB + 0x10, F_A + 0x10, F_B + F_B_SIZE);

	/*
	 * A handler without SFrame returning to a restorer with a signal
	 * FDE: the signal frame is not looked for at an inexact SP, the
	 * frame record the kernel put in it (arm64) is used instead
	 */
	sim_fp_inexact_sp = true;
	put64(FP_LIB + 8, F_SIG2);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("inexact SP, signal FDE", ips, n, LIB + 0x10, F_SIG2,
		    RA_MAIN, RA_START);
	check_clean();
}

#define FP_BAD		(SP0 + 0x180)

/*
 * A back chain (s390): the frame-pointer step reads the caller's frame
 * base at the base before it applies the offsets (the harness's frame is
 * x86's, whose base is FP).  The FP it finds in a save area is not known
 * to be the caller's, so main's rule (CFA = FP + 16) is not applied after
 * it: the back chain again, which ends at a zero link.  Applied, the rule
 * would have read RA_START through the stale FP_BAD.
 */
static void test_fp_backchain(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	set_regs(LIB + 0x10, SP0, FP_LIB);
	put64(FP_LIB, FP_X);			/* the link to main's frame */
	put64(FP_X + 8, RA_MAIN);		/* RA at CFA - 8 */
	put64(FP_X, FP_BAD);			/* a save area not filled */
	put64(FP_BAD, 0);			/* main's link: the end */
	put64(FP_BAD + 8, RA_START);
	sim_fp_backchain = true;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("back chain", ips, n, LIB + 0x10, RA_MAIN);

	/* Frame records (x86): FP_LIB holds main's FP, its RA above */
	sim_fp_backchain = false;
	put64(FP_LIB, FP_MAIN);
	put64(FP_LIB + 8, RA_MAIN);
	main_frame(FP_MAIN);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("frame records", ips, n, LIB + 0x10, RA_MAIN, RA_START);
	check_clean();
}

/*
 * Where the CFA is above the caller's stack pointer (s390: 160), the
 * direction check applies to that stack pointer: A's CFA (SP + 32) gives
 * a caller's SP below A's, and frame pointers unwind A.  Checked on the CFA,
 * it went on to B with the wrong stack pointer.
 */
static void test_caller_sp_below(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	stack_sframe();
	sim_caller_sp_off = 160;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("caller's SP below: frame pointers", ips, n, F_A + 0x10,
		    RA_START);
	/* 32: the caller's SP is A's, which only a leaf may have */
	sim_caller_sp_off = 32;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("caller's SP at SP: frame pointers", ips, n, F_A + 0x10,
		    RA_START);
	sim_caller_sp_off = 0;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("x86", ips, n, F_A + 0x10, F_B + F_B_SIZE, RA_MAIN,
		    RA_START);
	check_clean();
}

/*
 * Return addresses with a pointer authentication code, in memory and in
 * the return address register, found with SFrame and with frame
 * pointers: the same chains as without
 */
static void test_ra_signed(void)
{
	const unsigned long pac = 0x002a000000000000UL;
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	stack_sframe();
	put64(SP0 + 24, (F_B + F_B_SIZE) | pac);
	put64(SP0 + 32 + 8, RA_MAIN | pac);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("sframe", ips, n, F_A + 0x10, F_B + F_B_SIZE, RA_MAIN,
		    RA_START);

	stack_lib();
	put64(SP0 + 24, RA_LIB | pac);
	put64(FP_LIB + 8, RA_MAIN | pac);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("frame pointers", ips, n, F_A + 0x10, RA_LIB, RA_MAIN,
		    RA_START);

	main_frame(FP_MAIN);
	set_regs(LEAF0 + 4, SP0, FP_MAIN);
	sim_task.regs.r14 = RA_MAIN | pac;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("in the RA register", ips, n, LEAF0 + 4, RA_MAIN, RA_START);
	check_clean();
}

/* Never more than max_entries, never written past them */
static void test_max_entries(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned long entry = 1;
	struct unwind_stacktrace trace = { .entries = &entry };
	unsigned int n;

	prog_setup(true);
	stack_sframe();
	n = walk(ips, 2);
	CHECK_CHAIN("max 2", ips, n, F_A + 0x10, F_B + F_B_SIZE);
	CHECK_EQ(sim_cond_resched_calls, 1);
	check_clean();

	n = walk(ips, 1);
	CHECK_CHAIN("max 1", ips, n, F_A + 0x10);
	CHECK_EQ(sim_cond_resched_calls, 0);

	n = walk(ips, 4);
	CHECK_CHAIN("max 4", ips, n, F_A + 0x10, F_B + F_B_SIZE, RA_MAIN,
		    RA_START);

	sim_counts_reset();
	trace.nr = 7;
	CHECK_EQ(unwind_user(&trace, 0), -EINVAL);
	CHECK_EQ(trace.nr, 0);
	CHECK_EQ(entry, 1);
	CHECK_EQ(sim_counts.find, 0);
	check_clean();
}

/* The sysctl off: frame pointers only, SFrame never asked */
static void test_sframe_off(void)
{
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int n;

	prog_setup(true);
	stack_sframe();
	sim_sframe_enabled = false;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("fp", ips, n, F_A + 0x10, RA_START);
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("fp, nofault", d.ips, d.nr, F_A + 0x10, RA_START);
	CHECK_EQ(sim_counts.find + sim_counts.find_nofault, 0);
	CHECK_EQ(sim_counts.text + sim_counts.text_nofault, 0);
	check_clean();
}

/* A compat task: 4-byte frame pointer frames, SFrame never asked */
static void test_compat(void)
{
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int n;

	prog_setup(true);
	memset(cstack_mem, 0xff, sizeof(cstack_mem));
	sim_task.regs.cs = __USER32_CS;
	set_regs(CTEXT + 0x10, CSTACK + 0x100, CSTACK + 0x200);
	put32(CSTACK + 0x200, CSTACK + 0x300);
	put32(CSTACK + 0x204, CTEXT + 0x20);
	put32(CSTACK + 0x300, 0);
	put32(CSTACK + 0x304, CTEXT + 0x30);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("compat", ips, n, CTEXT + 0x10, CTEXT + 0x20, CTEXT + 0x30);
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("compat, nofault", d.ips, d.nr, CTEXT + 0x10, CTEXT + 0x20,
		    CTEXT + 0x30);
	CHECK_EQ(sim_counts.find + sim_counts.find_nofault, 0);
	check_clean();

	/* vm86: no stack to unwind */
	sim_task.regs.flags = X86_VM_MASK;
	n = walk(ips, MAX_CHAIN);
	CHECK_EQ(n, 0);
}

/* The nofault walk: same chain, only non-faulting reads, no sleeping */
static void test_nofault(void)
{
	struct store_data d;

	prog_setup(true);
	stack_lib();
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("nofault", d.ips, d.nr, F_A + 0x10, RA_LIB, RA_MAIN,
		    RA_START);
	CHECK(d.atomic);
	CHECK_PCS(F_A + 0x10, RA_LIB - 1, RA_MAIN - 1, RA_START - 1);
	CHECK_EQ(sim_counts.find_nofault, 4);
	CHECK_EQ(sim_counts.find, 0);
	CHECK_EQ(sim_counts.gets, 0);
	CHECK_EQ(sim_counts.text_nofault, 1);
	CHECK_EQ(sim_get_user_calls, 0);
	CHECK(uspace_stats.calls > 0);
	CHECK_EQ(uspace_stats.calls_atomic, uspace_stats.calls);
	CHECK_EQ(sim_cond_resched_calls, 0);
	check_clean();

	/* store() stops the walk */
	CHECK_EQ(walk_nofault(&d, 2), 0);
	CHECK_CHAIN("stopped", d.ips, d.nr, F_A + 0x10, RA_LIB);

	/* user memory not accessible, or a kernel thread: nothing */
	sim_nmi_uaccess_okay = false;
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), -EINVAL);
	CHECK_EQ(d.nr, 0);
	sim_nmi_uaccess_okay = true;
	sim_task.flags = PF_KTHREAD;
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), -EINVAL);
	CHECK_EQ(d.nr, 0);
	check_clean();
}

/* A section not resident: the nofault walk uses frame pointers there */
static void test_nofault_not_resident(void)
{
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int n;

	prog_setup(false);
	stack_lib();
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	/* A has no frame pointer: the library's frame is skipped */
	CHECK_CHAIN("nofault", d.ips, d.nr, F_A + 0x10, RA_MAIN, RA_START);
	CHECK_EQ(sim_get_user_calls, 0);
	CHECK_EQ(uspace_stats.calls_atomic, uspace_stats.calls);
	check_clean();

	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("faultable", ips, n, F_A + 0x10, RA_LIB, RA_MAIN,
		    RA_START);
	check_clean();
}

/* FREs that a lookup of @pc reads */
static unsigned int fres_read_at(unsigned long pc)
{
	struct sframe_entry *cache = NULL;
	struct sframe_rule rule;
	int ret;

	ret = sframe_user_find(pc, &rule, &cache, false);
	sframe_user_release(&cache);
	CHECK_EQ(ret, 0);
	return rule.fres_read;
}

/*
 * The FRE budget of a walk: lookups in a function of BIG_FRES FREs use
 * it up, the rest of the stack is unwound with frame pointers, which
 * here give another chain than SFrame would.
 */
static void test_budget(void)
{
	/* FRE 94 of F_BIG: 96 FREs read (up to the next one) */
	const unsigned long small = F_BIG + 2 * 94, large = F_BIG + 2000;
	const unsigned long fp = SP0 + 0x400, fp2 = SP0 + 0x480;
	/*
	 * PCs large, large - 1 and large - 3 in turn: a frame at the PC of
	 * one of the two frames below reuses its rule (test_recursion,
	 * test_mutual_recursion) and reads nothing, a cycle of three does
	 */
	const unsigned long ras[] = {
		large, large - 2, large + 1, small + 1, large, RA_START
	};
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int i, n, run;

	prog_setup(true);
	/*
	 * The premise: what the lookups cost, against the budget of
	 * user.c, UNWIND_USER_SFRAME_BUDGET = 4 * SFRAME_FDE_MAX_FRES
	 */
	CHECK_EQ(fres_read_at(large), BIG_FRES);
	CHECK_EQ(fres_read_at(large - 1), BIG_FRES);
	CHECK_EQ(fres_read_at(large - 3), BIG_FRES);
	CHECK_EQ(fres_read_at(small), 4 * SFRAME_FDE_MAX_FRES - 4 * BIG_FRES);

	/* frames of F_BIG: CFA = SP + 32; the frame pointer is another chain */
	for (i = 0; i < ARRAY_SIZE(ras); i++)
		put64(SP0 + 32 * i + 24, ras[i]);
	put64(fp, fp2);
	put64(fp + 8, LIB + 0x40);
	put64(fp2, 0);
	put64(fp2 + 8, LIB + 0x50);
	main_frame(FP_MAIN);

	for (run = 0; run < 2; run++) {
		set_regs(large, SP0, fp);
		n = walk(ips, MAX_CHAIN);
		/* 4 * 1000 + 96 FREs: six SFrame frames, then fp */
		CHECK_CHAIN("budget", ips, n, large, large, large - 2,
			    large + 1, small + 1, large, LIB + 0x40,
			    LIB + 0x50);
		CHECK_PCS(large, large - 1, large - 3, large, small, large - 1);
		/* plain frame pointers after the budget: no text check */
		CHECK_EQ(sim_counts.text, 0);
		check_clean();
	}

	/*
	 * In the event (NMI, IRQ) the budget is one lookup's worth,
	 * UNWIND_USER_SFRAME_NOFAULT_BUDGET = SFRAME_FDE_MAX_FRES: one
	 * SFrame frame, then frame pointers
	 */
	set_regs(large, SP0, fp);
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("budget in the event", d.ips, d.nr, large, large,
		    LIB + 0x40, LIB + 0x50);
	check_clean();
}

/*
 * A recursive function returns to the same PC frame after frame: the
 * rule of the frame below serves, with no lookup and no FRE read, in
 * both walks.  Frames of F_BIG at PC large cost BIG_FRES FREs each when
 * looked up: ten of them would exceed the budget.
 */
static void test_recursion(void)
{
	const unsigned long large = F_BIG + 2000;
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int i, n;

	prog_setup(true);
	CHECK_EQ(fres_read_at(large), BIG_FRES);
	/* the topmost frame at PC large, then 9 returns to large + 1 */
	for (i = 0; i < 9; i++)
		put64(SP0 + 32 * i + 24, large + 1);
	put64(SP0 + 32 * 9 + 24, RA_START);
	main_frame(FP_MAIN);

	set_regs(large, SP0, 0);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("recursion", ips, n, large, large + 1, large + 1,
		    large + 1, large + 1, large + 1, large + 1, large + 1,
		    large + 1, large + 1, RA_START);
	CHECK_PCS(large, RA_START - 1);
	check_clean();

	set_regs(large, SP0, 0);
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("recursion in the event", d.ips, d.nr, large, large + 1,
		    large + 1, large + 1, large + 1, large + 1, large + 1,
		    large + 1, large + 1, large + 1, RA_START);
	CHECK_PCS(large, RA_START - 1);
	check_clean();
}

/*
 * Two mutually recursive functions return to two PCs in turn: the rules
 * of the last two PCs serve, with two lookups in all, in both walks.
 * Looked up at every frame, the ten frames would exceed the budget of a
 * walk in the event.
 */
static void test_mutual_recursion(void)
{
	/* FREs 398 and 298 of F_BIG: 400 and 300 FREs read */
	const unsigned long a = F_BIG + 2 * 398, b = F_BIG + 2 * 298 + 1;
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int i, n;

	prog_setup(true);
	CHECK_EQ(fres_read_at(a), 400);
	CHECK_EQ(fres_read_at(b), 300);
	/* the topmost frame at PC a, then returns to b, a, b... */
	for (i = 0; i < 9; i++)
		put64(SP0 + 32 * i + 24, i & 1 ? a + 1 : b + 1);
	put64(SP0 + 32 * 9 + 24, RA_START);
	main_frame(FP_MAIN);

	set_regs(a, SP0, 0);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("mutual recursion", ips, n, a, b + 1, a + 1, b + 1,
		    a + 1, b + 1, a + 1, b + 1, a + 1, b + 1, RA_START);
	CHECK_PCS(a, b, RA_START - 1);
	check_clean();

	/* 700 FREs in the budget of one lookup's worth, not 3500 */
	set_regs(a, SP0, 0);
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("mutual recursion in the event", d.ips, d.nr, a, b + 1,
		    a + 1, b + 1, a + 1, b + 1, a + 1, b + 1, a + 1, b + 1,
		    RA_START);
	CHECK_PCS(a, b, RA_START - 1);
	check_clean();
}

/*
 * The memo never serves PC 0, although a slot whose lookup failed has PC
 * 0: a signal interrupted a call through a NULL pointer (the signal
 * frame's IP is 0, exact) after the restorer's lookup failed in the slot
 * that held the topmost frame's rule.  PC 0 is looked up (and is in no
 * section), and frame pointers unwind it; with that stale rule, the walk
 * would read a return address from the interrupted stack instead.
 */
static void test_memo_pc_zero(void)
{
	const unsigned long sigsp = SP0 + 48, isp = SP0 + 0x180;
	const unsigned long fp = SP0 + 0x300;
	const unsigned long sc = sigsp + offsetof(struct ucontext, uc_mcontext);
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	/* A (CFA = SP + 32) called from B (CFA = SP + 16), whose caller
	 * is the restorer: the handler's frames
	 */
	set_regs(F_A + 0x10, SP0, 0);
	put64(SP0 + 24, F_B + F_B_SIZE);
	put64(SP0 + 40, F_SIG);
	put64(sc + offsetof(struct sigcontext_64, ip), 0);
	put64(sc + offsetof(struct sigcontext_64, sp), isp);
	put64(sc + offsetof(struct sigcontext_64, bp), fp);
	/* What A's rule would take for a return address at IP 0 */
	put64(isp + 24, RA_MAIN);
	main_frame(fp);

	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("PC 0 after a failed lookup", ips, n, F_A + 0x10,
		    F_B + F_B_SIZE, F_SIG, 0, RA_START);
	CHECK_PCS(F_A + 0x10, F_B + F_B_SIZE - 1, F_SIG - 1, 0,
		  RA_START - 1);
	check_clean();
}

/*
 * A call through a NULL pointer: the topmost IP is 0, in no section.
 * Frame pointers unwind it, as without SFrame; the rule that the walk
 * keeps for the previous frame's PC (none yet, PC 0) must not serve.
 */
static void test_null_ip(void)
{
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int n;

	prog_setup(true);
	set_regs(0, SP0, FP_MAIN);
	main_frame(FP_MAIN);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("NULL IP", ips, n, 0, RA_START);
	check_clean();

	set_regs(0, SP0, FP_MAIN);
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("NULL IP in the event", d.ips, d.nr, 0, RA_START);
	check_clean();
}

/* The faultable walk may sleep between frames, the nofault one never */
static void test_cond_resched(void)
{
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int n;

	prog_setup(true);
	stack_lib();
	n = walk(ips, MAX_CHAIN);
	CHECK_EQ(n, 4);
	CHECK_EQ(sim_cond_resched_calls, 4);

	walk_nofault(&d, MAX_CHAIN);
	CHECK_EQ(d.nr, 4);
	CHECK_EQ(sim_cond_resched_calls, 0);
	check_clean();
}

/* The walk keeps one registry entry at a time and releases it at the end */
static void test_cache_release(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	stack_sframe();
	n = walk(ips, MAX_CHAIN);
	CHECK_EQ(n, 4);
	/* all four frames in one entry: taken once, released at the end */
	CHECK_EQ(sim_counts.gets, 1);
	CHECK_EQ(sim_counts.puts, 1);

	stack_lib();
	n = walk(ips, MAX_CHAIN);
	CHECK_EQ(n, 4);
	CHECK_EQ(sim_counts.gets, 2);
	CHECK_EQ(sim_counts.puts, 2);

	n = walk(ips, 2);
	CHECK_EQ(n, 2);
	CHECK_EQ(sim_counts.puts, sim_counts.gets);
	check_clean();
}

/* Kernel threads and kernel mode registers have no user stack */
static void test_not_user(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	stack_sframe();
	sim_task.flags = PF_KTHREAD;
	n = walk(ips, MAX_CHAIN);
	CHECK_EQ(n, 0);
	sim_task.flags = 0;
	sim_task.regs.cs = 0x10;	/* __KERNEL_CS */
	n = walk(ips, MAX_CHAIN);
	CHECK_EQ(n, 0);
	CHECK_EQ(sim_counts.find + sim_counts.find_nofault, 0);
	check_clean();
}

/* Where the simulated uprobes trampoline is: outside any text */
#define URETPROBE_TRAMP	0x7fffff000000UL

/*
 * Return addresses that uretprobes replaced with their trampoline: the
 * walk continues at the original ones, from the task's pending return
 * instances, innermost first, so that the callers' rules are found
 */
static void test_uretprobe(void)
{
	/* Each at the stack pointer of its function's entry */
	struct return_instance ri[3] = {
		{ .stack = SP0 + 24, .orig_ret_vaddr = F_B + F_B_SIZE,
		  .next = &ri[1] },
		{ .stack = SP0 + 32 + 8, .orig_ret_vaddr = RA_MAIN },
	};
	struct uprobe_task utask = { .return_instances = &ri[0] };
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int n;

	prog_setup(true);
	stack_sframe();
	sim_uretprobe_tramp = URETPROBE_TRAMP;
	sim_task.utask = &utask;
	put64(SP0 + 24, URETPROBE_TRAMP);
	put64(SP0 + 32 + 8, URETPROBE_TRAMP);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("through two uretprobes", ips, n, F_A + 0x10,
		    F_B + F_B_SIZE, RA_MAIN, RA_START);
	CHECK_PCS(F_A + 0x10, F_B + F_B_SIZE - 1, RA_MAIN - 1, RA_START - 1);
	check_clean();
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("nofault", d.ips, d.nr, F_A + 0x10, F_B + F_B_SIZE,
		    RA_MAIN, RA_START);
	check_clean();

	/*
	 * A's probe came from a tail call of another probed function: two
	 * instances, the first chained, behind A's one trampoline address
	 */
	ri[2] = ri[1];
	ri[1] = (struct return_instance){ .stack = SP0 + 24,
		.orig_ret_vaddr = F_B + F_B_SIZE, .next = &ri[2] };
	ri[0].chained = true;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("a chained instance", ips, n, F_A + 0x10, F_B + F_B_SIZE,
		    RA_MAIN, RA_START);
	check_clean();

	/* An instance left by a longjmp() past its frame: below SP */
	ri[0] = (struct return_instance){ .stack = SP0 - 64,
		.orig_ret_vaddr = LIB + 0x40, .next = &ri[1] };
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("a stale instance", ips, n, F_A + 0x10, F_B + F_B_SIZE,
		    RA_MAIN, RA_START);
	check_clean();

	/*
	 * Sampled in the trampoline, returning from A to B: the topmost
	 * frame is the trampoline's (perf's fixup maps it to the first
	 * instance); B's caller's trampoline address is the next one's
	 */
	utask.return_instances = &ri[1];
	set_regs(URETPROBE_TRAMP + 7, SP0 + 32, FP_MAIN);
	n = walk(ips, MAX_CHAIN);
	CHECK(n >= 1 && ips[0] == URETPROBE_TRAMP + 7);
	CHECK(n < 2 || ips[1] != F_B + F_B_SIZE);
	sim_task.utask = NULL;
	check_clean();
}

/* A uprobe at a function's first instruction: the return address at SP */
static void test_uprobe_entry(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	main_frame(FP_MAIN);
	set_regs(LIB, SP0, FP_MAIN);
	put64(SP0, RA_MAIN);
	sim_uprobe_at_func_entry = true;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("at entry", ips, n, LIB, RA_MAIN, RA_START);
	sim_uprobe_at_func_entry = false;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("in the body", ips, n, LIB, RA_START);
	check_clean();
}

/*
 * A handler (A + 0x10, CFA = SP0 + 32) that returns to @restorer, with
 * the rt_sigframe at SP0 + 32 of code interrupted at A's first byte with
 * the stack pointer @isp, whose caller is main
 */
static void sigframe_stack(unsigned long restorer, unsigned long isp)
{
	const unsigned long sigsp = SP0 + 32, fp = SP0 + 0x300;
	const unsigned long sc = sigsp + offsetof(struct ucontext, uc_mcontext);

	set_regs(F_A + 0x10, SP0, 0);
	put64(SP0 + 24, restorer);
	put64(sc + offsetof(struct sigcontext_64, ip), F_A);
	put64(sc + offsetof(struct sigcontext_64, sp), isp);
	put64(sc + offsetof(struct sigcontext_64, bp), fp);
	put64(isp, RA_MAIN);
	main_frame(fp);
}

/*
 * Through a signal frame: the handler returns to the restorer, which is
 * found by its code (no FDE) or by a signal FDE; the interrupted IP is
 * exact, here the first byte of A.
 */
static void test_sigframe(void)
{
	const unsigned long sigsp = SP0 + 32, fp = SP0 + 0x300;
	const unsigned long restorers[] = { F_SIG, F_SIG2 };
	/* The PCs sampled in the restorer, from its start: see below */
	const unsigned long in_restorer[] = { 0, 7, 9 };
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(restorers); i++) {
		prog_setup(true);
		sigframe_stack(restorers[i], SP0 + 0x180);
		n = walk(ips, MAX_CHAIN);
		CHECK_CHAIN("through the signal frame", ips, n, F_A + 0x10,
			    restorers[i], F_A, RA_MAIN, RA_START);
		CHECK_PCS(F_A + 0x10, restorers[i] - 1, F_A, RA_MAIN - 1,
			  RA_START - 1);
		check_clean();
		CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
		CHECK_CHAIN("nofault", d.ips, d.nr, F_A + 0x10, restorers[i],
			    F_A, RA_MAIN, RA_START);
		CHECK_EQ(sim_get_user_calls, 0);
		CHECK_EQ(uspace_stats.calls_atomic, uspace_stats.calls);
		check_clean();
	}

	/*
	 * Sampled in the restorer itself, at its start, at the syscall or
	 * past it (the rt_sigreturn system call): the same signal frame
	 */
	for (i = 0; i < ARRAY_SIZE(in_restorer); i++) {
		const unsigned long pc = F_SIG + in_restorer[i];

		set_regs(pc, sigsp, fp);
		n = walk(ips, MAX_CHAIN);
		CHECK_CHAIN("topmost restorer", ips, n, pc, F_A, RA_MAIN,
			    RA_START);
		check_clean();
	}
	/* ...but not elsewhere in it */
	set_regs(F_SIG + 3, sigsp, fp);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("inside the restorer", ips, n, F_SIG + 3, RA_START);
	check_clean();
}

/*
 * Nested signals: the second one interrupted the first handler's return,
 * in the restorer at its syscall.  The PC that the first signal frame
 * gives is exact, so the restorer is recognised there as in the topmost
 * frame, and its signal frame is stepped through in turn.
 */
static void test_sigframe_nested(void)
{
	const unsigned long sigsp = SP0 + 32, sigsp2 = SP0 + 0x180;
	const unsigned long isp = SP0 + 0x2b0, fp = SP0 + 0x300;
	const unsigned long sc = sigsp + offsetof(struct ucontext, uc_mcontext);
	const unsigned long sc2 = sigsp2 +
				  offsetof(struct ucontext, uc_mcontext);
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int n;

	prog_setup(true);
	set_regs(F_A + 0x10, SP0, 0);
	put64(SP0 + 24, F_SIG);
	put64(sc + offsetof(struct sigcontext_64, ip), F_SIG + 7);
	put64(sc + offsetof(struct sigcontext_64, sp), sigsp2);
	put64(sc + offsetof(struct sigcontext_64, bp), fp);
	put64(sc2 + offsetof(struct sigcontext_64, ip), F_A);
	put64(sc2 + offsetof(struct sigcontext_64, sp), isp);
	put64(sc2 + offsetof(struct sigcontext_64, bp), fp);
	put64(isp, RA_MAIN);
	main_frame(fp);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("through both signal frames", ips, n, F_A + 0x10, F_SIG,
		    F_SIG + 7, F_A, RA_MAIN, RA_START);
	check_clean();
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("nofault", d.ips, d.nr, F_A + 0x10, F_SIG, F_SIG + 7, F_A,
		    RA_MAIN, RA_START);
	check_clean();
}

/*
 * A restorer right after a function that SFrame covers (here LEAF, whose
 * rule keeps the return address in a register): the lookup of the return
 * address into the restorer finds LEAF's rule at its end, which does not
 * apply to a caller's frame; the restorer's code is looked for then.
 */
static void test_sigframe_after_covered(void)
{
	const unsigned long restorer = LEAF_END;
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int n;

	prog_setup(true);
	uspace_map(restorer, rt_sigreturn_code, sizeof(rt_sigreturn_code));
	sim_text_add(restorer, restorer + 0x10);
	sigframe_stack(restorer, SP0 + 0x180);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("restorer after LEAF", ips, n, F_A + 0x10, restorer, F_A,
		    RA_MAIN, RA_START);
	check_clean();
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("nofault", d.ips, d.nr, F_A + 0x10, restorer, F_A,
		    RA_MAIN, RA_START);
	check_clean();
}

/*
 * The interrupted frame must be above the signal frame, unless the
 * handler ran on the alternate signal stack (or one whose place the
 * kernel forgot: SS_AUTODISARM)
 */
static void test_sigframe_stack(void)
{
	unsigned long ips[MAX_CHAIN];
	unsigned int n;

	prog_setup(true);
	/* Interrupted below the signal frame */
	sigframe_stack(F_SIG2, SP0 - 0x100);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("interrupted below", ips, n, F_A + 0x10, F_SIG2);
	check_clean();

	sim_task.sas_ss_sp = SP0 - 0x1000;
	sim_task.sas_ss_size = 0x1100;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("on the alternate stack", ips, n, F_A + 0x10, F_SIG2,
		    F_A, RA_MAIN, RA_START);
	check_clean();

	sim_task.sas_ss_sp = 0;
	sim_task.sas_ss_size = 0;
	sim_task.sas_ss_flags = SS_AUTODISARM;
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("SS_AUTODISARM", ips, n, F_A + 0x10, F_SIG2, F_A,
		    RA_MAIN, RA_START);
	check_clean();
	sim_task.sas_ss_flags = 0;
}

/*
 * The frame a signal interrupted may use any register that the signal
 * frame saved: here %r10, as a function realigning its stack (DRAP) does
 * in its prologue.  The handler's own %r10 is not it.
 */
static void test_sigframe_regs(void)
{
	const unsigned long sigsp = SP0 + 32, isp = SP0 + 0x180;
	const unsigned long fp = SP0 + 0x300, drap = isp + 0x40;
	const unsigned long sc = sigsp + offsetof(struct ucontext, uc_mcontext);
	unsigned long ips[MAX_CHAIN];
	struct store_data d;
	unsigned int n;

	prog_setup(true);
	set_regs(F_A + 0x10, SP0, 0);
	sim_task.regs.r10 = SP0 + 0x40;
	put64(SP0 + 24, F_SIG2);
	put64(sc + offsetof(struct sigcontext_64, ip), F_DRAP + 8);
	put64(sc + offsetof(struct sigcontext_64, sp), isp);
	put64(sc + offsetof(struct sigcontext_64, bp), fp);
	put64(sc + offsetof(struct sigcontext_64, r10), drap);
	put64(drap - 8, RA_MAIN);
	main_frame(fp);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("%r10 saved by the signal frame", ips, n, F_A + 0x10,
		    F_SIG2, F_DRAP + 8, RA_MAIN, RA_START);
	check_clean();
	CHECK_EQ(walk_nofault(&d, MAX_CHAIN), 0);
	CHECK_CHAIN("nofault", d.ips, d.nr, F_A + 0x10, F_SIG2, F_DRAP + 8,
		    RA_MAIN, RA_START);
	CHECK_EQ(sim_get_user_calls, 0);
	check_clean();

	/*
	 * The saved registers are those of the interrupted frame only: its
	 * caller's %rbx (CFA = %rbx + 16) is not the saved one
	 */
	put64(drap - 8, F_REG + 9);
	put64(sc + offsetof(struct sigcontext_64, bx), drap + 0x40);
	put64(drap + 0x48, RA_MAIN);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("its caller's %rbx is not known: frame pointers", ips, n,
		    F_A + 0x10, F_SIG2, F_DRAP + 8, F_REG + 9, RA_START);
	check_clean();

	/* Called, not interrupted: %r10 is not known */
	set_regs(F_A + 0x10, SP0, fp);
	put64(SP0 + 24, F_DRAP + 9);
	n = walk(ips, MAX_CHAIN);
	CHECK_CHAIN("called: frame pointers", ips, n, F_A + 0x10, F_DRAP + 9,
		    RA_START);
	check_clean();
}

struct test {
	const char	*name;
	void		(*fn)(void);
};

#define TEST(name)	{ #name, test_##name }

static const struct test tests[] = {
	TEST(sframe_chain),
	TEST(fp_fallback),
	TEST(fp_text_check),
	TEST(zero_ra),
	TEST(cfa_not_up),
	TEST(reg_topmost),
	TEST(ra_same_topmost),
	TEST(leaf_cfa_sp),
	TEST(fp_inexact_sp),
	TEST(fp_backchain),
	TEST(caller_sp_below),
	TEST(ra_signed),
	TEST(max_entries),
	TEST(sframe_off),
	TEST(compat),
	TEST(nofault),
	TEST(nofault_not_resident),
	TEST(budget),
	TEST(recursion),
	TEST(mutual_recursion),
	TEST(memo_pc_zero),
	TEST(null_ip),
	TEST(cond_resched),
	TEST(cache_release),
	TEST(not_user),
	TEST(uprobe_entry),
	TEST(uretprobe),
	TEST(sigframe),
	TEST(sigframe_nested),
	TEST(sigframe_after_covered),
	TEST(sigframe_stack),
	TEST(sigframe_regs),
};

static bool selected(const char *name, int argc, char **argv)
{
	int i;

	if (argc < 2)
		return true;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], name))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	unsigned int i, n = 0, passed = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (!selected(tests[i].name, argc, argv))
			continue;
		test_failed = false;
		tests[i].fn();
		n++;
		printf("%sok %u unwind.%s\n", test_failed ? "not " : "", n,
		       tests[i].name);
		if (test_failed)
			failed++;
		else
			passed++;
	}
	printf("1..%u\n", n);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
