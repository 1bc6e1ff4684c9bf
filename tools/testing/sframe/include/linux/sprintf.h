/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: snprintf() is libc's. */
#ifndef _SFRAME_SHIM_LINUX_SPRINTF_H
#define _SFRAME_SHIM_LINUX_SPRINTF_H

#include <stdio.h>

#endif
