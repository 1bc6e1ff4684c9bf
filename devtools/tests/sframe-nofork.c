// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-nofork [-n] [-g N] [-s FILE] PROGRAM [ARGS...]: run PROGRAM under a
 * seccomp filter that kills the process when it creates another (clone,
 * clone3, fork, vfork), as a sandbox may: a process sframe-audit.so must
 * not run sframe-gen in.  For devtools/tests/sframe-cache-sec.sh; as root.
 *
 *   -n       no filter
 *   -g N     N supplementary groups first (1000000 and up), which make the
 *            Groups line of /proc/self/status 8 * N bytes long
 *   -s FILE  FILE mounted over /proc/self/status first, in a mount
 *            namespace of its own (PROGRAM keeps the PID, so it reads FILE)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define ARCH		AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH		AUDIT_ARCH_AARCH64
#elif defined(__s390x__)
#define ARCH		AUDIT_ARCH_S390X
#else
#error "sframe-nofork: unsupported architecture"
#endif

#define MAX_GROUPS	65536
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The system calls that create a process */
static const unsigned int nrs[] = {
	__NR_clone,
	__NR_clone3,
#ifdef __NR_fork
	__NR_fork,
#endif
#ifdef __NR_vfork
	__NR_vfork,
#endif
};

static int filter(void)
{
	struct sock_filter f[4 + 2 * ARRAY_SIZE(nrs) + 1];
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };
	unsigned int i, at = 0;

	/* Another architecture's system calls: kill */
	f[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					       offsetof(struct seccomp_data, arch));
	f[at++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0);
	f[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					       SECCOMP_RET_KILL_PROCESS);
	f[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					       offsetof(struct seccomp_data, nr));
	for (i = 0; i < ARRAY_SIZE(nrs); i++) {
		f[at++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						       nrs[i], 0, 1);
		f[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						       SECCOMP_RET_KILL_PROCESS);
	}
	f[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("sframe-nofork: PR_SET_NO_NEW_PRIVS");
		return -1;
	}
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0)) {
		perror("sframe-nofork: PR_SET_SECCOMP");
		return -1;
	}
	return 0;
}

static int groups(long n)
{
	static gid_t g[MAX_GROUPS];
	long i;

	if (n < 0 || n > MAX_GROUPS) {
		fprintf(stderr, "sframe-nofork: -g takes 0 to %d\n", MAX_GROUPS);
		return -1;
	}
	for (i = 0; i < n; i++)
		g[i] = 1000000 + i;
	if (setgroups(n, g)) {
		perror("sframe-nofork: setgroups");
		return -1;
	}
	return 0;
}

static int status_file(const char *file)
{
	char status[64];

	snprintf(status, sizeof(status), "/proc/%d/status", (int)getpid());
	/* Private, so that the mount stays in this namespace */
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/proc", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(file, status, NULL, MS_BIND, NULL)) {
		perror("sframe-nofork: mounting over /proc/self/status");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *file = NULL;
	long ngroups = -1;
	int c, nofilter = 0;
	char *end;

	while ((c = getopt(argc, argv, "+ng:s:")) != -1) {
		switch (c) {
		case 'n':
			nofilter = 1;
			break;
		case 'g':
			ngroups = strtol(optarg, &end, 10);
			if (*end || end == optarg)
				ngroups = LONG_MAX;
			break;
		case 's':
			file = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	if ((ngroups >= 0 && groups(ngroups)) ||
	    (file && status_file(file)) || (!nofilter && filter()))
		return 126;
	execvp(argv[optind], argv + optind);
	perror(argv[optind]);
	return 127;
usage:
	fprintf(stderr, "usage: sframe-nofork [-n] [-g N] [-s FILE] PROGRAM [ARGS...]\n");
	return 2;
}
