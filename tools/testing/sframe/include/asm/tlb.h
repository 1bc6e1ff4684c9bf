/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: nmi_uaccess_okay() can be forced false by a test. */
#ifndef _SFRAME_SHIM_ASM_TLB_H
#define _SFRAME_SHIM_ASM_TLB_H

#include <linux/types.h>

extern bool sim_nmi_uaccess_okay;

static inline bool nmi_uaccess_okay(void)
{
	return sim_nmi_uaccess_okay;
}

#endif
