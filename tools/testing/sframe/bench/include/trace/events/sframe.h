/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for rcache_bench: the sframe trace events do nothing, as
 * the kernel's trace_*() stubs when tracing is off
 */
#ifndef _SFRAME_BENCH_TRACE_SFRAME_H
#define _SFRAME_BENCH_TRACE_SFRAME_H

#include <linux/types.h>

static inline void trace_sframe_unregister(unsigned long text_start,
					   unsigned long text_end) { }

static inline void trace_sframe_corrupt(unsigned long text_start,
					unsigned long sframe_start,
					const char *reason) { }

static inline void trace_sframe_unwind_error(unsigned long pc, int error) { }

static inline void trace_sframe_lookup(unsigned long pc, unsigned int fres,
				       bool nofault, int error) { }

#endif
