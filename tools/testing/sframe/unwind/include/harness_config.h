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

/* IS_ENABLED(), as <linux/kconfig.h> (without the =m case) */
#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define __is_defined(x)			___is_defined(x)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)
#define IS_ENABLED(option)		__is_defined(option)

/*
 * x86-64 never leaves a return address in a register, so its
 * <asm/unwind_user.h> keeps the default UNWIND_USER_SFRAME_RA_REG (none)
 * and a rule "RA unchanged" always fails there.  The harness says r14
 * (DWARF 14) holds it, as arm64's LR does, so that the topmost-only
 * handling of such rules in kernel/unwind/user.c can be tested.
 */
#define UNWIND_USER_SFRAME_RA_REG	14

/* BIT() is reachable from everywhere in the kernel */
#include <linux/bits.h>

#endif
