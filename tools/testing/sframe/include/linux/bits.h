/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: BIT() and BITS_PER_LONG. */
#ifndef _SFRAME_SHIM_LINUX_BITS_H
#define _SFRAME_SHIM_LINUX_BITS_H

#define BITS_PER_LONG	((int)(8 * sizeof(long)))
#define BIT(nr)		(1UL << (nr))

#endif
