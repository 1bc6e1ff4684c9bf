// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of unwinding user stacks at the return to user space, with
 * SFrame and with frame pointers, on the same stacks.  A benchmark, not
 * a test; it runs as root and sets kernel.sframe_unwind itself (restored
 * at exit).
 *
 * The program is built with frame pointers and with .sframe.  A module
 * linked with it (bench_descend()) calls bench_bottom() under a chain of
 * frames; bench_bottom() makes ITERATIONS getppid() system calls with the
 * system call instruction, in our own code, and times them.  x86-64 and
 * arm64.  The chain ends
 * at bench_start() for both unwinders: no frames of main() or libc, the
 * same frames either way.  Each call is measured in three modes:
 *
 *   none	no perf event: the baseline
 *   fp		a perf event on the syscalls:sys_enter_getppid tracepoint
 *		with a deferred user callchain, kernel.sframe_unwind=0: the
 *		unwinder at the return to user space follows frame pointers
 *   sframe	the same with kernel.sframe_unwind=1: .sframe first
 *
 * and ns per frame is (time in the mode - time without the event) per
 * call, divided by the length of the user chain that the mode delivers
 * in PERF_RECORD_CALLCHAIN_DEFERRED.  The difference to the baseline
 * includes the fixed cost of the event (tracepoint, sample, records):
 * the "fit" lines separate the per-frame cost from it over the depths.
 *
 * State "cold" drops the page table entries of the program's .sframe
 * section (MADV_DONTNEED) before every system call, in every mode, so
 * that the SFrame unwinder faults them back in.  State "evict" also
 * drops its pages from the page cache (POSIX_FADV_DONTNEED), so that
 * they are read from the file again: the first unwind after eviction.
 *
 * Modules: unwind_bench_rec.c (unwind_bench: a recursive function, at
 * total chain lengths of -d frames) and gen_funcs.sh N (unwind_bench_fN:
 * a chain of -d functions spread over N, the lookup in a table of N FDEs).
 * Medians over ROUNDS rounds, which run the modes in rotating order.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "sft_arch.h"
#include "sft_perf.h"
#include "unwind_bench.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define SYSCTL		"/proc/sys/kernel/sframe_unwind"
#define MAX_CHAIN	1024
#define MAX_DEPTH	400	/* the deferred unwinder keeps ~500 entries */
#define MAX_DEPTHS	16
#define MAX_ROUNDS	99
#define RB_PAGES	16

enum { MODE_NONE, MODE_FP, MODE_SFRAME, NR_MODES };
static const char * const mode_name[NR_MODES] = { "none", "fp", "sframe" };

struct chain {
	int nr;
	unsigned long ip[MAX_CHAIN];
};

/* What bench_bottom() does, and its result */
static struct {
	long iters;
	bool cold;
	bool evict;
	int sf_fd;		/* the file of .sframe, for "evict" */
	off_t sf_off;		/* file offset of sf_page */
	void *sf_page;		/* the .sframe section, page aligned */
	size_t sf_len;
	struct perf_event_mmap_page *pg;	/* records consumed here */
	double ns;		/* per system call */
} run;

/* Stands in for the ring buffer where no records are to be consumed */
static struct perf_event_mmap_page dummy_pg;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The top of the unwound stack: the timed system calls */
static BENCH_NOIPA int bench_bottom(void)
{
	struct perf_event_mmap_page *pg = run.pg;
	double start;
	long i, ret = 0;

	start = now_ns();
	for (i = 0; i < run.iters; i++) {
		if (run.cold)
			madvise(run.sf_page, run.sf_len, MADV_DONTNEED);
		if (run.evict)
			posix_fadvise(run.sf_fd, run.sf_off, run.sf_len,
				      POSIX_FADV_DONTNEED);
		ret = sft_syscall0(SYS_getppid);
		/* Consume the records: the buffer never fills */
		__atomic_store_n(&pg->data_tail,
				 __atomic_load_n(&pg->data_head,
						 __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
	run.ns = (now_ns() - start) / run.iters;
	return ret > 0;
}

static BENCH_NOIPA int bench_call(long depth)
{
	return bench_descend(depth, bench_bottom) + 1;
}

/*
 * bench_start(fn, arg) calls fn(arg) as the outermost frame of the
 * chain, as _start is: with no frame pointer (0) and, for SFrame, an
 * undefined return address.  Both unwinders end the chain here, on the
 * same frame, whatever the frames of main() and libc below are.
 */
int bench_start(int (*fn)(long), long arg);
#if defined(__x86_64__)
asm("	.pushsection .text\n"
	"	.p2align 4\n"
	"	.type	bench_start, @function\n"
	"bench_start:\n"
	"	.cfi_startproc\n"
	"	.cfi_undefined rip\n"
	"	pushq	%rbp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	xorl	%ebp, %ebp\n"
	"	movq	%rdi, %rax\n"
	"	movq	%rsi, %rdi\n"
	"	call	*%rax\n"
	"	popq	%rbp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size	bench_start, .-bench_start\n"
	"	.popsection\n");
#elif defined(__aarch64__)
asm("	.pushsection .text\n"
	"	.p2align 4\n"
	"	.type	bench_start, %function\n"
	"bench_start:\n"
	"	.cfi_startproc\n"
	"	.cfi_undefined x30\n"
	"	stp	x29, x30, [sp, -16]!\n"
	"	.cfi_adjust_cfa_offset 16\n"
	"	mov	x29, xzr\n"
	"	mov	x2, x0\n"
	"	mov	x0, x1\n"
	"	blr	x2\n"
	"	ldp	x29, x30, [sp], 16\n"
	"	.cfi_adjust_cfa_offset -16\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size	bench_start, .-bench_start\n"
	"	.popsection\n");
#elif defined(__s390x__)
/* Its frame's back chain is 0: the back chain walk ends there too */
asm("	.pushsection .text\n"
	"	.p2align 4\n"
	"	.type	bench_start, @function\n"
	"bench_start:\n"
	"	.cfi_startproc\n"
	"	.cfi_undefined 14\n"
	"	stmg	%r14,%r15,112(%r15)\n"
	"	lgr	%r1,%r2\n"
	"	lgr	%r2,%r3\n"
	"	aghi	%r15,-160\n"
	"	.cfi_adjust_cfa_offset 160\n"
	"	xc	0(8,%r15),0(%r15)\n"
	"	basr	%r14,%r1\n"
	"	lmg	%r14,%r15,272(%r15)\n"
	"	.cfi_adjust_cfa_offset -160\n"
	"	br	%r14\n"
	"	.cfi_endproc\n"
	"	.size	bench_start, .-bench_start\n"
	"	.popsection\n");
#else
#error "unwind_bench: no bench_start() for this architecture"
#endif

/* ---- kernel.sframe_unwind, restored at exit ---- */

static char sysctl_saved[8];

static int sysctl_write(const char *val)
{
	int fd = open(SYSCTL, O_WRONLY), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return ret;
}

static void sysctl_restore(void)
{
	if (sysctl_saved[0])
		sysctl_write(sysctl_saved);
}

static void sysctl_signal(int sig)
{
	sysctl_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int sysctl_save(void)
{
	int fd = open(SYSCTL, O_RDONLY), n;

	if (fd < 0)
		return -1;
	n = read(fd, sysctl_saved, sizeof(sysctl_saved) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	sysctl_saved[n] = 0;
	atexit(sysctl_restore);
	signal(SIGINT, sysctl_signal);
	signal(SIGTERM, sysctl_signal);
	signal(SIGHUP, sysctl_signal);
	return 0;
}

/* ---- perf: a deferred user callchain at every getppid() ---- */

static int sampler_open(struct sampler *s)
{
	if (sft_sampler_open(s, PERF_SAMPLE_CALLCHAIN, 1, RB_PAGES)) {
		perror("perf_event_open (syscalls:sys_enter_getppid, defer_callchain)");
		return -1;
	}
	return 0;
}

/*
 * Consume the records in the buffer: the user chain of the last sample
 * (its PERF_CONTEXT_USER_DEFERRED cookie, repeated by a
 * PERF_RECORD_CALLCHAIN_DEFERRED record) and the bytes of all records.
 */
static int sampler_chain(struct sampler *s, struct chain *c, __u64 *bytes)
{
	struct perf_event_mmap_page *pg = s->rb;
	char *data = (char *)s->rb + getpagesize();
	__u64 size = pg->data_size, head, tail, cookie = 0;
	static __u64 rec[MAX_CHAIN + 8];
	int found = 0;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	*bytes = head - tail;
	while (tail < head) {
		struct perf_event_header h;
		__u64 i;

		for (i = 0; i < sizeof(h); i++)
			((char *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h))
			return -1;
		if (h.size > sizeof(rec)) {
			tail += h.size;
			continue;
		}
		for (i = 0; i < h.size; i++)
			((char *)rec)[i] = data[(tail + i) % size];
		tail += h.size;

		if (h.type == PERF_RECORD_SAMPLE) {
			/* header, nr, ips */
			for (i = 0; i + 1 < rec[1] && 3 + i < h.size / 8; i++)
				if (rec[2 + i] == PERF_CONTEXT_USER_DEFERRED)
					cookie = rec[3 + i];
		} else if (h.type == PERF_RECORD_CALLCHAIN_DEFERRED) {
			int nr = sft_deferred_chain(rec, h.size / 8, cookie,
						    c->ip, MAX_CHAIN);

			if (nr >= 0) {
				c->nr = nr;
				found = 1;
			}
		}
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	return found ? 0 : -1;
}

/* ---- the program's .sframe section ---- */

static struct {
	unsigned long start, size;	/* PT_GNU_SFRAME */
	unsigned long page, len;	/* page-aligned, for MADV_DONTNEED */
	unsigned long file_off;		/* file offset of page */
	const char *path;		/* the object's file */
	bool writable;			/* in a writable or RELRO segment */
} sf;

static int sframe_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long self = (unsigned long)data, pgsz = getpagesize();
	const Elf64_Phdr *ph = info->dlpi_phdr;
	bool ours = false;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		unsigned long start = info->dlpi_addr + ph[i].p_vaddr;

		if (ph[i].p_type == PT_LOAD && self >= start &&
		    self < start + ph[i].p_memsz)
			ours = true;
	}
	if (!ours)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		if (ph[i].p_type != PT_GNU_SFRAME)
			continue;
		sf.start = info->dlpi_addr + ph[i].p_vaddr;
		sf.size = ph[i].p_memsz;
		sf.page = sf.start & ~(pgsz - 1);
		sf.len = ((sf.start + sf.size + pgsz - 1) & ~(pgsz - 1)) -
			 sf.page;
		sf.file_off = ph[i].p_offset & ~(pgsz - 1);
		sf.path = info->dlpi_name && info->dlpi_name[0] ?
			  info->dlpi_name : "/proc/self/exe";
	}
	/* MADV_DONTNEED would undo relocations in written pages */
	for (i = 0; sf.size && i < info->dlpi_phnum; i++) {
		unsigned long start = info->dlpi_addr + ph[i].p_vaddr;
		unsigned long end = start + ph[i].p_memsz;

		if (sf.page >= end || sf.page + sf.len <= start)
			continue;
		if (ph[i].p_type == PT_GNU_RELRO ||
		    (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_W)))
			sf.writable = true;
	}
	return 1;
}

static unsigned int sframe_fdes(void)
{
	const unsigned char *p = (const unsigned char *)sf.start;
	unsigned int n;

	if (sf.size < 28 || p[0] != 0xe2 || p[1] != 0xde)
		return 0;
	memcpy(&n, p + 8, sizeof(n));	/* sframe_header.num_fdes */
	return n;
}

/*
 * Where the kernel's section for the module's text comes from, as
 * /proc/self/sframe says once it was unwound: "elf" (PT_GNU_SFRAME),
 * "store" (the kernel's store, for a copy of the program whose
 * PT_GNU_SFRAME was removed), or "none"
 */
static const char *sframe_source(void)
{
	static char how[16];
	unsigned long self = (unsigned long)bench_descend, lo, hi;
	char line[512], state[16];
	FILE *f = fopen("/proc/self/sframe", "r");

	strcpy(how, "none");
	if (!f)
		return how;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %15s %15s", &lo, &hi, state, how) == 4 &&
		    self >= lo && self < hi) {
			if (strcmp(state, "ok"))
				strcpy(how, "none");
			fclose(f);
			return how;
		}
	fclose(f);
	strcpy(how, "none");
	return how;
}

/* ---- measurements ---- */

static bool verbose, show_chains;
static int mismatches;

/*
 * One call of bench_bottom() under @depth frames in @mode, @iters system
 * calls: ns per call; the user chain in @c (modes with the event).
 */
static BENCH_NOIPA int measure(int mode, int depth, long iters,
			       double *ns, struct chain *c)
{
	struct perf_event_mmap_page *pg;
	struct sampler s;
	__u64 per_call, head;

	c->nr = 0;
	if (mode == MODE_NONE) {
		run.pg = &dummy_pg;
		run.iters = iters;
		bench_start(bench_call, depth);
		*ns = run.ns;
		return 0;
	}
	if (sysctl_write(mode == MODE_SFRAME ? "1" : "0")) {
		perror("writing " SYSCTL);
		return -1;
	}
	if (sampler_open(&s))
		return -1;
	pg = s.rb;
	ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0);

	/* One untimed system call, whose records stay: the chain */
	run.pg = &dummy_pg;
	run.iters = 1;
	bench_start(bench_call, depth);
	if (sampler_chain(&s, c, &per_call)) {
		ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
		sampler_close(&s);
		fprintf(stderr,
			"%s: no PERF_RECORD_CALLCHAIN_DEFERRED with the user chain\n",
			mode_name[mode]);
		return -1;
	}

	run.pg = pg;
	run.iters = iters;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	bench_start(bench_call, depth);
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) - head;
	ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
	sampler_close(&s);
	*ns = run.ns;

	/* Every call wrote the same records: a sample and the same chain */
	if (head != iters * per_call) {
		mismatches++;
		printf("# WARNING: %s depth %d: %llu record bytes, %ld calls of %llu\n",
		       mode_name[mode], depth, (unsigned long long)head, iters,
		       (unsigned long long)per_call);
	}
	return 0;
}

static void chain_print(const char *what, const struct chain *c)
{
	int i;

	printf("# %s chain, %d frames:", what, c->nr);
	for (i = 0; i < c->nr; i++) {
		const char *obj;
		Dl_info di;

		if (!dladdr((void *)c->ip[i], &di) || !di.dli_fname) {
			printf(" %#lx", c->ip[i]);
			continue;
		}
		obj = strrchr(di.dli_fname, '/');
		obj = obj ? obj + 1 : di.dli_fname;
		if (di.dli_sname)
			printf(" %s:%s+%#lx", obj, di.dli_sname,
			       c->ip[i] - (unsigned long)di.dli_saddr);
		else
			printf(" %s+%#lx", obj,
			       c->ip[i] - (unsigned long)di.dli_fbase);
	}
	printf("\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

struct result {
	int frames[NR_MODES];
	double ns_call[NR_MODES];	/* median ns per call */
	double ns_unwind[NR_MODES];	/* median of (mode - none) per round */
};

/*
 * Rounds of every mode in @modes (none first, and the others) at one
 * depth and cache state: the medians in @res.
 */
static BENCH_NOIPA int bench_point(const int *modes, int nmodes, int depth,
				   long iters, int rounds, struct result *res)
{
	static double t[NR_MODES][MAX_ROUNDS], d[MAX_ROUNDS];
	static struct chain c;
	int r, k, m;

	memset(res, 0, sizeof(*res));
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < nmodes; k++) {
			m = modes[(k + r) % nmodes];
			if (measure(m, depth, iters, &t[m][r], &c))
				return -1;
			if (!r) {
				res->frames[m] = c.nr;
				if ((verbose || show_chains) && m != MODE_NONE)
					chain_print(mode_name[m], &c);
			} else if (m != MODE_NONE && c.nr != res->frames[m]) {
				mismatches++;
				printf("# WARNING: %s depth %d: chain of %d frames, %d before\n",
				       mode_name[m], depth, c.nr,
				       res->frames[m]);
			}
		}
	}
	show_chains = false;
	for (k = 0; k < nmodes; k++) {
		m = modes[k];
		res->ns_call[m] = median(t[m], rounds);
		for (r = 0; r < rounds; r++)
			d[r] = t[m][r] - t[MODE_NONE][r];
		res->ns_unwind[m] = median(d, rounds);
	}
	return 0;
}

static double ns_per_frame(const struct result *res, int m)
{
	return res->frames[m] ? res->ns_unwind[m] / res->frames[m] : 0;
}

/* Least squares over the depths: ns = fixed + per_frame * frames */
static void print_fit(const struct result *res, int n, int m, const char *state)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, den, slope;
	int i;

	for (i = 0; i < n; i++) {
		sx += res[i].frames[m];
		sy += res[i].ns_unwind[m];
		sxx += (double)res[i].frames[m] * res[i].frames[m];
		sxy += res[i].frames[m] * res[i].ns_unwind[m];
	}
	den = n * sxx - sx * sx;
	if (n < 2 || den <= 0)
		return;
	slope = (n * sxy - sx * sy) / den;
	printf("fit state=%s mode=%s depths=%d ns_per_frame=%.1f ns_fixed=%.1f\n",
	       state, mode_name[m], n, slope, (sy - slope * sx) / n);
}

static void help(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-n ITERATIONS] [-r ROUNDS] [-d DEPTH,...]\n"
		"          [-c warm|cold|evict|both|all]\n"
		"          [-m MODE,...] [-v]\n"
		"  -n  system calls per measurement (default 1000)\n"
		"  -r  rounds, medians are reported (default 7, at most %d)\n"
		"  -d  unwind_bench: total user chain lengths (default 8,32,128);\n"
		"      unwind_bench_fN: functions of the module in the chain (default 16)\n"
		"  -c  .sframe pages resident (warm), dropped before every call (cold),\n"
		"      also evicted from the page cache (evict), warm and cold (both,\n"
		"      the default) or all three\n"
		"  -m  modes besides the none baseline: fp, sframe (default fp,sframe);\n"
		"      'none' alone needs neither perf nor %s\n"
		"  -v  print the chains\n", prog, MAX_ROUNDS, SYSCTL);
	exit(2);
}

int main(int argc, char **argv)
{
	int depths[MAX_DEPTHS] = { 8, 32, 128 }, ndepths = 3, base = 0;
	int modes[NR_MODES] = { MODE_NONE }, nmodes = 0, rounds = 7, opt;
	static const char * const state_name[] = { "warm", "cold", "evict" };
	bool lookup = bench_nfuncs > 0, states[3] = { true, true, false };
	static struct result res[3][MAX_DEPTHS];
	long iters = 1000;
	double start = now_ns();
	char *p, *tok;
	int i, k, s;

	if (lookup) {
		depths[0] = 16;
		ndepths = 1;
	}
	while ((opt = getopt(argc, argv, "n:r:d:c:m:vh")) != -1) {
		switch (opt) {
		case 'n':
			iters = atol(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'd':
			ndepths = 0;
			for (tok = strtok(optarg, ","); tok;
			     tok = strtok(NULL, ",")) {
				if (ndepths == MAX_DEPTHS)
					help(argv[0]);
				depths[ndepths] = strtol(tok, &p, 10);
				if (*p || depths[ndepths] < 1 ||
				    depths[ndepths] > MAX_DEPTH)
					help(argv[0]);
				ndepths++;
			}
			break;
		case 'c':
			states[0] = !strcmp(optarg, "warm") ||
				    !strcmp(optarg, "both") ||
				    !strcmp(optarg, "all");
			states[1] = !strcmp(optarg, "cold") ||
				    !strcmp(optarg, "both") ||
				    !strcmp(optarg, "all");
			states[2] = !strcmp(optarg, "evict") ||
				    !strcmp(optarg, "all");
			if (!states[0] && !states[1] && !states[2])
				help(argv[0]);
			break;
		case 'm':
			nmodes = 1;	/* none */
			for (tok = strtok(optarg, ","); tok;
			     tok = strtok(NULL, ",")) {
				for (i = 0; i < NR_MODES; i++)
					if (!strcmp(tok, mode_name[i]))
						break;
				if (i == NR_MODES)
					help(argv[0]);
				for (k = 0; k < nmodes && modes[k] != i; k++)
					;
				if (k == nmodes)
					modes[nmodes++] = i;
			}
			break;
		case 'v':
			verbose = true;
			break;
		default:
			help(argv[0]);
		}
	}
	if (optind != argc || iters < 1 || rounds < 1 || rounds > MAX_ROUNDS ||
	    !ndepths)
		help(argv[0]);
	if (!nmodes) {
		modes[1] = MODE_FP;
		modes[2] = MODE_SFRAME;
		nmodes = 3;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	dl_iterate_phdr(sframe_phdr_cb, (void *)bench_descend);
	/*
	 * Warm only, a copy without PT_GNU_SFRAME may be measured: the
	 * kernel's store serves its section (source=store), or nothing does
	 */
	if (!sf.size && (states[1] || states[2])) {
		fprintf(stderr,
			"no PT_GNU_SFRAME: build with binutils >= 2.46, -Wa,--gsframe\n");
		return 1;
	}
	if ((states[1] || states[2]) &&
	    (sf.writable || madvise((void *)sf.page, sf.len, MADV_DONTNEED))) {
		fprintf(stderr, "cannot drop the pages of .sframe (%#lx+%#lx)%s\n",
			sf.page, sf.len, sf.writable ? ": writable segment" : "");
		return 1;
	}
	run.sf_page = (void *)sf.page;
	run.sf_len = sf.len;
	run.sf_off = sf.file_off;
	if (states[2]) {
		unsigned long pages = sf.len / getpagesize(), left = 0, p;
		unsigned char vec[pages];

		run.sf_fd = open(sf.path, O_RDONLY);
		if (run.sf_fd < 0 ||
		    madvise((void *)sf.page, sf.len, MADV_DONTNEED) ||
		    posix_fadvise(run.sf_fd, run.sf_off, run.sf_len,
				  POSIX_FADV_DONTNEED) ||
		    mincore((void *)sf.page, sf.len, vec)) {
			fprintf(stderr, "cannot evict .sframe of %s: %s\n",
				sf.path, strerror(errno));
			return 1;
		}
		for (p = 0; p < pages; p++)
			left += vec[p] & 1;
		/* A page that another mapping of the file shares stays */
		printf("# evict: %lu of %lu .sframe pages cached after POSIX_FADV_DONTNEED\n",
		       left, pages);
	}

	if (nmodes > 1) {
		if (sysctl_save()) {
			fprintf(stderr, "%s: %s: a kernel without SFrame unwinding?\n",
				SYSCTL, strerror(errno));
			return 1;
		}
		if (tracepoint_id() < 0) {
			fprintf(stderr,
				"no tracepoint syscalls:sys_enter_getppid (CONFIG_FTRACE_SYSCALLS)\n");
			return 1;
		}
	}

	printf("# unwind_bench: %s, %ld system calls x %d rounds, medians\n",
	       lookup ? "lookup in a table of functions" : "recursion",
	       iters, rounds);
	printf("# .sframe: %lu bytes, %u FDEs; module: %d functions\n",
	       sf.size, sframe_fdes(), bench_nfuncs);
	printf("# ns_per_frame = (ns_per_call - that of none) / user chain length\n");
	if (!lookup)
		printf("# fit: least squares, call - none = ns_fixed + ns_per_frame * frames\n");

	/*
	 * The frames at recursion depth 0, through the same functions:
	 * depth D is measured at recursion depth D - base.  Their chains.
	 */
	show_chains = true;
	if (!lookup && nmodes > 1) {
		run.cold = false;
		if (bench_point(modes, nmodes, 0, 1, 1, &res[0][0]))
			return 1;
		base = res[0][0].frames[modes[nmodes - 1]];
		printf("# depth = frames of the whole chain, %d of them at recursion depth 0\n",
		       base);
	} else if (!lookup) {
		printf("# depth = recursion depth: no chain to measure\n");
	}

	for (s = 0; s < 3; s++) {
		const char *state = state_name[s];

		if (!states[s])
			continue;
		run.cold = s >= 1;
		run.evict = s == 2;
		for (i = 0; i < ndepths; i++) {
			struct result *rs = &res[s][i];
			int d = lookup ? depths[i] : depths[i] - base;

			if (d < 0) {
				printf("# depth %d: below the %d frames at recursion depth 0\n",
				       depths[i], base);
				d = 0;
			}
			if (bench_point(modes, nmodes, d, iters, rounds, rs))
				return 1;
			if (nmodes == 3 &&
			    rs->frames[MODE_FP] != rs->frames[MODE_SFRAME] &&
			    ++mismatches)
				printf("# WARNING: depth %d %s: fp chain %d frames, sframe %d\n",
				       depths[i], state, rs->frames[MODE_FP],
				       rs->frames[MODE_SFRAME]);
			for (k = 0; k < nmodes; k++) {
				int m = modes[k];

				if (lookup)
					printf("lookup funcs=%d depth=%d",
					       bench_nfuncs, depths[i]);
				else
					printf("unwind depth=%d", depths[i]);
				printf(" state=%s mode=%s source=%s frames=%d",
				       state, mode_name[m], sframe_source(),
				       rs->frames[m]);
				printf(" ns_per_frame=%.1f ns_per_call=%.1f\n",
				       ns_per_frame(rs, m), rs->ns_call[m]);
			}
		}
		for (i = 1; !lookup && i < nmodes; i++)
			print_fit(res[s], ndepths, modes[i], state);
	}
	printf("# %d warnings, %.1f s\n", mismatches, (now_ns() - start) / 1e9);
	return 0;
}
