/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system <sframe.h> includes binutils' "ansidecl.h", which libsframe-dev
 * does not ship.  Only these two attribute macros are needed: binutils'
 * spellings of the kernel's __packed and __maybe_unused.
 */
#ifndef _SFRAME_TEST_ANSIDECL_H
#define _SFRAME_TEST_ANSIDECL_H

#include <linux/compiler_attributes.h>

#ifndef ATTRIBUTE_PACKED
#define ATTRIBUTE_PACKED	__packed
#endif
#ifndef ATTRIBUTE_UNUSED
#define ATTRIBUTE_UNUSED	__maybe_unused
#endif

#endif
