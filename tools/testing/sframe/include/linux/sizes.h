/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the sizes of <linux/sizes.h> that the reader uses. */
#ifndef _SFRAME_SHIM_LINUX_SIZES_H
#define _SFRAME_SHIM_LINUX_SIZES_H

#define SZ_64K		0x00010000
#define SZ_256K		0x00040000

#endif
