// SPDX-License-Identifier: GPL-2.0
/*
 * The rule cache under contention: the faultable lookup of the unwinder,
 * sframe_user_find() of kernel/unwind/sframe.c, with the registry
 * (sframe_registry.c), the rule cache (sframe_rcache.c) and the reader
 * (sframe_walk.c) compiled unchanged against the shims of include/ and
 * ../include/ (see include/kshim.h), run by 1 and 2 threads pinned to
 * CPUs 0 and 1, as every thread of a process that unwinds through the
 * same library.
 *
 * One registry entry covers a generated SFrame V3 AMD64 section of 3000
 * functions (about libc's), resolved.  A walk looks up 8 hot PCs of 8
 * functions (all in the cache at once) with one entry reference, as
 * kernel/unwind/user.c does for 8 frames in one object, and releases
 * it.  "cache on" is the default; "cache off" is sframe.rule_cache=0,
 * where every frame is a full sframe_find() in the section.  User memory
 * is this process's memory and unsafe_get_user() a load: a real kernel
 * adds a STAC/CLAC pair to every lookup, that is to the cache-off
 * figures.
 *
 * A third row calls sframe_find() alone, each thread on its own copy of
 * struct sframe_section, no registry: it shares nothing but the section's
 * bytes, read only, so its ratio is what the machine itself gives a
 * second thread (1.0 on idle cores; more when other work competes).
 *
 * Output: ns per lookup (each thread's median over chunks of 32 walks
 * during which, with 2 threads, the other thread ran too; the mean over
 * the threads; the median of 5 runs), and the ratio 2 threads / 1
 * thread: 1.0 means that the second thread costs the first nothing.
 *
 * Check mode (-c [SECONDS], default 1): a writer on CPU 1 fills the cache
 * with the rules of 256 PCs that share its 64 slots, every field of a
 * rule derived from its PC, while a reader on CPU 0 looks random PCs of
 * the same set up; every hit must return exactly the rule of its PC
 * (the fields that a hit sets: CFA, RA, FP, flags), never a mix of two.
 * Exit status 1 on a torn or wrong rule.
 *
 * Usage: rcache_bench [-n LOOKUPS]    the table (LOOKUPS per thread and run)
 *        rcache_bench -c [SECONDS]    the torn-read check
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/sframe.h>

#include "sframe_format.h"
#include "sframe_rcache.h"
#include "bench_section.h"

/* The shims' hooks of rcache_bench alone */
__thread int sim_cpu;
__thread struct task_struct sim_current;

/* sframe_discover.c and sframe_repair.c: the entry is registered, resolved */
struct sframe_entry *sframe_discover(struct mm_struct *mm, unsigned long pc)
{
	return NULL;
}

void sframe_resolve(struct sframe_entry *e)
{
}

bool sframe_repair_request(unsigned long pc)
{
	return false;
}

/* sframe_store.c: the bench's entry has no image of the store */
void sframe_store_put(struct sframe_image *img)
{
}

bool sframe_recheck(struct sframe_entry *e, bool nofault)
{
	return false;
}

#define NFUNCS		3000
#define DEPTH		8
#define RUNS		5
#define NCHECK		256

static struct mm_struct mm;
static struct sframe_entry *entry;
static unsigned long hot_pcs[DEPTH];
static u8 *sec_buf;

/* The section of @n functions, as in sframe_bench.c */
static void build(struct sframe_section *sec, u32 n)
{
	size_t len;

	sec_buf = build_section(sec, n, &len);
	if (!sec_buf) {
		fprintf(stderr, "generated section is invalid\n");
		exit(2);
	}
}

/* One registered, resolved entry for the whole text */
static void setup(void)
{
	struct sframe_section sec;
	unsigned int used = 0, i = 0;

	build(&sec, NFUNCS);
	sframe_mm_init(&mm);
	entry = sframe_entry_alloc(NULL, sec.text_start, sec.text_end, 0);
	entry->sec = sec;
	atomic_set(&entry->state, SFRAME_OK);
	if (sframe_insert(&mm, entry)) {
		fprintf(stderr, "sframe_insert() failed\n");
		exit(2);
	}
	/* PCs in 8 functions spread over the section, all cached at once */
	while (i < DEPTH) {
		unsigned long pc = sec.text_start + 3 +
			rnd(&rnd_state) % (sec.text_end - sec.text_start - 3);
		unsigned int bit = 1u << hash_long(pc, 5);

		if (used & bit)
			continue;
		used |= bit;
		hot_pcs[i++] = pc;
	}
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		fprintf(stderr, "cannot run on CPU %d\n", cpu);
		exit(2);
	}
	sim_cpu = cpu;
	sim_current.mm = &mm;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static pthread_barrier_t start;
static unsigned long lookups = 2000000;
static bool bare;
static int nthreads;

/* Walks per timed chunk */
#define CHUNK		32

struct worker {
	pthread_t	thread;
	int		cpu;
	double		ns;
	unsigned long	sink;
	double		*chunk_ns;
	unsigned long	chunks;
	/* chunks done, read by the other thread */
	unsigned long	progress ____cacheline_aligned;
} ____cacheline_aligned;

static struct worker workers[2];

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int lookup(struct sframe_section *sec, unsigned long pc,
		  struct sframe_rule *rule, struct sframe_entry **cache)
{
	/* bare: the thread's own copy of the section, no registry */
	if (bare)
		return sframe_find(sec, pc, rule, NULL);
	return sframe_user_find(pc, rule, cache, false);
}

/*
 * Walks of DEPTH frames in one object, as kernel/unwind/user.c makes
 * them, timed by chunks of CHUNK walks.  The machine may be shared: a
 * chunk counts only if the other thread, with 2, ran meanwhile (it
 * finished a chunk), and the figure is the median chunk, so that
 * preemption and time when one thread runs alone are left out.
 */
static void *bench_thread(void *arg)
{
	struct worker *w = arg, *other = &workers[!(w - workers)];
	struct sframe_section sec = entry->sec;
	struct sframe_entry *cache = NULL;
	unsigned long i, d, c, o = 0, n;
	struct sframe_rule rule;
	double t, t1;

	pin(w->cpu);
	n = lookups / DEPTH / CHUNK;
	w->chunks = 0;
	pthread_barrier_wait(&start);
	t = now_ns();
	for (c = 0; c < n; c++) {
		if (nthreads == 2)
			o = READ_ONCE(other->progress);
		for (i = 0; i < CHUNK; i++) {
			for (d = 0; d < DEPTH; d++) {
				if (lookup(&sec, hot_pcs[d], &rule, &cache)) {
					fprintf(stderr, "lookup of %#lx failed\n",
						hot_pcs[d]);
					exit(2);
				}
				w->sink += rule.cfa.off;
			}
			sframe_user_release(&cache);
		}
		t1 = now_ns();
		WRITE_ONCE(w->progress, w->progress + 1);
		if (nthreads == 1 || READ_ONCE(other->progress) != o)
			w->chunk_ns[w->chunks++] = (t1 - t) / (CHUNK * DEPTH);
		t = t1;
	}
	return NULL;
}

/* One run: the median chunk of each thread, averaged over the threads */
static double run(int n)
{
	double ns = 0;
	int i;

	nthreads = n;
	pthread_barrier_init(&start, NULL, n);
	for (i = 0; i < n; i++) {
		workers[i].cpu = i;
		workers[i].progress = 0;
		if (!workers[i].chunk_ns)
			workers[i].chunk_ns = malloc(lookups / DEPTH / CHUNK *
						     sizeof(double));
		pthread_create(&workers[i].thread, NULL, bench_thread,
			       &workers[i]);
	}
	for (i = 0; i < n; i++)
		pthread_join(workers[i].thread, NULL);
	pthread_barrier_destroy(&start);
	for (i = 0; i < n; i++) {
		struct worker *w = &workers[i];

		if (!w->chunks)
			return -1;
		qsort(w->chunk_ns, w->chunks, sizeof(double), cmp);
		ns += w->chunk_ns[w->chunks / 2];
	}
	return ns / n;
}

/* The median of RUNS runs */
static double median(int n)
{
	double v[RUNS];
	int r;

	for (r = 0; r < RUNS; r++) {
		int tries = 0;

		/* again if the threads never ran together */
		while ((v[r] = run(n)) < 0) {
			if (++tries == 10) {
				fprintf(stderr, "the threads never ran together\n");
				exit(2);
			}
		}
	}
	qsort(v, RUNS, sizeof(*v), cmp);
	return v[RUNS / 2];
}

static void bench(void)
{
	static const struct { const char *name; bool on, bare; } modes[] = {
		{ "on", true, false },
		{ "off (sframe.rule_cache=0)", false, false },
		{ "none: sframe_find() alone, no registry", false, true },
	};
	unsigned int m;

	printf("| rule cache | 1 thread ns/lookup | 2 threads ns/lookup | 2/1 |\n");
	printf("|---|---:|---:|---:|\n");
	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		double one, two;

		*sim_param_rule_cache = modes[m].on;
		bare = modes[m].bare;
		one = median(1);
		two = median(2);
		printf("| %s | %.1f | %.1f | %.2f |\n", modes[m].name, one, two,
		       two / one);
	}
	*sim_param_rule_cache = true;
}

/* Check mode: the rule of a PC, every field derived from the PC */
static void rule_of(unsigned long pc, struct sframe_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->cfa.kind = pc & 0xff;
	r->cfa.reg = pc >> 8;
	r->cfa.off = (s32)(pc * 3);
	r->ra.kind = pc >> 16;
	r->ra.reg = pc >> 24;
	r->ra.off = (s32)~pc;
	r->fp.kind = pc >> 4;
	r->fp.reg = pc >> 12;
	r->fp.off = (s32)(pc * 5);
	r->flags = pc >> 2;
	r->func_start = pc ^ 0x5a5a5a5a5a5aUL;
	r->func_size = (u32)(pc * 7);
	r->fre_start = (u32)(pc * 11);
}

static bool same_rule(const struct sframe_rule *a, const struct sframe_rule *b)
{
	return a->cfa.kind == b->cfa.kind && a->cfa.reg == b->cfa.reg &&
	       a->cfa.off == b->cfa.off && a->ra.kind == b->ra.kind &&
	       a->ra.reg == b->ra.reg && a->ra.off == b->ra.off &&
	       a->fp.kind == b->fp.kind && a->fp.reg == b->fp.reg &&
	       a->fp.off == b->fp.off && a->flags == b->flags &&
	       b->fres_read == 0;
}

static unsigned long check_pcs[NCHECK];
static int check_stop;

static void *check_writer(void *arg)
{
	unsigned long s = 12345, n = 0;
	struct sframe_rule r;

	pin(1);
	pthread_barrier_wait(&start);
	while (!READ_ONCE(check_stop)) {
		unsigned long pc = check_pcs[rnd(&s) % NCHECK];

		rule_of(pc, &r);
		sframe_rcache_put(entry, pc, &r, true);
		n++;
	}
	return (void *)n;
}

static int rcache_check(double seconds)
{
	unsigned long s = 67890, i, hits = 0, gets = 0, bad = 0, puts;
	struct sframe_rule want, got;
	pthread_t writer;
	void *ret;
	double end;

	/* 256 PCs over the 64 slots: slots change hands all the time */
	for (i = 0; i < NCHECK; i++)
		check_pcs[i] = entry->start + 1 + i * 97;
	pthread_barrier_init(&start, NULL, 2);
	pthread_create(&writer, NULL, check_writer, NULL);
	pin(0);
	pthread_barrier_wait(&start);
	end = now_ns() + seconds * 1e9;
	while (now_ns() < end) {
		for (i = 0; i < 1000; i++, gets++) {
			unsigned long pc = check_pcs[rnd(&s) % NCHECK];

			memset(&got, 0xa5, sizeof(got));
			if (!sframe_rcache_get(entry, pc, &got))
				continue;
			hits++;
			rule_of(pc, &want);
			if (!same_rule(&want, &got) && bad++ < 5)
				fprintf(stderr,
					"torn or wrong rule for %#lx: cfa.off %d (want %d), ra.off %d (want %d)\n",
					pc, got.cfa.off, want.cfa.off,
					got.ra.off, want.ra.off);
		}
	}
	WRITE_ONCE(check_stop, 1);
	pthread_join(writer, &ret);
	puts = (unsigned long)ret;
	pthread_barrier_destroy(&start);
	printf("%s: %lu lookups, %lu hits, %lu stores, %lu bad: %s\n",
	       __func__, gets, hits, puts, bad, bad || !hits || !puts ? "FAIL" : "ok");
	return bad || !hits || !puts;
}

int main(int argc, char **argv)
{
	setup();
	if (argc >= 2 && !strcmp(argv[1], "-c"))
		return rcache_check(argc > 2 ? strtod(argv[2], NULL) : 1);
	if (argc == 3 && !strcmp(argv[1], "-n")) {
		lookups = strtoul(argv[2], NULL, 0);
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [-n LOOKUPS] | -c [SECONDS]\n", argv[0]);
		return 2;
	}
	bench();
	return 0;
}
