/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: static_assert() with an optional message. */
#ifndef _SFRAME_SHIM_LINUX_BUILD_BUG_H
#define _SFRAME_SHIM_LINUX_BUILD_BUG_H

#undef static_assert
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)

#endif
