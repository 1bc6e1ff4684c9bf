/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the libc/UAPI errno values are the kernel's. */
#include_next <linux/errno.h>
