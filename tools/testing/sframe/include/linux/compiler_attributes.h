/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the attributes the SFrame reader uses. */
#ifndef _SFRAME_SHIM_LINUX_COMPILER_ATTRIBUTES_H
#define _SFRAME_SHIM_LINUX_COMPILER_ATTRIBUTES_H

#define __packed	__attribute__((__packed__))

#endif
