/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF programs of sframe_bpf (progs/) and the runner share: the
 * event each program writes, the program bits of progs_on, the modes of
 * the deferred requests.
 */
#ifndef SFT_BPF_H
#define SFT_BPF_H

#include <linux/types.h>

#define SFT_MAX_STACK	64
#define SFT_MAX_DEFER	5

enum sft_prog {
	SFT_PROG_TP,		/* tracepoint syscalls:sys_enter_getppid */
	SFT_PROG_KPROBE,	/* kprobe on the getppid system call */
	SFT_PROG_FENTRY,	/* fentry on __do_sys_getppid() */
	SFT_PROG_RAW_TP,	/* raw tracepoint sys_enter, getppid */
	SFT_PROG_UPROBE,	/* uprobe on sft_leaf() */
	SFT_PROG_PERF,		/* perf_event (cpu-clock) */
	SFT_PROG_EXIT,		/* tracepoint sys_enter_exit_group */
	SFT_PROG_EXEC,		/* tracepoint sys_enter_execve */
	SFT_PROG_LATE,		/* fexit on the delivery of the stack */
	SFT_PROG_EXEC_AFTER,	/* tracepoint sched_process_exec */
	SFT_PROG_DURING,	/* fentry on bpf_map_put(), in the delivery */
	SFT_PROG_SWITCH,	/* tracepoint sched_switch, as the task leaves */
	SFT_NR_PROGS
};

enum sft_defer {
	SFT_DEFER_NONE,
	SFT_DEFER_ONE,		/* stacks */
	SFT_DEFER_TWO_MAPS,	/* stacks twice, stacks2 once */
	SFT_DEFER_SMALL,	/* small (one page) */
	SFT_DEFER_FIVE_MAPS,	/* one more map than a task may name */
};

struct sft_event {
	__u32	prog;			/* enum sft_prog */
	__u32	tid;
	__s64	nr;			/* bpf_get_stack(): bytes or -errno */
	__s64	stackid;		/* bpf_get_stackid() */
	__s64	ret[SFT_MAX_DEFER];	/* bpf_unwind_user_deferred() */
	__u64	cookie[SFT_MAX_DEFER];
	__u64	ustack[SFT_MAX_STACK];
};

#if defined(__TARGET_ARCH_x86) || defined(__x86_64__)
#define SFT_NR_GETPPID		110
#elif defined(__TARGET_ARCH_arm64) || defined(__aarch64__)
#define SFT_NR_GETPPID		173
#elif defined(__TARGET_ARCH_s390) || defined(__s390x__)
#define SFT_NR_GETPPID		64
#endif

#endif
