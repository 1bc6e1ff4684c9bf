// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-profile's sampler: on each cpu-clock sample of the profiled
 * process, the kernel stack and either the user stack in the event
 * (bpf_get_stack(), SFrame where the kernel has it) or a request for the
 * user stack at the return to user space (bpf_unwind_user_deferred()).
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>

#include "sframe_profile.h"

char LICENSE[] SEC("license") = "GPL";

extern int bpf_unwind_user_deferred(void *map, __u64 flags,
				    __u64 *cookie) __ksym __weak;

/* Set before the program is attached */
__u32 target_tgid;
bool deferred;

/*
 * Set when the profiled process has exec'd the command: before that it
 * runs sframe-profile's own child code, as perf's enable_on_exec leaves
 * out.  A deferred request made before the exec would also spoil the
 * ones after it in the same execve(): the kernel gives them -EBUSY.
 */
bool target_execd;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} stacks SEC(".maps");

/* Samples that found the samples ring buffer full */
__u64 lost;

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sp_sample *s;

	if (id >> 32 != target_tgid || !target_execd)
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
	s->knr = bpf_get_stack(ctx, s->kstack, sizeof(s->kstack), 0);
	if (deferred) {
		if (bpf_ksym_exists(bpf_unwind_user_deferred))
			s->defer_ret = bpf_unwind_user_deferred(&stacks, 0,
								&s->cookie);
		else
			s->defer_ret = -95; /* EOPNOTSUPP */
	} else {
		s->unr = bpf_get_stack(ctx, s->ustack, sizeof(s->ustack),
				       BPF_F_USER_STACK);
	}
	bpf_ringbuf_submit(s, 0);
	return 0;
}

SEC("tp/sched/sched_process_exec")
int on_exec(void *ctx)
{
	if (bpf_get_current_pid_tgid() >> 32 == target_tgid)
		target_execd = true;
	return 0;
}
