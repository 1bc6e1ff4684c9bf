/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: what the SFrame reader takes from <linux/unwind_user.h>,
 * the ABI of the sections that the architecture's unwinder reads (defined
 * by its <asm/unwind_user.h>), here the host's.  The reader decodes the
 * rules of that ABI in a copy of its own.  The unwinder's harness,
 * unwind/, takes the kernel's header instead.
 */
#ifndef _SFRAME_SHIM_LINUX_UNWIND_USER_H
#define _SFRAME_SHIM_LINUX_UNWIND_USER_H

#if defined(__x86_64__)
#define UNWIND_USER_SFRAME_ABI	SFRAME_ABI_AMD64_ENDIAN_LITTLE
#elif defined(__aarch64__) && defined(__AARCH64EB__)
#define UNWIND_USER_SFRAME_ABI	SFRAME_ABI_AARCH64_ENDIAN_BIG
#elif defined(__aarch64__)
#define UNWIND_USER_SFRAME_ABI	SFRAME_ABI_AARCH64_ENDIAN_LITTLE
#elif defined(__s390x__)
#define UNWIND_USER_SFRAME_ABI	SFRAME_ABI_S390X_ENDIAN_BIG
#endif

#endif
