/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the loop attribute of the kernel's <linux/unroll.h> */
#ifndef _SFRAME_SHIM_LINUX_UNROLL_H
#define _SFRAME_SHIM_LINUX_UNROLL_H

#define unrolled_full	_Pragma("GCC unroll 65534")

#endif
