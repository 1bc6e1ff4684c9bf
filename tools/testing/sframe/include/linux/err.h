/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: error values in pointers and addresses. */
#ifndef _SFRAME_SHIM_LINUX_ERR_H
#define _SFRAME_SHIM_LINUX_ERR_H

#define MAX_ERRNO		4095
#define IS_ERR_VALUE(x)		((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)

#endif
