// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks for BPF programs, of code built without frame pointers and
 * with SFrame: in the event (bpf_get_stack() and bpf_get_stackid() with
 * BPF_F_USER_STACK, which take perf's non-faulting SFrame walk) and
 * deferred to the return to user space (bpf_unwind_user_deferred()).
 *
 * Each test calls a known chain whose innermost function makes a
 * getppid() system call; the programs of progs/unwind_user.bpf.c, on that
 * system call, write an event (struct sft_event) and, deferred, ask for
 * the stack in a ring buffer.  The tests compare the chains, symbolized
 * from the ELF symbol tables, with the expected ones, and the cookies of
 * events and stack records.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../kselftest_harness.h"
#include "../sframe/sft.h"
#include "../sframe/sft_sym.h"
#include "sft_bpf.h"
#include "unwind_user.skel.h"
#include "unwind_user_bad.skel.h"

/* ---- the code being unwound ---- */

/* The innermost function: the system call the programs trace */
SFT_NOINLINE long sft_leaf(long x)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"(SYS_getppid)
		     : "rcx", "r11", "memory");
	return x + (ret > 0);
}

/* Called through a global pointer: a real call, never inlined */
long (*leaf_ptr)(long) = sft_leaf;

#include "../sframe/sft_calls.h"

/*
 * Spins in user space, what cpu-clock samples, until another thread says
 * stop: no system call or vDSO call in the sampled thread.
 */
static int spin_stop;

SFT_NOINLINE long spin(long x)
{
	while (!__atomic_load_n(&spin_stop, __ATOMIC_RELAXED))
		x = x * 7 + 1;
	return x;
}

static void *spin_timer(void *arg)
{
	usleep(300 * 1000);
	__atomic_store_n(&spin_stop, 1, __ATOMIC_RELAXED);
	return arg;
}

SFT_NOINLINE long s2(long x)
{
	char pad[24];

	pad[0] = x;
	sft_keep(pad);
	return spin(x + pad[0]) + 1;
}

SFT_NOINLINE long s1(long x)
{
	return s2(x) + 1;
}

/* Every chain of the tests goes through here */
SFT_NOINLINE long run(long (*fn)(long), long x)
{
	return fn(x) + 1;
}

/* ---- the programs and their output ---- */

#define MAX_EV		512
#define MAX_REC		512

enum { MAP_STACKS, MAP_STACKS2, MAP_STACKS3, MAP_STACKS4, MAP_SMALL, NR_MAPS };

struct rec {
	int map;
	struct bpf_unwind_user_record r;
	__u64 ips[SFT_MAX_STACK];
};

struct sft;

/* What a stack ring buffer's callback is given */
struct sft_rb {
	struct sft *s;
	int map;
};

struct sft {
	struct unwind_user *skel;
	struct ring_buffer *rb;		/* events and stacks..stacks4 */
	struct ring_buffer *rb_small;	/* small, drained on demand */
	struct sft_rb ctx[NR_MAPS];
	struct sft_event ev[MAX_EV];
	int nev;
	struct rec rec[MAX_REC];
	int nrec;
};

static int on_event(void *ctx, void *data, size_t size)
{
	struct sft *s = ctx;

	if (size >= sizeof(struct sft_event) && s->nev < MAX_EV)
		memcpy(&s->ev[s->nev++], data, sizeof(struct sft_event));
	return 0;
}

static int on_stack(void *ctx, void *data, size_t size)
{
	struct sft_rb *rb = ctx;
	struct sft *s = rb->s;
	const struct bpf_unwind_user_record *r = data;
	struct rec *o;

	if (size < sizeof(*r) || s->nrec >= MAX_REC)
		return 0;
	o = &s->rec[s->nrec++];
	o->map = rb->map;
	o->r = *r;
	if (r->nr > SFT_MAX_STACK || size < sizeof(*r) + r->nr * 8) {
		o->r.nr = 0;
		return 0;
	}
	memcpy(o->ips, r->ips, r->nr * 8);
	return 0;
}

static struct sft *sft_open(struct __test_metadata *_metadata)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = "sft_leaf");
	struct sft *s = calloc(1, sizeof(*s));
	struct bpf_map *maps[NR_MAPS];
	__u32 tgid = getpid(), one = 1;
	int i;

	if (!s)
		return NULL;
	s->skel = unwind_user__open();
	if (s->skel) {
		/* Attached by request_during_delivery only */
		bpf_program__set_autoattach(s->skel->progs.fentry_map_put, false);
		/* By ring_buffers_of_a_sleeper only */
		bpf_program__set_autoattach(s->skel->progs.tp_sched_switch, false);
		if (unwind_user__load(s->skel)) {
			unwind_user__destroy(s->skel);
			s->skel = NULL;
		}
	}
	if (!s->skel) {
		TH_LOG("loading the programs failed: %s", strerror(errno));
		free(s);
		return NULL;
	}
	if (unwind_user__attach(s->skel))
		return NULL;
	/* In the skeleton's links: destroying the skeleton detaches it */
	s->skel->links.uprobe_leaf =
		bpf_program__attach_uprobe_opts(s->skel->progs.uprobe_leaf, 0,
						"/proc/self/exe", 0, &uo);
	if (!s->skel->links.uprobe_leaf) {
		TH_LOG("attaching the programs failed: %s", strerror(errno));
		return NULL;
	}
	maps[MAP_STACKS] = s->skel->maps.stacks;
	maps[MAP_STACKS2] = s->skel->maps.stacks2;
	maps[MAP_STACKS3] = s->skel->maps.stacks3;
	maps[MAP_STACKS4] = s->skel->maps.stacks4;
	maps[MAP_SMALL] = s->skel->maps.small;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), on_event,
				 s, NULL);
	if (!s->rb)
		return NULL;
	for (i = 0; i < NR_MAPS; i++) {
		s->ctx[i].s = s;
		s->ctx[i].map = i;
		if (i == MAP_SMALL)
			s->rb_small = ring_buffer__new(bpf_map__fd(maps[i]),
						       on_stack, &s->ctx[i], NULL);
		else if (ring_buffer__add(s->rb, bpf_map__fd(maps[i]),
					  on_stack, &s->ctx[i]))
			return NULL;
	}
	if (!s->rb_small)
		return NULL;
	bpf_map_update_elem(bpf_map__fd(s->skel->maps.tgids), &tgid, &one,
			    BPF_ANY);
	return s;
}

static void sft_close(struct sft *s)
{
	ring_buffer__free(s->rb);
	ring_buffer__free(s->rb_small);
	unwind_user__destroy(s->skel);
	free(s);
}

static void sft_set(struct sft *s, __u32 progs, __u32 defer)
{
	s->skel->bss->progs_on = progs;
	s->skel->bss->defer_mode = defer;
}

static void sft_drain(struct sft *s)
{
	ring_buffer__consume(s->rb);
}

static void sft_add_tgid(struct sft *s, pid_t pid)
{
	__u32 tgid = pid, one = 1;

	bpf_map_update_elem(bpf_map__fd(s->skel->maps.tgids), &tgid, &one,
			    BPF_ANY);
}

/* The records of @map with @cookie, the last one in *@r */
static int recs_of(struct sft *s, int map, __u64 cookie, struct rec **r)
{
	int i, n = 0;

	for (i = 0; i < s->nrec; i++)
		if (s->rec[i].map == map && s->rec[i].r.cookie == cookie) {
			*r = &s->rec[i];
			n++;
		}
	return n;
}

static struct sft_event *event_of(struct sft *s, __u32 prog)
{
	int i;

	for (i = s->nev - 1; i >= 0; i--)
		if (s->ev[i].prog == prog)
			return &s->ev[i];
	return NULL;
}

/* ---- chains ---- */

/*
 * sym() with a cache: it reads the object's symbol table, which costs
 * much in the emulated guest, and chains repeat their frames.
 */
static const char *csym(unsigned long ip, char *buf, size_t len)
{
	static struct {
		unsigned long ip;
		char name[128];
	} cache[1024];
	unsigned int h = (ip ^ ip >> 10) % 1024;

	if (cache[h].ip != ip) {
		sym(ip, cache[h].name, sizeof(cache[h].name));
		cache[h].ip = ip;
	}
	snprintf(buf, len, "%s", cache[h].name);
	return buf;
}

static void chain_log(struct __test_metadata *_metadata,
		      const __u64 *ip, int nr)
{
	char name[128];
	int i;

	for (i = 0; i < nr && i < 24; i++)
		TH_LOG("  #%d %#llx %s", i, (unsigned long long)ip[i],
		       csym(ip[i], name, sizeof(name)));
}

/*
 * The chain starts with @expect (NULL-terminated); with @to_main it also
 * reaches main, and no frame past main is outside the loaded objects.
 */
static int chain_check(struct __test_metadata *_metadata, const __u64 *ip,
		       int nr, const char * const *expect, bool to_main)
{
	char name[128];
	int i, main_at = -1;

	for (i = 0; expect[i]; i++) {
		if (i >= nr || strcmp(csym(ip[i], name, sizeof(name)),
				      expect[i])) {
			TH_LOG("frame %d: expected %s", i, expect[i]);
			chain_log(_metadata, ip, nr);
			return -1;
		}
	}
	if (!to_main)
		return 0;
	for (i = 0; i < nr; i++) {
		csym(ip[i], name, sizeof(name));
		if (main_at < 0 && !strcmp(name, "main")) {
			main_at = i;
		} else if (main_at >= 0 && !strcmp(name, "!")) {
			TH_LOG("frame %d (%#llx) is in no loaded object", i,
			       (unsigned long long)ip[i]);
			chain_log(_metadata, ip, nr);
			return -1;
		}
	}
	if (main_at < 0) {
		TH_LOG("the chain does not reach main");
		chain_log(_metadata, ip, nr);
		return -1;
	}
	return 0;
}

static const char * const exp_f1[] = {
	"sft_leaf", "f3", "f2", "f1", "run", NULL
};

static const char * const prog_name[] = {
	[SFT_PROG_TP] = "tracepoint", [SFT_PROG_KPROBE] = "kprobe",
	[SFT_PROG_FENTRY] = "fentry", [SFT_PROG_RAW_TP] = "raw_tp",
	[SFT_PROG_UPROBE] = "uprobe", [SFT_PROG_PERF] = "perf_event",
	[SFT_PROG_EXIT] = "exit_group", [SFT_PROG_EXEC] = "execve",
	[SFT_PROG_LATE] = "late", [SFT_PROG_EXEC_AFTER] = "after exec",
	[SFT_PROG_DURING] = "during delivery",
	[SFT_PROG_SWITCH] = "sched_switch",
};

/* The programs on getppid() */
static const int syscall_progs[] = {
	SFT_PROG_TP, SFT_PROG_KPROBE, SFT_PROG_FENTRY, SFT_PROG_RAW_TP,
	SFT_PROG_UPROBE,
};

/* ---- in the event ---- */

/*
 * bpf_get_stack() and bpf_get_stackid() in each program type: the
 * complete chain, and the same one in the stack map.
 */
TEST(in_event)
{
	struct sft *s = sft_open(_metadata);
	unsigned int i;

	ASSERT_NE(NULL, s);
	/*
	 * The first walk in the event of a new process meets sections that
	 * are not discovered yet, which it cannot do without faulting: the
	 * miss is repaired at the return to user space (as for perf).
	 */
	sft_set(s, 1u << SFT_PROG_TP, SFT_DEFER_NONE);
	run(f1, 1);
	sft_drain(s);
	s->nev = 0;
	for (i = 0; i < ARRAY_SIZE(syscall_progs); i++) {
		int p = syscall_progs[i];
		__u64 ips[SFT_MAX_STACK] = { 0 };
		struct sft_event *e;
		__u32 id;
		int nr;

		TH_LOG("%s", prog_name[p]);
		sft_set(s, 1u << p, SFT_DEFER_NONE);
		run(f1, 1);
		sft_drain(s);
		e = event_of(s, p);
		ASSERT_NE(NULL, e);
		ASSERT_LT(0, e->nr);
		nr = e->nr / 8;
		ASSERT_EQ(0, chain_check(_metadata, e->ustack, nr, exp_f1,
					 true));
		/* The stack map holds the same chain */
		ASSERT_LE(0, e->stackid);
		id = e->stackid;
		ASSERT_EQ(0, bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stackmap),
						 &id, ips));
		ASSERT_EQ(0, memcmp(ips, e->ustack, nr * 8));
	}
	sft_close(s);
}

/* ---- deferred ---- */

/* The deferred stack of each program type, joined by its cookie */
TEST(deferred)
{
	struct sft *s = sft_open(_metadata);
	unsigned int i;

	ASSERT_NE(NULL, s);
	for (i = 0; i < ARRAY_SIZE(syscall_progs); i++) {
		int p = syscall_progs[i];
		struct sft_event *e;
		struct rec *r;

		TH_LOG("%s", prog_name[p]);
		sft_set(s, 1u << p, SFT_DEFER_ONE);
		run(f1, 1);
		sft_drain(s);
		e = event_of(s, p);
		ASSERT_NE(NULL, e);
		ASSERT_EQ(0, e->ret[0]);
		ASSERT_NE(0, e->cookie[0]);
		ASSERT_EQ(1, recs_of(s, MAP_STACKS, e->cookie[0], &r));
		ASSERT_EQ(getpid(), r->r.pid);
		ASSERT_EQ(gettid(), r->r.tid);
		ASSERT_EQ(0, r->r.lost);
		ASSERT_EQ(0, chain_check(_metadata, r->ips, r->r.nr, exp_f1,
					 true));
	}
	sft_close(s);
}

/*
 * Four programs in one system call, each asking twice for stacks and once
 * for stacks2: one cookie, and one record in each ring buffer.
 */
TEST(one_cookie_per_entry)
{
	static const int progs[] = { SFT_PROG_TP, SFT_PROG_KPROBE,
				     SFT_PROG_FENTRY, SFT_PROG_RAW_TP };
	struct sft *s = sft_open(_metadata);
	struct rec *r;
	unsigned int i;
	__u64 cookie;

	ASSERT_NE(NULL, s);
	sft_set(s, (1u << SFT_PROG_TP) | (1u << SFT_PROG_KPROBE) |
		   (1u << SFT_PROG_FENTRY) | (1u << SFT_PROG_RAW_TP),
		SFT_DEFER_TWO_MAPS);
	run(f1, 1);
	sft_drain(s);
	ASSERT_EQ(4, s->nev);
	cookie = s->ev[0].cookie[0];
	ASSERT_NE(0, cookie);
	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		struct sft_event *e = event_of(s, progs[i]);

		ASSERT_NE(NULL, e);
		ASSERT_EQ(0, e->ret[0]);
		ASSERT_EQ(0, e->ret[1]);
		ASSERT_EQ(0, e->ret[2]);
		ASSERT_EQ(cookie, e->cookie[0]);
		ASSERT_EQ(cookie, e->cookie[1]);
		ASSERT_EQ(cookie, e->cookie[2]);
	}
	ASSERT_EQ(2, s->nrec);
	ASSERT_EQ(1, recs_of(s, MAP_STACKS, cookie, &r));
	ASSERT_EQ(0, chain_check(_metadata, r->ips, r->r.nr, exp_f1, true));
	ASSERT_EQ(1, recs_of(s, MAP_STACKS2, cookie, &r));
	ASSERT_EQ(0, chain_check(_metadata, r->ips, r->r.nr, exp_f1, true));
	/* The next entry has another cookie */
	run(f1, 1);
	sft_drain(s);
	ASSERT_EQ(8, s->nev);
	ASSERT_NE(cookie, s->ev[7].cookie[0]);
	ASSERT_EQ(4, s->nrec);
	sft_close(s);
}

/* Four ring buffers per task and entry: the fifth gets -ENOSPC */
TEST(five_maps)
{
	struct sft *s = sft_open(_metadata);
	struct sft_event *e;
	struct rec *r;
	int m;

	ASSERT_NE(NULL, s);
	sft_set(s, 1u << SFT_PROG_TP, SFT_DEFER_FIVE_MAPS);
	run(f1, 1);
	sft_drain(s);
	ring_buffer__consume(s->rb_small);
	e = event_of(s, SFT_PROG_TP);
	ASSERT_NE(NULL, e);
	for (m = 0; m < 4; m++) {
		ASSERT_EQ(0, e->ret[m]);
		ASSERT_EQ(1, recs_of(s, m, e->cookie[0], &r));
	}
	ASSERT_EQ(-ENOSPC, e->ret[4]);
	ASSERT_EQ(0, e->cookie[4]);
	ASSERT_EQ(4, s->nrec);
	sft_close(s);
}

/*
 * A full ring buffer loses records and never blocks; the next record
 * written counts the lost ones.
 */
TEST(ring_buffer_full)
{
	struct sft *s = sft_open(_metadata);
	int i, n, calls = 100;

	ASSERT_NE(NULL, s);
	sft_set(s, 1u << SFT_PROG_TP, SFT_DEFER_SMALL);
	for (i = 0; i < calls; i++)
		run(f1, 1);
	sft_drain(s);
	ASSERT_EQ(calls, s->nev);
	for (i = 0; i < calls; i++)
		ASSERT_EQ(0, s->ev[i].ret[0]);
	ring_buffer__consume(s->rb_small);
	n = s->nrec;
	TH_LOG("%d of %d records fit in one page", n, calls);
	ASSERT_LT(0, n);
	ASSERT_GT(calls, n);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, s->rec[i].r.lost);
		ASSERT_EQ(0, chain_check(_metadata, s->rec[i].ips,
					 s->rec[i].r.nr, exp_f1, true));
	}
	run(f1, 1);
	ring_buffer__consume(s->rb_small);
	ASSERT_EQ(n + 1, s->nrec);
	ASSERT_EQ(calls - n, s->rec[n].r.lost);
	sft_close(s);
}

/*
 * A perf event that asks for deferred callchains whenever the current
 * thread hits the bpf_trace_printk tracepoint
 */
static int perf_defer_on_printk(void)
{
	static const char * const paths[] = {
		"/sys/kernel/tracing/events/bpf_trace/bpf_trace_printk/id",
		"/sys/kernel/debug/tracing/events/bpf_trace/bpf_trace_printk/id",
	};
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_TRACEPOINT,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_CALLCHAIN,
		.exclude_callchain_kernel = 1,
		.defer_callchain = 1,
	};
	unsigned int i;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		f = fopen(paths[i], "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", (unsigned long long *)&attr.config) != 1)
			attr.config = 0;
		fclose(f);
		if (attr.config)
			return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	}
	return -1;
}

/*
 * Requests late in an entry, after its stack was delivered (an fexit
 * program on the delivery), while perf's deferred callchains are pending
 * again: the ring buffer that got the stack gets 0 and the entry's
 * cookie; another gets -EBUSY and cookie 0, and no record, neither in
 * this entry nor in the next.
 */
TEST(late_request)
{
	struct sft *s = sft_open(_metadata);
	struct sft_event *e, *l;
	struct rec *r;
	int fd, i;

	ASSERT_NE(NULL, s);
	fd = perf_defer_on_printk();
	ASSERT_LE(0, fd);
	s->skel->bss->late_print = 1;
	sft_set(s, (1u << SFT_PROG_TP) | (1u << SFT_PROG_LATE), SFT_DEFER_ONE);
	run(f1, 1);
	sft_set(s, 0, SFT_DEFER_NONE);
	sft_drain(s);
	ASSERT_EQ(2, s->nev);
	e = event_of(s, SFT_PROG_TP);
	l = event_of(s, SFT_PROG_LATE);
	ASSERT_NE(NULL, e);
	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, e->ret[0]);
	ASSERT_NE(0, e->cookie[0]);
	ASSERT_EQ(e->cookie[0], l->cookie[2]);
	ASSERT_EQ(0, l->ret[0]);
	ASSERT_EQ(e->cookie[0], l->cookie[0]);
	ASSERT_EQ(-EBUSY, l->ret[1]);
	ASSERT_EQ(0, l->cookie[1]);
	ASSERT_EQ(1, recs_of(s, MAP_STACKS, e->cookie[0], &r));
	ASSERT_EQ(0, chain_check(_metadata, r->ips, r->r.nr, exp_f1, true));
	/* A slot left behind would deliver in the next entry */
	sft_set(s, 1u << SFT_PROG_TP, SFT_DEFER_ONE);
	run(f1, 1);
	sft_set(s, 0, SFT_DEFER_NONE);
	sft_drain(s);
	ASSERT_EQ(3, s->nev);
	ASSERT_EQ(2, s->nrec);
	for (i = 0; i < s->nrec; i++)
		ASSERT_EQ(MAP_STACKS, s->rec[i].map);
	close(fd);
	sft_close(s);
}

/*
 * Requests in the delivery itself, between the records of two ring
 * buffers (fentry on bpf_map_put(), which the delivery calls after each
 * record): stacks, already written, and stacks2, still to come, get 0
 * and the entry's cookie, and each ring buffer gets its record once.
 */
TEST(request_during_delivery)
{
	struct sft *s = sft_open(_metadata);
	struct sft_event *e;
	struct rec *r;
	int i, during = 0;
	__u64 cookie;

	ASSERT_NE(NULL, s);
	s->skel->links.fentry_map_put =
		bpf_program__attach(s->skel->progs.fentry_map_put);
	ASSERT_NE(NULL, s->skel->links.fentry_map_put);
	sft_set(s, (1u << SFT_PROG_TP) | (1u << SFT_PROG_DURING),
		SFT_DEFER_TWO_MAPS);
	run(f1, 1);
	sft_set(s, 0, SFT_DEFER_NONE);
	sft_drain(s);
	e = event_of(s, SFT_PROG_TP);
	ASSERT_NE(NULL, e);
	cookie = e->cookie[0];
	ASSERT_NE(0, cookie);
	for (i = 0; i < s->nev; i++) {
		e = &s->ev[i];
		if (e->prog != SFT_PROG_DURING)
			continue;
		TH_LOG("request %d in the delivery: stacks %lld, stacks2 %lld",
		       during, (long long)e->ret[0], (long long)e->ret[1]);
		ASSERT_EQ(0, e->ret[0]);
		ASSERT_EQ(0, e->ret[1]);
		ASSERT_EQ(cookie, e->cookie[0]);
		ASSERT_EQ(cookie, e->cookie[1]);
		during++;
	}
	ASSERT_EQ(2, during);
	ASSERT_EQ(2, s->nrec);
	ASSERT_EQ(1, recs_of(s, MAP_STACKS, cookie, &r));
	ASSERT_EQ(0, chain_check(_metadata, r->ips, r->r.nr, exp_f1, true));
	ASSERT_EQ(1, recs_of(s, MAP_STACKS2, cookie, &r));
	ASSERT_EQ(0, chain_check(_metadata, r->ips, r->r.nr, exp_f1, true));
	sft_close(s);
}

/* ---- processes and threads ---- */

static int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The id of @map, to see it go when nothing holds it */
static __u32 map_id(struct bpf_map *map)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_map_get_info_by_fd(bpf_map__fd(map), &info, &len))
		return 0;
	return info.id;
}

/*
 * Milliseconds until the map with @id is freed (its programs go first,
 * after RCU grace periods: slow under emulation), -1 after 12 s
 */
static int map_freed_ms(__u32 id)
{
	int i, fd;

	for (i = 0; i < 1200; i++) {
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0 && errno == ENOENT)
			return i * 10;
		if (fd >= 0)
			close(fd);
		usleep(10000);
	}
	return -1;
}

/*
 * A task that asks in exit_group() exits before it returns to user space,
 * one that asks in execve() returns to another program: neither gets a
 * record, and neither keeps a reference to the ring buffer.  A request
 * after the exec in the same execve() (sched_process_exec) for the ring
 * buffer named before it gets -EBUSY.
 */
TEST(exit_and_exec)
{
	struct sft *s = sft_open(_metadata);
	int go[2], i, exits = 0, execs = 0, after = 0, ms, ms2;
	__u32 id, id2;
	char c = 0;
	pid_t pid;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execl("/proc/self/exe", "sframe_bpf", "--exit-child", NULL);
		_exit(2);
	}
	sft_add_tgid(s, pid);
	sft_set(s, (1u << SFT_PROG_EXIT) | (1u << SFT_PROG_EXEC) |
		   (1u << SFT_PROG_EXEC_AFTER), SFT_DEFER_ONE);
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(0, wait_child(pid));
	sft_drain(s);
	for (i = 0; i < s->nev; i++) {
		if (s->ev[i].prog == SFT_PROG_EXEC_AFTER) {
			ASSERT_EQ(-EBUSY, s->ev[i].ret[0]);
			ASSERT_EQ(0, s->ev[i].cookie[0]);
			after++;
			continue;
		}
		ASSERT_EQ(0, s->ev[i].ret[0]);
		exits += s->ev[i].prog == SFT_PROG_EXIT;
		execs += s->ev[i].prog == SFT_PROG_EXEC;
	}
	ASSERT_EQ(1, execs);
	ASSERT_EQ(1, after);
	ASSERT_EQ(1, exits);
	for (i = 0; i < s->nrec; i++)
		ASSERT_NE(pid, s->rec[i].r.tid);
	/* stacks2, which nothing asked for, is the control */
	id = map_id(s->skel->maps.stacks);
	id2 = map_id(s->skel->maps.stacks2);
	ASSERT_NE(0, id);
	ASSERT_NE(0, id2);
	sft_close(s);
	ms2 = map_freed_ms(id2);
	ms = map_freed_ms(id);
	TH_LOG("ring buffers freed %d ms (asked for) and %d ms (control) after their programs",
	       ms, ms2);
	ASSERT_LE(0, ms2);
	ASSERT_LE(0, ms);
}

/* The state letter of /proc/@pid/stat, 0 if unreadable */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Waits up to 12 s for /proc/@pid/stat to show @state */
static int wait_state(pid_t pid, char state)
{
	int i;

	for (i = 0; i < 1200; i++) {
		if (proc_state(pid) == state)
			return 0;
		usleep(10000);
	}
	return -1;
}

/*
 * The sleeper of ring_buffers_of_a_sleeper: waits in one waitid() for a
 * child that is stopped and continued many times and killed at the end.
 * Each stop and continue wakes it; it finds nothing to reap and sleeps
 * again, all in the same system call, so that it leaves the CPU again
 * and again without returning to user space.  It writes the child's pid
 * to @fd first.
 */
static void sleeper(int fd)
{
	pid_t pid, parent = getpid();
	siginfo_t info;

	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid == 0) {
		/* Gone with the sleeper, whatever happens to the test */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		for (;;)
			pause();
	}
	if (write(fd, &pid, sizeof(pid)) != sizeof(pid))
		_exit(2);
	if (waitid(P_ALL, 0, &info, WEXITED))
		_exit(3);
	_exit(info.si_pid == pid ? 0 : 4);
}

/*
 * Requests of one load of the programs: those of the sleeper at
 * sched_switch, for the five ring buffers, which must get 0 for the first
 * four and -ENOSPC for the fifth.  Then every fd is closed, and each ring
 * buffer must be freed although the sleeper has not returned to user
 * space.
 */
static void sleeper_cycle(struct __test_metadata *_metadata, pid_t sleeper,
			  pid_t child, int cycle)
{
	struct sft *s = sft_open(_metadata);
	__u32 ids[NR_MAPS], self = getpid();
	int i, j, seen = 0, ms;

	ASSERT_NE(NULL, s);
	/* Only the sleeper's requests: none of this process's switches */
	bpf_map_delete_elem(bpf_map__fd(s->skel->maps.tgids), &self);
	s->skel->links.tp_sched_switch =
		bpf_program__attach(s->skel->progs.tp_sched_switch);
	if (!s->skel->links.tp_sched_switch)
		TH_LOG("attaching to sched_switch failed: %s", strerror(errno));
	ASSERT_NE(NULL, s->skel->links.tp_sched_switch);
	ids[MAP_STACKS] = map_id(s->skel->maps.stacks);
	ids[MAP_STACKS2] = map_id(s->skel->maps.stacks2);
	ids[MAP_STACKS3] = map_id(s->skel->maps.stacks3);
	ids[MAP_STACKS4] = map_id(s->skel->maps.stacks4);
	ids[MAP_SMALL] = map_id(s->skel->maps.small);
	sft_add_tgid(s, sleeper);
	sft_set(s, 1u << SFT_PROG_SWITCH, SFT_DEFER_FIVE_MAPS);
	/* Wake the sleeper: it leaves the CPU again at once */
	for (i = 0; i < 20 && !seen; i++) {
		ASSERT_EQ(0, kill(child, SIGSTOP));
		ASSERT_EQ(0, wait_state(child, 'T'));
		ASSERT_EQ(0, kill(child, SIGCONT));
		ASSERT_EQ(0, wait_state(child, 'S'));
		ASSERT_EQ(0, wait_state(sleeper, 'S'));
		sft_drain(s);
		for (j = 0; j < s->nev; j++)
			seen += s->ev[j].tid == (__u32)sleeper;
	}
	sft_set(s, 0, SFT_DEFER_NONE);
	sft_drain(s);
	ASSERT_LT(0, seen);
	seen = 0;
	for (j = 0; j < s->nev; j++) {
		struct sft_event *e = &s->ev[j];

		if (e->tid != (__u32)sleeper || e->prog != SFT_PROG_SWITCH)
			continue;
		if (!seen++)
			TH_LOG("load %d: the sleeper's first request: %lld %lld %lld %lld %lld",
			       cycle, (long long)e->ret[0], (long long)e->ret[1],
			       (long long)e->ret[2], (long long)e->ret[3],
			       (long long)e->ret[4]);
		for (i = 0; i < NR_MAPS; i++) {
			ASSERT_EQ(i < 4 ? 0 : -ENOSPC, e->ret[i]);
			ASSERT_EQ(i < 4, e->cookie[i] != 0);
		}
	}
	/* Nothing was delivered: the sleeper is still in waitid() */
	for (j = 0; j < s->nrec; j++)
		ASSERT_NE((__u32)sleeper, s->rec[j].r.tid);
	sft_close(s);
	for (i = 0; i < NR_MAPS; i++) {
		ASSERT_NE(0, ids[i]);
		ms = map_freed_ms(ids[i]);
		if (ms < 0)
			TH_LOG("load %d: ring buffer %d (id %u) still there %s",
			       cycle, i, ids[i],
			       "12 s after its programs and fds were closed");
		ASSERT_LE(0, ms);
	}
}

/*
 * An off-CPU tool asks for the stack of a task at sched_switch, and the
 * task then sleeps in the kernel: the request must not keep the tool's
 * ring buffers once the tool is gone.  Two loads of the programs each ask
 * for five ring buffers: four slots, and -ENOSPC for the fifth.  The
 * second load gets the four slots of the first's ring buffers, which are
 * gone.  Every ring buffer must be freed when its fds are closed, while
 * the sleeper still sleeps.  The sleeper then returns, delivering
 * nothing, and exits.
 */
TEST(ring_buffers_of_a_sleeper)
{
	pid_t pid, child = 0, self = getpid();
	int fds[2], cycle;

	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Gone with the test, whatever happens to it */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != self)
			_exit(1);
		close(fds[0]);
		sleeper(fds[1]);
	}
	close(fds[1]);
	ASSERT_EQ(sizeof(child), read(fds[0], &child, sizeof(child)));
	close(fds[0]);
	ASSERT_EQ(0, wait_state(pid, 'S'));
	for (cycle = 0; cycle < 2; cycle++)
		sleeper_cycle(_metadata, pid, child, cycle);
	kill(child, SIGKILL);
	ASSERT_EQ(0, wait_child(pid));
}

/* A forked child's stack, with its own pid */
TEST(forked_child)
{
	struct sft *s = sft_open(_metadata);
	int go[2];
	struct rec *r;
	char c = 0;
	pid_t pid;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, pipe(go));
	sft_set(s, 1u << SFT_PROG_TP, SFT_DEFER_ONE);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		run(f1, 1);
		_exit(0);
	}
	sft_add_tgid(s, pid);
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(0, wait_child(pid));
	sft_drain(s);
	ASSERT_EQ(1, s->nev);
	ASSERT_EQ(pid, s->ev[0].tid);
	ASSERT_EQ(0, s->ev[0].ret[0]);
	ASSERT_EQ(1, recs_of(s, MAP_STACKS, s->ev[0].cookie[0], &r));
	ASSERT_EQ(pid, r->r.pid);
	ASSERT_EQ(pid, r->r.tid);
	ASSERT_EQ(0, chain_check(_metadata, r->ips, r->r.nr, exp_f1, true));
	sft_close(s);
}

/* Runs of @prog that the kernel skipped (recursion on a CPU) */
static unsigned long long prog_misses(struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_prog_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return ~0ULL;
	return info.recursion_misses;
}

#define THREADS		4
#define PER_THREAD	25

SFT_NOINLINE void *thread_fn(void *arg)
{
	int i;

	for (i = 0; i < PER_THREAD; i++)
		run(f1, 1);
	sft_keep(arg);
	return NULL;
}

/* Threads at once: every event has its record, with its thread id */
TEST(threads)
{
	static const char * const exp[] = {
		"sft_leaf", "f3", "f2", "f1", "run", "thread_fn", NULL
	};
	struct sft *s = sft_open(_metadata);
	unsigned long long misses;
	pthread_t t[THREADS];
	int i;

	ASSERT_NE(NULL, s);
	sft_set(s, 1u << SFT_PROG_TP, SFT_DEFER_ONE);
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, thread_fn, NULL));
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	sft_drain(s);
	/*
	 * System call tracepoints are preemptible: a program that another
	 * thread's preempted run of it keeps busy on a CPU is skipped and
	 * counted as a miss.  Every run that happened has its stack.
	 */
	misses = prog_misses(s->skel->progs.tp_getppid);
	TH_LOG("%d events, %llu missed", s->nev, misses);
	ASSERT_EQ(THREADS * PER_THREAD, s->nev + misses);
	ASSERT_EQ(s->nev, s->nrec);
	for (i = 0; i < s->nev; i++) {
		struct rec *r;

		ASSERT_EQ(0, s->ev[i].ret[0]);
		ASSERT_EQ(1, recs_of(s, MAP_STACKS, s->ev[i].cookie[0], &r));
		ASSERT_EQ(s->ev[i].tid, r->r.tid);
		ASSERT_EQ(getpid(), r->r.pid);
		ASSERT_EQ(0, chain_check(_metadata, r->ips, r->r.nr, exp,
					 false));
	}
	sft_close(s);
}

/* ---- perf_event programs ---- */

/*
 * A perf_event program on cpu-clock samples code that spins in user
 * space, in the event and deferred: every sample has the exact chain.
 */
TEST(perf_event)
{
	static const char * const exp[] = { "spin", "s2", "s1", "run", NULL };
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = 1000,
		.exclude_kernel = 1,
	};
	struct sft *s = sft_open(_metadata);
	int fd, i, in_spin = 0;
	struct bpf_link *link;
	char name[128];
	pthread_t timer;

	ASSERT_NE(NULL, s);
	/* Discovery first, which the walks in the event cannot do */
	sft_set(s, 1u << SFT_PROG_TP, SFT_DEFER_ONE);
	run(f1, 1);
	sft_drain(s);
	s->nev = 0;
	s->nrec = 0;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	link = bpf_program__attach_perf_event(s->skel->progs.perf_sample, fd);
	ASSERT_NE(NULL, link);
	__atomic_store_n(&spin_stop, 0, __ATOMIC_RELAXED);
	ASSERT_EQ(0, pthread_create(&timer, NULL, spin_timer, NULL));
	sft_set(s, 1u << SFT_PROG_PERF, SFT_DEFER_ONE);
	run(s1, 1);
	sft_set(s, 0, SFT_DEFER_NONE);
	pthread_join(timer, NULL);
	bpf_link__destroy(link);
	close(fd);
	sft_drain(s);
	/*
	 * The few samples taken on either side of the spin (in this
	 * function) are not the chain under test; every one in spin() must
	 * be exact, in the event and deferred.
	 */
	for (i = 0; i < s->nev; i++) {
		struct sft_event *e = &s->ev[i];
		struct rec *r;

		if (e->nr < 8 || strcmp(csym(e->ustack[0], name, sizeof(name)),
					"spin"))
			continue;
		in_spin++;
		ASSERT_EQ(0, chain_check(_metadata, e->ustack, e->nr / 8, exp,
					 true));
		ASSERT_EQ(0, e->ret[0]);
		ASSERT_EQ(1, recs_of(s, MAP_STACKS, e->cookie[0], &r));
		ASSERT_EQ(0, chain_check(_metadata, r->ips, r->r.nr, exp,
					 true));
	}
	TH_LOG("%d samples, %d of them in spin()", s->nev, in_spin);
	ASSERT_LE(10, in_spin);
	sft_close(s);
}

/* ---- kernel.sframe_unwind ---- */

/*
 * With kernel.sframe_unwind=0 the deferred stack is unwound with frame
 * pointers: sft_leaf() has no frame, so its caller fp3 is lost.
 */
TEST(sysctl_off_uses_frame_pointers)
{
	static const char * const exp_fp[] = {
		"sft_leaf", "fp2", "fp1", "run", NULL
	};
	static const char * const exp_sframe[] = {
		"sft_leaf", "fp3", "fp2", "fp1", "run", NULL
	};
	struct sft *s = sft_open(_metadata);
	struct rec *r;

	ASSERT_NE(NULL, s);
	sft_set(s, 1u << SFT_PROG_TP, SFT_DEFER_ONE);
	ASSERT_EQ(0, sft_write_sysctl("0"));
	run(fp1, 1);
	ASSERT_EQ(0, sft_write_sysctl("1"));
	sft_drain(s);
	ASSERT_EQ(1, recs_of(s, MAP_STACKS, s->ev[0].cookie[0], &r));
	/* Frame pointers end in the harness, built without them */
	ASSERT_EQ(0, chain_check(_metadata, r->ips, r->r.nr, exp_fp, false));
	run(fp1, 1);
	sft_drain(s);
	ASSERT_EQ(1, recs_of(s, MAP_STACKS, s->ev[1].cookie[0], &r));
	ASSERT_EQ(0, chain_check(_metadata, r->ips, r->r.nr, exp_sframe,
				 true));
	sft_close(s);
}

/* ---- the verifier ---- */

static int load_bad(struct bpf_program *(*pick)(struct unwind_user_bad *),
		    char *log, size_t len)
{
	struct unwind_user_bad *skel = unwind_user_bad__open();
	struct bpf_program *p;
	int ret;

	if (!skel)
		return -1;
	p = pick(skel);
	bpf_program__set_autoload(p, true);
	bpf_program__set_log_buf(p, log, len);
	bpf_program__set_log_level(p, 1);
	ret = unwind_user_bad__load(skel);
	unwind_user_bad__destroy(skel);
	return ret;
}

#define BAD(name)							\
static struct bpf_program *pick_##name(struct unwind_user_bad *skel)	\
{									\
	return skel->progs.name;					\
}

BAD(wrong_map)
BAD(bad_flags)
BAD(unknown_flags)
BAD(wrong_type)
BAD(inner_map)
BAD(iter_task)

/* Each wrong use is rejected at load, with a message that says why */
TEST(verifier_rejects)
{
	static const struct {
		struct bpf_program *(*pick)(struct unwind_user_bad *skel);
		const char *msg;
	} cases[] = {
		{ pick_wrong_map,
		  "map 'hash' is of type 1, expected BPF_MAP_TYPE_RINGBUF" },
		{ pick_bad_flags, "bpf_unwind_user_deferred: unknown flags 0x1" },
		{ pick_unknown_flags, "must be a known constant" },
		{ pick_wrong_type,
		  "calling kernel function bpf_unwind_user_deferred is not allowed" },
		{ pick_inner_map,
		  "bpf_unwind_user_deferred: map must not be an inner map" },
		{ pick_iter_task,
		  "calling kernel function bpf_unwind_user_deferred is not allowed" },
	};
	static char log[1 << 16];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *hit;

		log[0] = 0;
		EXPECT_NE(0, load_bad(cases[i].pick, log, sizeof(log)));
		hit = strstr(log, cases[i].msg);
		if (!hit)
			TH_LOG("expected \"%s\" in the log:\n%s",
			       cases[i].msg, log);
		EXPECT_NE(NULL, hit);
	}
}

int main(int argc, char **argv)
{
	/* The program test exit_and_exec runs: it exits at once */
	if (argc > 1 && !strcmp(argv[1], "--exit-child"))
		syscall(SYS_exit_group, 0);
	return test_harness_run(argc, argv);
}
