/* SPDX-License-Identifier: GPL-2.0 */
/* What sframe-profile's BPF program and its user space share. */
#ifndef SFRAME_PROFILE_H
#define SFRAME_PROFILE_H

#define SP_KSTACK	64	/* kernel frames kept per sample */
#define SP_USTACK	127	/* user frames in the event */
#define SP_MAX_TARGETS	4096	/* processes sampled without -a */

/* The value of a process in the targets map */
#define SP_TARGET_WAIT	1	/* the command, before its exec */
#define SP_TARGET_ON	2	/* sampled */

/* One cpu-clock sample of a profiled process */
struct sp_sample {
	__u64	cookie;		/* deferred: the user stack's record */
	__u32	pid;
	__u32	tid;
	__s32	knr;		/* kernel stack: bytes, or -errno */
	__s32	unr;		/* user stack in the event: bytes, or -errno */
	__s32	defer_ret;	/* bpf_unwind_user_deferred() */
	char	comm[16];	/* the thread's name */
	__u32	kthread;	/* no user address space: no user stack */
	__u32	exiting;	/* exiting: not asked for a deferred user stack */
	__u64	kstack[SP_KSTACK];
	__u64	ustack[SP_USTACK];
};

#endif
