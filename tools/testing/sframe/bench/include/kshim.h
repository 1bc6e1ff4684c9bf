/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for rcache_bench: what kernel/unwind/sframe.c,
 * sframe_registry.c and sframe_rcache.c take from the kernel, for
 * several threads pinned to CPUs.  Atomics, barriers and locks are the
 * compiler's __atomic builtins with the kernel's ordering (on x86-64,
 * the same instructions: LOCK CMPXCHG/XADD, plain loads and stores, no
 * fences for smp_rmb()/smp_wmb()); the spinlock is the qspinlock fast
 * path (cmpxchg 0 -> 1, release store) spinning with PAUSE when taken;
 * this_cpu_inc() adds to the counter of the CPU the thread is pinned to
 * (sim_cpu), which no other thread writes; RCU is a no-op (nothing is freed while the
 * benchmark runs); the maple tree is a small array.  Each linux/X.h of
 * this directory includes this file.
 */
#ifndef _SFRAME_BENCH_KSHIM_H
#define _SFRAME_BENCH_KSHIM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/array_size.h>
#include <linux/compiler_attributes.h>
#include <linux/limits.h>
/* The reader harness's shims that bench/include/linux/ shadows */
#include "../../include/linux/minmax.h"
#include "../../include/linux/mm.h"

/* <linux/compiler.h> */
#define __rcu
#define __percpu
#define __must_check
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define barrier()		({ __asm__ __volatile__("" ::: "memory"); })
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* A plain load: the race is intended, KCSAN is told to ignore it */
#define data_race(expr)		({ __auto_type __v = (expr); __v; })
#define SMP_CACHE_BYTES		64
#define ____cacheline_aligned	__aligned(SMP_CACHE_BYTES)
#define ____cacheline_aligned_in_smp ____cacheline_aligned
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
/* <linux/minmax.h>: min_t() is the reader harness's */
#define min(a, b) ({							\
	__auto_type __min_a = (a);					\
	__auto_type __min_b = (b);					\
									\
	__min_a < __min_b ? __min_a : __min_b;				\
})
#define max(a, b) ({							\
	__auto_type __max_a = (a);					\
	__auto_type __max_b = (b);					\
									\
	__max_a > __max_b ? __max_a : __max_b;				\
})
#define SZ_1G			0x40000000

/* <asm/barrier.h>, <linux/atomic.h> */
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)	/* a plain load on x86 */
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE) /* a plain store on x86 */
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)	/* no fence on x86 */
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)	/* no fence on x86 */
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)	/* MFENCE */
#define cmpxchg(p, o, n) ({						\
	__auto_type __cx_p = (p);					\
	__typeof__(*__cx_p) __cx_old = (o);				\
									\
	__atomic_compare_exchange_n(__cx_p, &__cx_old, (n), false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\
	__cx_old;							\
})
#define try_cmpxchg(p, po, n)						\
	__atomic_compare_exchange_n(p, po, n, false,			\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

typedef struct { int counter; } atomic_t;
/* The benchmark is x86-64's (PAUSE): long is s64, as in atomic64_t */
typedef struct { s64 counter; } atomic_long_t;

#define atomic_read(v)		__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_read_acquire(v)	__atomic_load_n(&(v)->counter, __ATOMIC_ACQUIRE)
#define atomic_set(v, i)	__atomic_store_n(&(v)->counter, i, __ATOMIC_RELAXED)
#define atomic_inc(v)		__atomic_fetch_add(&(v)->counter, 1, __ATOMIC_RELAXED)
#define atomic_dec(v)		__atomic_fetch_sub(&(v)->counter, 1, __ATOMIC_RELAXED)
#define atomic_xchg(v, i)	__atomic_exchange_n(&(v)->counter, i, __ATOMIC_SEQ_CST)
#define atomic_long_read(v)	__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_long_set(v, i)	__atomic_store_n(&(v)->counter, i, __ATOMIC_RELAXED)
#define atomic_long_inc(v)	__atomic_fetch_add(&(v)->counter, 1, __ATOMIC_RELAXED)
#define atomic_long_add(i, v)	__atomic_fetch_add(&(v)->counter, i, __ATOMIC_RELAXED)

/* <linux/refcount.h>: the cmpxchg loop of __refcount_add_not_zero() */
typedef struct { atomic_t refs; } refcount_t;

#define refcount_set(r, n)	atomic_set(&(r)->refs, n)
#define refcount_read(r)	atomic_read(&(r)->refs)

static inline bool refcount_inc_not_zero(refcount_t *r)
{
	int old = atomic_read(&r->refs);

	do {
		if (!old)
			return false;
	} while (!__atomic_compare_exchange_n(&r->refs.counter, &old, old + 1,
					      false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

static inline void refcount_inc(refcount_t *r)
{
	__atomic_fetch_add(&r->refs.counter, 1, __ATOMIC_RELAXED);
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	return __atomic_fetch_sub(&r->refs.counter, 1, __ATOMIC_ACQ_REL) == 1;
}

/* <linux/spinlock.h>: the qspinlock fast path, on its atomic_t word */
typedef struct { atomic_t val; } spinlock_t;

#define spin_lock_init(l)	((l)->val.counter = 0)

static inline void spin_lock(spinlock_t *l)
{
	int z = 0;

	while (!__atomic_compare_exchange_n(&l->val.counter, &z, 1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		while (__atomic_load_n(&l->val.counter, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
		z = 0;
	}
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->val.counter, 0, __ATOMIC_RELEASE);
}

#define DEFINE_SPINLOCK(l)	spinlock_t l = { { 0 } }
#define spin_lock_irqsave(l, f)	do { (f) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)	do { (void)(f); spin_unlock(l); } while (0)

static inline bool refcount_dec_and_lock_irqsave(refcount_t *r, spinlock_t *l,
						 unsigned long *flags)
{
	spin_lock_irqsave(l, *flags);
	if (refcount_dec_and_test(r))
		return true;
	spin_unlock_irqrestore(l, *flags);
	return false;
}

/* <linux/percpu.h>: CPU n's copy at n * SIM_PCPU_STRIDE; set sim_cpu */
#define SIM_NR_CPUS		8
#define SIM_PCPU_STRIDE		256
extern __thread int sim_cpu;

/* @cpu is assigned once per step, from a counter of the macro's own */
#define for_each_possible_cpu(cpu) \
	for (int __cpu = 0; ((cpu) = __cpu) < SIM_NR_CPUS; __cpu++)
#define per_cpu_ptr(p, cpu) \
	((__typeof__(p))((char *)(p) + (cpu) * SIM_PCPU_STRIDE))
#define raw_cpu_ptr(p)		per_cpu_ptr(p, sim_cpu)
#define this_cpu_ptr(p)		per_cpu_ptr(p, sim_cpu)
/* Only the thread pinned to a CPU writes its copy: no LOCK prefix */
#define this_cpu_add(pcp, n) ({						\
	__auto_type __p = this_cpu_ptr(&(pcp));				\
									\
	__atomic_store_n(__p, __atomic_load_n(__p, __ATOMIC_RELAXED) + (n), \
			 __ATOMIC_RELAXED);				\
})
#define this_cpu_inc(pcp)	this_cpu_add(pcp, 1)

static inline void *sim_alloc_percpu(size_t size, gfp_t gfp)
{
	void *p;

	if (size > SIM_PCPU_STRIDE)
		abort();
	p = aligned_alloc(64, SIM_NR_CPUS * SIM_PCPU_STRIDE);
	if (p)
		memset(p, 0, SIM_NR_CPUS * SIM_PCPU_STRIDE);
	return p;
}

#define alloc_percpu_gfp(type, gfp)	((type *)sim_alloc_percpu(sizeof(type), gfp))
#define alloc_percpu(type) \
	alloc_percpu_gfp(type, GFP_KERNEL)
#define free_percpu(p)			free(p)

/* <linux/slab.h>: cache-line aligned, as kmalloc() of these sizes */
#define GFP_KERNEL		0u
#define GFP_KERNEL_ACCOUNT	0u
#define GFP_NOWAIT		0u
#define __GFP_NOWARN		0u

static inline void *sim_kzalloc(size_t size, gfp_t gfp)
{
	void *p = aligned_alloc(64, (size + 63) & ~63UL);

	if (p)
		memset(p, 0, size);
	return p;
}

#define kzalloc(size, gfp)		sim_kzalloc(size, gfp)
#define kzalloc_obj(obj, gfp)		((__typeof__(obj) *)sim_kzalloc(sizeof(obj), gfp))
#define kfree(p)			free(p)
#define kvfree(p)			free((void *)(p))

static inline void *kvmalloc(size_t size, gfp_t gfp)
{
	return malloc(size);
}

/* <linux/hash.h> */
#define GOLDEN_RATIO_64		0x61C8864680B583EBull

static inline u32 hash_64(u64 val, unsigned int bits)
{
	return val * GOLDEN_RATIO_64 >> (64 - bits);
}

#define hash_long(val, bits)	hash_64(val, bits)
#define hash_ptr(ptr, bits)	hash_64((unsigned long)(ptr), bits)

/* <linux/types.h> and <linux/hashtable.h>: what sframe_image.c uses */
struct hlist_node { struct hlist_node *next, **pprev; };
struct hlist_head { struct hlist_node *first; };

#define DEFINE_HASHTABLE(name, bits)	struct hlist_head name[1 << (bits)]
#define HASH_BITS(name)			ilog2(sizeof(name) / sizeof((name)[0]))

static inline void sim_hlist_add_head(struct hlist_node *n,
				      struct hlist_head *h)
{
	n->next = h->first;
	if (h->first)
		h->first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

static inline void hash_del(struct hlist_node *n)
{
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
}

#define hash_add(t, n, key) \
	sim_hlist_add_head(n, &(t)[hash_64(key, HASH_BITS(t))])
#define hash_for_each_possible(t, obj, member, key)			\
	for (struct hlist_node *__n = (t)[hash_64(key, HASH_BITS(t))].first; \
	     __n && ((obj) = container_of(__n, __typeof__(*(obj)), member)); \
	     __n = __n->next)

/* <linux/log2.h> */
#define ilog2(n)		(63 - __builtin_clzll(n))

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/*
 * <linux/moduleparam.h>: the parameter's variable is reachable; its
 * permissions are checked as the kernel's VERIFY_OCTAL_PERMISSIONS() does
 */
#define MODULE_PARAM_PREFIX	""
#define module_param_named(name, value, type, perm)			\
	_Static_assert(((perm) & ~0777) == 0, #name ": permissions");	\
	bool *const sim_param_##name = &(value)
#define MODULE_PARM_DESC(name, desc)
/* sframe.rule_cache of sframe_rcache.c */
extern bool *const sim_param_rule_cache;

/* <linux/printk.h>, <linux/bug.h> */
#define pr_warn_ratelimited(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)
#define WARN_ON_ONCE(c)			({ bool __c = !!(c); __c; })
#define BUILD_BUG_ON(c)			_Static_assert(!(c), #c)

/* <linux/rcupdate.h>: nothing is freed while the benchmark runs */
struct rcu_head { void (*func)(struct rcu_head *); };

#define rcu_read_lock()		barrier()
#define rcu_read_unlock()	barrier()

static inline void call_rcu(struct rcu_head *head,
			    void (*func)(struct rcu_head *head))
{
	func(head);
}

/* <linux/fs.h>, <linux/file.h> */
struct file { int f_count; };

/* <linux/time64.h>, <linux/fs.h>: what sframe_image.c reads of an inode */
struct timespec64 { long long tv_sec; long tv_nsec; };
struct inode { struct timespec64 mtime; long long i_size; };

static inline struct timespec64 inode_get_mtime(const struct inode *inode)
{
	return inode->mtime;
}

static inline long long i_size_read(const struct inode *inode)
{
	return inode->i_size;
}

static inline int timespec64_equal(const struct timespec64 *a,
				   const struct timespec64 *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static inline struct file *get_file(struct file *f)
{
	return f;
}

static inline void fput(struct file *f) { }

/* <linux/maple_tree.h>: a few ranges in an array */
#define SIM_MT_MAX		8
#define MT_FLAGS_USE_RCU	0

struct maple_tree {
	int		n;
	unsigned long	first[SIM_MT_MAX];
	unsigned long	last[SIM_MT_MAX];
	void		*entry[SIM_MT_MAX];
};

static inline void mt_init_flags(struct maple_tree *mt, unsigned int flags)
{
	mt->n = 0;
}

static inline void *mtree_load(struct maple_tree *mt, unsigned long index)
{
	int i;

	for (i = 0; i < mt->n; i++)
		if (index >= mt->first[i] && index <= mt->last[i])
			return mt->entry[i];
	return NULL;
}

static inline int mtree_insert_range(struct maple_tree *mt, unsigned long first,
				     unsigned long last, void *entry, gfp_t gfp)
{
	if (mt->n == SIM_MT_MAX)
		return -ENOMEM;
	mt->first[mt->n] = first;
	mt->last[mt->n] = last;
	mt->entry[mt->n++] = entry;
	return 0;
}

static inline void *mt_find(struct maple_tree *mt, unsigned long *index,
			    unsigned long max)
{
	int i, best = -1;

	for (i = 0; i < mt->n; i++)
		if (mt->last[i] >= *index && mt->first[i] <= max &&
		    (best < 0 || mt->first[i] < mt->first[best]))
			best = i;
	if (best < 0)
		return NULL;
	*index = mt->last[best] + 1;
	return mt->entry[best];
}

static inline void *mtree_erase(struct maple_tree *mt, unsigned long index)
{
	int i;

	for (i = 0; i < mt->n; i++) {
		if (index >= mt->first[i] && index <= mt->last[i]) {
			void *e = mt->entry[i];

			mt->n--;
			mt->first[i] = mt->first[mt->n];
			mt->last[i] = mt->last[mt->n];
			mt->entry[i] = mt->entry[mt->n];
			return e;
		}
	}
	return NULL;
}

#define mtree_empty(mt)		((mt)->n == 0)
#define mtree_destroy(mt)	((mt)->n = 0)

/* <linux/mm.h>, <linux/mmap_lock.h> */
#define PAGE_SHIFT		12
#define VM_EXEC			0x4UL
#define VM_DONTCOPY		0x20000UL

struct vm_area_struct {
	unsigned long	vm_start;
	unsigned long	vm_end;
	unsigned long	vm_flags;
};

struct mm_struct {
	struct maple_tree	sframe_mt;
	atomic_t		sframe_entries;
	atomic_t		sframe_explicit;
};

static inline int mmap_read_lock_killable(struct mm_struct *mm)
{
	return 0;
}

static inline void mmap_read_unlock(struct mm_struct *mm) { }

static inline void mmap_assert_write_locked(const struct mm_struct *mm) { }

/* No VMAs: sframe_dup_mm() is not run */
static inline struct vm_area_struct *vma_lookup(struct mm_struct *mm,
						unsigned long addr)
{
	return NULL;
}

struct vma_iterator {
	struct mm_struct	*mm;
	unsigned long		index;
};

#define VMA_ITERATOR(name, __mm, __addr) \
	struct vma_iterator name = { .mm = (__mm), .index = (__addr) }

static inline struct vm_area_struct *vma_find(struct vma_iterator *vmi,
					      unsigned long max)
{
	return NULL;
}

#define for_each_vma_range(vmi, vma, end) \
	for (; ((vma) = vma_find(&(vmi), (end))) != NULL; )

/* <linux/sched.h>: current is per thread, its mm shared */
struct task_struct {
	struct mm_struct	*mm;
	char			comm[16];
};

extern __thread struct task_struct sim_current;

#define current			(&sim_current)
#define task_pid_nr(t)		0
#define cond_resched()		do { } while (0)

/* <linux/wait_bit.h>: no sleeping, the waiter spins on @cond */
#define wait_var_event_killable(var, cond) ({				\
	(void)(var);							\
	while (!(cond))							\
		__builtin_ia32_pause();					\
	0;								\
})

static inline void wake_up_var(void *var) { }

#endif
