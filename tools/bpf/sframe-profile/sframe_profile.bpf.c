// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-profile's sampler: on each cpu-clock sample of a profiled
 * process (every process but the profiler's own with -a), the kernel
 * stack and either the user stack in the event (bpf_get_stack(), SFrame
 * where the kernel has it) or a request for the user stack at the return
 * to user space (bpf_unwind_user_deferred()).
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "sframe_profile.h"

char LICENSE[] SEC("license") = "GPL";

extern int bpf_unwind_user_deferred(void *map, __u64 flags,
				    __u64 *cookie) __ksym __weak;

/* Set before the program is attached */
bool all;		/* every process but self_tgid */
__u32 self_tgid;
bool deferred;
bool no_user_stack, no_kernel_stack;	/* -K, -U */

/*
 * The processes sampled without -a, by thread-group ID: SP_TARGET_WAIT
 * for the command that sframe-profile started until it has exec'd (before
 * that it runs sframe-profile's own child code, as perf's enable_on_exec
 * leaves out; a deferred request made before the exec would also spoil
 * the ones after it in the same execve(): the kernel gives them -EBUSY),
 * SP_TARGET_ON once it has, and for -p.  A process that a sampled one
 * forks is sampled too.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SP_MAX_TARGETS);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} stacks SEC(".maps");

/* The fields of the kernel's task_struct read here, placed by CO-RE */
struct task_struct {
	unsigned int flags;
	int pid;
	int tgid;
	void *mm;
} __attribute__((preserve_access_index));

#define PF_EXITING	0x00000004	/* include/linux/sched.h */

/* Samples that found the samples ring buffer full */
__u64 lost;
/* Forked processes that found the targets map full */
__u64 targets_full;

static bool sampled(__u32 tgid)
{
	__u8 *on;

	if (all)
		return tgid != self_tgid && tgid;
	on = bpf_map_lookup_elem(&targets, &tgid);
	return on && *on == SP_TARGET_ON;
}

/* The user stack of @s: taken now, or asked for at the return to user */
static __always_inline void user_stack(struct bpf_perf_event_data *ctx,
				       struct sp_sample *s)
{
	if (!deferred)
		s->unr = bpf_get_stack(ctx, s->ustack, sizeof(s->ustack),
				       BPF_F_USER_STACK);
	else if (s->exiting)
		;	/* it never returns to user space: nothing to ask */
	else if (bpf_ksym_exists(bpf_unwind_user_deferred))
		s->defer_ret = bpf_unwind_user_deferred(&stacks, 0, &s->cookie);
	else
		s->defer_ret = -95; /* EOPNOTSUPP */
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct sp_sample *s;

	if (!sampled(id >> 32))
		return 0;
	s = bpf_ringbuf_reserve(&samples, sizeof(*s), 0);
	if (!s) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	s->pid = id >> 32;
	s->tid = (__u32)id;
	s->cookie = 0;
	s->defer_ret = 0;
	s->unr = 0;
	s->knr = 0;
	task = bpf_get_current_task_btf();
	s->kthread = !task->mm;
	s->exiting = !!(task->flags & PF_EXITING);
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	if (!no_kernel_stack)
		s->knr = bpf_get_stack(ctx, s->kstack, sizeof(s->kstack), 0);
	/* A kernel thread has no user stack to ask for */
	if (!no_user_stack && !s->kthread)
		user_stack(ctx, s);
	bpf_ringbuf_submit(s, 0);
	return 0;
}

SEC("tp/sched/sched_process_exec")
int on_exec(void *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u8 *on = bpf_map_lookup_elem(&targets, &tgid);

	if (on)
		*on = SP_TARGET_ON;
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = parent->tgid, pid = child->pid;
	__u8 *on, val = SP_TARGET_ON;

	/* A new thread of a sampled process is sampled already */
	if (all || child->tgid != pid)
		return 0;
	on = bpf_map_lookup_elem(&targets, &tgid);
	if (!on || *on != SP_TARGET_ON)
		return 0;
	if (bpf_map_update_elem(&targets, &pid, &val, BPF_NOEXIST) == -7)
		__sync_fetch_and_add(&targets_full, 1);	/* E2BIG */
	return 0;
}

/* A process that exits leaves the map: its ID may be reused */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p, bool group_dead)
{
	__u32 tgid = p->tgid;

	if (group_dead && !all)
		bpf_map_delete_elem(&targets, &tgid);
	return 0;
}
