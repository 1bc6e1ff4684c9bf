/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: ARRAY_SIZE(). */
#ifndef _SFRAME_SHIM_LINUX_ARRAY_SIZE_H
#define _SFRAME_SHIM_LINUX_ARRAY_SIZE_H

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#endif
