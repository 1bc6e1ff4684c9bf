/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: kernel integer limits (libc's <limits.h> includes us). */
#ifndef _SFRAME_SHIM_LINUX_LIMITS_H
#define _SFRAME_SHIM_LINUX_LIMITS_H

#include_next <linux/limits.h>
#include <stdint.h>

#define U8_MAX		((uint8_t)~0U)
#define U16_MAX		((uint16_t)~0U)
#define U32_MAX		((uint32_t)~0U)
#define S32_MAX		INT32_MAX
#define S32_MIN		INT32_MIN
#ifndef ULONG_MAX
#define ULONG_MAX	(~0UL)
#endif

#endif
