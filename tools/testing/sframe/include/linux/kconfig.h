/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IS_ENABLED() for the harness, which the kernel's build includes in every
 * file: 1 for an option defined as 1 (-DCONFIG_X), else 0.  Modules do
 * not exist here.
 */
#ifndef _SIM_LINUX_KCONFIG_H
#define _SIM_LINUX_KCONFIG_H

#define __SIM_PLACEHOLDER_1		0,
#define __sim_second(ignored, val, ...)	val
#define __sim_defined(x)		___sim_defined(x)
#define ___sim_defined(val)		____sim_defined(__SIM_PLACEHOLDER_##val)
#define ____sim_defined(arg_or_junk)	__sim_second(arg_or_junk 1, 0)

#define IS_ENABLED(option)		__sim_defined(option)

#endif
