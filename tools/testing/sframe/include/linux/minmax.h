/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: min_t(). */
#ifndef _SFRAME_SHIM_LINUX_MINMAX_H
#define _SFRAME_SHIM_LINUX_MINMAX_H

#define min_t(type, a, b)	((type)(a) < (type)(b) ? (type)(a) : (type)(b))

#endif
