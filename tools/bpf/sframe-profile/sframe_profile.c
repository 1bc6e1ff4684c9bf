// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-profile: sample user and kernel stacks with a BPF program on
 * cpu-clock, system-wide, of processes, or of a command and what it
 * forks, with the user stack taken in the event
 * (bpf_get_stack(BPF_F_USER_STACK)) or deferred to the return to user
 * space (bpf_unwind_user_deferred()), and print the samples in the shape
 * of `perf script -F ip,sym,dso`, or folded for flame graphs, and draw a
 * flame graph page (flamegraph.c).
 * Symbols come from elfutils' libdwfl (usym.c), of the files that the
 * processes mapped (objects.c), and for generated code from the process's
 * perf map (jitmap.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "sframe_profile.h"
#include "sframe_profile.skel.h"
#include "flamegraph.h"
#include "jitmap.h"
#include "objects.h"
#include "pprof.h"
#include "search.h"
#include "utf8.h"
#include "usym.h"

#define SP_VERSION	"1.1"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The record of a deferred user stack (include/uapi/linux/bpf.h) */
struct sp_record {
	__u64	cookie;
	__u32	pid;
	__u32	tid;
	__u32	nr;
	__u32	lost;
	__u64	ips[];
};

static const char usage[] =
"Usage: sframe-profile [OPTIONS] [-a | -p PID[,PID...] | -- CMD [ARGS...]]\n"
"\n"
"Sample stacks on cpu-clock at HZ samples per second and CPU with a BPF\n"
"program: every process (-a, the default without -p or CMD), the\n"
"processes PID (all their threads), or CMD from its exec on; with -p or\n"
"CMD, what those processes fork from then on too.  Stop when CMD or\n"
"every PID has exited, after -d SECONDS (CMD goes on), or at SIGINT\n"
"(Ctrl-C) or SIGTERM (CMD gets SIGTERM), and print\n"
"each sample as a block of lines, innermost frame first, a blank line\n"
"between samples, as `perf script -F ip,sym,dso` does:\n"
"\n"
"\t<hex ip> <symbol>+<hex offset> (<object path>)\n"
"\n"
"Kernel frames come first, as ([kernel.kallsyms]).  Samples are kept by\n"
"distinct stack, so the samples of one stack come out together, in the\n"
"order in which their stacks were first seen.\n"
"\n"
"  -a, --all-cpus    every process but sframe-profile itself\n"
"  -p, --pid PIDS    the processes PIDS, comma-separated (repeatable)\n"
"  -d SECONDS        stop after SECONDS\n"
"  -F HZ             samples per second and CPU (default 999)\n"
"  -U                user stacks only (not with -K)\n"
"  -K                kernel stacks only (not with -U)\n"
"  --deferred        the user stack is unwound when the task returns to\n"
"                    user space (bpf_unwind_user_deferred(), the\n"
"                    default): SFrame with page faults allowed, frame\n"
"                    pointers elsewhere\n"
"  --in-event        the user stack is unwound in the sample\n"
"                    (bpf_get_stack(BPF_F_USER_STACK)): SFrame where its\n"
"                    pages are resident, frame pointers elsewhere\n"
"  -f, --folded      print folded stacks (comm;outermost;...;innermost\n"
"                    COUNT) for flame graphs instead of samples\n"
"  -o FILE           write the output to FILE\n"
"  --pprof FILE      also write the stacks to FILE as a pprof profile\n"
"                    (gzipped protobuf: go tool pprof, Pyroscope, Parca)\n"
"  --flamegraph FILE also write a flame graph of the stacks to FILE, an\n"
"                    HTML page drawn by d3-flame-graph (its files from\n"
"                    SFRAME_PROFILE_ASSETS, or where the build put them)\n"
"  --stack-storage-size N\n"
"                    keep at most N distinct stacks (default 16384); the\n"
"                    samples of further ones are counted as dropped\n"
"  --version         print the version\n"
"  -h, --help        this text\n"
"\n"
"Needs root (CAP_BPF and CAP_PERFMON), a kernel with BTF\n"
"(CONFIG_DEBUG_INFO_BTF) and, for --deferred,\n"
"CONFIG_BPF_UNWIND_USER_DEFERRED.  A summary goes to stderr.\n";

/* A message on stderr: "sframe-profile: ", @what, then @fmt's text */
static void report(const char *what, const char *fmt, va_list ap)
{
	fprintf(stderr, "sframe-profile: %s", what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("", fmt, ap);
	va_end(ap);
	exit(1);
}

static void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("warning: ", fmt, ap);
	va_end(ap);
}

/* ---- what the ring buffers deliver, kept by distinct stack ---- */

/*
 * A distinct stack: of one process and one reading of its mappings, one
 * thread name, its kernel frames then its user frames, and the number of
 * samples that had it.  What is kept grows with these, not with the
 * samples: at most stack_max (--stack-storage-size); a sample with a new
 * stack past them is counted as dropped.
 */
struct agg {
	struct agg *next;	/* in its hash bucket */
	unsigned long count;
	__u64 hash;
	pid_t pid;
	int snap;
	char comm[16];
	__u32 knr;
	__u32 unr;
	__u64 ips[];		/* @knr kernel frames, then @unr user frames */
};

#define SP_AGG_BUCKETS	65536
#define SP_STACK_MAX	16384	/* default of --stack-storage-size */

static struct agg *agg_bucket[SP_AGG_BUCKETS];
static struct agg **aggs;	/* in the order of their first sample */
static size_t naggs, stack_max = SP_STACK_MAX;

/* What the samples gave */
static size_t nsamples, complete, missing, failed, unmatched;
static unsigned long dropped;
/* Failed requests for a deferred user stack, by error */
static struct {
	int err;
	size_t n;
} fails[8];
static __u64 stacks_lost;

/* FNV-1a over @len bytes at @p, from @h */
static __u64 hash_bytes(__u64 h, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

/*
 * Count a sample of @pid (thread @comm) with the kernel frames @kips and
 * the user frames @uips, symbolized with reading @snap of its mappings
 */
static void agg_add(pid_t pid, int snap, const char *comm, const __u64 *kips,
		    __u32 knr, const __u64 *uips, __u32 unr)
{
	__u64 h = 0xcbf29ce484222325ULL;
	struct agg **b, *a;

	nsamples++;
	if (unr)
		complete++;
	else
		missing++;
	h = hash_bytes(h, &pid, sizeof(pid));
	h = hash_bytes(h, &snap, sizeof(snap));
	h = hash_bytes(h, comm, 16);
	h = hash_bytes(h, &knr, sizeof(knr));
	h = hash_bytes(h, kips, knr * 8);
	h = hash_bytes(h, uips, unr * 8);
	b = &agg_bucket[h % SP_AGG_BUCKETS];
	for (a = *b; a; a = a->next)
		if (a->hash == h && a->pid == pid && a->snap == snap &&
		    a->knr == knr && a->unr == unr &&
		    !memcmp(a->comm, comm, 16) &&
		    !memcmp(a->ips, kips, knr * 8) &&
		    !memcmp(a->ips + knr, uips, unr * 8)) {
			a->count++;
			return;
		}
	if (naggs == stack_max) {
		dropped++;
		return;
	}
	a = malloc(sizeof(*a) + (knr + unr) * 8);
	if (!a)
		die("out of memory");
	if (!naggs)
		aggs = calloc(stack_max, sizeof(*aggs));
	if (!aggs)
		die("out of memory");
	a->count = 1;
	a->hash = h;
	a->pid = pid;
	a->snap = snap;
	memcpy(a->comm, comm, 16);
	a->knr = knr;
	a->unr = unr;
	memcpy(a->ips, kips, knr * 8);
	memcpy(a->ips + knr, uips, unr * 8);
	a->next = *b;
	*b = a;
	aggs[naggs++] = a;
}

/*
 * Samples waiting for their deferred user stack, which the task's return
 * to user space delivers with the sample's cookie: at most SP_PENDING; a
 * sample still waiting when SP_PENDING newer ones came (its task exited
 * or exec'd) is counted without a user stack, as not delivered.
 */
struct pending {
	struct pending *next;	/* in its cookie's bucket */
	bool used;
	__u64 cookie;
	pid_t pid;
	char comm[16];
	__u32 knr;
	__u64 kstack[SP_KSTACK];
};

#define SP_PENDING	16384
#define SP_PENDING_BUCKETS	4096

static struct pending *pend;
static struct pending *pend_bucket[SP_PENDING_BUCKETS];
static size_t pend_next;

/*
 * The last SP_EARLY deferred stacks: for the samples of their cookie read
 * after them (consume_rings() reads the samples first, but a sample and
 * its stack can both come between the two reads)
 */
struct early {
	bool used;
	__u64 cookie;
	pid_t pid;
	int snap;
	__u32 nr;
	__u64 ips[SP_USTACK];
};

#define SP_EARLY	256

/* Records read from each ring buffer at a time (consume_rings()) */
#define SP_CONSUME	4096

static struct early *early;
static size_t early_next;

static int proc_snap(pid_t pid, const __u64 *ips, unsigned int n);
static bool user_stacks = true;
static bool deferred_stacks = true;

static void pend_unlink(struct pending *p)
{
	struct pending **q = &pend_bucket[p->cookie % SP_PENDING_BUCKETS];

	while (*q != p)
		q = &(*q)->next;
	*q = p->next;
	p->used = false;
}

/* Count @p without a user stack: its task never returned to user space */
static void pend_expire(struct pending *p)
{
	unmatched++;
	agg_add(p->pid, proc_snap(p->pid, NULL, 0), p->comm, p->kstack,
		p->knr, NULL, 0);
	pend_unlink(p);
}

static void pend_add(const struct sp_sample *s, __u32 knr)
{
	struct pending *p;
	size_t i;

	for (i = 0; i < SP_EARLY; i++)
		if (early[i].used && early[i].cookie == s->cookie) {
			agg_add(s->pid, early[i].snap, s->comm, s->kstack, knr,
				early[i].ips, early[i].nr);
			return;
		}
	p = &pend[pend_next++ % SP_PENDING];
	if (p->used)
		pend_expire(p);
	p->used = true;
	p->cookie = s->cookie;
	p->pid = s->pid;
	memcpy(p->comm, s->comm, 16);
	p->knr = knr;
	memcpy(p->kstack, s->kstack, knr * 8);
	p->next = pend_bucket[p->cookie % SP_PENDING_BUCKETS];
	pend_bucket[p->cookie % SP_PENDING_BUCKETS] = p;
}

/* Count a failed request by its error (the last slot takes the rest) */
static void fail_count(int err)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fails) - 1; i++)
		if (!fails[i].n || fails[i].err == err)
			break;
	fails[i].err = err;
	fails[i].n++;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	const struct sp_sample *s = data;
	__u32 knr, unr;

	if (size < sizeof(struct sp_sample))
		return 0;
	knr = s->knr > 0 ? s->knr / 8 : 0;
	unr = s->unr > 0 ? s->unr / 8 : 0;
	if (!user_stacks || s->kthread) {
		agg_add(s->pid, proc_snap(s->pid, NULL, 0), s->comm,
			s->kstack, knr, NULL, 0);
		return 0;
	}
	if (!deferred_stacks) {
		agg_add(s->pid, proc_snap(s->pid, s->ustack, unr), s->comm,
			s->kstack, knr, s->ustack, unr);
		return 0;
	}
	if (s->exiting) {
		unmatched++;	/* not asked: it never returns to user space */
		agg_add(s->pid, proc_snap(s->pid, NULL, 0), s->comm,
			s->kstack, knr, NULL, 0);
		return 0;
	}
	if (s->defer_ret) {
		failed++;
		fail_count(s->defer_ret);
		agg_add(s->pid, proc_snap(s->pid, NULL, 0), s->comm,
			s->kstack, knr, NULL, 0);
		return 0;
	}
	pend_add(s, knr);
	return 0;
}

static int on_stack(void *ctx, void *data, size_t size)
{
	const struct sp_record *r = data;
	struct pending *p, *next;
	struct early *e;
	__u32 nr;
	int snap;

	if (size < sizeof(*r) || size < sizeof(*r) + (size_t)r->nr * 8)
		return 0;
	stacks_lost += r->lost;
	nr = r->nr < SP_USTACK ? r->nr : SP_USTACK;
	snap = proc_snap(r->pid, r->ips, nr);
	for (p = pend_bucket[r->cookie % SP_PENDING_BUCKETS]; p; p = next) {
		next = p->next;
		if (p->cookie != r->cookie)
			continue;
		agg_add(p->pid, snap, p->comm, p->kstack, p->knr, r->ips, nr);
		pend_unlink(p);
	}
	/* Kept for samples of the same cookie not read yet */
	e = &early[early_next++ % SP_EARLY];
	e->used = true;
	e->cookie = r->cookie;
	e->pid = r->pid;
	e->snap = snap;
	e->nr = nr;
	memcpy(e->ips, r->ips, nr * 8);
	return 0;
}

/* At the end: the samples still waiting were not delivered */
static void pend_flush(void)
{
	size_t i;

	for (i = 0; pend && i < SP_PENDING; i++)
		if (pend[i].used)
			pend_expire(&pend[i]);
}

/* ---- the processes sampled, their mappings and symbols ---- */

/*
 * What /proc/PID/maps said at one time: the text, its executable ranges,
 * and the symbols built from it when the samples are printed.
 */
struct snap {
	char *maps;
	size_t len;
	__u64 (*x)[2];		/* executable mappings: start, end */
	bool *anon;		/* x[i] maps no file: generated code */
	int *obj;		/* x[i]'s file (objects.c), or -1 */
	size_t *path;		/* where x[i]'s path is in maps, or 0 */
	size_t nx;
	Dwfl *dwfl;
};

/*
 * A process seen in the samples, and its mappings: read at its first
 * sample, and again (at most every SP_MAPS_EVERY seconds) when a sample's
 * PC is in none of them: after an exec, a dlopen() or an mmap() of code.
 * Each sample keeps the reading that covered it, so that a process that
 * has exited, or unloaded a library, is still symbolized, from the files
 * that it mapped (objects.c), opened as they are read.  Its perf map,
 * for the code it generates, is opened at its first sample, or (at most
 * every SP_MAPS_EVERY seconds) at a sample in an anonymous executable
 * mapping, and kept open until the samples are printed.
 */
struct proc {
	pid_t pid;
	struct snap *snaps;
	size_t nsnaps;
	double read_at;
	int jit_fd;		/* its perf map (jitmap.c), or -1 */
	double jit_at;		/* when it was last looked for */
	struct jitmap *jit;	/* read when the samples are printed */
	bool jit_read;
};

#define SP_MAPS_EVERY	0.01

static struct proc *procs;
static size_t nprocs, procs_cap;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *read_maps(pid_t pid, size_t *len)
{
	char path[64], *buf = NULL;
	FILE *f, *out;
	int c;

	*len = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	out = open_memstream(&buf, len);
	if (!out) {
		fclose(f);
		return NULL;
	}
	while ((c = getc(f)) != EOF)
		putc(c, out);
	fclose(f);
	fclose(out);
	if (!*len) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Read @p's mappings again; a new reading if they changed */
static void proc_read(struct proc *p)
{
	struct snap *sn, *last = p->nsnaps ? &p->snaps[p->nsnaps - 1] : NULL;
	size_t len, cap = 0;
	char *maps, *line;

	p->read_at = now();
	maps = read_maps(p->pid, &len);
	if (!maps)
		return;
	if (last && last->len == len && !memcmp(last->maps, maps, len)) {
		free(maps);
		return;
	}
	p->snaps = realloc(p->snaps, (p->nsnaps + 1) * sizeof(*p->snaps));
	if (!p->snaps)
		die("out of memory");
	sn = &p->snaps[p->nsnaps++];
	memset(sn, 0, sizeof(*sn));
	sn->maps = maps;
	sn->len = len;
	for (line = maps; line && line < maps + len; ) {
		unsigned long long lo, hi;
		char perms[5];
		int at = 0;

		if (sscanf(line, "%llx-%llx %4s %*s %*s %*s%n", &lo, &hi,
			   perms, &at) == 3 && perms[2] == 'x') {
			if (sn->nx == cap) {
				cap = cap ? 2 * cap : 32;
				sn->x = realloc(sn->x, cap * sizeof(*sn->x));
				sn->anon = realloc(sn->anon,
						   cap * sizeof(*sn->anon));
				sn->obj = realloc(sn->obj, cap * sizeof(*sn->obj));
				sn->path = realloc(sn->path,
						   cap * sizeof(*sn->path));
				if (!sn->x || !sn->anon || !sn->obj || !sn->path)
					die("out of memory");
			}
			/* No path, or one that prctl() named */
			while (at && line + at < maps + len &&
			       line[at] == ' ')
				at++;
			sn->anon[sn->nx] = at && (line + at == maps + len ||
				line[at] == '\n' ||
				!strncmp(line + at, "[anon:", 6));
			/* A file's: opened now, while the process lives */
			sn->path[sn->nx] = 0;
			sn->obj[sn->nx] = -1;
			if (at && line + at < maps + len && line[at] == '/') {
				sn->path[sn->nx] = line + at - maps;
				sn->obj[sn->nx] = object_open(p->pid, lo, hi);
			}
			sn->x[sn->nx][0] = lo;
			sn->x[sn->nx++][1] = hi;
		}
		line = memchr(line, '\n', maps + len - line);
		if (line)
			line++;
	}
}

static bool snap_covers(const struct snap *sn, __u64 ip)
{
	size_t i;

	for (i = 0; i < sn->nx; i++)
		if (ip >= sn->x[i][0] && ip < sn->x[i][1])
			return true;
	return false;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The process @pid, added (its mappings read) at its first sample */
static struct proc *proc_of(pid_t pid)
{
	struct proc key = { .pid = pid }, *p;
	size_t i;

	p = bsearch(&key, procs, nprocs, sizeof(*procs), cmp_proc);
	if (p)
		return p;
	if (nprocs == procs_cap) {
		procs_cap = procs_cap ? 2 * procs_cap : 64;
		procs = realloc(procs, procs_cap * sizeof(*procs));
		if (!procs)
			die("out of memory");
	}
	for (i = nprocs; i > 0 && procs[i - 1].pid > pid; i--)
		procs[i] = procs[i - 1];
	p = &procs[i];
	nprocs++;
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->jit_fd = -1;
	if (user_stacks) {
		proc_read(p);
		p->jit_fd = jitmap_open(pid);
	}
	return p;
}

/* Whether one of the @n user addresses @ips is in generated code */
static bool snap_any_anon(const struct snap *sn, const __u64 *ips,
			  unsigned int n)
{
	unsigned int i;
	size_t k;

	for (i = 0; i < n; i++)
		for (k = 0; k < sn->nx; k++)
			if (sn->anon[k] && ips[i] >= sn->x[k][0] &&
			    ips[i] < sn->x[k][1])
				return true;
	return false;
}

/* Whether @sn covers all @n user addresses @ips */
static bool snap_covers_all(const struct snap *sn, const __u64 *ips,
			    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!snap_covers(sn, ips[i]))
			return false;
	return true;
}

/*
 * The reading of @pid's mappings for a sample whose user stack is the @n
 * addresses @ips: the last one, read again first if it does not cover
 * them all (a frame-pointer walk through code without them may give a
 * bogus last address: the rate limit bounds what that costs).  -1 if
 * there is none, or without user stacks (-K).
 */
static int proc_snap(pid_t pid, const __u64 *ips, unsigned int n)
{
	struct proc *p;

	p = proc_of(pid);
	if (!user_stacks)
		return -1;
	if (n && (!p->nsnaps ||
		  !snap_covers_all(&p->snaps[p->nsnaps - 1], ips, n)) &&
	    now() - p->read_at >= SP_MAPS_EVERY)
		proc_read(p);
	if (n && p->jit_fd < 0 && p->nsnaps &&
	    now() - p->jit_at >= SP_MAPS_EVERY &&
	    snap_any_anon(&p->snaps[p->nsnaps - 1], ips, n)) {
		p->jit_at = now();
		p->jit_fd = jitmap_open(pid);
	}
	return (int)p->nsnaps - 1;
}

/* The reading whose symbols are being looked up (proc_dwfl()) */
static const struct snap *cur_snap;

/*
 * The ELF file of module @modname, which libdwfl asks for at its first
 * lookup: the file that the process mapped (objects.c), else the one at
 * that path now
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	const struct snap *sn = cur_snap;
	size_t k, n = strlen(modname);
	int fd;

	for (k = 0; sn && modname[0] == '/' && k < sn->nx; k++) {
		const char *path = sn->maps + sn->path[k];

		if (!sn->path[k] || sn->obj[k] < 0 ||
		    sn->len - sn->path[k] < n || memcmp(path, modname, n) ||
		    (sn->len - sn->path[k] > n && path[n] != '\n'))
			continue;
		fd = fcntl(object_fd(sn->obj[k]), F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			break;
		*file_name = strdup(modname);
		return fd;
	}
	return dwfl_linux_proc_find_elf(mod, userdata, modname, base,
					file_name, elfp);
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

/* The symbols of reading @snap of process @pid, built at the first use */
static Dwfl *proc_dwfl(pid_t pid, int snap)
{
	struct proc *p = proc_of(pid);
	struct snap *sn;
	FILE *f;

	if (snap < 0 || (size_t)snap >= p->nsnaps)
		return NULL;
	sn = &p->snaps[snap];
	cur_snap = sn;
	if (sn->dwfl)
		return sn->dwfl;
	sn->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!sn->dwfl)
		return NULL;
	f = fmemopen(sn->maps, sn->len, "r");
	if (!f)
		return sn->dwfl;
	dwfl_report_begin(sn->dwfl);
	dwfl_linux_proc_maps_report(sn->dwfl, f);
	dwfl_report_end(sn->dwfl, NULL, NULL);
	fclose(f);
	return sn->dwfl;
}

/* ---- symbols ---- */

struct ksym {
	__u64 addr;
	char *name;
};

static struct ksym *ksyms;
static size_t nksyms;

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void ksyms_load(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long addr;
	size_t cap = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    (type != 't' && type != 'T'))
			continue;
		if (nksyms == cap) {
			cap = cap ? 2 * cap : 65536;
			ksyms = realloc(ksyms, cap * sizeof(*ksyms));
			if (!ksyms)
				die("out of memory");
		}
		ksyms[nksyms].addr = addr;
		ksyms[nksyms++].name = strdup(name);
	}
	fclose(f);
	qsort(ksyms, nksyms, sizeof(*ksyms), cmp_ksym);
}

static const char *ksym(__u64 ip, __u64 *off)
{
	size_t lo = count_le(ksyms, nksyms, addr, ip);

	if (!lo)
		return NULL;
	*off = ip - ksyms[lo - 1].addr;
	return ksyms[lo - 1].name;
}

/*
 * The symbol of @ip in code that process @pid generated, from its perf
 * map: opened at its first sample (or now, if it had none then), read
 * at the first lookup
 */
static const char *jit_sym(pid_t pid, __u64 ip, __u64 *off,
			   const char **object)
{
	struct proc *p = proc_of(pid);
	__u64 o;
	const char *name;

	if (!p->jit_read) {
		p->jit_read = true;
		if (p->jit_fd < 0)
			p->jit_fd = jitmap_open(pid);
		if (p->jit_fd >= 0)
			p->jit = jitmap_read(p->jit_fd, pid);
	}
	name = jitmap_lookup(p->jit, ip, &o, object);
	if (name)
		*off = o;
	return name;
}

static const char *usym(pid_t pid, Dwfl *dwfl, __u64 ip, __u64 *off,
			const char **object)
{
	Dwfl_Module *m = dwfl ? dwfl_addrmodule(dwfl, ip) : NULL;
	__u64 offset = 0;
	const char *name;

	*object = "[unknown]";
	if (!m)
		return jit_sym(pid, ip, off, object);
	/* First: it loads the module's file, whose name the info then has */
	name = usym_lookup(m, ip, &offset);
	dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, object, NULL);
	if (!*object)
		*object = "[unknown]";
	*off = offset;
	/* Generated code in a file's mapping (a memfd) */
	return name ?: jit_sym(pid, ip, off, object);
}

/* ---- output ---- */

/* Where the samples or folded stacks go: standard output, or -o FILE */
static FILE *out;

/*
 * @name, which a file or a process chose, to @f: its control characters
 * as '_', so that it cannot end a line, bytes that are not UTF-8 as '?'
 * (utf8.h); and in a folded stack (@folded) ';' as ':', so that it stays
 * one frame
 */
static void put_name(FILE *f, const char *name, bool folded)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n;

	while (*s) {
		n = utf8_char(s);
		if (n > 1) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		if (!n)
			fputc('?', f);
		else if (*s < 0x20 || *s == 0x7f)
			fputc('_', f);
		else if (folded && *s == ';')
			fputc(':', f);
		else
			fputc(*s, f);
		s++;
	}
}

/* The samples of @a, each as a block of lines, symbolized once */
static void print_stack(Dwfl *dwfl, const struct agg *a)
{
	const __u64 *uips = a->ips + a->knr;
	const char *name, *object;
	char *buf = NULL;
	size_t len = 0;
	unsigned long n;
	__u64 off = 0;
	FILE *f = open_memstream(&buf, &len);
	__u32 i;

	if (!f)
		die("out of memory");
	for (i = 0; i < a->knr; i++) {
		name = ksym(a->ips[i], &off);
		fprintf(f, "\t%16llx %s+0x%llx ([kernel.kallsyms])\n",
			(unsigned long long)a->ips[i],
			name ? name : "[unknown]", (unsigned long long)off);
	}
	for (i = 0; i < a->unr; i++) {
		name = usym(a->pid, dwfl, uips[i], &off, &object);
		fprintf(f, "\t%16llx ", (unsigned long long)uips[i]);
		if (name) {
			put_name(f, name, false);
			fprintf(f, "+0x%llx", (unsigned long long)off);
		} else {
			fputs("[unknown]", f);
		}
		fputs(" (", f);
		put_name(f, object, false);
		fputs(")\n", f);
	}
	fputc('\n', f);
	if (fclose(f))
		die("out of memory");
	for (n = 0; n < a->count; n++)
		fwrite(buf, 1, len, out);
	free(buf);
}

/* @a as a folded stack: comm;outermost;...;innermost (to free) */
static char *fold_stack(Dwfl *dwfl, const struct agg *a)
{
	const __u64 *uips = a->ips + a->knr;
	const char *name, *object;
	char *buf = NULL;
	size_t len = 0;
	__u64 off;
	FILE *f = open_memstream(&buf, &len);
	int j;

	if (!f)
		die("out of memory");
	put_name(f, strndupa(a->comm, sizeof(a->comm)), true);
	for (j = (int)a->unr - 1; j >= 0; j--) {
		name = usym(a->pid, dwfl, uips[j], &off, &object);
		fputc(';', f);
		put_name(f, name ? name : "[unknown]", true);
	}
	for (j = (int)a->knr - 1; j >= 0; j--) {
		name = ksym(a->ips[j], &off);
		fprintf(f, ";%s_[k]", name ? name : "[unknown]");
	}
	if (fclose(f))
		die("out of memory");
	return buf;
}

static int cmp_folded(const void *x, const void *y)
{
	const struct folded *a = x, *b = y;

	return strcmp(a->stack, b->stack);
}

/* Every stack folded, those that fold the same counted once, sorted */
static struct folded *fold_all(size_t *nf)
{
	struct folded *f = calloc(naggs + 1, sizeof(*f));
	size_t i, n = 0;

	if (!f)
		die("out of memory");
	for (i = 0; i < naggs; i++) {
		f[i].stack = fold_stack(proc_dwfl(aggs[i]->pid, aggs[i]->snap),
					aggs[i]);
		f[i].count = aggs[i]->count;
	}
	qsort(f, naggs, sizeof(*f), cmp_folded);
	for (i = 0; i < naggs; i++) {
		if (n && !strcmp(f[n - 1].stack, f[i].stack)) {
			f[n - 1].count += f[i].count;
			free(f[i].stack);
			continue;
		}
		f[n++] = f[i];
	}
	*nf = n;
	return f;
}

static void free_folded(struct folded *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(f[i].stack);
	free(f);
}

/*
 * The stacks as a pprof profile to @fd (pprof.c): each frame with its
 * address, the file it is in and its symbol, the leaf first
 */
static int write_pprof(int fd, int hz, __s64 time_ns, __s64 duration_ns)
{
	struct pp_stack *st = calloc(naggs + 1, sizeof(*st));
	struct pp_frame *fr;
	const char *name;
	size_t i;
	__u64 off;
	__u32 k;
	int err;

	if (!st)
		die("out of memory");
	for (i = 0; i < naggs; i++) {
		const struct agg *a = aggs[i];
		Dwfl *dwfl = proc_dwfl(a->pid, a->snap);

		fr = calloc(a->knr + a->unr + 1, sizeof(*fr));
		if (!fr)
			die("out of memory");
		for (k = 0; k < a->knr; k++) {
			name = ksym(a->ips[k], &off);
			fr[k].name = name ? name : "[unknown]";
			fr[k].object = "[kernel.kallsyms]";
			fr[k].addr = a->ips[k];
		}
		for (k = 0; k < a->unr; k++) {
			struct pp_frame *f = &fr[a->knr + k];

			name = usym(a->pid, dwfl, a->ips[a->knr + k], &off,
				    &f->object);
			f->name = name ? name : "[unknown]";
			f->addr = a->ips[a->knr + k];
		}
		st[i].comm = strndup(a->comm, sizeof(a->comm));
		if (!st[i].comm)
			die("out of memory");
		st[i].pid = a->pid;
		st[i].count = a->count;
		st[i].frames = fr;
		st[i].nframes = a->knr + a->unr;
	}
	err = pprof_write(fd, st, naggs, hz, time_ns, duration_ns);
	for (i = 0; i < naggs; i++) {
		free((void *)st[i].comm);
		free((void *)st[i].frames);
	}
	free(st);
	return err;
}

/*
 * Where d3's and d3-flame-graph's files are: SFRAME_PROFILE_ASSETS, or
 * where the build put them
 */
#ifndef SP_ASSETS
#define SP_ASSETS "/usr/share/sframe-profile"
#endif

static const char *assets_dir(void)
{
	const char *dir = getenv("SFRAME_PROFILE_ASSETS");

	return dir && *dir ? dir : SP_ASSETS;
}

/* The failed requests by error: "none", or "error: n, error: n" */
static const char *fails_text(void)
{
	static char buf[512];
	size_t i, len = 0;

	snprintf(buf, sizeof(buf), "none");
	for (i = 0; i < ARRAY_SIZE(fails) && fails[i].n &&
	     len < sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s: %zu",
				i ? ", " : "", strerror(-fails[i].err),
				fails[i].n);
	return buf;
}

/* ---- sampling ---- */

static int open_sampler(struct sframe_profile *skel, int hz,
			struct bpf_link ***links)
{
	int ncpu = libbpf_num_possible_cpus(), cpu, n = 0;
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = hz,
	};

	*links = calloc(ncpu, sizeof(**links));
	if (!*links)
		die("out of memory");
	for (cpu = 0; cpu < ncpu; cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
				 PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (errno == ENODEV)	/* CPU not online */
				continue;
			die("perf_event_open(cpu-clock, CPU %d): %s", cpu,
			    strerror(errno));
		}
		(*links)[cpu] = bpf_program__attach_perf_event(skel->progs.on_sample,
							       fd);
		if (!(*links)[cpu])
			die("attaching the BPF program to CPU %d: %s", cpu,
			    strerror(errno));
		n++;
	}
	return n;
}

/* A sysctl's value, or -1 if it cannot be read */
static long read_sysctl(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void check_kernel(bool deferred, bool user, int hz)
{
	static const char fp_only[] =
		"user stacks are unwound with frame pointers only";
	struct btf *btf;
	long v;

	if (geteuid() != 0)
		die("must run as root (needs CAP_BPF and CAP_PERFMON)");
	btf = btf__load_vmlinux_btf();
	if (!btf)
		die("the kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)");
	if (user && deferred &&
	    btf__find_by_name_kind(btf, "bpf_unwind_user_deferred",
				   BTF_KIND_FUNC) < 0)
		die("the kernel has no bpf_unwind_user_deferred() %s",
		    "(CONFIG_BPF_UNWIND_USER_DEFERRED); try --in-event");
	btf__free(btf);
	v = read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate");
	if (v >= 0 && hz > v)
		die("-F %d is above kernel.perf_event_max_sample_rate (%ld): %s",
		    hz, v, "lower -F, or raise it with sysctl");
	if (!user)
		return;
	v = read_sysctl("/proc/sys/kernel/sframe_unwind");
	if (v < 0)
		warn("the kernel has no SFrame user unwinding (no kernel.sframe_unwind): %s",
		     fp_only);
	else if (!v)
		warn("kernel.sframe_unwind is 0: %s (sysctl kernel.sframe_unwind=1)",
		     fp_only);
}

/* Set by SIGINT or SIGTERM, read by the main loop */
static sig_atomic_t stop;

static void on_signal(int sig)
{
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

/*
 * The processes of @list ("PID[,PID...]"), added to the @n in @pids,
 * with a pidfd each in @pidfds: it becomes readable when the process
 * exits, zombie or not, and never stands for another process.
 */
static size_t parse_pids(const char *list, pid_t **pids, int **pidfds,
			 size_t n)
{
	const char *p = list;
	char *end;

	for (;;) {
		long pid;
		int fd;

		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno || end == p || *p < '0' || *p > '9' || pid <= 0 ||
		    pid > 0x3fffffff || (*end && *end != ','))
			die("-p needs process IDs, comma-separated: '%s'", list);
		fd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
		if (fd < 0 && errno == ESRCH)
			die("-p %ld: no such process", pid);
		if (fd < 0 && errno == ENOENT)
			die("-p %ld: a thread, not a process", pid);
		if (fd < 0)
			die("-p %ld: pidfd_open: %s", pid, strerror(errno));
		if (fcntl(fd, F_SETFD, FD_CLOEXEC))
			die("-p %ld: %s", pid, strerror(errno));
		if (n == SP_MAX_TARGETS)
			die("-p: more than %d processes", SP_MAX_TARGETS);
		*pids = realloc(*pids, (n + 1) * sizeof(**pids));
		*pidfds = realloc(*pidfds, (n + 1) * sizeof(**pidfds));
		if (!*pids || !*pidfds)
			die("out of memory");
		(*pids)[n] = pid;
		(*pidfds)[n++] = fd;
		if (!*end)
			return n;
		p = end + 1;
	}
}

/* Whether one of the @n processes of @pidfds has not exited */
static bool any_alive(const int *pidfds, size_t n)
{
	struct pollfd pfd = { .events = POLLIN };
	size_t i;

	for (i = 0; i < n; i++) {
		pfd.fd = pidfds[i];
		if (poll(&pfd, 1, 0) == 0)
			return true;
	}
	return false;
}

/*
 * Read what the ring buffers hold: every sample first, then the deferred
 * stacks.  A stack's record is written after its sample's, so each stack
 * read finds its sample waiting, however far behind this reader fell: in
 * no set order, a backlog of stacks read first would outrun the SP_EARLY
 * kept for their samples, which would then count as without a user stack.
 */
static int consume_rings(struct ring_buffer *rb)
{
	int n, err;

	/*
	 * At most SP_CONSUME samples, then as many stacks: samples that come
	 * faster than they are read do not keep the stacks from being read
	 */
	n = ring__consume_n(ring_buffer__ring(rb, 0), SP_CONSUME);
	if (n < 0)
		return n;
	err = ring__consume_n(ring_buffer__ring(rb, 1), SP_CONSUME);
	return err < 0 ? err : n + err;
}

/* Wait at most @timeout_ms for records, and read some (consume_rings()) */
static int poll_rings(struct ring_buffer *rb, int timeout_ms)
{
	struct epoll_event ev[2];

	if (epoll_wait(ring_buffer__epoll_fd(rb), ev, ARRAY_SIZE(ev),
		       timeout_ms) < 0)
		return errno == EINTR ? 0 : -errno;
	return consume_rings(rb);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "deferred", no_argument, NULL, 'D' },
		{ "in-event", no_argument, NULL, 'e' },
		{ "folded", no_argument, NULL, 'f' },
		{ "flamegraph", required_argument, NULL, 'G' },
		{ "pprof", required_argument, NULL, 'P' },
		{ "stack-storage-size", required_argument, NULL, 'S' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool deferred = true, folded = false, all = false;
	bool user = true, kernel = true;
	const char *output = NULL, *fg_path = NULL, *pp_path = NULL;
	struct timespec t_start = { 0 };
	double started = 0, stopped = 0;
	int pp_fd = -1;
	struct folded *fs = NULL;
	size_t nfs = 0;
	FILE *fg = NULL;
	char title[128];
	struct sframe_profile *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	size_t i;
	size_t npids = 0;
	pid_t *pids = NULL, pid = 0;
	int *pidfds = NULL, ofd = -1;
	double duration = 0, end = 0;
	int status = 0, rc = 0;
	int hz = 999, c, go[2];
	/* A second signal while the samples are printed ends it */
	struct sigaction sa = {
		.sa_handler = on_signal,
		.sa_flags = SA_RESETHAND,
	};
	const char *why = "";
	char ch = 0;

	while ((c = getopt_long(argc, argv, "+ap:d:F:fo:UKh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'p':
			npids = parse_pids(optarg, &pids, &pidfds, npids);
			break;
		case 'd': {
			char *e;

			duration = strtod(optarg, &e);
			if (*e || !(duration > 0) || duration > 1e7)
				die("-d needs a positive number of seconds");
			break;
		}
		case 'D':
			deferred = true;
			break;
		case 'e':
			deferred = false;
			break;
		case 'f':
			folded = true;
			break;
		case 'F': {
			char *e;
			long v;

			errno = 0;
			v = strtol(optarg, &e, 10);
			if (errno || e == optarg || *e || v <= 0 || v > INT32_MAX)
				die("-F needs a positive rate");
			hz = v;
			break;
		}
		case 'o':
			output = optarg;
			break;
		case 'G':
			fg_path = optarg;
			break;
		case 'P':
			pp_path = optarg;
			break;
		case 'S': {
			char *e;
			long v;

			errno = 0;
			v = strtol(optarg, &e, 10);
			if (errno || e == optarg || *e || v <= 0 || v > 1 << 24)
				die("--stack-storage-size needs a number of stacks, 1 to %d",
				    1 << 24);
			stack_max = v;
			break;
		}
		case 'U':
			kernel = false;
			break;
		case 'K':
			user = false;
			break;
		case 'V':
			printf("sframe-profile %s\n", SP_VERSION);
			return 0;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if ((all && npids) || ((all || npids) && optind < argc) ||
	    (!user && !kernel)) {
		fputs(usage, stderr);
		return 2;
	}
	if (!npids && optind >= argc)
		all = true;
	user_stacks = user;
	deferred_stacks = deferred;
	objects_raise_limit();
	if (user && deferred) {
		pend = calloc(SP_PENDING, sizeof(*pend));
		early = calloc(SP_EARLY, sizeof(*early));
		if (!pend || !early)
			die("out of memory");
	}
	check_kernel(deferred, user, hz);
	/* Not the command's standard output: it is opened past the fork */
	if (output) {
		ofd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0644);
		if (ofd < 0)
			die("%s: %s", output, strerror(errno));
	}
	if (fg_path) {
		fg = fopen(fg_path, "we");
		if (!fg)
			die("%s: %s", fg_path, strerror(errno));
	}
	if (pp_path) {
		pp_fd = open(pp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644);
		if (pp_fd < 0)
			die("%s: %s", pp_path, strerror(errno));
	}

	skel = sframe_profile__open();
	if (!skel)
		die("opening the BPF program: %s", strerror(errno));
	skel->bss->all = all;
	skel->bss->self_tgid = getpid();
	skel->bss->deferred = deferred;
	skel->bss->no_user_stack = !user;
	skel->bss->no_kernel_stack = !kernel;
	if (sframe_profile__load(skel))
		die("loading the BPF program: %s", strerror(errno));
	for (i = 0; i < npids; i++) {
		__u8 on = SP_TARGET_ON;

		if (bpf_map__update_elem(skel->maps.targets, &pids[i],
					 sizeof(pid_t), &on, sizeof(on),
					 BPF_ANY))
			die("the targets map: %s", strerror(errno));
	}

	if (optind < argc) {
		__u8 wait = SP_TARGET_WAIT;

		if (pipe(go))
			die("pipe: %s", strerror(errno));
		pid = fork();
		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (pid == 0) {
			close(go[1]);
			if (read(go[0], &ch, 1) != 1)
				_exit(127);
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "sframe-profile: %s: %s\n",
				argv[optind], strerror(errno));
			_exit(127);
		}
		close(go[0]);
		/* Samples count from the exec on */
		if (bpf_map__update_elem(skel->maps.targets, &pid, sizeof(pid),
					 &wait, sizeof(wait), BPF_ANY))
			die("the targets map: %s", strerror(errno));
	}

	out = ofd < 0 ? stdout : fdopen(ofd, "w");
	if (!out)
		die("%s: %s", output, strerror(errno));
	rb = ring_buffer__new(bpf_map__fd(skel->maps.samples), on_sample,
			      NULL, NULL);
	if (!rb || ring_buffer__add(rb, bpf_map__fd(skel->maps.stacks),
				    on_stack, NULL))
		die("ring buffers: %s", strerror(errno));
	if (sframe_profile__attach(skel))
		die("attaching to the sched tracepoints: %s", strerror(errno));
	/* Before the samples come: none waits while it takes seconds */
	ksyms_load();
	if (!open_sampler(skel, hz, &links))
		die("no CPU to sample on");
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "sframe-profile: sampling %s at %d Hz, %s; Ctrl-C to stop\n",
		all ? "every process" : npids ? "the processes given" :
		"the command", hz, !user ? "kernel stacks only" :
		deferred ? "user stacks deferred" : "user stacks in the event");

	if (pid) {
		if (write(go[1], &ch, 1) != 1)
			die("starting %s: %s", argv[optind], strerror(errno));
		close(go[1]);
	}
	clock_gettime(CLOCK_REALTIME, &t_start);
	started = now();
	if (duration)
		end = now() + duration;
	for (;;) {
		if (pid && waitpid(pid, &status, WNOHANG) == pid) {
			why = "the command exited";
			pid = 0;
			break;
		}
		if (npids && !any_alive(pidfds, npids)) {
			why = "the processes exited";
			break;
		}
		if (__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
			why = "stopped by a signal";
			break;
		}
		if (end && now() >= end) {
			why = "the duration is over";
			break;
		}
		c = poll_rings(rb, 100);
		if (c < 0 && c != -EINTR)
			die("reading the ring buffers: %s", strerror(-c));
	}
	stopped = now();
	for (c = 0; c < libbpf_num_possible_cpus(); c++)
		bpf_link__destroy(links[c]);
	do
		c = consume_rings(rb);
	while (c > 0);
	if (c < 0)
		die("reading the ring buffers: %s", strerror(-c));
	/*
	 * A command still running when a signal stopped sampling gets
	 * SIGTERM, as perf record's workload does, and is waited for.
	 */
	if (pid && __atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		kill(pid, SIGTERM);
		if (waitpid(pid, &status, 0) == pid)
			pid = 0;
	}

	pend_flush();
	if (folded || fg)
		fs = fold_all(&nfs);
	if (folded)
		for (i = 0; i < nfs; i++)
			fprintf(out, "%s %lu\n", fs[i].stack, fs[i].count);
	else
		for (i = 0; i < naggs; i++)
			print_stack(proc_dwfl(aggs[i]->pid, aggs[i]->snap),
				    aggs[i]);
	if (fflush(out) || ferror(out))
		die("writing %s: %s", output ?: "the output", strerror(errno));
	if (fg) {
		snprintf(title, sizeof(title), "sframe-profile: %s, %s",
			 all ? "every process" : npids ? "the processes given" :
			 "the command", !user ? "kernel stacks only" :
			 deferred ? "user stacks deferred" :
			 "user stacks in the event");
		c = flamegraph_write(fg, fs, nfs, title, assets_dir());
		if (c == -ENOENT || c == -EINVAL)
			die("%s: %s d3-flame-graph files in %s (SFRAME_PROFILE_ASSETS)",
			    fg_path, c == -ENOENT ? "no" : "bad", assets_dir());
		if (c || fclose(fg))
			die("writing %s: %s", fg_path,
			    strerror(c ? -c : errno));
	}
	free_folded(fs, nfs);
	if (pp_fd >= 0) {
		c = write_pprof(pp_fd, hz, t_start.tv_sec * 1000000000LL +
				t_start.tv_nsec,
				(__s64)((stopped - started) * 1e9));
		if (c || close(pp_fd))
			die("writing %s: %s", pp_path, strerror(c ? -c : errno));
	}
	fprintf(stderr,
		"sframe-profile: %zu samples (%s) of %zu processes, %zu with a user stack, %zu without, %zu distinct stacks; %llu samples and %llu stacks lost (ring buffer full); %s",
		nsamples, !user ? "kernel stacks only" : deferred ?
		"deferred" : "in the event", nprocs, complete, missing, naggs,
		(unsigned long long)skel->bss->lost,
		(unsigned long long)stacks_lost, why);
	if (!pid && optind < argc) {
		rc = WIFEXITED(status) ? WEXITSTATUS(status) :
					 128 + WTERMSIG(status);
		fprintf(stderr, ", %s %d", WIFEXITED(status) ? "status" :
			"signal", WIFEXITED(status) ? rc : rc - 128);
	}
	fputc('\n', stderr);
	if (dropped)
		fprintf(stderr,
			"sframe-profile: %lu samples dropped: more than %zu distinct stacks (--stack-storage-size)\n",
			dropped, stack_max);
	if (skel->bss->targets_full)
		fprintf(stderr,
			"sframe-profile: %llu forked processes not sampled: more than %d processes\n",
			(unsigned long long)skel->bss->targets_full,
			SP_MAX_TARGETS);
	if (deferred && user)
		fprintf(stderr,
			"sframe-profile: %zu requests failed (%s), %zu stacks not delivered (task exited or exec'd)\n",
			failed, fails_text(), unmatched);
	ring_buffer__free(rb);
	sframe_profile__destroy(skel);
	return rc;
}
