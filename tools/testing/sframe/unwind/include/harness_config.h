/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forced into every translation unit of unwind_test (gcc -include), as
 * the kernel's build forces <linux/kconfig.h>: the configuration of the
 * harness, an x86-64 kernel with compat support and SFrame unwinding.
 */
#ifndef _SFRAME_UNWIND_HARNESS_CONFIG_H
#define _SFRAME_UNWIND_HARNESS_CONFIG_H

#define CONFIG_X86_64			1
#define CONFIG_COMPAT			1
#define CONFIG_UNWIND_USER		1
#define CONFIG_HAVE_UNWIND_USER_FP	1
#define CONFIG_HAVE_UNWIND_USER_SFRAME	1
#define CONFIG_UNWIND_USER_SFRAME	1
#define CONFIG_UPROBES			1

/*
 * IS_ENABLED() of the options above; every option the code under test
 * asks about is defined here, to 1 or 0
 */
#define IS_ENABLED(CONFIG_option)	(CONFIG_option)

/*
 * x86-64 never leaves a return address in a register, so its
 * <asm/unwind_user.h> keeps the default UNWIND_USER_SFRAME_RA_REG (none)
 * and a rule "RA unchanged" always fails there.  The harness says r14
 * (DWARF 14) holds it, as arm64's LR does, so that the topmost-only
 * handling of such rules in kernel/unwind/user.c can be tested.
 */
#define UNWIND_USER_SFRAME_RA_REG	14

/*
 * arm64's frame records may be anywhere in a frame: a frame-pointer step
 * does not give the caller's stack pointer there.  The harness switches
 * between both behaviours per test (sim_fp_inexact_sp, in unwind_test.c).
 */
extern _Bool sim_fp_inexact_sp;
#define UNWIND_USER_FP_EXACT_SP		(!sim_fp_inexact_sp)

/*
 * arm64 strips pointer authentication codes from return addresses, found
 * with SFrame or with frame pointers.  The harness strips bits 48-63, so
 * that where kernel/unwind/user.c calls the two hooks is tested.
 */
#define SIM_PAC_MASK			0xffff000000000000UL
#define unwind_user_fp_ra(state, ra)	((void)(state), (ra) & ~SIM_PAC_MASK)
#define unwind_user_sframe_ra(state, ra, flags)				\
	((void)(state), (void)(flags), (ra) & ~SIM_PAC_MASK)

/*
 * s390 follows a back chain in its frame-pointer step.  The harness
 * switches it on per test (sim_fp_backchain, in unwind_test.c).
 */
extern _Bool sim_fp_backchain;
#define UNWIND_USER_FP_BACKCHAIN	(sim_fp_backchain)

/*
 * s390's CFA is 160 above the caller's stack pointer.  The harness sets
 * the distance per test (sim_caller_sp_off, in unwind_test.c).
 */
extern unsigned long sim_caller_sp_off;
#define unwind_user_sframe_caller_sp(cfa)	((cfa) - sim_caller_sp_off)

/* The kernel's build also forces <linux/compiler_types.h>: __user */
#define __user

/* BIT() is reachable from everywhere in the kernel */
#include <linux/bits.h>

#endif
