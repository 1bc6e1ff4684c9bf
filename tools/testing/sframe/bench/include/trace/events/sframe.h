/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim for rcache_bench: the sframe trace events do nothing */
#ifndef _SFRAME_BENCH_TRACE_SFRAME_H
#define _SFRAME_BENCH_TRACE_SFRAME_H

#define trace_sframe_unregister(start, end)		do { } while (0)
#define trace_sframe_corrupt(start, sframe, why)	do { } while (0)
#define trace_sframe_unwind_error(pc, err)		do { } while (0)

#endif
