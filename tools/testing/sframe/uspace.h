/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Simulated user address space for the SFrame reader harness: buffers
 * mapped at fake user addresses, read by the copy_from_user() shim.
 */
#ifndef _SFRAME_TEST_USPACE_H
#define _SFRAME_TEST_USPACE_H

#include <stdbool.h>
#include <stddef.h>

/* Forget all mappings, faults and counters. */
void uspace_reset(void);

/*
 * Map @len bytes of @data at fake user address @addr.  @data is not
 * copied: tests may modify it after mapping.  A "lazy" mapping is not
 * present: reading it with page faults disabled fails, as for a page
 * that would have to be faulted in.
 */
void uspace_map(unsigned long addr, const void *data, size_t len);
void uspace_map_lazy(unsigned long addr, const void *data, size_t len);

/*
 * Map @len bytes of @data at @addr (both page aligned) as anonymous memory,
 * for kunit_vm_mmap(): writable by copy_to_user(), and each page not
 * present until written or read with page faults enabled (faulted in).
 */
void uspace_map_anon(unsigned long addr, void *data, size_t len);

/* Remove [@addr, @addr + @len) from every mapping */
void uspace_unmap(unsigned long addr, size_t len);

/* Reads of bytes in [start, end) fail. */
void uspace_fault_range(unsigned long start, unsigned long end);

/* After @n more bytes have been copied, every read fails. */
void uspace_fault_after(unsigned long n);

/*
 * Statistics of user memory accesses since the last reset: a call is a
 * copy_from_user() or a user access window (user_read_access_begin()),
 * inside which unsafe_get_user() reads
 */
struct uspace_stats {
	unsigned long calls;		/* copies and windows */
	unsigned long windows;		/* windows */
	unsigned long gets;		/* unsafe_get_user() reads */
	unsigned long bytes;		/* bytes requested */
	unsigned long faults;		/* calls or reads that failed */
	unsigned long calls_atomic;	/* calls with page faults disabled */
	unsigned long max_len;		/* largest copy */
};

/* Whether a user access window is open */
bool uspace_window_open(void);

extern struct uspace_stats uspace_stats;

#endif
