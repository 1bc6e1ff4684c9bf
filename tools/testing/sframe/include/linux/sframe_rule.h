/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's header itself: it needs nothing but linux/types.h */
#include "../../../../../include/linux/sframe_rule.h"
