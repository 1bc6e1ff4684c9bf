/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: offsetof() and friends. */
#ifndef _SFRAME_SHIM_LINUX_STDDEF_H
#define _SFRAME_SHIM_LINUX_STDDEF_H

#include_next <linux/stddef.h>
#include <stddef.h>

#endif
