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

/* <linux/compiler.h> */
#define __rcu
#define __percpu
#define __must_check
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define barrier()		__asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define data_race(expr)		({ __auto_type __v = (expr); __v; })
#define ____cacheline_aligned	__attribute__((__aligned__(64)))
#define ____cacheline_aligned_in_smp ____cacheline_aligned
#define SMP_CACHE_BYTES		64
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#define min(a, b)		((a) < (b) ? (a) : (b))
#define min_t(type, a, b)	min((type)(a), (type)(b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define ULONG_MAX		(~0UL)
#define SZ_1G			0x40000000

/* <asm/barrier.h>, <linux/atomic.h> */
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define cmpxchg(p, o, n) ({						\
	__typeof__(*(p)) __old = (o);					\
	__atomic_compare_exchange_n(p, &__old, n, false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\
	__old;								\
})
#define try_cmpxchg(p, po, n)						\
	__atomic_compare_exchange_n(p, po, n, false,			\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;

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

static inline bool refcount_dec_and_test(refcount_t *r)
{
	return __atomic_fetch_sub(&r->refs.counter, 1, __ATOMIC_ACQ_REL) == 1;
}

/* <linux/spinlock.h>: the qspinlock fast path */
typedef struct { int val; } spinlock_t;

#define spin_lock_init(l)	((l)->val = 0)

static inline void spin_lock(spinlock_t *l)
{
	int z = 0;

	while (!__atomic_compare_exchange_n(&l->val, &z, 1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		while (__atomic_load_n(&l->val, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
		z = 0;
	}
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
}

/* <linux/percpu.h>: CPU n's copy at n * SIM_PCPU_STRIDE; set sim_cpu */
#define SIM_NR_CPUS		8
#define SIM_PCPU_STRIDE		256
extern __thread int sim_cpu;

#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < SIM_NR_CPUS; (cpu)++)
#define per_cpu_ptr(p, cpu) \
	((__typeof__(p))((char *)(p) + (cpu) * SIM_PCPU_STRIDE))
#define raw_cpu_ptr(p)		per_cpu_ptr(p, sim_cpu)
#define this_cpu_ptr(p)		per_cpu_ptr(p, sim_cpu)
/* Only the thread pinned to a CPU writes its copy: no LOCK prefix */
#define this_cpu_add(pcp, n) ({						\
	__typeof__(&(pcp)) __p = this_cpu_ptr(&(pcp));			\
									\
	__atomic_store_n(__p, __atomic_load_n(__p, __ATOMIC_RELAXED) + (n), \
			 __ATOMIC_RELAXED);				\
})
#define this_cpu_inc(pcp)	this_cpu_add(pcp, 1)

static inline void *sim_alloc_percpu(size_t size)
{
	void *p;

	if (size > SIM_PCPU_STRIDE)
		abort();
	p = aligned_alloc(64, SIM_NR_CPUS * SIM_PCPU_STRIDE);
	if (p)
		memset(p, 0, SIM_NR_CPUS * SIM_PCPU_STRIDE);
	return p;
}

#define alloc_percpu_gfp(type, gfp)	((type *)sim_alloc_percpu(sizeof(type)))
#define alloc_percpu(type)		alloc_percpu_gfp(type, 0)
#define free_percpu(p)			free(p)

/* <linux/slab.h>: cache-line aligned, as kmalloc() of these sizes */
#define GFP_KERNEL		0u
#define GFP_KERNEL_ACCOUNT	0u
#define GFP_NOWAIT		0u

static inline void *sim_kzalloc(size_t size)
{
	void *p = aligned_alloc(64, (size + 63) & ~63UL);

	if (p)
		memset(p, 0, size);
	return p;
}

#define kzalloc(size, gfp)		sim_kzalloc(size)
#define kzalloc_obj(obj, gfp)		((__typeof__(obj) *)sim_kzalloc(sizeof(obj)))
#define kfree(p)			free(p)

/* <linux/hash.h> */
#define GOLDEN_RATIO_64		0x61C8864680B583EBull

static inline u32 hash_64(u64 val, unsigned int bits)
{
	return val * GOLDEN_RATIO_64 >> (64 - bits);
}

#define hash_long(val, bits)	hash_64(val, bits)

/* <linux/log2.h> */
#define ilog2(n)		(63 - __builtin_clzll(n))
#define is_power_of_2(n)	((n) != 0 && ((n) & ((n) - 1)) == 0)

/* <linux/moduleparam.h>: the parameter's variable is reachable */
#define MODULE_PARAM_PREFIX	""
#define module_param_named(name, value, type, perm) \
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
#define call_rcu(head, fn)	(fn)(head)

/* <linux/fs.h>, <linux/file.h> */
struct file { int f_count; };

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
#define PAGE_SIZE		(1UL << PAGE_SHIFT)
#define VM_EXEC			0x4UL
#define VM_DONTCOPY		0x20000UL

struct vm_area_struct {
	unsigned long	vm_start;
	unsigned long	vm_end;
	unsigned long	vm_flags;
};

struct mm_struct {
	struct maple_tree	sframe_mt;
	atomic_t		sframe_explicit;
};

#define mmap_read_lock_killable(mm)	0
#define mmap_read_unlock(mm)		do { } while (0)
#define mmap_assert_write_locked(mm)	do { } while (0)
#define vma_lookup(mm, addr)		((struct vm_area_struct *)NULL)
/* No VMAs: sframe_dup_mm() is not run */
#define VMA_ITERATOR(name, mm, addr)	int name __attribute__((unused)) = 0
#define for_each_vma_range(vmi, vma, end) for ((vma) = NULL; (vma); )

/* <linux/sched.h>: current is per thread, its mm shared */
struct task_struct {
	struct mm_struct	*mm;
	char			comm[16];
};

extern __thread struct task_struct sim_current;

#define current			(&sim_current)
#define task_pid_nr(t)		0
#define cond_resched()		do { } while (0)

/* <linux/wait_bit.h> */
#define wait_var_event_killable(var, cond) ({				\
	while (!(cond))							\
		__builtin_ia32_pause();					\
	0;								\
})
#define wake_up_var(var)	do { } while (0)

#endif
