// SPDX-License-Identifier: GPL-2.0
/*
 * User call chains unwound by the kernel from .sframe.
 *
 * Each test calls a known chain of functions, built with
 * -O2 -fomit-frame-pointer -Wa,--gsframe, whose innermost function makes
 * a getppid() system call.  A perf event on the syscalls:sys_enter_getppid
 * tracepoint, opened with defer_callchain, samples it; the user chain
 * arrives in a PERF_RECORD_CALLCHAIN_DEFERRED record, unwound at the
 * return to user space.  The tests symbolize it with the ELF symbol
 * tables of the loaded objects and compare it with the expected chain.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "sft.h"
#include "sft_perf.h"
#include "sft_sframe.h"

#define MAX_CHAIN	1024
#define RB_PAGES	64

#include "sft_chain.h"

/* Called through a global pointer: a real call, never inlined */
long (*leaf_ptr)(long) = sft_leaf;

/* ---- the chains in the log ---- */

static void chain_log(struct __test_metadata *_metadata, const struct chain *c)
{
	char name[128];
	int i;

	for (i = 0; i < c->nr && i < 24; i++)
		TH_LOG("  #%d %#lx %s", i, c->ip[i],
		       sym(c->ip[i], name, sizeof(name)));
}

/*
 * The chain starts with @expect (NULL-terminated; "*" matches any one
 * frame).  With @to_main, it also reaches main, and frames past main
 * are in loaded objects: no garbage past the program's entry.
 */
static int chain_check(struct __test_metadata *_metadata,
		       const struct chain *c, const char * const *expect,
		       bool to_main)
{
	char name[128];
	int i, main_at = -1;

	for (i = 0; expect[i]; i++) {
		if (i >= c->nr || (strcmp(expect[i], "*") &&
				   strcmp(sym(c->ip[i], name, sizeof(name)),
					  expect[i]))) {
			/* A chain of -N frames: sample() returned -N */
			TH_LOG("frame %d: expected %s, in a chain of %d frames",
			       i, expect[i], c->nr);
			chain_log(_metadata, c);
			return -1;
		}
	}
	if (!to_main)
		return 0;
	for (i = 0; i < c->nr; i++) {
		sym(c->ip[i], name, sizeof(name));
		if (main_at < 0 && !strcmp(name, "main")) {
			main_at = i;
		} else if (main_at >= 0 && !strcmp(name, "!")) {
			TH_LOG("frame %d (%#lx) is in no loaded object", i,
			       c->ip[i]);
			chain_log(_metadata, c);
			return -1;
		}
	}
	if (main_at < 0) {
		TH_LOG("the chain does not reach main");
		chain_log(_metadata, c);
		return -1;
	}
	return 0;
}

#define EXPECT_CHAIN_TO(to_main, fn, arg, ...) do {			\
	static const char * const sft_exp_[] = { __VA_ARGS__, NULL };	\
	struct chain sft_c_;						\
	ASSERT_EQ(0, sample(fn, arg, &sft_c_));				\
	ASSERT_EQ(0, chain_check(_metadata, &sft_c_, sft_exp_, to_main));	\
} while (0)
#define EXPECT_CHAIN(fn, arg, ...) EXPECT_CHAIN_TO(true, fn, arg, __VA_ARGS__)

/* ---- the code being unwound ---- */

#include "sft_calls.h"

SFT_NOINLINE long recurse(long depth)
{
	long r;

	if (depth <= 0)
		return leaf_ptr(0) + 1;
	r = recurse(depth - 1);
	asm volatile("" : "+r"(r));	/* no accumulator loop */
	return r + 1;
}

/* The line of /proc/self/sframe whose path ends with @suffix */
static int proc_line(const char *suffix, char *line, size_t len)
{
	FILE *f = fopen("/proc/self/sframe", "r");
	size_t sl = strlen(suffix);
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, len, f)) {
		size_t l = strlen(line);

		if (l && line[l - 1] == '\n')
			line[--l] = 0;
		if (l >= sl && !strcmp(line + l - sl, suffix)) {
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static const char *self_path(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	path[n > 0 ? n : 0] = 0;
	return path;
}

/* ---- tests ---- */

TEST(executable)
{
	EXPECT_CHAIN(f1, 1, "sft_leaf", "f3", "f2", "f1", "sample");
}

/* The file offset of @addr in its mapping of /proc/self/maps, or -1 */
static long file_offset(unsigned long addr, char *path, size_t len)
{
	unsigned long lo, hi, off;
	char line[PATH_MAX + 128];
	long ret = -1;
	FILE *f = fopen("/proc/self/maps", "r");
	int n;

	if (!f)
		return -1;
	while (ret < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &lo, &hi, &off,
			   &n) != 3 || addr < lo || addr >= hi)
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(path, len, "%s", line + n);
		ret = addr - lo + off;
	}
	fclose(f);
	return ret;
}

/* A uretprobe on @fn of this program through perf's uprobe PMU, or -1 */
static int uretprobe_open(struct __test_metadata *_metadata, void *fn)
{
	char path[PATH_MAX], buf[32] = "";
	struct perf_event_attr attr = { .size = sizeof(attr) };
	long off = file_offset((unsigned long)fn, path, sizeof(path));
	FILE *f;
	int type;

	f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	if (!f || fscanf(f, "%d", &type) != 1) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	/* The retprobe flag: config bit 0 */
	f = fopen("/sys/bus/event_source/devices/uprobe/format/retprobe", "r");
	if (!f || !fgets(buf, sizeof(buf), f) || strcmp(buf, "config:0\n")) {
		TH_LOG("uprobe PMU retprobe format: %s", buf);
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	if (off < 0)
		return -1;
	attr.type = type;
	attr.config = 1;
	attr.config1 = (unsigned long)path;
	attr.config2 = off;
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

/*
 * A uretprobe replaces the return address of each call of the function
 * it probes with the address of its trampoline: the chain goes through
 * the probed recursive function to main all the same, at the real
 * return addresses.
 */
TEST(uretprobe)
{
	int fd = uretprobe_open(_metadata, recurse);

	if (fd < 0 && access("/sys/bus/event_source/devices/uprobe", F_OK))
		SKIP(return, "no uprobe PMU (CONFIG_UPROBE_EVENTS)");
	ASSERT_LE(0, fd) TH_LOG("uretprobe on recurse: %s", strerror(errno));
	EXPECT_CHAIN(recurse, 3, "sft_leaf", "recurse", "recurse", "recurse",
		     "recurse", "sample");
	close(fd);
}

/*
 * The builds with -mbranch-protection=pac-ret (sframe_unwind_pac,
 * sframe_unwind_bkey) sign their return addresses: f1 starts with the
 * signing instruction of its key and the CPU has pointer authentication,
 * so that the chains of every test go through signed return addresses.
 */
TEST(return_addresses_signed)
{
#ifdef __ARM_FEATURE_PAC_DEFAULT
	/* paciasp, pacibsp */
	const uint32_t want = __ARM_FEATURE_PAC_DEFAULT & 2 ? 0xd503237f :
							      0xd503233f;
	const uint32_t *insn = (const uint32_t *)f1;
	int i;

	if (!(getauxval(AT_HWCAP) & HWCAP_PACA))
		SKIP(return, "no pointer authentication on this CPU");
	for (i = 0; i < 4 && insn[i] != want; i++)
		;
	ASSERT_LT(i, 4) TH_LOG("f1 does not start with %#x", want);
	EXPECT_CHAIN(f1, 1, "sft_leaf", "f3", "f2", "f1", "sample");
#else
	SKIP(return, "built without return address signing");
#endif
}

/*
 * s390x: a leaf that keeps its return address and r11 in floating-point
 * registers (a flexible FDE) is sampled with r14 and r11 zeroed: the
 * unwinder reads the user's f2 for the return address, in the event and
 * deferred.
 */
#ifdef SFT_FPR_LEAF_ASM
asm(SFT_FPR_LEAF_ASM);
#endif

TEST(leaf_ra_in_fpr)
{
#ifdef SFT_FPR_LEAF_ASM
	int defer;

	leaf_ptr = sft_fpr_leaf;
	/* Deferred first: the unwind in the event needs the sections found */
	for (defer = 1; defer >= 0; defer--) {
		sample_nodefer = !defer;
		EXPECT_CHAIN(f1, 1, "sft_fpr_leaf", "f3", "f2", "f1", "sample");
	}
	sample_nodefer = false;
	leaf_ptr = sft_leaf;
#else
	SKIP(return, "s390x only: no return address in an FPR here");
#endif
}

TEST(without_deferral)
{
	static const char * const exp[] = { "sft_leaf", "f3", "f2", "f1",
					    "sample", NULL };
	char name[128];
	struct chain c;
	int i;

	/*
	 * The non-faulting unwind (perf_callchain_user() in the event) can
	 * neither discover this fresh process's mappings nor fault in their
	 * .sframe pages: the first sample gets what frame pointers give,
	 * starting at the sampled PC.  What it missed is made ready at the
	 * return to user space: every later sample is complete, with no
	 * deferred unwind in between.
	 */
	ASSERT_NE(0, proc_line(self_path(), name, sizeof(name)));
	sample_nodefer = true;
	ASSERT_EQ(0, sample(f1, 1, &c));
	ASSERT_LT(0, c.nr);
	EXPECT_STREQ(exp[0], sym(c.ip[0], name, sizeof(name)));
	for (i = 1; i <= 3; i++)
		EXPECT_CHAIN(f1, i, "sft_leaf", "f3", "f2", "f1", "sample");
	sample_nodefer = false;
}

TEST(deep_recursion)
{
	struct chain c;
	char name[128];
	int i;

	/* Deeper than the deferred unwinder's cache: bounded, no error */
	ASSERT_EQ(0, sample(recurse, 2000, &c));
	ASSERT_LT(400, c.nr);
	ASSERT_GE(MAX_CHAIN, c.nr);
	ASSERT_STREQ("sft_leaf", sym(c.ip[0], name, sizeof(name)));
	for (i = 1; i < c.nr; i++)
		ASSERT_STREQ("recurse", sym(c.ip[i], name, sizeof(name)));
}

static void *thread_fn(void *arg)
{
	struct chain *c = arg;
	int ret = sample(f1, 1, c);

	if (ret)
		c->nr = ret < 0 ? ret : -1;
	return NULL;
}

TEST(threads)
{
	static const char * const exp[] = { "sft_leaf", "f3", "f2", "f1",
					    "sample", "thread_fn", NULL };
	struct chain *c[4];
	pthread_t t[4];
	int i;

	for (i = 0; i < 4; i++) {
		c[i] = calloc(1, sizeof(*c[i]));
		ASSERT_NE(NULL, c[i]);
		ASSERT_EQ(0, pthread_create(&t[i], NULL, thread_fn, c[i]));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
		ASSERT_EQ(0, chain_check(_metadata, c[i], exp, false));
		free(c[i]);
	}
}

/*
 * The four threads of a new process, released at once into their first
 * samples: their unwinds meet the executable's entry before it is
 * resolved, so that one thread reads its ELF headers and the others wait
 * for it in their return to user space.
 */
static pthread_barrier_t race_start;

static void *race_fn(void *arg)
{
	struct chain *c = arg;
	int ret;

	pthread_barrier_wait(&race_start);
	ret = sample(f1, 1, c);
	if (ret)
		c->nr = ret < 0 ? ret : -1;
	return NULL;
}

static int race_round(struct __test_metadata *_metadata)
{
	static const char * const exp[] = { "sft_leaf", "f3", "f2", "f1",
					    "sample", "race_fn", NULL };
	static struct chain c[4];
	pthread_t t[4];
	int i, ret = 0;

	if (pthread_barrier_init(&race_start, NULL, 4))
		return 2;
	for (i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, race_fn, &c[i]))
			return 2;
	for (i = 0; i < 4; i++)
		if (pthread_join(t[i], NULL) ||
		    chain_check(_metadata, &c[i], exp, false))
			ret = 1;
	return ret;
}

/*
 * Rounds of race_round(), each in a new process (this one never unwinds,
 * so that its children start with nothing discovered): every round ends,
 * with the exact chain in every thread.  A waiter whose wake-up was lost
 * would sleep in its return to user space until killed: a round is given
 * 10 seconds.  At most 20 rounds or 5 seconds of them.
 */
TEST(resolve_race)
{
	struct timespec t0, t;
	int round, status, ms;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0; round < 20; round++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			_exit(race_round(_metadata));
		for (ms = 0; ms < 10000; ms += 10) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				break;
			usleep(10000);
		}
		if (ms >= 10000) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			TH_LOG("round %d: a thread still waits after 10 s", round);
		}
		ASSERT_TRUE(WIFEXITED(status)) TH_LOG("round %d", round);
		ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("round %d", round);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 5)
			break;
	}
}

TEST(fork_child)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		static const char * const exp[] = { "sft_leaf", "f3", "f2",
						    "f1", "sample", NULL };
		struct chain c;

		_exit(sample(f1, 1, &c) || chain_check(_metadata, &c, exp,
						       true) ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST(exec)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		execl("/proc/self/exe", "sframe_unwind", "--exec-child", NULL);
		_exit(2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

static int tracefs_write(const char *file, const char *val)
{
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return ret;
}

/* Clear the trace buffer and enable sframe:@event ("" for all) */
static int trace_start(const char *event)
{
	char file[128];

	if (tracepoint_id() < 0)	/* mounts tracefs */
		return -1;
	snprintf(file, sizeof(file), "events/sframe/%s%senable", event,
		 *event ? "/" : "");
	return tracefs_write("trace", "") || tracefs_write(file, "1") ? -1 : 0;
}

/* Disable the sframe events and return the trace (to free), or NULL */
static char *trace_stop(void)
{
	char *trace = malloc(1 << 20);
	ssize_t len = 0, got;
	int fd;

	tracefs_write("events/sframe/enable", "0");
	fd = open("/sys/kernel/tracing/trace", O_RDONLY);
	if (!trace || fd < 0) {
		free(trace);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (len < (1 << 20) - 1 &&
	       (got = read(fd, trace + len, (1 << 20) - 1 - len)) > 0)
		len += got;
	close(fd);
	trace[len] = 0;
	return trace;
}

/*
 * sframe_unwind_error events of @trace for a PC in [@lo, @hi) with @error.
 */
static int trace_errors(const char *trace, unsigned long lo,
			unsigned long hi, int error)
{
	const char *p = trace;
	char want[32];
	unsigned long pc;
	int n = 0;

	snprintf(want, sizeof(want), " error=%d\n", error);
	while ((p = strstr(p, "sframe_unwind_error: pc="))) {
		if (sscanf(p, "sframe_unwind_error: pc=%lx", &pc) == 1 &&
		    pc >= lo && pc < hi &&
		    !strncmp(strchrnul(p, '\n') - strlen(want) + 1, want,
			     strlen(want)))
			n++;
		p++;
	}
	return n;
}

#ifndef SFT_STATIC
SFT_NOINLINE long sft_lib_start(long x)
{
	return lib_start_call(leaf_ptr, x) + 1;
}

long (*dl_target)(sft_cb cb, long x);

SFT_NOINLINE long sft_dl(long x)
{
	return dl_target(leaf_ptr, x) + 1;
}

TEST(shared_library_at_start)
{
	EXPECT_CHAIN(sft_lib_start, 1, "sft_leaf", "lib_start_inner",
		     "lib_start_call", "sft_lib_start", "sample");
}

static void *dl_sample(struct __test_metadata *_metadata, const char *lib,
		       struct chain *c)
{
	long (*call)(sft_cb cb, long x);
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		TH_LOG("dlopen %s: %s", lib, dlerror());
		return NULL;
	}
	call = (long (*)(sft_cb cb, long x))dlsym(h, "dl_call");
	dl_target = call;
	if (!call || sample(sft_dl, 1, c)) {
		dlclose(h);
		return NULL;
	}
	return h;
}

TEST(dlopened_library)
{
	static const char * const exp[] = { "sft_leaf", "dl_inner", "dl_call",
					    "sft_dl", "sample", NULL };
	struct chain c;
	void *h = dl_sample(_metadata, "libsft_a.so", &c);

	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, chain_check(_metadata, &c, exp, true));
	dlclose(h);
}

TEST(dlclose_then_other_library_at_same_address)
{
	static const char * const exp[] = { "sft_leaf", "dl_inner", "dl_call",
					    "sft_dl", "sample", NULL };
	unsigned long a_call, b_call;
	struct chain c;
	Dl_info ia, ib;
	void *h;

	h = dl_sample(_metadata, "libsft_a.so", &c);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, chain_check(_metadata, &c, exp, true));
	a_call = (unsigned long)dl_target;
	ASSERT_NE(0, dladdr((void *)a_call, &ia));
	dlclose(h);

	/* libsft_b.so has other frame sizes: stale rules would show */
	h = dl_sample(_metadata, "libsft_b.so", &c);
	ASSERT_NE(NULL, h);
	b_call = (unsigned long)dl_target;
	ASSERT_NE(0, dladdr((void *)b_call, &ib));
	TH_LOG("libsft_a.so at %p, libsft_b.so at %p", ia.dli_fbase,
	       ib.dli_fbase);
	ASSERT_EQ(ia.dli_fbase, ib.dli_fbase);
	ASSERT_EQ(0, chain_check(_metadata, &c, exp, true));
	dlclose(h);
}

/* Find the .sframe section of an ELF file: offset and size */
static int sframe_of_file(const char *path, off_t *off, size_t *size)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			goto out;
		if (ph.p_type == 0x6474e554) {	/* PT_GNU_SFRAME */
			*off = ph.p_offset;
			*size = ph.p_filesz;
			ret = 0;
		}
	}
out:
	close(fd);
	return ret;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	close(in);
	close(out);
	return n;
}

/* Rounds within the harness's 30 s under TCG on a 2-core host */
#define UMOUNT_ROUNDS	5

/*
 * The registry's reference to an executable's file ends with the process:
 * once waitpid() has returned, the file system that the program ran from,
 * and whose .sframe the child's own sample had the kernel discover, can
 * be unmounted, round after round (no EBUSY while an RCU grace period or
 * a delayed fput() is pending).  The PIE build only, with the library it
 * needs beside it.
 */
TEST(umount_after_exit)
{
	char dir[] = "/tmp/sft-umount-XXXXXX", exe[64], lib[64], self[PATH_MAX];
	int i, status, ret = 0, mounted = 0;
	ssize_t len;
	pid_t pid;

	len = readlink("/proc/self/exe", self, sizeof(self) - 32);
	ASSERT_LT(0, len);
	self[len] = '\0';
	if (strcmp(strrchr(self, '/'), "/sframe_unwind"))
		SKIP(return, "run by the PIE build only");
	strcpy(strrchr(self, '/') + 1, "libsft_start.so");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(exe, sizeof(exe), "%s/sframe_unwind", dir);
	snprintf(lib, sizeof(lib), "%s/libsft_start.so", dir);
	for (i = 0; i < UMOUNT_ROUNDS; i++) {
		ret = mount("sft", dir, "tmpfs", 0, "size=64m");
		if (ret) {
			TH_LOG("mount tmpfs: %s", strerror(errno));
			break;
		}
		mounted = 1;
		ret = copy_file("/proc/self/exe", exe) ?: copy_file(self, lib);
		if (ret) {
			TH_LOG("copy to %s failed", dir);
			break;
		}
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			execl(exe, "sframe_unwind", "--exec-child", NULL);
			_exit(2);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
		ret = umount(dir);
		if (ret) {
			TH_LOG("round %d: umount %s: %s", i, dir,
			       strerror(errno));
			break;
		}
		mounted = 0;
	}
	if (mounted)
		umount2(dir, MNT_DETACH);
	rmdir(dir);
	EXPECT_EQ(0, ret);
}

/* Lines of the kernel log since @fd was opened that contain @what */
static int kmsg_count(int fd, const char *what)
{
	char buf[2048];
	int n = 0;
	ssize_t l;

	while ((l = read(fd, buf, sizeof(buf) - 1)) > 0 || errno == EPIPE) {
		if (l <= 0)
			continue;
		buf[l] = 0;
		if (strstr(buf, what))
			n++;
	}
	return n;
}

TEST(corrupt_section)
{
	char dir[PATH_MAX], lib[PATH_MAX + 32], line[PATH_MAX + 256];
	static const char * const exp[] = { "sft_leaf", NULL };
	static const char bad[] = "\xba\xad";
	unsigned long ts, te, ss;
	char want[128], *trace, *p;
	struct chain c;
	size_t size;
	off_t off;
	void *h;
	int kmsg, fd, n;

	/* A copy of libsft_a.so whose .sframe has a bad magic */
	snprintf(dir, sizeof(dir), "%s", self_path());
	*strrchr(dir, '/') = 0;
	snprintf(lib, sizeof(lib), "/tmp/libsft_corrupt_%d.so", getpid());
	snprintf(line, sizeof(line), "%s/libsft_a.so", dir);
	ASSERT_LT(0, copy_file(line, lib) + 1);
	ASSERT_EQ(0, sframe_of_file(lib, &off, &size));
	fd = open(lib, O_WRONLY);
	ASSERT_EQ(2, pwrite(fd, bad, 2, off));
	close(fd);

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, kmsg);
	lseek(kmsg, 0, SEEK_END);
	ASSERT_EQ(0, trace_start("sframe_corrupt"));

	h = dl_sample(_metadata, lib, &c);
	ASSERT_NE(NULL, h);
	/* The executable's frames are still unwound; the library falls back */
	ASSERT_EQ(0, chain_check(_metadata, &c, exp, false));
	ASSERT_EQ(0, sample(sft_dl, 1, &c));
	ASSERT_EQ(0, proc_line(strrchr(lib, '/'), line, sizeof(line)));
	TH_LOG("%s", line);
	ASSERT_NE(NULL, strstr(line, " bad "));
	n = sscanf(line, "%lx-%lx %*s %*s %lx-", &ts, &te, &ss);
	ASSERT_EQ(3, n);
	/* One message for the section, however often it is used */
	ASSERT_EQ(1, kmsg_count(kmsg, strrchr(lib, '/') + 1));
	close(kmsg);

	/* One sframe_corrupt event */
	trace = trace_stop();
	ASSERT_NE(NULL, trace);
	snprintf(want, sizeof(want),
		 "sframe_corrupt: text=%lx sframe=%lx reason=bad magic", ts, ss);
	EXPECT_NE(NULL, (p = strstr(trace, want)));
	EXPECT_EQ(NULL, p ? strstr(p + 1, "sframe_corrupt:") : NULL);
	free(trace);
	dlclose(h);
	unlink(lib);
}

TEST(tracepoints)
{
	char line[PATH_MAX + 256], want[128], *trace;
	unsigned long ts, te;
	struct chain c;
	void *h;
	int n;

	ASSERT_EQ(0, trace_start(""));
	h = dl_sample(_metadata, "libsft_a.so", &c);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, proc_line("/libsft_a.so", line, sizeof(line)));
	n = sscanf(line, "%lx-%lx", &ts, &te);
	ASSERT_EQ(2, n);
	dlclose(h);
	trace = trace_stop();
	ASSERT_NE(NULL, trace);

	/* Discovered at the first unwind, dropped at dlclose() */
	snprintf(want, sizeof(want), "sframe_register: text=%lx-%lx sframe=",
		 ts, te);
	EXPECT_NE(NULL, strstr(trace, want));
	/* Or shared, if another process maps the library */
	EXPECT_TRUE(strstr(trace, " discovered") || strstr(trace, " shared"));
	snprintf(want, sizeof(want), "sframe_unregister: text=%lx-%lx", ts, te);
	EXPECT_NE(NULL, strstr(trace, want));
	free(trace);
}

/*
 * The line of @trace that starts with @want, as "how" it was registered
 * (its last word) in @how; -1 if there is none
 */
static int trace_how(const char *trace, const char *want, char *how,
		     size_t len)
{
	const char *p = strstr(trace, want), *end, *word;

	if (!p)
		return -1;
	end = strchrnul(p, '\n');
	for (word = end; word > p && word[-1] != ' '; word--)
		;
	snprintf(how, len, "%.*s", (int)(end - word), word);
	return 0;
}

/*
 * A library mapped by two processes: the second one's mapping takes the
 * image of the section that the check of the first one's made (its
 * sframe_register event says "shared"), at its own address, and unwinds
 * through it exactly
 */
TEST(library_image_shared)
{
	static const char * const exp[] = { "sft_leaf", "dl_inner", "dl_call",
					    "sft_dl", "sample", NULL };
	char line[PATH_MAX + 256], want[128], how[32], *trace, ok = 0;
	int ready[2], done[2], n;
	unsigned long ts, te;
	struct chain c;
	pid_t pid;
	void *h;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		h = dl_sample(_metadata, "libsft_a.so", &c);
		ok = h && !chain_check(_metadata, &c, exp, true) ? 'y' : 'n';
		if (write(ready[1], &ok, 1) != 1 || read(done[0], &ok, 1) < 0)
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &ok, 1));
	ASSERT_EQ('y', ok) TH_LOG("the first process's chain");

	ASSERT_EQ(0, trace_start("sframe_register"));
	h = dl_sample(_metadata, "libsft_a.so", &c);
	trace = trace_stop();
	ASSERT_EQ(1, write(done[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	ASSERT_NE(NULL, h);
	ASSERT_NE(NULL, trace);
	ASSERT_EQ(0, chain_check(_metadata, &c, exp, true));
	ASSERT_EQ(0, proc_line("/libsft_a.so", line, sizeof(line)));
	TH_LOG("%s", line);
	n = sscanf(line, "%lx-%lx", &ts, &te);
	ASSERT_EQ(2, n);
	EXPECT_NE(NULL, strstr(line, " ok "));
	snprintf(want, sizeof(want), "sframe_register: text=%lx-%lx sframe=",
		 ts, te);
	ASSERT_EQ(0, trace_how(trace, want, how, sizeof(how)))
		TH_LOG("no sframe_register event for %lx-%lx", ts, te);
	EXPECT_STREQ("shared", how);
	free(trace);
	dlclose(h);
}
#endif /* !SFT_STATIC */

TEST(sysctl_off_uses_frame_pointers)
{
	/*
	 * fp3 is sampled in a leaf without a frame: FP loses fp3.  On s390x
	 * sft_leaf has a frame without a back chain, sft_fpr_leaf none.
	 */
#ifdef SFT_FPR_LEAF_ASM
	static const char * const exp[] = { "sft_fpr_leaf", "fp2", "fp1",
					    "sample", NULL };
#else
	static const char * const exp[] = { "sft_leaf", "fp2", "fp1",
					    "sample", NULL };
#endif
	struct chain c;
	int ret;

	/* The sysctl is the whole system's: back on before any check */
	ASSERT_EQ(0, sft_write_sysctl("0"));
#ifdef SFT_FPR_LEAF_ASM
	leaf_ptr = sft_fpr_leaf;
#endif
	ret = sample(fp1, 1, &c);
	leaf_ptr = sft_leaf;
	ASSERT_EQ(0, sft_write_sysctl("1"));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, chain_check(_metadata, &c, exp, false));
	EXPECT_CHAIN(fp1, 1, "sft_leaf", "fp3", "fp2", "fp1", "sample");
}

TEST(procfs)
{
	char line[PATH_MAX + 256], state[16], how[16], path[PATH_MAX];
	unsigned long ts, te, ss, se, fdes, lookups, failures;
	unsigned int version;
	struct chain c;
	int n;

	ASSERT_EQ(0, sample(f1, 1, &c));
	ASSERT_EQ(0, proc_line(self_path(), line, sizeof(line)));
	TH_LOG("%s", line);
	n = sscanf(line, "%lx-%lx %15s %15s %lx-%lx v%u %lu %lu %lu %s",
		   &ts, &te, state, how, &ss, &se, &version, &fdes, &lookups,
		   &failures, path);
	ASSERT_EQ(11, n);
	ASSERT_STREQ("ok", state);
	ASSERT_STREQ("elf", how);
	ASSERT_STREQ(self_path(), path);
	ASSERT_LE(ts, (unsigned long)f1);
	ASSERT_GT(te, (unsigned long)f1);
	ASSERT_EQ(3, version);
	ASSERT_LT(10, fdes);
	ASSERT_LE(5, lookups);
}

/* ---- a signal handler on the stack ---- */

/* Written by the handler during sig_raise()'s system call ("memory") */
static struct chain sig_chain;
static int sig_ret;

static void sig_handler(int sig)
{
	struct chain c;

	sig_ret = sample(f3, 1, &c);
	memcpy(&sig_chain, &c, sizeof(c));
}

SFT_NOINLINE long sig_raise(long x)
{
	long ret;

	ret = sft_syscall2(SYS_kill, getpid(), SIGUSR1);
	return x + ret;
}

SFT_NOINLINE long sig_f2(long x)
{
	return sig_raise(x) + 1;
}

SFT_NOINLINE long sig_f1(long x)
{
	return sig_f2(x) + 1;
}

/*
 * Call @fn, whose chain raises the signal, with the handler installed:
 * 0 if the handler's sample succeeded with the chain @exp, to main
 */
static int sig_run(struct __test_metadata *_metadata, long (*fn)(long),
		   const char * const *exp)
{
	memset(&sig_chain, 0, sizeof(sig_chain));
	sig_ret = -1;
	fn(1);
	if (sig_ret) {
		TH_LOG("the handler's sample failed: %d", sig_ret);
		return -1;
	}
	return chain_check(_metadata, &sig_chain, exp, true);
}

TEST(signal_handler)
{
	static const char * const exp[] = {
		"sft_leaf", "f3", "sample", "sig_handler", "*", "sig_raise",
		"sig_f2", "sig_f1", NULL };

	ASSERT_NE(SIG_ERR, signal(SIGUSR1, sig_handler));
	ASSERT_EQ(0, sig_run(_metadata, sig_f1, exp));
}

/*
 * The same on an alternate signal stack (SA_ONSTACK), anywhere in memory
 * relative to the interrupted code's stack
 */
TEST(signal_altstack)
{
	static const char * const exp[] = {
		"sft_leaf", "f3", "sample", "sig_handler", "*", "sig_raise",
		"sig_f2", "sig_f1", NULL };
	const size_t size = 256 * 1024;	/* SVE and SME state included */
	struct sigaction sa = { .sa_handler = sig_handler,
				.sa_flags = SA_ONSTACK };
	stack_t ss = { .ss_size = size }, old;

	ss.ss_sp = mmap(NULL, size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ss.ss_sp);
	ASSERT_EQ(0, sigaltstack(&ss, &old));
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, sig_run(_metadata, sig_f1, exp));
	ASSERT_EQ(0, sigaltstack(&old, NULL));
	munmap(ss.ss_sp, size);
}

/*
 * A signal that interrupts a leaf: sig_leaf() makes its system call
 * inline and calls nothing, so that -O2 -fomit-frame-pointer gives it no
 * frame of its own and its return address is still where the call left
 * it (in LR on arm64, at the stack pointer on x86-64).  The unwinder
 * must take it from the registers the signal frame saved, not from a
 * frame record.
 */
static long sig_pid;

SFT_NOINLINE long sig_leaf(long x)
{
	return x + sft_syscall2(SYS_kill, sig_pid, SIGUSR1);
}

SFT_NOINLINE long sig_leaf_f2(long x)
{
	return sig_leaf(x) + 1;
}

SFT_NOINLINE long sig_leaf_f1(long x)
{
	return sig_leaf_f2(x) + 1;
}

TEST(signal_frameless_leaf)
{
	static const char * const exp[] = {
		"sft_leaf", "f3", "sample", "sig_handler", "*", "sig_leaf",
		"sig_leaf_f2", "sig_leaf_f1", NULL };

	sig_pid = getpid();
	ASSERT_NE(SIG_ERR, signal(SIGUSR1, sig_handler));
	ASSERT_EQ(0, sig_run(_metadata, sig_leaf_f1, exp));
}

/*
 * A handler installed with SA_SIGINFO: on s390x, the rt_sigframe and the
 * vDSO's __kernel_rt_sigreturn, where handlers without it get the
 * old-style sigframe and __kernel_sigreturn; the same frame elsewhere.
 */
static void sig_info_handler(int sig, siginfo_t *si, void *uc)
{
	struct chain c;

	sig_ret = sample(f3, 1, &c);
	memcpy(&sig_chain, &c, sizeof(c));
}

TEST(signal_siginfo)
{
	static const char * const exp[] = {
		"sft_leaf", "f3", "sample", "sig_info_handler", "*",
		"sig_raise", "sig_f2", "sig_f1", NULL };
	struct sigaction sa = { .sa_sigaction = sig_info_handler,
				.sa_flags = SA_SIGINFO };

	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, sig_run(_metadata, sig_f1, exp));
	ASSERT_NE(SIG_ERR, signal(SIGUSR1, SIG_DFL));
}

/*
 * A restorer of the program's own (SA_RESTORER, with rt_sigaction()
 * itself): the handler returns into sft_restorer, which the unwinder
 * recognises by its instructions wherever it is, as it does libc's
 * __restore_rt (x86-64) and the vDSO's __kernel_rt_sigreturn (arm64).
 * On s390x, whose handlers without SA_SIGINFO get an old-style signal
 * frame, it is the sigreturn system call.
 */
#ifndef SA_RESTORER
#define SA_RESTORER	0x04000000
#endif

asm(SFT_RESTORER_ASM);

/* The kernel's struct sigaction of x86-64, arm64 and s390x */
struct sft_kernel_sigaction {
	void (*handler)(int sig);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

TEST(signal_own_restorer)
{
	static const char * const exp[] = {
		"sft_leaf", "f3", "sample", "sig_handler", "sft_restorer",
		"sig_raise", "sig_f2", "sig_f1", NULL };
	struct sft_kernel_sigaction ksa = {
		.handler = sig_handler,
		.flags = SA_RESTORER,
		.restorer = sft_restorer,
	};

	ASSERT_EQ(0, syscall(SYS_rt_sigaction, SIGUSR1, &ksa, NULL,
			     sizeof(ksa.mask)));
	ASSERT_EQ(0, sig_run(_metadata, sig_f1, exp));
	ASSERT_NE(SIG_ERR, signal(SIGUSR1, SIG_DFL));
}

/* ---- the vDSO ---- */

#ifndef SFT_STATIC	/* the vDSO is found with dlopen() */

#if defined(__x86_64__)
#define SFT_VDSO_CLOCK_GETTIME	"__vdso_clock_gettime"
#else
#define SFT_VDSO_CLOCK_GETTIME	"__kernel_clock_gettime"
#endif

static int (*vdso_clock_gettime)(clockid_t clk, struct timespec *ts);

/* A clock the vDSO leaves to the kernel: its fallback system call */
SFT_NOINLINE long vdso_call(long x)
{
	struct timespec ts;

	return vdso_clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) + x;
}

/*
 * A sample taken at a system call that the vDSO itself makes: the vDSO's
 * frames (one or more, in the kernel-built image's .sframe section, which
 * the kernel finds in its own copy of the image) and then the caller.
 */
TEST(vdso)
{
	static const char * const exp[] = { "vdso_call", "sample", NULL };
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR), end = 0, lo, hi;
	char line[PATH_MAX + 256];
	struct chain c, rest;
	void *h;
	FILE *f;
	int i;

	ASSERT_NE(0, vdso);
	h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	ASSERT_NE(NULL, h) TH_LOG("the vDSO is not a loaded object: %s", dlerror());
	vdso_clock_gettime = dlsym(h, SFT_VDSO_CLOCK_GETTIME);
	ASSERT_NE(NULL, vdso_clock_gettime);
	/* The vDSO's text, from the image's start */
	f = fopen("/proc/self/maps", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == vdso)
			end = hi;
	fclose(f);
	ASSERT_LT(vdso, end);

	sft_sample_event = "sys_enter_clock_gettime";
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, sample(vdso_call, 1, &c));
		ASSERT_LT(0, c.nr);
		ASSERT_LE(vdso, c.ip[0]) chain_log(_metadata, &c);
		ASSERT_GT(end, c.ip[0]) chain_log(_metadata, &c);
		/* Past the vDSO's frames, the caller: exact */
		for (rest.nr = 0; rest.nr < c.nr &&
		     c.ip[rest.nr] >= vdso && c.ip[rest.nr] < end; rest.nr++)
			;
		memcpy(rest.ip, c.ip + rest.nr, (c.nr - rest.nr) * sizeof(c.ip[0]));
		rest.nr = c.nr - rest.nr;
		ASSERT_EQ(0, chain_check(_metadata, &rest, exp, true))
			chain_log(_metadata, &c);
	}
	sft_sample_event = "sys_enter_getppid";
	/* Found through the kernel's image: a usable section, [vdso] */
	ASSERT_EQ(0, proc_range(vdso, line, sizeof(line)));
	EXPECT_EQ(0, strncmp(line + strcspn(line, " "), " ok      elf ", 13))
		TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "[vdso]")) TH_LOG("%s", line);
	dlclose(h);
}

#endif /* !SFT_STATIC */

/* ---- explicit registration: a JIT code buffer and its section ---- */

long (*jit_fn)(long x, long (*leaf)(long));

SFT_NOINLINE long sft_jit(long x)
{
	return jit_fn(x, sft_leaf) + 1;
}

TEST(registration_api)
{
	size_t page = getpagesize(), len;
	struct prctl_sframe a = {}, b, c;
	unsigned char *text, *sec, abi;
	char line[256], *trace;
	struct chain ch;
	void *moved;

	text = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sec = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, text);
	ASSERT_NE(MAP_FAILED, sec);
	memcpy(text, jit_code, sizeof(jit_code));
	len = build_sframe(sec, (unsigned long)sec, (unsigned long)text);
	jit_fn = (void *)text;

	a.text_start = (unsigned long)text;
	a.text_len = sizeof(jit_code);
	a.sframe_start = (unsigned long)sec;
	a.sframe_len = len;

	/* Text that is not executable yet */
	EXPECT_EQ(EINVAL, sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a)));
	ASSERT_EQ(0, mprotect(text, page, PROT_READ | PROT_EXEC));

	/* Bad arguments */
	EXPECT_EQ(EINVAL, sframe_prctl(PR_SFRAME_REGISTER, &a, 32));
	b = a;
	b.flags = 1;
	EXPECT_EQ(EINVAL, sframe_prctl(PR_SFRAME_REGISTER, &b, sizeof(b)));
	b = a;
	b.sframe_len = 0;
	EXPECT_EQ(EINVAL, sframe_prctl(PR_SFRAME_REGISTER, &b, sizeof(b)));
	EXPECT_EQ(EINVAL, sframe_prctl(99, &a, sizeof(a)));
	b = a;
	b.sframe_start = 4096;		/* unmapped */
	EXPECT_EQ(EFAULT, sframe_prctl(PR_SFRAME_REGISTER, &b, sizeof(b)));
	sec[0] ^= 0xff;			/* bad magic */
	EXPECT_EQ(EINVAL, sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a)));
	sec[0] ^= 0xff;
	/*
	 * A valid section of another architecture: s390x (abi_arch 4), on
	 * s390x AArch64 (2), whose headers need nothing the native
	 * sections lack
	 */
	abi = sec[4];
	sec[4] = SFT_ABI == 4 ? 2 : 4;
	EXPECT_EQ(EINVAL, sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a)));
	sec[4] = abi;

	/*
	 * An unwind through the code before it is registered notes it as
	 * text without a section; the registration replaces that note.
	 */
	ASSERT_EQ(0, sample(sft_jit, 1, &ch));
	ASSERT_EQ(0, proc_range(a.text_start, line, sizeof(line)));
	EXPECT_EQ(0, strncmp(line + strcspn(line, " "), " none    elf ", 13));

	/* Register, twice, unwind through the JIT code, unregister */
	ASSERT_EQ(0, sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a)));
	ASSERT_EQ(0, proc_range(a.text_start, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " ok      prctl "));
	EXPECT_EQ(EEXIST, sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a)));
	/*
	 * A section that cannot be read is a fault, not corruption: the
	 * next unwind, with the section readable again, uses it.
	 */
	ASSERT_EQ(0, trace_start(""));
	ASSERT_EQ(0, mprotect(sec, page, PROT_NONE));
	ASSERT_EQ(0, sample(sft_jit, 1, &ch));
	ASSERT_EQ(0, mprotect(sec, page, PROT_READ | PROT_WRITE));
	trace = trace_stop();
	ASSERT_NE(NULL, trace);
	EXPECT_LE(1, trace_errors(trace, a.text_start,
				  a.text_start + a.text_len, -EFAULT));
	EXPECT_EQ(NULL, strstr(trace, "sframe_corrupt:"));
	free(trace);

	EXPECT_CHAIN(sft_jit, 1, "sft_leaf", "!", "sft_jit", "sample");

	b = (struct prctl_sframe){ .text_start = a.text_start };
	EXPECT_EQ(0, sframe_prctl(PR_SFRAME_UNREGISTER, &b, sizeof(b)));
	EXPECT_EQ(ENOENT, sframe_prctl(PR_SFRAME_UNREGISTER, &b, sizeof(b)));

	/* mprotect() removing PROT_EXEC drops a registration */
	ASSERT_EQ(0, sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a)));
	ASSERT_EQ(0, mprotect(text, page, PROT_READ));
	EXPECT_EQ(ENOENT, sframe_prctl(PR_SFRAME_UNREGISTER, &b, sizeof(b)));
	ASSERT_EQ(0, mprotect(text, page, PROT_READ | PROT_EXEC));

	/* So does mremap(): neither the old nor the new range has it */
	ASSERT_EQ(0, sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a)));
	moved = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, moved);
	moved = mremap(text, page, page, MREMAP_MAYMOVE | MREMAP_FIXED, moved);
	ASSERT_NE(MAP_FAILED, moved);
	EXPECT_EQ(ENOENT, sframe_prctl(PR_SFRAME_UNREGISTER, &b, sizeof(b)));
	c = (struct prctl_sframe){ .text_start = (unsigned long)moved };
	EXPECT_EQ(ENOENT, sframe_prctl(PR_SFRAME_UNREGISTER, &c, sizeof(c)));
	ASSERT_EQ(text, mremap(moved, page, page,
			       MREMAP_MAYMOVE | MREMAP_FIXED, text));

	/* And munmap() */
	ASSERT_EQ(0, sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a)));
	munmap(text, page);
	EXPECT_EQ(ENOENT, sframe_prctl(PR_SFRAME_UNREGISTER, &b, sizeof(b)));
	munmap(sec, page);
}

/* A JIT code buffer with its hand-built section, registered */
struct jit {
	unsigned char *text, *sec;
	struct prctl_sframe a;
};

static int jit_setup(struct jit *j, int madvice)
{
	size_t page = getpagesize();

	j->text = mmap(NULL, page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	j->sec = mmap(NULL, page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (j->text == MAP_FAILED || j->sec == MAP_FAILED)
		return -1;
	if (madvice && madvise(j->text, page, madvice))
		return -1;
	memcpy(j->text, jit_code, sizeof(jit_code));
	if (mprotect(j->text, page, PROT_READ | PROT_EXEC))
		return -1;
	jit_fn = (void *)j->text;
	j->a = (struct prctl_sframe){
		.text_start	= (unsigned long)j->text,
		.text_len	= sizeof(jit_code),
		.sframe_start	= (unsigned long)j->sec,
		.sframe_len	= build_sframe(j->sec, (unsigned long)j->sec,
					       (unsigned long)j->text),
	};
	return sframe_prctl(PR_SFRAME_REGISTER, &j->a, sizeof(j->a));
}

static void jit_teardown(struct jit *j)
{
	munmap(j->text, getpagesize());
	munmap(j->sec, getpagesize());
}

/* Run @child in a child process; its exit status */
static int in_child(int (*child)(struct jit *), struct jit *j)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(child(j));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int child_jit_chain(struct jit *j)
{
	static const char * const exp[] = { "sft_leaf", "!", "sft_jit",
					    "sample", NULL };
	struct __test_metadata m = {};
	char line[256];
	struct chain c;

	/* The child has the registration without registering or unwinding */
	if (proc_range(j->a.text_start, line, sizeof(line)) ||
	    !strstr(line, " ok      prctl "))
		return 2;
	if (sample(sft_jit, 1, &c))
		return 3;
	return chain_check(&m, &c, exp, true) ? 4 : 0;
}

/* fork() copies an explicit registration: the child unwinds through it */
TEST(fork_registration)
{
	struct jit j;

	ASSERT_EQ(0, jit_setup(&j, 0));
	EXPECT_EQ(0, in_child(child_jit_chain, &j));
	jit_teardown(&j);
}

static int child_dontfork(struct jit *j)
{
	char line[256];

	/* The text was not copied: neither is its registration */
	return proc_range(j->a.text_start, line, sizeof(line)) ? 0 : 2;
}

/* ... but not for text that fork() does not copy (MADV_DONTFORK) */
TEST(dontfork_registration)
{
	struct jit j;

	ASSERT_EQ(0, jit_setup(&j, MADV_DONTFORK));
	EXPECT_EQ(0, in_child(child_dontfork, &j));
	jit_teardown(&j);
}

/*
 * A section found corrupt by a lookup (not at registration, so also with
 * CONFIG_UNWIND_USER_SFRAME_DEBUG): one sframe_corrupt event naming the
 * reason, the entry marked bad, and the unwind goes on without it.
 */
static void corrupt_at_lookup(struct __test_metadata *_metadata,
			      size_t off, const void *bytes, size_t len,
			      const char *reason)
{
	static const char * const exp[] = { "sft_leaf", NULL };
	char line[256], want[160], *trace, *p;
	struct chain c;
	struct jit j;

	ASSERT_EQ(0, jit_setup(&j, 0));
	memcpy(j.sec + off, bytes, len);
	ASSERT_EQ(0, trace_start("sframe_corrupt"));
	ASSERT_EQ(0, sample(sft_jit, 1, &c));
	ASSERT_EQ(0, chain_check(_metadata, &c, exp, false));
	ASSERT_EQ(0, sample(sft_jit, 2, &c));
	trace = trace_stop();
	ASSERT_NE(NULL, trace);
	snprintf(want, sizeof(want),
		 "sframe_corrupt: text=%lx sframe=%lx reason=%s",
		 (unsigned long)j.text, (unsigned long)j.sec, reason);
	EXPECT_NE(NULL, (p = strstr(trace, want)));
	EXPECT_EQ(NULL, p ? strstr(p + 1, "sframe_corrupt:") : NULL);
	if (!p)
		TH_LOG("trace: %s", trace);
	free(trace);
	ASSERT_EQ(0, proc_range(j.a.text_start, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " bad     prctl "));
	jit_teardown(&j);
}

/* The FRE covering the call's return address starts like the first one */
TEST(corrupt_fre_at_lookup)
{
	corrupt_at_lookup(_metadata, 48 + 3, "\0", 1,
			  "FRE starts not increasing");
}

/* A function claiming 2^31 FREs: refused before any FRE is read */
TEST(fre_limit_at_lookup)
{
	corrupt_at_lookup(_metadata, 28 + 12, &(uint32_t){1U << 31}, 4,
			  "too many FREs in a function");
}

/*
 * Frame pointer code in anonymous executable memory that no section
 * describes (a JIT that keeps frame pointers, jit_fp_code): its outer
 * and inner functions both keep frame records, inner calls the leaf.
 * The chain through it must be what frame pointers give, in the event
 * and deferred, from the first sample on.
 */
long (*jit_fp_fn)(long x, long (*leaf)(long));

SFT_NOINLINE long sft_jit_fp(long x)
{
	return jit_fp_fn(x, sft_leaf) + 1;
}

TEST(jit_frame_pointers)
{
	/*
	 * On arm64 a frame record may be anywhere in its frame: past the
	 * JIT code, the stack pointer of sft_jit_fp, which keeps no frame
	 * record, is not known, and the rest of the chain is what frame
	 * pointers give, as without SFrame
	 */
	static const char * const exp[] = { "sft_leaf", "!", "!",
		"sft_jit_fp", SFT_FP_SP_EXACT ? "sample" : NULL, NULL };
	const bool to_main = SFT_FP_SP_EXACT;
	size_t page = getpagesize();
	unsigned char *text;
	char line[256];
	struct chain c;
	int defer;

	for (defer = 0; defer <= 1; defer++) {
		text = mmap(NULL, page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, text);
		memcpy(text, jit_fp_code, sizeof(jit_fp_code));
		ASSERT_EQ(0, mprotect(text, page, PROT_READ | PROT_EXEC));
		jit_fp_fn = (void *)text;
		/* Warm up this executable's own sections */
		EXPECT_CHAIN(f1, 1, "sft_leaf", "f3", "f2", "f1", "sample");
		sample_nodefer = !defer;
		ASSERT_EQ(0, sample(sft_jit_fp, 1, &c));
		/*
		 * Past main, the first sample in the event may, as stock
		 * frame pointers do, take a stack word for a return address
		 * (without_deferral): the second must not
		 */
		ASSERT_EQ(0, chain_check(_metadata, &c, exp, defer && to_main));
		EXPECT_EQ((unsigned long)text + SFT_JIT_FP_RA_INNER, c.ip[1]);
		EXPECT_EQ((unsigned long)text + SFT_JIT_FP_RA_OUTER, c.ip[2]);
		/*
		 * Again: the code is known as text without a section now,
		 * and not looked up again
		 */
		ASSERT_EQ(0, proc_range((unsigned long)text, line,
					sizeof(line)));
		EXPECT_EQ(0, strncmp(line + strcspn(line, " "),
				     " none    elf ", 13));
		ASSERT_EQ(0, sample(sft_jit_fp, 2, &c));
		ASSERT_EQ(0, chain_check(_metadata, &c, exp, to_main));
		sample_nodefer = false;
		munmap(text, page);
	}
}

/*
 * A V2 section with one function of one byte at @text, for the text range
 * [@text, @text + 1): what a JIT registering many tiny ranges does.
 */
static size_t build_sframe_1(unsigned char *sec, unsigned long text)
{
	int32_t start = text - (unsigned long)sec - 28;
	unsigned char *p = sec;

	memcpy(p, &(uint16_t){0xdee2}, 2); p += 2;	/* magic */
	*p++ = 2; *p++ = 0x05;
	*p++ = SFT_ABI; *p++ = 0; *p++ = (unsigned char)SFT_FIXED_RA; *p++ = 0;
	memcpy(p, &(uint32_t){1}, 4); p += 4;		/* num_fdes */
	memcpy(p, &(uint32_t){1}, 4); p += 4;		/* num_fres */
	memcpy(p, &(uint32_t){3}, 4); p += 4;		/* FRE bytes */
	memcpy(p, &(uint32_t){0}, 4); p += 4;		/* FDE offset */
	memcpy(p, &(uint32_t){20}, 4); p += 4;		/* FRE offset */
	memcpy(p, &start, 4); p += 4;
	memcpy(p, &(uint32_t){1}, 4); p += 4;		/* function size */
	memcpy(p, &(uint32_t){0}, 4); p += 4;
	memcpy(p, &(uint32_t){1}, 4); p += 4;		/* FRE count */
	*p++ = 0; *p++ = 0; *p++ = 0; *p++ = 0;
	*p++ = 0; *p++ = 0x03; *p++ = SFT_CFA(SFT_SLED_CFA);	/* CFA = SP + ... */
	return p - sec;
}

#define SFRAME_MAX_EXPLICIT	4096	/* Documentation/userspace-api/sframe.rst */

/*
 * Registrations are limited per process (ENOSPC past the limit), and
 * /proc/<pid>/sframe lists them all, however long the file gets.
 */
TEST(registration_limit)
{
	const size_t page = getpagesize(), one = 64;
	const int n = SFRAME_MAX_EXPLICIT + 1;
	struct prctl_sframe a, b;
	unsigned char *text, *sec;
	char line[256];
	int i, lines = 0;
	FILE *f;

	text = mmap(NULL, 2 * page, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sec = mmap(NULL, n * one, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, text);
	ASSERT_NE(MAP_FAILED, sec);
	for (i = 0; i < n; i++) {
		a = (struct prctl_sframe){
			.text_start	= (unsigned long)text + i,
			.text_len	= 1,
			.sframe_start	= (unsigned long)sec + i * one,
			.sframe_len	= build_sframe_1(sec + i * one,
							 (unsigned long)text + i),
		};
		ASSERT_EQ(i < n - 1 ? 0 : ENOSPC,
			  sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a)))
			TH_LOG("registration %d", i);
	}

	f = fopen("/proc/self/sframe", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " prctl "))
			lines++;
	fclose(f);
	EXPECT_EQ(n - 1, lines);

	/* One unregistered, one more fits */
	b = (struct prctl_sframe){ .text_start = (unsigned long)text };
	EXPECT_EQ(0, sframe_prctl(PR_SFRAME_UNREGISTER, &b, sizeof(b)));
	EXPECT_EQ(0, sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a)));
	EXPECT_EQ(ENOSPC, sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a)));
	munmap(text, 2 * page);
	munmap(sec, n * one);
}

/*
 * /proc/<pid>/sframe shows the address space the process had when the
 * file was opened: read after an execve(), it shows nothing, not the new
 * image's sections.
 */
TEST(procfs_opened_before_exec)
{
	char fd[16];
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		int f = open("/proc/self/sframe", O_RDONLY);

		snprintf(fd, sizeof(fd), "%d", f);
		execl("/proc/self/exe", "sframe_unwind", "--procfs-fd-child",
		      fd, NULL);
		_exit(2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/* The hostile section (SFT_HOSTILE_SLED in sft_sframe.h) */
#define HOSTILE_SLED	SFT_HOSTILE_SLED
#define HOSTILE_FRES	(HOSTILE_SLED / SFT_HOSTILE_STEP + SFT_JIT_NFRES)
#define HOSTILE_DEPTH	SFT_HOSTILE_DEPTH
#define HOSTILE_RB	64

long (*hostile_fn)(long x, long (*leaf)(long));

/* Alternate with the hostile function HOSTILE_DEPTH times, then spin */
SFT_NOINLINE long hostile_leaf(long x)
{
	if (x <= 0)
		for (;;)
			asm volatile("");
	return hostile_fn(x - 1, hostile_leaf) + 1;
}

/* The child of hostile_section_sampling: set up, say so, spin */
static void hostile_child(int ready)
{
	void *fn;
	int err = sft_jit_map(HOSTILE_SLED, SFT_HOSTILE_STEP, &fn);

	if (err)
		_exit(err < 0 ? 1 : 2);
	hostile_fn = fn;
	if (write(ready, "r", 1) != 1)
		_exit(1);
	hostile_leaf(HOSTILE_DEPTH);
	_exit(3);
}

/* What cpu_clock_samples() saw */
struct sample_count {
	long samples;		/* PERF_RECORD_SAMPLE records */
	long in_event;		/* with a user chain in the sample */
	long deferred;		/* with PERF_CONTEXT_USER_DEFERRED instead */
	long records;		/* PERF_RECORD_CALLCHAIN_DEFERRED records */
};

/* Count sample record @rec (header, pid and tid, nr, ips) in @c */
static void count_sample(const __u64 *rec, __u64 words,
			 struct sample_count *c)
{
	__u64 i;

	c->samples++;
	for (i = 0; words >= 3 && i < rec[2] && 3 + i < words; i++) {
		if (rec[3 + i] == PERF_CONTEXT_USER_DEFERRED) {
			c->deferred++;
			return;
		}
		if (rec[3 + i] == PERF_CONTEXT_USER && 4 + i < words &&
		    i + 1 < rec[2] && rec[4 + i] < PERF_CONTEXT_MAX) {
			c->in_event++;
			return;
		}
	}
}

/*
 * Sample @pid's CPU clock at 1 kHz over @ms milliseconds, with user
 * callchains in the event (perf -g) or deferred (fp,defer), into @c.
 * Return the number of samples, or -1 on error.
 */
static long cpu_clock_samples(pid_t pid, int defer, int ms,
			      struct sample_count *c)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = 1000,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN,
		.exclude_callchain_kernel = 1,
		.defer_callchain = defer,
		.defer_output = defer,
		.disabled = 1,
	};
	size_t page = getpagesize(), len = (HOSTILE_RB + 1) * page;
	static __u64 rec[512];
	struct perf_event_mmap_page *pg;
	struct timespec t0, t;
	long elapsed;
	__u64 head, tail;
	char *data;
	int fd, stop = 0;

	memset(c, 0, sizeof(*c));
	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
	if (fd < 0)
		return -1;
	pg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		close(fd);
		return -1;
	}
	data = (char *)pg + page;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	do {
		usleep(10000);
		clock_gettime(CLOCK_MONOTONIC, &t);
		elapsed = (t.tv_sec - t0.tv_sec) * 1000 +
			  (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (elapsed >= ms && !stop++)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		for (tail = pg->data_tail; tail < head;) {
			struct perf_event_header h;
			size_t o = tail % pg->data_size, k;

			for (k = 0; k < sizeof(h); k++)
				((char *)&h)[k] = data[(o + k) % pg->data_size];
			if (h.size < sizeof(h))
				break;
			tail += h.size;
			if (h.type == PERF_RECORD_CALLCHAIN_DEFERRED)
				c->records++;
			if (h.type != PERF_RECORD_SAMPLE)
				continue;
			for (k = 0; k < h.size && k < sizeof(rec); k++)
				((char *)rec)[k] = data[(o + k) % pg->data_size];
			count_sample(rec, k / 8, c);
		}
		__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	} while (stop < 2);
	munmap(pg, len);
	close(fd);
	return c->samples;
}

/* Samples of @pid as cpu_clock_samples() takes them; -1 on error */
static long hostile_samples(pid_t pid, int defer, int ms)
{
	struct sample_count c;

	return cpu_clock_samples(pid, defer, ms, &c);
}

/*
 * The FREs that the lookups of @trace's sframe_lookup events read, in the
 * event (@where " event ") or at the return to user space (" task ")
 */
static long trace_fres(const char *trace, const char *where)
{
	const char *p = trace, *eol;
	unsigned int fres;
	long sum = 0;

	while ((p = strstr(p, "sframe_lookup: pc="))) {
		eol = strchrnul(p, '\n');
		if (sscanf(p, "sframe_lookup: pc=%*x fres=%u", &fres) == 1 &&
		    memmem(p, eol - p, where, strlen(where)))
			sum += fres;
		p = eol;
	}
	return sum;
}

/*
 * FREs that the lookups of the hostile test may read in all, in the event
 * or at the return to user space, whatever the number of samples: those
 * of the first walks, before the PCs' rules are in the rule cache.  A walk
 * in the event reads a lookup past its budget (SFRAME_FDE_MAX_FRES), two
 * of the hostile function's; the samples taken while the first repair at
 * the return to user space fills the cache read theirs too (one to four
 * walks in the debug VMs of x86-64 and arm64, up to nine on s390x, whose
 * emulation is slowest).  Without the cache, each of the second's ~1,000
 * samples reads them: some 2,000,000.
 */
#define HOSTILE_FRES_BOUND	(50 * HOSTILE_FRES)

/*
 * The samples without SFrame over those with it, at most: a sanity check
 * only.  With SFrame every sample walks the whole 101-frame stack (its
 * rules from the cache), where frame pointers stop after a frame or two
 * in this code: in the debug VMs under TCG, -g kept 95-98 % of the
 * samples on x86-64 (KASAN), 92-100 % on arm64, 24-46 % on s390x.
 */
#define HOSTILE_SANITY		6

/*
 * A process spinning on a stack of return addresses into the hostile
 * function (every other frame), sampled at 1 kHz with user chains in the
 * event (-g) and deferred (fp,defer).  The work of the unwinds is
 * bounded: the FREs read by all the lookups of the second of sampling
 * (the sframe_lookup tracepoint) are those of a few walks, as the rule
 * cache keeps the rules of the hostile PCs once the first walks have
 * found them, also when only walks in the event (-g) look them up.  As a
 * sanity check, the process gets at least a sixth of the samples it gets
 * with kernel.sframe_unwind=0 (HOSTILE_SANITY).
 */
TEST(hostile_section_sampling)
{
	static const char * const mode[] = { "-g", "fp,defer" };
	long off, on, event, task;
	int p[2], defer, status;
	char c, filter[64];
	char *trace;
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(p[0]);
		hostile_child(p[1]);
	}
	close(p[1]);
	ASSERT_EQ(1, read(p[0], &c, 1));
	close(p[0]);
	usleep(100000);
	snprintf(filter, sizeof(filter), "common_pid == %d", pid);
	for (defer = 0; defer <= 1; defer++) {
		ASSERT_EQ(0, sft_write_sysctl("0"));
		off = hostile_samples(pid, defer, 1000);
		ASSERT_EQ(0, sft_write_sysctl("1"));
		ASSERT_EQ(0, tracefs_write("events/sframe/sframe_lookup/filter",
					   filter));
		ASSERT_EQ(0, trace_start("sframe_lookup"));
		on = hostile_samples(pid, defer, 1000);
		trace = trace_stop();
		tracefs_write("events/sframe/sframe_lookup/filter", "0");
		ASSERT_NE(NULL, trace);
		event = trace_fres(trace, " event ");
		task = trace_fres(trace, " task ");
		free(trace);
		TH_LOG("%s: %ld samples with SFrame, %ld without", mode[defer],
		       on, off);
		TH_LOG("%s: FREs read %ld in the event, %ld at the return to user space",
		       mode[defer], event, task);
		EXPECT_LE(event, HOSTILE_FRES_BOUND);
		EXPECT_LE(task, HOSTILE_FRES_BOUND);
		EXPECT_LE(100, off);
		EXPECT_LE(off, HOSTILE_SANITY * on);
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
}

/* The path of sframe_compat32, next to this program; 0 if it is there */
static int compat32_path(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 32);

	if (n <= 0)
		return -1;
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "sframe_compat32");
	return access(path, X_OK);
}

/*
 * 32-bit tasks never use SFrame: their registration is refused with
 * EINVAL before its arguments are read (sframe_compat32 passes an
 * unmapped pointer, for which a 64-bit task gets EFAULT).
 */
TEST(compat_prctl)
{
	char path[PATH_MAX];
	int status;
	pid_t pid;

	ASSERT_EQ(-1, prctl(PR_SFRAME, PR_SFRAME_REGISTER, 0x1000UL,
			    sizeof(struct prctl_sframe), 0));
	ASSERT_EQ(EFAULT, errno);

	if (compat32_path(path, sizeof(path)))
		SKIP(return, "no 32-bit test program (no compiler for it)");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execl(path, "sframe_compat32", NULL);
		_exit(errno == ENOEXEC ? 254 : 255);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 254)
		SKIP(return, "no 32-bit support (CONFIG_IA32_EMULATION, CONFIG_COMPAT)");
	ASSERT_NE(255, WEXITSTATUS(status)) TH_LOG("cannot run %s", path);
	EXPECT_EQ(EINVAL, WEXITSTATUS(status));
}

/*
 * A 32-bit task sampled with deferred user callchains (fp,defer): arm64's
 * unwinder cannot walk AArch32, so no deferred request is made and every
 * sample carries its chain in the event, as without deferral; x86-64
 * walks ia32 frame pointers at the return to user, as stock 7.2 does.
 */
TEST(compat_samples)
{
	struct sample_count c;
	char path[PATH_MAX];
	int p[2], status, err;
	ssize_t n;
	pid_t pid;

	if (compat32_path(path, sizeof(path)))
		SKIP(return, "no 32-bit test program (no compiler for it)");
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fcntl(p[1], F_SETFD, FD_CLOEXEC);
		execl(path, "sframe_compat32", "spin", NULL);
		err = errno;
		if (write(p[1], &err, sizeof(err)) != sizeof(err))
			_exit(255);
		_exit(254);
	}
	close(p[1]);
	/* Nothing (end of file) when the exec succeeded, else its errno */
	n = read(p[0], &err, sizeof(err));
	close(p[0]);
	if (n) {
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_EQ((ssize_t)sizeof(err), n);
		if (err == ENOEXEC)
			SKIP(return, "no 32-bit support (CONFIG_IA32_EMULATION, CONFIG_COMPAT)");
		ASSERT_EQ(0, err) TH_LOG("cannot run %s", path);
	}
	usleep(100000);
	/* Any number will do, the kinds of chain are the point */
	EXPECT_LE(20, cpu_clock_samples(pid, 1, 1000, &c));
	TH_LOG("%ld samples: %ld with the chain in the event, %ld deferred, %ld deferred records",
	       c.samples, c.in_event, c.deferred, c.records);
#if defined(__aarch64__)
	EXPECT_EQ(c.samples, c.in_event);
	EXPECT_EQ(0, c.deferred);
	EXPECT_EQ(0, c.records);
#else
	EXPECT_EQ(c.samples, c.deferred);
	EXPECT_LE(1, c.records);
#endif
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
}

/* Run by procfs_opened_before_exec in the new image */
static int procfs_fd_child(int fd)
{
	char buf[4096], line[PATH_MAX + 256];
	struct chain c;
	ssize_t n;

	/* The new image has sections of its own... */
	if (fd < 0 || sample(f1, 1, &c) ||
	    proc_line(self_path(), line, sizeof(line)))
		return 3;
	/* ...which the file opened by the old image does not show */
	n = read(fd, buf, sizeof(buf));
	return n == 0 ? 0 : 4;
}

/* Run by the exec test in a fresh image */
SFT_NOINLINE int exec_child(void)
{
	static const char * const exp[] = { "sft_leaf", "f3", "f2", "f1",
					    "sample", "exec_child", "main",
					    NULL };
	struct __test_metadata m = {};
	struct chain c;

	if (sample(f1, 1, &c))
		return 1;
	return chain_check(&m, &c, exp, true) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--exec-child"))
		exit(exec_child());	/* a call, not a tail call: main stays */
	if (argc > 2 && !strcmp(argv[1], "--procfs-fd-child"))
		exit(procfs_fd_child(atoi(argv[2])));
	return test_harness_run(argc, argv);
}
