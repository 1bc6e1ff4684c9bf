// SPDX-License-Identifier: GPL-2.0
/*
 * Stress of the SFrame unwinder's registry and lookups, for a soak under
 * perf sampling every CPU (devtools/stress.sh, make stress): not a test
 * by itself, it checks nothing but its own progress.
 *
 *   sframe_stress [-s SECONDS] [-p PROCESSES] [-t THREADS] [-n NEST]
 *
 * The parent keeps PROCESSES worker processes alive until the deadline,
 * each with THREADS threads, each worker living a few seconds and then
 * exiting with its threads still running.  Every thread loops over random
 * operations, each of which spends most of its time spinning at the end
 * of a deep call chain (built without frame pointers, with SFrame), so
 * that samples land in interesting code:
 *
 *   deep	recursion of random depth
 *   signal	the same inside a signal handler (SIGUSR1 to itself)
 *   kill	SIGUSR1 to a sibling thread
 *   lib	through libsft_start.so, linked at start
 *   dlopen	dlopen() libsft_a.so or libsft_b.so, call through it, dlclose()
 *   text	mmap() libsft_a.so's file executable (no loader), call into
 *		it, mprotect() it not executable and back, mremap() it
 *		elsewhere and call it there, munmap()
 *   jit_*	JIT code in anonymous memory with a section registered by
 *		prctl(PR_SFRAME_REGISTER): valid, hostile (one function with
 *		an FRE every 4 bytes, about 1000 FREs per lookup, up to
 *		NEST + 1 (default 6) JIT frames on a stack, so that a walk
 *		exceeds its budget of 4096 FREs), over (more FREs per
 *		function than a lookup may read), corrupt (corrupted in place
 *		after registration).  While a thread spins below the JIT
 *		frames, the section may be rewritten in place as another
 *		kind, or unmapped, or the text unmapped (the thread then
 *		longjmp()s out); then unregistered and unmapped
 *   vandal	rewrite a sibling thread's registered section in place, or
 *		unregister and register it again, while it is in use
 *   store	add libsft_a.so's section to the kernel's store (as root),
 *		for a copy of the file without PT_GNU_SFRAME made at the
 *		start; dlopen() the copy, call through it, dlclose(); remove
 *		the section half of the time.  Other threads and processes
 *		add and remove it meanwhile, so that an unwind finds it or
 *		not, and a section is removed while mappings use it
 *   thread	a short-lived thread
 *   fork	a child that runs a few operations and exits
 *   exec	a child that execs this program, which spins and exits
 *
 * At the end the parent prints one line per operation,
 *   op NAME count N errors E
 * (errors: an operation that failed where it should not have), then
 * "workers N", "killed N" (stragglers killed after the deadline) and
 * "result ok" or "result fail".  Workers still running 20 seconds after
 * the deadline are stragglers: their state and kernel stacks go to
 * stderr, then SIGTERM, SIGKILL 20 seconds later, and the parent reports
 * 60 seconds after the deadline whatever is left.  An alarm() watchdog
 * kills the whole process group if the parent itself is stuck.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sft.h"
#include "sft_sframe.h"
#include "sft_img.h"

#define MAX_THREADS	16
#define SLED_HOSTILE	4000	/* 1003 FREs: just under a lookup's 1024 */
#define SLED_OVER	8192	/* 2051 FREs: over it */
#define JIT_TEXT	(3 * 4096)
#define JIT_SEC		(8 * 4096)

enum op {
	OP_DEEP, OP_SIGNAL, OP_KILL, OP_LIB, OP_DLOPEN, OP_TEXT,
	OP_JIT_VALID, OP_JIT_HOSTILE, OP_JIT_OVER, OP_JIT_CORRUPT,
	OP_VANDAL, OP_THREAD, OP_FORK, OP_EXEC, OP_STORE, NR_OPS,
	/* not chosen at random, counted */
	OP_REWRITE = NR_OPS, OP_UNMAP_SEC, OP_UNMAP_TEXT, OP_REGISTER,
	OP_REJECTED, OP_UNREGISTER, OP_WORKER, NR_COUNTS
};

static const char * const op_name[NR_COUNTS] = {
	"deep", "signal", "kill", "lib", "dlopen", "text",
	"jit_valid", "jit_hostile", "jit_over", "jit_corrupt",
	"vandal", "thread", "fork", "exec", "store",
	"rewrite_in_use", "unmap_sframe_in_use", "unmap_text_in_use",
	"register", "register_rejected", "unregister", "worker_exit",
};

/* Counters shared by every process of the run */
struct shared {
	atomic_long count[NR_COUNTS];
	atomic_long errors[NR_COUNTS];
	struct timespec deadline;
};

static struct shared *sh;

static void count(int op)
{
	atomic_fetch_add_explicit(&sh->count[op], 1, memory_order_relaxed);
}

static void error(int op)
{
	atomic_fetch_add_explicit(&sh->errors[op], 1, memory_order_relaxed);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int past_deadline(void)
{
	return now() >= sh->deadline.tv_sec + sh->deadline.tv_nsec / 1e9;
}

/* A per-thread xorshift generator */
static __thread unsigned long rnd_state;

static unsigned long rnd(void)
{
	unsigned long x = rnd_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rnd_state = x;
	return x;
}

static void rnd_seed(void)
{
	rnd_state = (unsigned long)syscall(SYS_gettid) * 0x9e3779b97f4a7c15UL ^
		    (unsigned long)(now() * 1e9);
	if (!rnd_state)
		rnd_state = 1;
}

static long rnd_range(long lo, long hi)
{
	return lo + (long)(rnd() % (unsigned long)(hi - lo + 1));
}

/* ---- where the samples land ---- */

/* What the spinning leaf does half-way: none, or a JIT mutation */
static __thread void (*spin_hook)(void);

/* Spin for @ms milliseconds in our own code */
SFT_NOINLINE long spin(long ms)
{
	double end = now() + ms / 1e3, half = end - ms / 2e3;
	long n = 0;

	while (now() < end) {
		for (int i = 0; i < 1000; i++)
			asm volatile("" : "+r"(n) : "r"(i));	/* no loop removal */
		n++;
		if (spin_hook && now() >= half) {
			void (*hook)(void) = spin_hook;

			spin_hook = NULL;
			hook();
		}
	}
	return n;
}

static __thread long spin_ms = 20;

SFT_NOINLINE long spin_cb(long x)
{
	return spin(spin_ms) + x;
}

/* @depth frames of varying size, then @leaf(@x) */
SFT_NOINLINE long deep(long depth, sft_cb leaf, long x)
{
	char pad[16 + 8 * (depth & 7)];
	long r;

	pad[0] = (char)depth;
	sft_keep(pad);
	if (depth <= 0)
		return leaf(x + pad[0]) + 1;
	r = deep(depth - 1, leaf, x);
	asm volatile("" : "+r"(r));	/* no tail call */
	return r + pad[0];
}

static long run_deep(sft_cb leaf, long x)
{
	return deep(rnd_range(4, 48), leaf, x);
}

/* ---- signals ---- */

static void sig_handler(int sig)
{
	void (*hook)(void) = spin_hook;
	long saved = spin_ms;

	/* A hook may take a lock the interrupted code holds */
	spin_hook = NULL;
	spin_ms = 5;
	deep(8 + (sig & 7), spin_cb, 0);
	spin_ms = saved;
	spin_hook = hook;
}

SFT_NOINLINE long raise_cb(long x)
{
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1);
	return spin(spin_ms / 2) + x;
}

/* ---- libraries ---- */

static char dir[4096];
static unsigned long inner_off;		/* dl_inner in libsft_a.so's file */

static __thread long (*lib_target)(sft_cb cb, long x);

/* The bottom of a deep chain: through a library's two frames, spin */
SFT_NOINLINE long lib_cb(long x)
{
	return lib_target(spin_cb, x) + 1;
}

/* dlopen() @path, call through its dl_call() at the end of a deep chain, dlclose() */
static int call_through(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return -1;
	lib_target = (long (*)(sft_cb, long))dlsym(h, "dl_call");
	if (lib_target)
		deep(rnd_range(2, 16), lib_cb, 0);
	dlclose(h);
	return lib_target ? 0 : -1;
}

static int op_dlopen(void)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/libsft_%c.so", dir,
		 rnd() & 1 ? 'a' : 'b');
	return call_through(path);
}

/*
 * The offset of dl_inner in libsft_a.so's file, if its text is at the
 * same offset in the file as in memory (a mapping of the whole file can
 * then run it); 0 otherwise.
 */
static unsigned long find_inner_off(void)
{
	char path[4200];
	unsigned long off = 0;
	Dl_info info;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	void *h, *fn;
	int fd, i;

	snprintf(path, sizeof(path), "%s/libsft_a.so", dir);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 0;
	fn = dlsym(h, "dl_inner");
	if (fn && dladdr(fn, &info))
		off = (unsigned long)fn - (unsigned long)info.dli_fbase;
	dlclose(h);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		off = 0;
	for (i = 0; off && i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			off = 0;
		else if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
			 ph.p_vaddr != ph.p_offset)
			off = 0;
	}
	if (fd >= 0)
		close(fd);
	return off;
}

static int op_text(void)
{
	char path[4200];
	struct stat st;
	size_t len;
	void *map, *moved;
	int fd, ret = 0;

	if (!inner_off)
		return -1;
	snprintf(path, sizeof(path), "%s/libsft_a.so", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	len = (st.st_size + 4095) & ~4095UL;
	map = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	lib_target = (void *)((char *)map + inner_off);
	deep(rnd_range(2, 16), lib_cb, 1);
	/* Not executable: the registry drops it; executable again */
	if (mprotect(map, len, PROT_READ) ||
	    mprotect(map, len, PROT_READ | PROT_EXEC))
		ret = -1;
	lib_target = (void *)((char *)map + inner_off);
	deep(rnd_range(2, 16), lib_cb, 2);
	/* Moved: reserve a place, move it there */
	moved = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (moved != MAP_FAILED) {
		moved = mremap(map, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
			       moved);
		if (moved != MAP_FAILED) {
			map = moved;
			lib_target = (void *)((char *)map + inner_off);
			deep(rnd_range(2, 16), lib_cb, 3);
		} else {
			ret = -1;
		}
	}
	munmap(map, len);
	return ret;
}

/* ---- the kernel's store ---- */

static struct img store_img;		/* libsft_a.so */
static struct prctl_sframe_store store_a;	/* its identity and section */
static char store_copy[64];		/* the copy without PT_GNU_SFRAME */

/*
 * The store's operation is picked only if the parent could make the copy
 * and add and remove the section (as root, on a kernel with the store).
 */
static int store_setup(void)
{
	Elf64_Phdr *sf;
	int fd, ok;

	snprintf(store_img.path, sizeof(store_img.path), "%s/libsft_a.so", dir);
	if (img_load(&store_img))
		return -1;
	sf = img_phdr_type(&store_img, PT_GNU_SFRAME);
	if (!sf)
		return -1;
	store_args(&store_img, &store_a);
	if (!store_a.build_id_len)
		return -1;
	store_remove(&store_a, false);
	if (sframe_store_prctl(PR_SFRAME_STORE_ADD, &store_a) ||
	    store_remove(&store_a, false))
		return -1;
	/* The section stays in the image, unannounced */
	sf->p_type = PT_NULL;
	/* A new file of ours (O_EXCL): not a name another user made first */
	snprintf(store_copy, sizeof(store_copy), "/tmp/sft_stress_XXXXXX");
	fd = mkstemp(store_copy);
	if (fd < 0)
		return -1;
	ok = write(fd, store_img.b, store_img.size) == (ssize_t)store_img.size;
	if (close(fd) || !ok) {
		unlink(store_copy);
		return -1;
	}
	return 0;
}

static void store_teardown(void)
{
	store_remove(&store_a, false);
	unlink(store_copy);
}

static int op_store(void)
{
	int e, ret;

	e = sframe_store_prctl(PR_SFRAME_STORE_ADD, &store_a);
	if (e && e != EEXIST)
		return -1;
	ret = call_through(store_copy);
	if (rnd() & 1) {
		e = store_remove(&store_a, false);
		if (e && e != ENOENT)
			return -1;
	}
	return ret;
}

/* ---- JIT code with registered sections ---- */

enum kind { K_VALID, K_HOSTILE, K_OVER, K_CORRUPT, NR_KINDS };

struct blob {
	pthread_mutex_t lock;	/* published, sec mapped while held */
	int published;
	enum kind kind;
	unsigned char *text, *sec;
	struct prctl_sframe a;
	long (*fn)(long x, long (*leaf)(long));
};

/* One slot per thread of a worker, for vandals */
static struct blob blobs[MAX_THREADS];
static int nthreads = 3;
/* JIT frames on a stack at most, less one (-n) */
static int max_nest = 5;
static __thread struct blob *my_blob;
static __thread sigjmp_buf *jit_escape;

static size_t sled_of(enum kind k)
{
	return k == K_HOSTILE ? SLED_HOSTILE : k == K_OVER ? SLED_OVER : 0;
}

/* Rewrite @b's section as a section of kind @k (held @b->lock) */
static size_t rewrite(struct blob *b, enum kind k)
{
	size_t len = sft_build_sframe(b->sec, (unsigned long)b->sec,
				      (unsigned long)b->text, sled_of(k), 4);

	if (k == K_CORRUPT) {
		switch (rnd() % 4) {
		case 0:	/* FRE starts not increasing */
			b->sec[48 + 3] = 0;
			break;
		case 1:	/* 2^31 FREs in the function */
			memcpy(b->sec + 28 + 12, &(uint32_t){1U << 31}, 4);
			break;
		case 2:	/* bad magic */
			b->sec[0] ^= 0xff;
			break;
		default: /* random bytes */
			for (int i = 0; i < 4; i++)
				b->sec[rnd() % len] = rnd();
		}
	}
	return len;
}

static void hook_rewrite(void)
{
	struct blob *b = my_blob;

	pthread_mutex_lock(&b->lock);
	rewrite(b, rnd() % NR_KINDS);
	pthread_mutex_unlock(&b->lock);
	count(OP_REWRITE);
}

static void hook_unmap_sec(void)
{
	struct blob *b = my_blob;

	pthread_mutex_lock(&b->lock);
	b->published = 0;
	munmap(b->sec, JIT_SEC);
	b->sec = NULL;
	pthread_mutex_unlock(&b->lock);
	count(OP_UNMAP_SEC);
}

static void hook_unmap_text(void)
{
	struct blob *b = my_blob;

	/* Return addresses into it stay on the stack: never return there */
	pthread_mutex_lock(&b->lock);
	b->published = 0;
	munmap(b->text, JIT_TEXT);
	b->text = NULL;
	pthread_mutex_unlock(&b->lock);
	count(OP_UNMAP_TEXT);
	spin(spin_ms);
	siglongjmp(*jit_escape, 1);
}

/* Through the JIT frames @x + 1 times, then spin */
SFT_NOINLINE long jit_leaf(long x)
{
	if (x > 0)
		return my_blob->fn(x - 1, jit_leaf) + 1;
	return spin(spin_ms);
}

SFT_NOINLINE long jit_enter(long x)
{
	return my_blob->fn(x, jit_leaf) + 1;
}

static int op_jit(enum kind k)
{
	struct blob *b = my_blob;
	sigjmp_buf escape;
	size_t len;
	int err, ret = 0;

	b->text = mmap(NULL, JIT_TEXT, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b->sec = mmap(NULL, JIT_SEC, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->text == MAP_FAILED || b->sec == MAP_FAILED)
		return -1;
	sft_jit_emit(b->text, sled_of(k));
	if (mprotect(b->text, JIT_TEXT, PROT_READ | PROT_EXEC))
		return -1;
	b->fn = (void *)b->text;
	b->kind = k;
	/* Corrupt sections are corrupted after the registration */
	len = rewrite(b, k == K_CORRUPT ? K_VALID : k);
	b->a = (struct prctl_sframe){
		.text_start	= (unsigned long)b->text,
		.text_len	= SFT_JIT_SIZE(sled_of(k)),
		.sframe_start	= (unsigned long)b->sec,
		.sframe_len	= len,
	};
	err = sframe_prctl(PR_SFRAME_REGISTER, &b->a, sizeof(b->a));
	if (err == EINVAL) {
		/* Refused as it is (the over-long function): still run it */
		count(OP_REJECTED);
	} else if (err) {
		error(OP_REGISTER);
		ret = -1;
	} else {
		count(OP_REGISTER);
	}
	if (k == K_CORRUPT) {
		pthread_mutex_lock(&b->lock);
		rewrite(b, K_CORRUPT);
		pthread_mutex_unlock(&b->lock);
	}
	pthread_mutex_lock(&b->lock);
	b->published = 1;
	pthread_mutex_unlock(&b->lock);

	switch (rnd() % 8) {
	case 0:
		spin_hook = hook_rewrite;
		break;
	case 1:
		spin_hook = hook_unmap_sec;
		break;
	case 2:
		spin_hook = hook_unmap_text;
		break;
	default:
		spin_hook = NULL;
	}
	jit_escape = &escape;
	if (!sigsetjmp(escape, 1))
		deep(rnd_range(2, 12), jit_enter, rnd_range(0, max_nest));
	spin_hook = NULL;
	jit_escape = NULL;

	pthread_mutex_lock(&b->lock);
	b->published = 0;
	pthread_mutex_unlock(&b->lock);
	if (b->text) {
		struct prctl_sframe u = { .text_start = b->a.text_start };

		/* ENOENT: a vandal or the unmapped section's fault got it */
		err = sframe_prctl(PR_SFRAME_UNREGISTER, &u, sizeof(u));
		if (!err)
			count(OP_UNREGISTER);
		else if (err != ENOENT)
			error(OP_UNREGISTER);
		munmap(b->text, JIT_TEXT);
		b->text = NULL;
	}
	if (b->sec)
		munmap(b->sec, JIT_SEC);
	b->sec = NULL;
	return ret;
}

/* Rewrite or re-register a sibling's section while it is in use */
static int op_vandal(void)
{
	struct blob *b = &blobs[rnd() % nthreads];
	struct prctl_sframe a;
	int err;

	if (b == my_blob || pthread_mutex_trylock(&b->lock))
		return 0;
	if (b->published) {
		if (rnd() & 1) {
			rewrite(b, rnd() % NR_KINDS);
		} else {
			a = (struct prctl_sframe){ .text_start =
						   b->a.text_start };
			err = sframe_prctl(PR_SFRAME_UNREGISTER, &a, sizeof(a));
			if (err && err != ENOENT)
				error(OP_UNREGISTER);
			a = b->a;
			err = sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a));
			if (!err)
				count(OP_REGISTER);
			else if (err == EINVAL || err == EEXIST)
				count(OP_REJECTED);
			else
				error(OP_REGISTER);
		}
	}
	pthread_mutex_unlock(&b->lock);
	return 0;
}

/* ---- threads, processes ---- */

static pthread_t tids[MAX_THREADS];
/* Set once every thread of the worker is created: @tids is complete */
static int tids_ready;
static char self[4096];

static int run_op(int op);

static void *short_thread(void *arg)
{
	rnd_seed();
	run_deep(spin_cb, 0);
	return arg;
}

/* 0 if child @pid exits with status 0 */
static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) != pid)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	fprintf(stderr, "sframe_stress: child %d: status %#x\n", pid, status);
	return -1;
}

static int op_fork(void)
{
	int i;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		/* Another thread may have held the blob's lock at fork() */
		static struct blob child_blob = {
			.lock = PTHREAD_MUTEX_INITIALIZER,
		};

		my_blob = &child_blob;
		rnd_seed();
		for (i = 0; i < 3; i++)
			run_op(rnd() % 2 ? OP_DEEP : OP_JIT_VALID +
			       rnd() % 4);
		_exit(0);
	}
	return wait_child(pid);
}

static int op_exec(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		execl(self, self, "--exec-child", NULL);
		_exit(127);
	}
	return wait_child(pid);
}

static int run_op(int op)
{
	int ret = 0;
	pthread_t t;

	switch (op) {
	case OP_DEEP:
		run_deep(spin_cb, 0);
		break;
	case OP_SIGNAL:
		run_deep(raise_cb, 0);
		break;
	case OP_KILL:
		/* Until the worker has made all its threads: itself */
		t = __atomic_load_n(&tids_ready, __ATOMIC_ACQUIRE) ?
		    tids[rnd() % nthreads] : pthread_self();
		ret = pthread_kill(t, SIGUSR1);
		/* A sibling past the deadline may have ended */
		ret = ret && ret != ESRCH ? -1 : 0;
		break;
	case OP_LIB:
		lib_target = lib_start_call;
		deep(rnd_range(2, 24), lib_cb, 0);
		break;
	case OP_DLOPEN:
		ret = op_dlopen();
		break;
	case OP_TEXT:
		ret = op_text();
		break;
	case OP_JIT_VALID:
	case OP_JIT_HOSTILE:
	case OP_JIT_OVER:
	case OP_JIT_CORRUPT:
		ret = op_jit(op - OP_JIT_VALID);
		break;
	case OP_VANDAL:
		ret = op_vandal();
		break;
	case OP_THREAD:
		ret = pthread_create(&t, NULL, short_thread, NULL) ||
		      pthread_join(t, NULL) ? -1 : 0;
		break;
	case OP_FORK:
		ret = op_fork();
		break;
	case OP_EXEC:
		ret = op_exec();
		break;
	case OP_STORE:
		ret = op_store();
		break;
	}
	count(op);
	if (ret)
		error(op);
	return ret;
}

/* Relative weights of the operations (store: 0 if store_setup() failed) */
static int weight[NR_OPS] = {
	[OP_DEEP] = 10, [OP_SIGNAL] = 3, [OP_KILL] = 2, [OP_LIB] = 3,
	[OP_DLOPEN] = 3, [OP_TEXT] = 3, [OP_JIT_VALID] = 3,
	[OP_JIT_HOSTILE] = 3, [OP_JIT_OVER] = 2, [OP_JIT_CORRUPT] = 2,
	[OP_VANDAL] = 4, [OP_THREAD] = 2, [OP_FORK] = 1, [OP_EXEC] = 1,
	[OP_STORE] = 2,
};

static int pick_op(void)
{
	int total = 0, i, r;

	for (i = 0; i < NR_OPS; i++)
		total += weight[i];
	r = rnd() % total;
	for (i = 0; r >= weight[i]; i++)
		r -= weight[i];
	return i;
}

static void *worker_thread(void *arg)
{
	my_blob = arg;
	rnd_seed();
	while (!past_deadline())
		run_op(pick_op());
	return NULL;
}

/* One worker process: threads until its lifetime or the deadline */
static void worker(void)
{
	double end = now() + 2 + rnd() % 8;
	int i;

	tids[0] = pthread_self();
	for (i = 0; i < nthreads; i++)
		pthread_mutex_init(&blobs[i].lock, NULL);
	for (i = 0; i < nthreads; i++) {
		if (i && pthread_create(&tids[i], NULL, worker_thread,
					&blobs[i]))
			_exit(3);
	}
	__atomic_store_n(&tids_ready, 1, __ATOMIC_RELEASE);
	my_blob = &blobs[0];
	while (!past_deadline() && now() < end)
		run_op(pick_op());
	/* Exit with the other threads wherever they are */
	count(OP_WORKER);
	_exit(0);
}

/*
 * Set by watchdog(): accessed with lock-free atomics, which are safe in a
 * signal handler and are never cached in a register, as volatile was
 */
static sig_atomic_t watchdog_fired;

static int watchdog_has_fired(void)
{
	return __atomic_load_n(&watchdog_fired, __ATOMIC_RELAXED);
}

/*
 * Last resort, if the parent itself is stuck (the main loop stops the
 * workers by itself): stop everything, and exit 10 seconds later.
 */
static void watchdog(int sig)
{
	static const char msg[] = "sframe_stress: the parent is stuck, stopping everything\n";

	if (watchdog_has_fired())
		_exit(3);
	__atomic_store_n(&watchdog_fired, 1, __ATOMIC_RELAXED);
	write(2, msg, sizeof(msg) - 1);
	kill(0, SIGKILL);	/* this process ignores nothing: it dies too */
}

/* Where the threads of straggler @pid are, on stderr */
static void report_straggler(pid_t pid)
{
	char path[64], buf[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f && fgets(buf, sizeof(buf), f))
		fprintf(stderr, "sframe_stress: straggler %s", buf);
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	f = fopen(path, "r");
	while (f && fgets(buf, sizeof(buf), f))
		fprintf(stderr, "  %s", buf);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	int seconds = 60, nproc = 4, opt, i, running = 0, killed = 0;
	int stopped = 0;
	long errors = 0;
	struct sigaction sa = {
		.sa_handler = sig_handler,
		.sa_flags = SA_RESTART,
	};
	pid_t *pids;
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	snprintf(dir, sizeof(dir), "%s", self);
	*strrchr(dir, '/') = 0;
	sigaction(SIGUSR1, &sa, NULL);

	if (argc == 2 && !strcmp(argv[1], "--exec-child")) {
		rnd_seed();
		spin_ms = 10;
		run_deep(spin_cb, 0);
		return 0;
	}
	while ((opt = getopt(argc, argv, "s:p:t:n:")) != -1) {
		switch (opt) {
		case 's':
			seconds = atoi(optarg);
			break;
		case 'p':
			nproc = atoi(optarg);
			break;
		case 't':
			nthreads = atoi(optarg);
			break;
		case 'n':
			max_nest = atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: %s [-s SECONDS] [-p PROCESSES] [-t THREADS] [-n NEST]\n",
				argv[0]);
			return 2;
		}
	}
	if (seconds < 1 || nproc < 1 || nproc > 64 || nthreads < 1 ||
	    nthreads > MAX_THREADS || max_nest < 0 || max_nest > 64)
		return 2;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(nproc, sizeof(*pids));
	if (sh == MAP_FAILED || !pids)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &sh->deadline);
	sh->deadline.tv_sec += seconds;
	inner_off = find_inner_off();
	if (store_setup()) {
		fprintf(stderr,
			"sframe_stress: no store operation: libsft_a.so, the store (root?) or %s\n",
			store_copy[0] ? store_copy : "/tmp");
		weight[OP_STORE] = 0;
	}
	setpgid(0, 0);
	signal(SIGTERM, SIG_IGN);
	signal(SIGALRM, watchdog);
	alarm(seconds + 120);
	rnd_seed();

	/* Keep nproc workers running until the deadline */
	while (running || !past_deadline()) {
		pid_t pid;
		int status;

		for (i = 0; i < nproc && !past_deadline(); i++) {
			if (pids[i])
				continue;
			pid = fork();
			if (!pid) {
				signal(SIGTERM, SIG_DFL);
				signal(SIGALRM, SIG_DFL);
				alarm(0);
				rnd_seed();
				worker();
			}
			if (pid > 0) {
				pids[i] = pid;
				running++;
			}
		}
		pid = waitpid(-1, &status, WNOHANG);
		if (pid < 0)
			break;
		if (!pid) {
			double late = now() - sh->deadline.tv_sec -
				      sh->deadline.tv_nsec / 1e9;

			usleep(50000);
			/*
			 * Past the deadline, workers get 20 seconds to stop,
			 * then SIGTERM, SIGKILL at 40; at 60 the parent
			 * gives up on them and reports.
			 */
			if (late > 20 && stopped == 0) {
				for (i = 0; i < nproc; i++)
					if (pids[i])
						report_straggler(pids[i]);
				killed = running;
				stopped = 1;
				kill(0, SIGTERM);
			} else if (late > 40 && stopped == 1) {
				stopped = 2;
				for (i = 0; i < nproc; i++)
					if (pids[i])
						kill(pids[i], SIGKILL);
			} else if (late > 60) {
				fprintf(stderr,
					"sframe_stress: %d workers still there 60 s after the deadline\n",
					running);
				break;
			}
			continue;
		}
		for (i = 0; i < nproc; i++) {
			if (pids[i] != pid)
				continue;
			pids[i] = 0;
			running--;
			if (stopped || watchdog_has_fired())
				continue;
			if (!WIFEXITED(status) || WEXITSTATUS(status)) {
				fprintf(stderr, "worker %d: status %#x\n",
					pid, status);
				error(OP_WORKER);
			}
		}
	}
	alarm(0);
	if (weight[OP_STORE])
		store_teardown();

	for (i = 0; i < NR_COUNTS; i++) {
		printf("op %s count %ld errors %ld\n", op_name[i],
		       atomic_load(&sh->count[i]), atomic_load(&sh->errors[i]));
		errors += atomic_load(&sh->errors[i]);
	}
	printf("workers %ld\n", atomic_load(&sh->count[OP_WORKER]));
	printf("killed %d\n", killed);
	printf("watchdog %d\n", watchdog_has_fired());
	errors += killed + watchdog_has_fired();
	printf("result %s\n", errors ? "fail" : "ok");
	return errors ? 1 : 0;
}
