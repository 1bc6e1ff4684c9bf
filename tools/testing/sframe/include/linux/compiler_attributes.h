/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the kernel's spellings of the compiler attributes that
 * the SFrame reader and the harness use, defined once here as in the
 * kernel's include/linux/compiler_attributes.h.  Everything else uses
 * these names rather than a bare attribute.
 */
#ifndef _SFRAME_SHIM_LINUX_COMPILER_ATTRIBUTES_H
#define _SFRAME_SHIM_LINUX_COMPILER_ATTRIBUTES_H

#define __shim_attribute(...)	__attribute__((__VA_ARGS__))

#define __aligned(x)		__shim_attribute(__aligned__(x))
#define __always_unused		__shim_attribute(__unused__)
#define __maybe_unused		__shim_attribute(__unused__)
#define __noreturn		__shim_attribute(__noreturn__)
#define __packed		__shim_attribute(__packed__)
#define __printf(a, b)		__shim_attribute(__format__(printf, a, b))
#define noinline		__shim_attribute(__noinline__)
#if __has_attribute(__uninitialized__)
#define __uninitialized		__shim_attribute(__uninitialized__)
#else
#define __uninitialized
#endif

#endif
