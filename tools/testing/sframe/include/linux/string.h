/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: memcpy(), memset(), strcmp() are libc's. */
#ifndef _SFRAME_SHIM_LINUX_STRING_H
#define _SFRAME_SHIM_LINUX_STRING_H

#include <string.h>

#endif
