// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated user address space: the copy_from_user() shim of the SFrame
 * reader harness reads from here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>
#include <linux/uaccess.h>
#include <asm/tlb.h>

#include "uspace.h"

#define USPACE_MAX_MAPS		16
#define USPACE_PAGE_SIZE	4096UL

struct uspace_map {
	unsigned long	addr;
	size_t		len;
	const u8	*data;
	bool		lazy;
	u8		*wdata;		/* anonymous: writable data */
	u8		*present;	/* anonymous: one flag per page */
};

static struct uspace_map maps[USPACE_MAX_MAPS];
static unsigned int nr_maps;
static unsigned long fault_start, fault_end;
static bool fault_budget_on;
static unsigned long fault_budget;

struct uspace_stats uspace_stats;
int sim_pagefault_depth;
bool sim_nmi_uaccess_okay = true;
unsigned long sim_cond_resched_calls;

/* The user access window, see sim_user_read_access_begin() */
static bool window_open;
static unsigned long window_start, window_end;

void uspace_reset(void)
{
	window_open = false;
	nr_maps = 0;
	fault_start = 0;
	fault_end = 0;
	fault_budget_on = false;
	memset(&uspace_stats, 0, sizeof(uspace_stats));
	sim_pagefault_depth = 0;
	sim_nmi_uaccess_okay = true;
	sim_cond_resched_calls = 0;
}

static struct uspace_map *do_map(unsigned long addr, const void *data,
				 size_t len, bool lazy)
{
	if (nr_maps == USPACE_MAX_MAPS) {
		fprintf(stderr, "uspace: too many mappings\n");
		exit(2);
	}
	maps[nr_maps] = (struct uspace_map){ addr, len, data, lazy, NULL, NULL };
	return &maps[nr_maps++];
}

void uspace_map(unsigned long addr, const void *data, size_t len)
{
	do_map(addr, data, len, false);
}

void uspace_map_lazy(unsigned long addr, const void *data, size_t len)
{
	do_map(addr, data, len, true);
}

void uspace_map_anon(unsigned long addr, void *data, size_t len)
{
	struct uspace_map *m = do_map(addr, data, len, false);
	static u8 present[USPACE_MAX_MAPS][64];

	if (addr % USPACE_PAGE_SIZE || len > 64 * USPACE_PAGE_SIZE) {
		fprintf(stderr, "uspace: bad anonymous mapping\n");
		exit(2);
	}
	m->wdata = data;
	m->present = present[m - maps];
	memset(m->present, 0, 64);
}

void uspace_unmap(unsigned long addr, size_t len)
{
	unsigned long end = addr + len;
	unsigned int i, n = nr_maps;

	for (i = 0; i < n; i++) {
		struct uspace_map *m = &maps[i];
		unsigned long m_end = m->addr + m->len;
		struct uspace_map tail = *m;

		if (end <= m->addr || addr >= m_end)
			continue;
		if (m->present && (addr % USPACE_PAGE_SIZE || len % USPACE_PAGE_SIZE)) {
			fprintf(stderr, "uspace: unaligned unmap\n");
			exit(2);
		}
		/* The part after the hole, as a new mapping */
		if (end < m_end) {
			size_t cut = end - m->addr;
			struct uspace_map *t = do_map(end, m->data + cut,
						      m_end - end, m->lazy);

			m = &maps[i];
			if (tail.wdata) {
				t->wdata = tail.wdata + cut;
				t->present = tail.present + cut / USPACE_PAGE_SIZE;
			}
		}
		/* The part before it; an empty mapping matches no address */
		m->len = addr > m->addr ? addr - m->addr : 0;
	}
}

void uspace_fault_range(unsigned long start, unsigned long end)
{
	fault_start = start;
	fault_end = end;
}

void uspace_fault_after(unsigned long n)
{
	fault_budget_on = true;
	fault_budget = n;
}

/* Read one byte of simulated user memory; false if it faults. */
static bool read_byte(unsigned long addr, u8 *b)
{
	unsigned int i;

	if (addr >= fault_start && addr < fault_end)
		return false;
	if (fault_budget_on) {
		if (!fault_budget)
			return false;
		fault_budget--;
	}
	for (i = 0; i < nr_maps; i++) {
		unsigned long off = addr - maps[i].addr;

		if (off < maps[i].len) {
			if (maps[i].lazy && sim_pagefault_depth)
				return false;
			if (maps[i].present) {
				u8 *p = &maps[i].present[off / USPACE_PAGE_SIZE];

				/* a page fault would bring the page in */
				if (!*p && sim_pagefault_depth)
					return false;
				*p = 1;
			}
			*b = maps[i].data[off];
			return true;
		}
	}
	return false;
}

/* Write one byte of anonymous memory; false if it faults. */
static bool write_byte(unsigned long addr, u8 b)
{
	unsigned int i;

	for (i = 0; i < nr_maps; i++) {
		unsigned long off = addr - maps[i].addr;

		if (off < maps[i].len) {
			if (!maps[i].wdata ||
			    (!maps[i].present[off / USPACE_PAGE_SIZE] &&
			     sim_pagefault_depth))
				return false;
			maps[i].present[off / USPACE_PAGE_SIZE] = 1;
			maps[i].wdata[off] = b;
			return true;
		}
	}
	return false;
}

unsigned long sim_copy_to_user(void *to, const void *from, unsigned long n)
{
	unsigned long addr = (unsigned long)to, i;
	const u8 *src = from;

	for (i = 0; i < n; i++) {
		if (addr + i < addr || !write_byte(addr + i, src[i]))
			break;
	}
	return n - i;
}

unsigned long sim_copy_from_user(void *to, const void *from, unsigned long n)
{
	unsigned long addr = (unsigned long)from, i;
	u8 *dst = to;

	if (sim_pagefault_depth < 0) {
		fprintf(stderr, "uspace: unbalanced pagefault_enable()\n");
		exit(2);
	}
	uspace_stats.calls++;
	uspace_stats.bytes += n;
	if (sim_pagefault_depth)
		uspace_stats.calls_atomic++;
	if (n > uspace_stats.max_len)
		uspace_stats.max_len = n;

	for (i = 0; i < n; i++) {
		/* like access_ok(): no wrap around the address space */
		if (addr + i < addr || !read_byte(addr + i, &dst[i]))
			break;
	}
	if (i < n) {
		uspace_stats.faults++;
		memset(dst + i, 0, n - i);
	}
	return n - i;
}

bool uspace_window_open(void)
{
	return window_open;
}

/* As access_ok() for the range; one call of the statistics */
bool sim_user_read_access_begin(const void *from, unsigned long n)
{
	unsigned long addr = (unsigned long)from;

	if (window_open) {
		fprintf(stderr, "uspace: nested user access window\n");
		exit(2);
	}
	if (addr + n < addr)
		return false;
	uspace_stats.calls++;
	uspace_stats.windows++;
	if (sim_pagefault_depth)
		uspace_stats.calls_atomic++;
	window_open = true;
	window_start = addr;
	window_end = addr + n;
	return true;
}

void sim_user_read_access_end(void)
{
	if (!window_open) {
		fprintf(stderr, "uspace: user_read_access_end() without a window\n");
		exit(2);
	}
	window_open = false;
}

/* unsafe_get_user(): only inside the window's range; 0 or -EFAULT */
int sim_get_user(void *to, const void *from, unsigned long n)
{
	unsigned long addr = (unsigned long)from, i;
	u8 *dst = to;

	if (!window_open || addr < window_start || addr + n < addr ||
	    addr + n > window_end) {
		fprintf(stderr,
			"uspace: unsafe_get_user(%#lx, %lu) outside the window [%#lx, %#lx)%s\n",
			addr, n, window_start, window_end,
			window_open ? "" : " (closed)");
		exit(2);
	}
	uspace_stats.gets++;
	uspace_stats.bytes += n;
	for (i = 0; i < n; i++) {
		if (!read_byte(addr + i, &dst[i])) {
			uspace_stats.faults++;
			return -EFAULT;
		}
	}
	return 0;
}
