/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim for rcache_bench: see ../kshim.h */
#include "../kshim.h"
