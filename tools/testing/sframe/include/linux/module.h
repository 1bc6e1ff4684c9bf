/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: module information is dropped. */
#ifndef _SFRAME_SHIM_LINUX_MODULE_H
#define _SFRAME_SHIM_LINUX_MODULE_H

#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_AUTHOR(x)
#define MODULE_IMPORT_NS(x)

#endif
