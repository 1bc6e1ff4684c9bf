/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: pages of the simulated address space (uspace.c). */
#ifndef _SFRAME_SHIM_LINUX_MM_H
#define _SFRAME_SHIM_LINUX_MM_H

#include <stddef.h>

#define PAGE_SIZE	4096UL
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PAGE_ALIGN(x)	(((x) + PAGE_SIZE - 1) & PAGE_MASK)

/* Unmap [@start, @start + @len) from the simulated address space */
int vm_munmap(unsigned long start, size_t len);

#endif
