// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF programs of sframe_bpf: user stacks in the event
 * (bpf_get_stack(), bpf_get_stackid() with BPF_F_USER_STACK) and deferred
 * (bpf_unwind_user_deferred()) from every program type that may ask.
 * Each program writes one struct sft_event to the events ring buffer for
 * the processes in the tgids map, when its bit is set in progs_on.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <stdbool.h>
#include <linux/errno.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../sft_bpf.h"

char LICENSE[] SEC("license") = "GPL";

extern int bpf_unwind_user_deferred(void *map, __u64 flags,
				    __u64 *cookie) __ksym;

/* Set by the runner */
__u32 progs_on;
__u32 defer_mode;
__u32 late_print;	/* late requests call bpf_printk() first */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 18);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
} stacks2 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 12);
} stacks3 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 12);
} stacks4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 12);
} small SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 256);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SFT_MAX_STACK * sizeof(__u64));
} stackmap SEC(".maps");

static __always_inline void defer(struct sft_event *e)
{
	switch (defer_mode) {
	case SFT_DEFER_ONE:
		e->ret[0] = bpf_unwind_user_deferred(&stacks, 0, &e->cookie[0]);
		break;
	case SFT_DEFER_TWO_MAPS:
		/* stacks twice, stacks2 once: one record in each */
		e->ret[0] = bpf_unwind_user_deferred(&stacks, 0, &e->cookie[0]);
		e->ret[1] = bpf_unwind_user_deferred(&stacks, 0, &e->cookie[1]);
		e->ret[2] = bpf_unwind_user_deferred(&stacks2, 0, &e->cookie[2]);
		break;
	case SFT_DEFER_SMALL:
		e->ret[0] = bpf_unwind_user_deferred(&small, 0, &e->cookie[0]);
		break;
	case SFT_DEFER_FIVE_MAPS:
		e->ret[0] = bpf_unwind_user_deferred(&stacks, 0, &e->cookie[0]);
		e->ret[1] = bpf_unwind_user_deferred(&stacks2, 0, &e->cookie[1]);
		e->ret[2] = bpf_unwind_user_deferred(&stacks3, 0, &e->cookie[2]);
		e->ret[3] = bpf_unwind_user_deferred(&stacks4, 0, &e->cookie[3]);
		e->ret[4] = bpf_unwind_user_deferred(&small, 0, &e->cookie[4]);
		break;
	}
}

static __always_inline int sample(void *ctx, __u32 prog, bool in_event)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	struct sft_event *e;

	if (!(progs_on & (1u << prog)) || !bpf_map_lookup_elem(&tgids, &tgid))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return 0;
	__builtin_memset(e, 0, sizeof(*e));
	e->prog = prog;
	e->tid = (__u32)id;
	if (in_event) {
		e->nr = bpf_get_stack(ctx, e->ustack, sizeof(e->ustack),
				      BPF_F_USER_STACK);
		/*
		 * The map hashes a chain to a bucket: with randomized
		 * addresses two chains of one test share a bucket now and
		 * then, which without BPF_F_REUSE_STACKID is -EEXIST.
		 */
		e->stackid = bpf_get_stackid(ctx, &stackmap,
					     BPF_F_USER_STACK |
					     BPF_F_REUSE_STACKID);
	}
	defer(e);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp/syscalls/sys_enter_getppid")
int tp_getppid(void *ctx)
{
	return sample(ctx, SFT_PROG_TP, true);
}

SEC("ksyscall/getppid")
int kprobe_getppid(struct pt_regs *ctx)
{
	return sample(ctx, SFT_PROG_KPROBE, true);
}

SEC("fentry/__do_sys_getppid")
int BPF_PROG(fentry_getppid)
{
	return sample(ctx, SFT_PROG_FENTRY, true);
}

SEC("raw_tp/sys_enter")
int raw_tp_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	if (ctx->args[1] != SFT_NR_GETPPID)
		return 0;
	return sample(ctx, SFT_PROG_RAW_TP, true);
}

SEC("uprobe")
int uprobe_leaf(struct pt_regs *ctx)
{
	return sample(ctx, SFT_PROG_UPROBE, true);
}

SEC("perf_event")
int perf_sample(struct bpf_perf_event_data *ctx)
{
	return sample(ctx, SFT_PROG_PERF, true);
}

/* Requests that are never delivered: the task exits or execs first */
SEC("tp/syscalls/sys_enter_exit_group")
int tp_exit_group(void *ctx)
{
	return sample(ctx, SFT_PROG_EXIT, false);
}

SEC("tp/syscalls/sys_enter_execve")
int tp_execve(void *ctx)
{
	return sample(ctx, SFT_PROG_EXEC, false);
}

/*
 * As the task leaves the CPU (current is the previous task): what an
 * off-CPU tool asks for.  Attached by the test that wants it only.
 */
SEC("tp/sched/sched_switch")
int tp_sched_switch(void *ctx)
{
	return sample(ctx, SFT_PROG_SWITCH, false);
}

/* After the exec, in the same system call */
SEC("tp/sched/sched_process_exec")
int tp_process_exec(void *ctx)
{
	return sample(ctx, SFT_PROG_EXEC_AFTER, false);
}

struct bpf_map;
struct unwind_work;
struct unwind_stacktrace;

/*
 * Requests for stacks and stacks2 from a program on the delivery, @prog
 * with the cookie it was given (0 if none)
 */
static __always_inline int request_both(__u32 prog, __u64 cookie)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	struct sft_event *e;

	if (!(progs_on & (1u << prog)) || !bpf_map_lookup_elem(&tgids, &tgid))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return 0;
	__builtin_memset(e, 0, sizeof(*e));
	e->prog = prog;
	e->tid = (__u32)id;
	if (late_print)
		bpf_printk("sframe_bpf: late request");
	e->ret[0] = bpf_unwind_user_deferred(&stacks, 0, &e->cookie[0]);
	e->ret[1] = bpf_unwind_user_deferred(&stacks2, 0, &e->cookie[1]);
	e->cookie[2] = cookie;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * Late requests, after the stack of the entry was delivered, still in
 * the same entry: for stacks, which got it, and stacks2, which did not.
 * The bpf_printk() first lets a perf event on the bpf_trace_printk
 * tracepoint ask for a deferred callchain, so that deferred unwinding is
 * pending again, for perf.
 */
SEC("fexit/bpf_unwind_user_callback")
int BPF_PROG(fexit_callback, struct unwind_work *work,
	     struct unwind_stacktrace *trace, __u64 cookie)
{
	return request_both(SFT_PROG_LATE, cookie);
}

/*
 * Requests in the delivery itself: it looks each ring buffer up by id
 * and drops that reference after writing the record, so these come
 * between two ring buffers' records.  Attached by the test that wants it
 * only (bpf_map_put() is everywhere).
 */
SEC("fentry/bpf_map_put")
int BPF_PROG(fentry_map_put, struct bpf_map *map)
{
	return request_both(SFT_PROG_DURING, 0);
}
