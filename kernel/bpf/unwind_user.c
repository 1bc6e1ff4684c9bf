// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user stacks for BPF programs.
 *
 * bpf_unwind_user_deferred() asks for the current task's user stack to be
 * unwound when the task next returns to user space, where the unwinder
 * may fault pages in (SFrame sections, the user stack) and so gets
 * complete chains that an unwind in NMI context cannot.  It returns the
 * cookie of the current kernel entry (kernel/unwind/deferred.c): every
 * request made before the task leaves the kernel, by any BPF program or
 * by perf, gets the same cookie, and one unwind serves them all.  The
 * stack arrives as a struct bpf_unwind_user_record in the ring buffer the
 * program named; user space joins it to the program's own events by the
 * cookie.
 *
 * A task holds up to BPF_UNWIND_USER_MAPS ring buffers to deliver to in
 * its struct unwind_task_info, without a reference: a task that sleeps
 * in the kernel for hours must not keep the ring buffer of a tool that
 * exited.  A slot names its map by the map's cookie, which is never
 * reused, and keeps the map's id to look it up; a ring buffer freed
 * meanwhile gets nothing, and its slot is free for the next request.  A
 * request only claims a slot and schedules the unwind, so that it can
 * run in NMI context; the unwind callback, in task context, looks the
 * maps up and writes the records.
 */
#define pr_fmt(fmt) "bpf: " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/init.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/unwind_deferred.h>

static struct unwind_work bpf_unwind_work;
static bool bpf_unwind_ready __ro_after_init;

/*
 * bpf_unwind_user_output - Write one record of @trace to the map of a slot
 * @id: the map's id, to look it up
 * @map_cookie: the map's cookie: the map that was asked for, not another
 *              one that got its id since
 *
 * Nothing if the map is gone: its users closed it since the request.
 *
 * Context: Task context where task work runs: the return to user space,
 *          or io_uring's task work in a system call.
 */
static void bpf_unwind_user_output(u32 id, u64 map_cookie,
				   struct unwind_stacktrace *trace, u64 cookie)
{
	struct bpf_unwind_user_record *rec;
	unsigned int i, nr = trace->nr;
	struct bpf_map *map;
	u64 lost;

	map = bpf_map_get_by_id(id);
	if (!map)
		return;
	if (map->cookie != map_cookie)
		goto out;
	rec = bpf_ringbuf_kern_reserve(map, struct_size(rec, ips, nr), &lost);
	if (!rec)
		goto out;
	rec->cookie = cookie;
	rec->pid = task_tgid_nr(current);
	rec->tid = task_pid_nr(current);
	rec->nr = nr;
	rec->lost = min_t(u64, lost, U32_MAX);
	for (i = 0; i < nr; i++)
		rec->ips[i] = trace->entries[i];
	bpf_ringbuf_kern_submit(rec);
out:
	bpf_map_put(map);
}

/*
 * bpf_unwind_user_ok - Whether the request in slot @i gets the stack
 *
 * Not if the task exits (@deliver false), nor for a request made before
 * an exec in this entry: the stack it wanted is gone.
 */
static bool bpf_unwind_user_ok(struct bpf_unwind_user_pending *p, int i,
			       bool deliver)
{
	return deliver && READ_ONCE(p->exec_id[i]) == current->self_exec_id;
}

/*
 * bpf_unwind_user_callback - Deliver the unwound stack to the ring buffers
 *
 * Called once per kernel entry in which a request was made, with the
 * stack unwound at the return to user space.  A task that exits gets
 * here from do_exit(): it delivers nothing.  Neither does a request made
 * before an exec(): the stack it wanted is gone.
 *
 * A request that interrupts the delivery (from an interrupt, or from a
 * program on a function the delivery calls) finds its ring buffer marked
 * delivered as soon as @cookie is published: every full slot is marked
 * before, and a request that fills a slot marks it itself.  A request
 * that reclaims a slot whose map is gone while we mark it would have its
 * mark overwritten: the marking reads the slot again until it holds
 * still.  Once @cookie is published, a request that interrupts us gives
 * its slot back before it returns, so each slot is taken with cmpxchg()
 * from what was read, and left alone if it changed.
 *
 * Context: Task context, may sleep.
 */
static void bpf_unwind_user_callback(struct unwind_work *work,
				     struct unwind_stacktrace *trace,
				     u64 cookie)
{
	struct bpf_unwind_user_pending *p = &current->unwind_info.bpf;
	bool deliver = !(current->flags & PF_EXITING);
	u64 c;
	u32 id;
	int i;

	for (i = 0; i < BPF_UNWIND_USER_MAPS; i++) {
		do {
			/* Pairs with the smp_store_release() of the claim */
			c = smp_load_acquire(&p->map_cookie[i]);
			id = 0;
			if (c && c != BPF_UNWIND_USER_BUSY &&
			    bpf_unwind_user_ok(p, i, deliver))
				id = READ_ONCE(p->map_id[i]);
			WRITE_ONCE(p->done_id[i], id);
		} while (READ_ONCE(p->map_cookie[i]) != c);
	}
	WRITE_ONCE(p->done_cookie, cookie);
	for (i = 0; i < BPF_UNWIND_USER_MAPS; i++) {
		bool ok;

		/* Pairs with the smp_store_release() of the claim */
		c = smp_load_acquire(&p->map_cookie[i]);
		if (!c || c == BPF_UNWIND_USER_BUSY)
			continue;
		id = READ_ONCE(p->map_id[i]);
		ok = bpf_unwind_user_ok(p, i, deliver);
		if (cmpxchg(&p->map_cookie[i], c, 0) != c)
			continue;
		if (ok)
			bpf_unwind_user_output(id, c, trace, cookie);
	}
}

/*
 * bpf_unwind_user_delivered - Whether @map got the stack of entry @cookie
 *
 * For a request made after the unwind callback of the entry took the
 * slots (late on the way out, or in an interrupt of the callback).
 *
 * Context: Any context, NMI included.
 */
static bool bpf_unwind_user_delivered(struct bpf_unwind_user_pending *p,
				      u32 id, u64 cookie)
{
	int i;

	if (READ_ONCE(p->done_cookie) != cookie)
		return false;
	for (i = 0; i < BPF_UNWIND_USER_MAPS; i++)
		if (READ_ONCE(p->done_id[i]) == id)
			return true;
	return false;
}

/*
 * bpf_unwind_user_claim - Take a slot of the current task for @map
 *
 * Only the current task changes its slots.  The unwind callback runs in
 * the same task, so it cannot run during a claim: at most it was
 * interrupted by the request, and finds the slot full or empty.  A claim
 * marks the slot busy while it writes the map's id and exec_id, then
 * publishes the map's cookie: a request that interrupts it skips a busy
 * slot, and one for the same map runs to its end first, so that the
 * second scan sees its slot, and a map never holds two.  The verifier
 * only lets through maps the program holds (no inner maps), so @map is
 * alive while the program runs.  A slot whose map is gone (its tool
 * exited while this task slept in the kernel) is free: nobody can read
 * what it would deliver.  Map ids are allocated cyclically, so a slot's
 * id may name another map one day: its slot then only looks taken.
 *
 * Context: Any context, NMI included where cmpxchg() is NMI-safe.
 * Return: The slot, -EEXIST if @map has one already, -ESTALE if it has
 *         one from before an exec in this entry, -ENOSPC if all are
 *         taken by live maps.
 */
static int bpf_unwind_user_claim(struct bpf_unwind_user_pending *p,
				 struct bpf_map *map)
{
	u64 old, c = map->cookie;
	int i, j;

	for (i = 0; i < BPF_UNWIND_USER_MAPS; i++) {
		/* Pairs with the smp_store_release() below: its exec_id */
		if (smp_load_acquire(&p->map_cookie[i]) != c)
			continue;
		/* Delivered to nobody: the exec replaced that stack */
		if (READ_ONCE(p->exec_id[i]) != current->self_exec_id)
			return -ESTALE;
		return -EEXIST;
	}
	for (i = 0; i < BPF_UNWIND_USER_MAPS; i++) {
		/* Pairs with the smp_store_release() below: its map_id */
		old = smp_load_acquire(&p->map_cookie[i]);
		if (old == BPF_UNWIND_USER_BUSY ||
		    (old && bpf_map_id_alive(READ_ONCE(p->map_id[i]))))
			continue;
		if (cmpxchg(&p->map_cookie[i], old, BPF_UNWIND_USER_BUSY) != old)
			continue;
		WRITE_ONCE(p->map_id[i], map->id);
		WRITE_ONCE(p->exec_id[i], current->self_exec_id);
		/* Pairs with the smp_load_acquire()s of the slot */
		smp_store_release(&p->map_cookie[i], c);
		for (j = 0; j < BPF_UNWIND_USER_MAPS; j++) {
			if (j != i && READ_ONCE(p->map_cookie[j]) == c) {
				WRITE_ONCE(p->map_cookie[i], 0);
				return -EEXIST;
			}
		}
		return i;
	}
	return -ENOSPC;
}

/*
 * bpf_unwind_user_release - Give back the slot of a request that failed
 *
 * Context: Any context, NMI included where cmpxchg() is NMI-safe.
 * Return: false if the unwind callback took the slot first.
 */
static bool bpf_unwind_user_release(struct bpf_unwind_user_pending *p,
				    int slot, struct bpf_map *map)
{
	return cmpxchg(&p->map_cookie[slot], map->cookie, 0) == map->cookie;
}

__bpf_kfunc_start_defs();

/**
 * bpf_unwind_user_deferred() - Get the user stack at the return to user space
 * @map__map: A BPF_MAP_TYPE_RINGBUF map that receives the stack as a
 *            struct bpf_unwind_user_record
 * @flags__k: 0 (no flags are defined)
 * @cookie: Set to the cookie of the current kernel entry, or to 0 on error
 *
 * Asks for the current task's user stack to be unwound when the task
 * returns to user space, with SFrame where kernel.sframe_unwind allows it
 * and frame pointers elsewhere, and written to @map__map with the cookie.
 * Several requests in one kernel entry, from any programs, get the same
 * cookie; a ring buffer gets the stack once per entry however often it is
 * named, also when a request comes after the stack was delivered (the
 * record with the cookie is there).  No record arrives if the task exits
 * or execs first, or if the ring buffer is full (the next record's @lost
 * counts it).
 *
 * Context: Any context a tracing program runs in, sleepable programs
 *          and NMI included.
 * Return: 0 if the stack will be written to @map__map (or was, in this
 *         entry); -EINVAL if the task has no user space (kernel thread,
 *         exiting, not entered from user mode) or @flags__k is not 0;
 *         -ENOSPC if the task already has requests for
 *         BPF_UNWIND_USER_MAPS other ring buffers, still open, in this
 *         entry; -EBUSY
 *         if the stack of this entry was already delivered, to other ring
 *         buffers only, or @map__map has a request from before an exec in
 *         this entry;
 *         -EOPNOTSUPP if deferred unwinding is unavailable, or in NMI
 *         context on an architecture without NMI-safe cmpxchg(); another
 *         negative error code if the unwind could not be scheduled.
 */
__bpf_kfunc int bpf_unwind_user_deferred(void *map__map, u64 flags__k,
					 u64 *cookie)
{
	struct bpf_unwind_user_pending *p = &current->unwind_info.bpf;
	struct bpf_map *map = map__map;
	int slot, ret;

	*cookie = 0;
	if (!READ_ONCE(bpf_unwind_ready))
		return -EOPNOTSUPP;
	if (in_nmi() && !IS_ENABLED(CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG))
		return -EOPNOTSUPP;
	if (flags__k || map->map_type != BPF_MAP_TYPE_RINGBUF)
		return -EINVAL;
	/* The verifier lets through maps with an id only (no inner maps) */
	if (WARN_ON_ONCE(!map->id || !map->cookie ||
			 map->cookie == BPF_UNWIND_USER_BUSY))
		return -EINVAL;
	if (!current->mm || (current->flags & (PF_KTHREAD | PF_EXITING)))
		return -EINVAL;

	slot = bpf_unwind_user_claim(p, map);
	if (slot == -ESTALE)
		return -EBUSY;
	if (slot < 0 && slot != -EEXIST)
		return slot;

	ret = unwind_deferred_request(&bpf_unwind_work, cookie);
	if (ret < 0) {
		if (slot >= 0)
			bpf_unwind_user_release(p, slot, map);
		*cookie = 0;
		return ret;
	}
	/*
	 * 1: the callback is pending, or it already ran (or is running under
	 * us: this request interrupted it) in this entry and will not run
	 * again, although deferred.c may be pending again for another user.
	 * Before it publishes done_cookie, the callback marks the map of
	 * every slot it delivers to.  If it took our slot, it delivers; if
	 * @map is marked, the record with this cookie is there or about to
	 * be; otherwise this entry's stack is gone for @map.  A slot of @map
	 * that we did not claim (-EEXIST) and that is not marked is another
	 * request's, which we interrupted and which answers for itself.
	 */
	if (ret == 1 && READ_ONCE(p->done_cookie) == *cookie) {
		if (slot >= 0 && !bpf_unwind_user_release(p, slot, map))
			return 0;
		if (bpf_unwind_user_delivered(p, map->id, *cookie))
			return 0;
		*cookie = 0;
		return -EBUSY;
	}
	/*
	 * The slot is ours until the callback takes it: mark it, for a
	 * request that interrupts the callback after it marked the slots
	 * and before it reaches ours.  No request of this entry reads the
	 * mark before the callback publishes the cookie.
	 */
	if (slot >= 0)
		WRITE_ONCE(p->done_id[slot], map->id);
	return 0;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(bpf_unwind_user_kfunc_ids)
BTF_ID_FLAGS(func, bpf_unwind_user_deferred)
BTF_KFUNCS_END(bpf_unwind_user_kfunc_ids)

/*
 * Iterator programs are of type tracing too, but run in the task that
 * reads the iterator, not in one they trace.
 */
static int bpf_unwind_user_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (!btf_id_set8_contains(&bpf_unwind_user_kfunc_ids, kfunc_id))
		return 0;
	if (prog->type == BPF_PROG_TYPE_TRACING &&
	    prog->expected_attach_type == BPF_TRACE_ITER)
		return -EACCES;
	return 0;
}

static const struct btf_kfunc_id_set bpf_unwind_user_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &bpf_unwind_user_kfunc_ids,
	.filter	= bpf_unwind_user_filter,
};

/* The program types that run in the context of the task they trace */
static const enum bpf_prog_type bpf_unwind_user_prog_types[] = {
	BPF_PROG_TYPE_KPROBE,		/* kprobes and uprobes */
	BPF_PROG_TYPE_TRACEPOINT,
	BPF_PROG_TYPE_RAW_TRACEPOINT,
	BPF_PROG_TYPE_PERF_EVENT,
	BPF_PROG_TYPE_TRACING,		/* fentry, fexit, tp_btf */
};

static int __init bpf_unwind_user_init(void)
{
	int i, ret;

	ret = unwind_deferred_init(&bpf_unwind_work, bpf_unwind_user_callback);
	if (ret) {
		pr_warn("no deferred user stacks: %d\n", ret);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(bpf_unwind_user_prog_types); i++) {
		ret = register_btf_kfunc_id_set(bpf_unwind_user_prog_types[i],
						&bpf_unwind_user_kfunc_set);
		if (ret)
			return ret;
	}
	WRITE_ONCE(bpf_unwind_ready, true);
	return 0;
}
late_initcall(bpf_unwind_user_init);
