// SPDX-License-Identifier: GPL-2.0
/*
 * Wrong uses of bpf_unwind_user_deferred() that the verifier must reject;
 * sframe_bpf loads each program alone and checks the verifier's message.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

extern int bpf_unwind_user_deferred(void *map, __u64 flags,
				    __u64 *cookie) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 12);
} rb SEC(".maps");

struct rb_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 12);
} rb_inner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct rb_inner);
} outer SEC(".maps") = { .values = { [0] = &rb_inner } };

__u64 flags;

/* A hash map is no ring buffer */
SEC("?tp/syscalls/sys_enter_getppid")
int wrong_map(void *ctx)
{
	__u64 cookie = 0;

	return bpf_unwind_user_deferred(&hash, 0, &cookie);
}

/* No flags are defined */
SEC("?tp/syscalls/sys_enter_getppid")
int bad_flags(void *ctx)
{
	__u64 cookie = 0;

	return bpf_unwind_user_deferred(&rb, 1, &cookie);
}

/* Flags must be known to the verifier */
SEC("?tp/syscalls/sys_enter_getppid")
int unknown_flags(void *ctx)
{
	__u64 cookie = 0;

	return bpf_unwind_user_deferred(&rb, flags, &cookie);
}

/* A socket filter has no task to unwind */
SEC("?socket")
int wrong_type(struct __sk_buff *skb)
{
	__u64 cookie = 0;

	return bpf_unwind_user_deferred(&rb, 0, &cookie);
}

/* A ring buffer from a map-in-map lookup: not one the program holds */
SEC("?tp/syscalls/sys_enter_getppid")
int inner_map(void *ctx)
{
	__u64 cookie = 0;
	__u32 key = 0;
	void *inner = bpf_map_lookup_elem(&outer, &key);

	if (!inner)
		return 0;
	return bpf_unwind_user_deferred(inner, 0, &cookie);
}

/* An iterator runs in the reader, not in a task it traces */
SEC("?iter/task")
int iter_task(void *ctx)
{
	__u64 cookie = 0;

	return bpf_unwind_user_deferred(&rb, 0, &cookie);
}
