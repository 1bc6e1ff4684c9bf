// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-profile: sample a command's user and kernel stacks with a BPF
 * program on cpu-clock, with the user stack taken in the event
 * (bpf_get_stack(BPF_F_USER_STACK)) or deferred to the return to user
 * space (bpf_unwind_user_deferred()), and print the samples in the shape
 * of `perf script -F ip,sym,dso`, or folded for flame graphs.
 * Symbols come from elfutils' libdwfl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
"Usage: sframe-profile [--deferred|--in-event] [-F HZ] [--folded] -- CMD [ARGS...]\n"
"\n"
"Run CMD and sample it (all its threads, from its exec on) on cpu-clock\n"
"at HZ samples per second (default 999) with a BPF program.  When CMD\n"
"exits, print each sample as a block of lines, innermost frame first, a\n"
"blank line between samples, as `perf script -F ip,sym,dso` does:\n"
"\n"
"\t<hex ip> <symbol>+<hex offset> (<object path>)\n"
"\n"
"Kernel frames come first, as ([kernel.kallsyms]).\n"
"\n"
"  --deferred   the user stack is unwound when the task returns to user\n"
"               space (bpf_unwind_user_deferred(), the default): SFrame\n"
"               with page faults allowed, frame pointers elsewhere\n"
"  --in-event   the user stack is unwound in the sample\n"
"               (bpf_get_stack(BPF_F_USER_STACK)): SFrame where its pages\n"
"               are resident, frame pointers elsewhere\n"
"  -F HZ        samples per second and CPU\n"
"  --folded     print folded stacks (comm;outermost;...;innermost COUNT)\n"
"               for flame graphs instead of samples\n"
"  -h, --help   this text\n"
"\n"
"Needs root (CAP_BPF and CAP_PERFMON), a kernel with BTF\n"
"(CONFIG_DEBUG_INFO_BTF) and, for --deferred,\n"
"CONFIG_BPF_UNWIND_USER_DEFERRED.  A summary goes to stderr.\n";

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("sframe-profile: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- what the ring buffers deliver ---- */

struct stack {
	__u64 cookie;
	__u32 nr;
	__u64 *ips;
};

static struct sp_sample *samples;
static size_t nsamples, samples_cap;
static struct stack *stacks;
static size_t nstacks, stacks_cap;
static __u64 stacks_lost;

static int on_sample(void *ctx, void *data, size_t size)
{
	if (size < sizeof(struct sp_sample))
		return 0;
	if (nsamples == samples_cap) {
		samples_cap = samples_cap ? 2 * samples_cap : 4096;
		samples = realloc(samples, samples_cap * sizeof(*samples));
		if (!samples)
			die("out of memory");
	}
	memcpy(&samples[nsamples++], data, sizeof(struct sp_sample));
	return 0;
}

static int on_stack(void *ctx, void *data, size_t size)
{
	const struct sp_record *r = data;
	struct stack *s;

	if (size < sizeof(*r) || size < sizeof(*r) + (size_t)r->nr * 8)
		return 0;
	stacks_lost += r->lost;
	if (nstacks == stacks_cap) {
		stacks_cap = stacks_cap ? 2 * stacks_cap : 4096;
		stacks = realloc(stacks, stacks_cap * sizeof(*stacks));
		if (!stacks)
			die("out of memory");
	}
	s = &stacks[nstacks++];
	s->cookie = r->cookie;
	s->nr = r->nr;
	s->ips = malloc(r->nr * 8 + 1);
	if (!s->ips)
		die("out of memory");
	memcpy(s->ips, r->ips, r->nr * 8);
	return 0;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct stack *x = a, *y = b;

	return x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

static const struct stack *stack_of(__u64 cookie)
{
	struct stack key = { .cookie = cookie };

	return bsearch(&key, stacks, nstacks, sizeof(*stacks), cmp_stack);
}

/* ---- the process's mappings, kept while it lives ---- */

static char *maps;		/* the last /proc/PID/maps read */
static size_t maps_len;

static void read_maps(pid_t pid)
{
	char path[64], *buf = NULL;
	size_t len = 0;
	FILE *f, *out;
	int c;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	out = open_memstream(&buf, &len);
	if (!out) {
		fclose(f);
		return;
	}
	while ((c = getc(f)) != EOF)
		putc(c, out);
	fclose(f);
	fclose(out);
	if (len) {
		free(maps);
		maps = buf;
		maps_len = len;
	} else {
		free(buf);
	}
}

/* ---- symbols ---- */

static struct Dwfl *dwfl;

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static void dwfl_setup(pid_t pid)
{
	FILE *f;

	dwfl = dwfl_begin(&dwfl_callbacks);
	if (!dwfl || !maps)
		return;
	f = fmemopen(maps, maps_len, "r");
	if (!f)
		return;
	dwfl_report_begin(dwfl);
	dwfl_linux_proc_maps_report(dwfl, f);
	dwfl_report_end(dwfl, NULL, NULL);
	fclose(f);
}

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
	size_t lo = 0, hi = nksyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ksyms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*off = ip - ksyms[lo - 1].addr;
	return ksyms[lo - 1].name;
}

static const char *usym(__u64 ip, __u64 *off, const char **object)
{
	Dwfl_Module *m = dwfl ? dwfl_addrmodule(dwfl, ip) : NULL;
	GElf_Off offset = 0;
	const char *name;
	GElf_Sym sym;

	*object = "[unknown]";
	if (!m)
		return NULL;
	dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, object, NULL);
	if (!*object)
		*object = "[unknown]";
	name = dwfl_module_addrinfo(m, ip, &offset, &sym, NULL, NULL, NULL);
	*off = offset;
	return name;
}

/* ---- output ---- */

static void print_sample(const struct sp_sample *s, const __u64 *uips,
			 int unr)
{
	const char *name, *object;
	__u64 off = 0;
	int i;

	for (i = 0; i < s->knr / 8; i++) {
		name = ksym(s->kstack[i], &off);
		printf("\t%16llx %s+0x%llx ([kernel.kallsyms])\n",
		       (unsigned long long)s->kstack[i],
		       name ? name : "[unknown]", (unsigned long long)off);
	}
	for (i = 0; i < unr; i++) {
		name = usym(uips[i], &off, &object);
		if (name)
			printf("\t%16llx %s+0x%llx (%s)\n",
			       (unsigned long long)uips[i], name,
			       (unsigned long long)off, object);
		else
			printf("\t%16llx [unknown] (%s)\n",
			       (unsigned long long)uips[i], object);
	}
	printf("\n");
}

struct folded {
	char *stack;
	unsigned long count;
};

static struct folded *folds;
static size_t nfolds, folds_cap;

static void fold_sample(const char *comm, const struct sp_sample *s,
			const __u64 *uips, int unr)
{
	const char *name, *object;
	char *buf = NULL;
	size_t len = 0, i;
	__u64 off;
	FILE *f = open_memstream(&buf, &len);
	int j;

	if (!f)
		die("out of memory");
	fputs(comm, f);
	for (j = unr - 1; j >= 0; j--) {
		name = usym(uips[j], &off, &object);
		fprintf(f, ";%s", name ? name : "[unknown]");
	}
	for (j = s->knr / 8 - 1; j >= 0; j--) {
		name = ksym(s->kstack[j], &off);
		fprintf(f, ";%s_[k]", name ? name : "[unknown]");
	}
	fclose(f);
	for (i = 0; i < nfolds; i++)
		if (!strcmp(folds[i].stack, buf)) {
			folds[i].count++;
			free(buf);
			return;
		}
	if (nfolds == folds_cap) {
		folds_cap = folds_cap ? 2 * folds_cap : 256;
		folds = realloc(folds, folds_cap * sizeof(*folds));
		if (!folds)
			die("out of memory");
	}
	folds[nfolds].stack = buf;
	folds[nfolds++].count = 1;
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

static void check_kernel(bool deferred)
{
	struct btf *btf;

	if (geteuid() != 0)
		die("must run as root (needs CAP_BPF and CAP_PERFMON)");
	btf = btf__load_vmlinux_btf();
	if (!btf)
		die("the kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)");
	if (deferred && btf__find_by_name_kind(btf, "bpf_unwind_user_deferred",
					       BTF_KIND_FUNC) < 0)
		die("the kernel has no bpf_unwind_user_deferred() %s",
		    "(CONFIG_BPF_UNWIND_USER_DEFERRED); try --in-event");
	btf__free(btf);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "deferred", no_argument, NULL, 'd' },
		{ "in-event", no_argument, NULL, 'e' },
		{ "folded", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool deferred = true, folded = false;
	struct sframe_profile *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	size_t i, complete = 0, missing = 0, failed = 0, unmatched = 0;
	int first_err = 0;
	int hz = 999, c, go[2], status;
	const char *comm;
	char ch = 0;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "+F:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			deferred = true;
			break;
		case 'e':
			deferred = false;
			break;
		case 'f':
			folded = true;
			break;
		case 'F':
			hz = atoi(optarg);
			if (hz <= 0)
				die("-F needs a positive rate");
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs(usage, stderr);
		return 2;
	}
	check_kernel(deferred);
	comm = strrchr(argv[optind], '/');
	comm = comm ? comm + 1 : argv[optind];

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
		fprintf(stderr, "sframe-profile: %s: %s\n", argv[optind],
			strerror(errno));
		_exit(127);
	}
	close(go[0]);

	skel = sframe_profile__open_and_load();
	if (!skel)
		die("loading the BPF program: %s", strerror(errno));
	skel->bss->target_tgid = pid;
	skel->bss->deferred = deferred;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.samples), on_sample,
			      NULL, NULL);
	if (!rb || ring_buffer__add(rb, bpf_map__fd(skel->maps.stacks),
				    on_stack, NULL))
		die("ring buffers: %s", strerror(errno));
	if (!open_sampler(skel, hz, &links))
		die("no CPU to sample on");
	/* Samples count from the exec on */
	skel->links.on_exec = bpf_program__attach(skel->progs.on_exec);
	if (!skel->links.on_exec)
		die("attaching to sched_process_exec: %s", strerror(errno));
	ksyms_load();

	if (write(go[1], &ch, 1) != 1)
		die("starting %s: %s", argv[optind], strerror(errno));
	close(go[1]);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		read_maps(pid);
		ring_buffer__poll(rb, 50);
	}
	for (c = 0; c < libbpf_num_possible_cpus(); c++)
		bpf_link__destroy(links[c]);
	ring_buffer__consume(rb);

	qsort(stacks, nstacks, sizeof(*stacks), cmp_stack);
	dwfl_setup(pid);
	for (i = 0; i < nsamples; i++) {
		const struct sp_sample *s = &samples[i];
		const __u64 *uips = s->ustack;
		int unr = s->unr > 0 ? s->unr / 8 : 0;

		if (deferred) {
			const struct stack *st = s->defer_ret ? NULL :
						 stack_of(s->cookie);

			uips = st ? st->ips : NULL;
			unr = st ? st->nr : 0;
			if (s->defer_ret) {
				failed++;
				first_err = first_err ?: s->defer_ret;
			} else if (!st) {
				unmatched++;
			}
		}
		if (unr)
			complete++;
		else
			missing++;
		if (folded)
			fold_sample(comm, s, uips, unr);
		else
			print_sample(s, uips, unr);
	}
	for (i = 0; i < nfolds; i++)
		printf("%s %lu\n", folds[i].stack, folds[i].count);
	fprintf(stderr,
		"sframe-profile: %zu samples (%s), %zu with a user stack, %zu without; %llu samples and %llu stacks lost (ring buffer full); %s exited %d\n",
		nsamples, deferred ? "deferred" : "in the event", complete,
		missing, (unsigned long long)skel->bss->lost,
		(unsigned long long)stacks_lost, comm,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	if (deferred)
		fprintf(stderr,
			"sframe-profile: %zu requests failed (first: %s), %zu stacks not delivered (task exited or exec'd)\n",
			failed, first_err ? strerror(-first_err) : "none", unmatched);
	ring_buffer__free(rb);
	sframe_profile__destroy(skel);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
