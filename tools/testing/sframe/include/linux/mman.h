/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: PROT_* and MAP_* */
#ifndef _SFRAME_SHIM_LINUX_MMAN_H
#define _SFRAME_SHIM_LINUX_MMAN_H

#include <sys/mman.h>

#endif
