/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: static_assert() is <assert.h>'s.  The kernel's takes an
 * optional message, as C23's does; with -std=gnu11, gcc accepts a missing
 * message silently and clang as an extension, which it warns about.
 */
#ifndef _SFRAME_SHIM_LINUX_BUILD_BUG_H
#define _SFRAME_SHIM_LINUX_BUILD_BUG_H

#include <assert.h>

#ifdef __clang__
#pragma clang diagnostic ignored "-Wc23-extensions"
#endif

#endif
