// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-store: fill the kernel's store of SFrame sections, for the ELF
 * objects that ship no .sframe section, so that the kernel's SFrame user
 * unwinder finds a section for them in every process that maps them.
 *
 *   sframe-store [-v|-q] add PATH...       objects given by path
 *   sframe-store [-v|-q] add --running     every object mapped executable
 *                                          by a running process
 *   sframe-store list                      what the store holds
 *   sframe-store [-v|-q] remove BUILD-ID...|PATH...|--all
 *   sframe-store [-v|-q] watch [--running]  add the objects that the
 *                                          kernel finds without a section
 *                                          as processes are unwound
 *
 * Each object's section is generated here, in this process, from its
 * .eh_frame (or .debug_frame) with the generator of sframe-gen
 * (sframe_gen.h), and handed to the kernel with prctl(PR_SFRAME,
 * PR_SFRAME_STORE_ADD), which needs CAP_PERFMON.  The kernel finds it
 * again for a mapping by the object's identity: its build ID, the size of
 * its file and the span of its executable PT_LOAD segments, all read
 * here from the object's headers the way the kernel reads them, so that
 * what is added is what the kernel looks up.  Objects with PT_GNU_SFRAME,
 * without a build ID, or of an architecture other than this program's
 * are skipped: the kernel never looks them up in the store.
 *
 * With --running, the objects are those of the executable file mappings
 * listed in /proc/PID/maps, opened through /proc/PID/map_files (the very
 * file mapped, in whatever mount namespace, even deleted), or else
 * through /proc/PID/root, and each file is read once.
 *
 * watch follows the tracepoint sframe:sframe_missing (sframe_watch.c):
 * the kernel emits it when it first unwinds through a mapping of a file
 * that has neither PT_GNU_SFRAME nor a section in the store, with the
 * mapping, the process and the file's device and inode.  The object is
 * opened through that process's map_files, as with --running, and added;
 * each file is read once, failures included, until sframe-store exits.
 * Objects that nothing unwinds are never read.  If notices were lost (a
 * ring buffer full), every running process's objects are looked at once.
 *
 * SFRAME_STORE_DRY_RUN=1 in the environment (for testing) does everything
 * but the prctl() calls, and prints what would be added.
 *
 * Exit status: 0 if every object was stored, already stored or skipped for
 * a reason the kernel would not use it anyway, or watch was stopped by
 * SIGINT or SIGTERM; 1 if an object failed, or watch cannot read the
 * tracepoint; 2 on a usage error; 3 if the kernel has no store; 4 without
 * the privilege.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/array_size.h>
#include <linux/compiler_attributes.h>

#include "sframe_gen.h"
#include "sframe_watch.h"

#define SFS_VERSION		"1.0"

#ifndef PR_SFRAME
#define PR_SFRAME		82
#endif
#ifndef PR_SFRAME_STORE_ADD
#define PR_SFRAME_STORE_ADD	3
#define PR_SFRAME_STORE_REMOVE	4
#define PR_SFRAME_STORE_ALL	1
#endif

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

#define STORE_PROC		"/proc/sframe_store"

/*
 * What the kernel reads of an object (kernel/unwind/sframe_discover.c):
 * at most this many program headers, the first 4 KiB of each PT_NOTE for
 * the build ID, and build IDs of 1 to 20 bytes
 */
#define MAX_PHNUM		128
#define MAX_NOTES		4096
#define BUILD_ID_MAX		20
#define NT_BUILD_ID		3

/* This program's architecture: the kernel stores sections for its own */
#if defined(__x86_64__)
#define HOST_MACHINE		EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE		EM_AARCH64
#elif defined(__s390x__)
#define HOST_MACHINE		EM_S390
#else
#error "sframe-store: an architecture without SFrame"
#endif

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_DATA		ELFDATA2MSB
#else
#define HOST_DATA		ELFDATA2LSB
#endif

/* Exit statuses */
enum {
	EXIT_OK,
	EXIT_FAIL,
	EXIT_USAGE,
	EXIT_NO_STORE,
	EXIT_PERM,
};

/* The uapi struct prctl_sframe_store (include/uapi/linux/prctl.h) */
struct sfs_args {
	uint64_t	sframe;
	uint64_t	sframe_len;
	uint64_t	sframe_addr;
	uint64_t	text_start;
	uint64_t	text_end;
	uint64_t	file_size;
	uint64_t	flags;
	uint32_t	build_id_len;
	uint8_t		build_id[BUILD_ID_MAX];
};

static_assert(sizeof(struct sfs_args) == 80, "PRCTL_SFRAME_STORE_SIZE_VER0");

/* The identity of an object, by which the kernel finds its section */
struct ident {
	uint64_t	size;
	uint64_t	text_start;
	uint64_t	text_end;
	uint32_t	build_id_len;
	uint8_t		build_id[BUILD_ID_MAX];
};

/* What the headers of an object say */
struct probe {
	struct ident	id;
	bool		elf;		/* an ELF file */
	bool		native;		/* of this program's kind */
	bool		phdrs;		/* program headers the kernel reads */
	bool		sframe;		/* has PT_GNU_SFRAME */
	bool		text;		/* has executable PT_LOAD segments */
};

/* A set of pairs of numbers (device and inode), open addressing */
struct pairs {
	uint64_t	*k;		/* 2 per slot; a slot of 0, 0 is free */
	size_t		n, cap;
};

/* The result of an object, as counted in the summary */
enum result {
	R_STORED,
	R_HAD,
	R_SKIPPED,
	R_FAILED,
};

static bool verbose, quiet, dry_run, progress, watching;
/* Set by SIGINT or SIGTERM; read after each wait, a function call */
static sig_atomic_t stop;
static unsigned long counts[R_FAILED + 1];
static size_t done, total;		/* progress: objects done, known */
static bool progress_shown;

/* The files read (device, inode), each once */
static struct pairs files;

/* Identities added or found stored, so as not to generate them again */
static struct ident *known;
static size_t nknown, known_cap;

static void print_help(FILE *f)
{
	fprintf(f,
		"usage: sframe-store [-v|-q] add PATH...\n"
		"       sframe-store [-v|-q] add --running\n"
		"       sframe-store list\n"
		"       sframe-store [-v|-q] remove BUILD-ID...|PATH...|--all\n"
		"       sframe-store [-v|-q] watch [--running]\n"
		"Generate SFrame V3 sections from the .eh_frame/.debug_frame of ELF\n"
		"objects that have no .sframe and hand them to the kernel's store,\n"
		"which unwinds every process that maps them through them; see\n"
		"sframe-store(8).  Needs CAP_PERFMON (list: root).\n"
		"  add PATH...      the objects PATH\n"
		"  add --running    the objects mapped executable by every process\n"
		"  list             the sections in the store\n"
		"  remove ID...     the sections of build ID ID (hex)\n"
		"  remove PATH...   the section of the object PATH\n"
		"  remove --all     every section\n"
		"  watch            add each object that the kernel finds without\n"
		"                   SFrame as it unwinds processes, until SIGINT\n"
		"                   or SIGTERM (tracepoint sframe:sframe_missing)\n"
		"  watch --running  the objects of every process first\n"
		"  -v               a line per object\n"
		"  -q               failures only\n"
		"  --version        print the version\n"
		"  -h, --help       this text\n"
		"Exit status: 0 done (watch: stopped by a signal), 1 an object\n"
		"failed (watch: no tracepoint), 2 usage, 3 no store in this\n"
		"kernel, 4 no privilege.\n");
}

/* Clear the progress line, if shown, before a message */
static void progress_clear(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		progress_shown = false;
	}
}

/* "[n/N] PATH", PATH cut to its last 60 characters */
static void progress_show(const char *name)
{
	size_t len = strlen(name);

	if (!progress)
		return;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s%s", done + 1, total,
		len > 60 ? "..." : "", len > 60 ? name + len - 57 : name);
	progress_shown = true;
}

/* A message on stderr: "sframe-store: " and @fmt's text */
static __printf(1, 2) void msg(const char *fmt, ...)
{
	va_list ap;

	progress_clear();
	fputs("sframe-store: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		msg("out of memory");
		exit(EXIT_FAIL);
	}
	return p;
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ULL)) * 0xbf58476d1ce4e5b9ULL;

	return h ^ (h >> 31);
}

/* Whether (@a, @b) is in @s; if not and @add, add it */
static bool pairs_has(struct pairs *s, uint64_t a, uint64_t b, bool add)
{
	size_t i;

	/* The free slot's value, 0, 0, is kept as 0, 1: no device 0 has inode 0 */
	if (!a && !b)
		b = 1;
	if (add && 2 * (s->n + 1) > s->cap) {
		struct pairs old = *s;

		s->cap = s->cap ? 2 * s->cap : 256;
		s->k = calloc(s->cap, 2 * sizeof(*s->k));
		if (!s->k) {
			msg("out of memory");
			exit(EXIT_FAIL);
		}
		s->n = 0;
		for (i = 0; i < old.cap; i++)
			if (old.k[2 * i] || old.k[2 * i + 1])
				pairs_has(s, old.k[2 * i], old.k[2 * i + 1], true);
		free(old.k);
	}
	if (!s->cap)
		return false;
	for (i = mix(a, b) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		uint64_t *k = &s->k[2 * i];

		if (k[0] == a && k[1] == b)
			return true;
		if (!k[0] && !k[1]) {
			if (!add)
				return false;
			k[0] = a;
			k[1] = b;
			s->n++;
			return false;
		}
	}
}

static bool same_ident(const struct ident *x, const struct ident *y)
{
	return x->size == y->size && x->text_start == y->text_start &&
	       x->text_end == y->text_end && x->build_id_len == y->build_id_len &&
	       !memcmp(x->build_id, y->build_id, x->build_id_len);
}

static bool is_known(const struct ident *id)
{
	size_t i;

	for (i = 0; i < nknown; i++)
		if (same_ident(&known[i], id))
			return true;
	return false;
}

static void add_known(const struct ident *id)
{
	if (nknown == known_cap) {
		known_cap = known_cap ? 2 * known_cap : 64;
		known = xrealloc(known, known_cap * sizeof(*known));
	}
	known[nknown++] = *id;
}

static void hex(char *buf, const uint8_t *p, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		sprintf(buf + 2 * i, "%02x", p[i]);
	buf[2 * len] = 0;
}

/* Parse @s, 2 to 40 hex digits, an even number, into @id: its length or 0 */
static unsigned int parse_build_id(const char *s, uint8_t *id)
{
	size_t i, len = strlen(s);

	if (len < 2 || len > 2 * BUILD_ID_MAX || len % 2)
		return 0;
	for (i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	for (i = 0; i < len / 2; i++) {
		char b[3] = { s[2 * i], s[2 * i + 1], 0 };

		id[i] = strtoul(b, NULL, 16);
	}
	return len / 2;
}

/*
 * The build ID of an object in its PT_NOTE @data of @size bytes, as the
 * kernel reads it: the first NT_GNU_BUILD_ID note of "GNU" of 1 to 20
 * bytes, notes 4-byte aligned
 */
static void note_build_id(const uint8_t *data, size_t size, struct ident *id)
{
	size_t at = 0, name, desc;
	uint32_t n[3];

	while (size - at >= sizeof(n)) {
		memcpy(n, data + at, sizeof(n));
		name = ((size_t)n[0] + 3) & ~(size_t)3;
		desc = ((size_t)n[1] + 3) & ~(size_t)3;
		at += sizeof(n);
		if (name > size - at || desc > size - at - name)
			return;
		if (n[2] == NT_BUILD_ID && n[0] == 4 &&
		    !memcmp(data + at, "GNU", 4) && n[1] &&
		    n[1] <= BUILD_ID_MAX) {
			memcpy(id->build_id, data + at + name, n[1]);
			id->build_id_len = n[1];
			return;
		}
		at += name + desc;
	}
}

/*
 * Read the headers of the object open at @fd, of status @st, into @p: its
 * identity and what decides whether the kernel looks it up in the store.
 * Return 0, or -1 if they cannot be read.
 */
static int probe(int fd, const struct stat *st, struct probe *p)
{
	GElf_Ehdr eh;
	size_t i, n;
	Elf *elf;

	memset(p, 0, sizeof(*p));
	p->id.size = st->st_size;
	p->id.text_start = UINT64_MAX;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -1;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		elf_end(elf);
		return 0;
	}
	p->elf = true;
	p->native = eh.e_ident[EI_CLASS] == ELFCLASS64 &&
		    eh.e_ident[EI_DATA] == HOST_DATA &&
		    eh.e_machine == HOST_MACHINE;
	if (elf_getphdrnum(elf, &n))
		n = 0;
	p->phdrs = !n || (n <= MAX_PHNUM && eh.e_phentsize == sizeof(Elf64_Phdr));
	if (!p->phdrs)
		n = 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, i, &ph))
			continue;
		if (ph.p_type == PT_GNU_SFRAME)
			p->sframe = true;
		if (ph.p_type == PT_NOTE && !p->id.build_id_len &&
		    ph.p_filesz && ph.p_filesz <= MAX_NOTES) {
			d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
						 ELF_T_BYTE);
			if (d && d->d_buf && d->d_size == ph.p_filesz)
				note_build_id(d->d_buf, d->d_size, &p->id);
		}
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			continue;
		if (ph.p_vaddr < p->id.text_start)
			p->id.text_start = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > p->id.text_end)
			p->id.text_end = ph.p_vaddr + ph.p_memsz;
	}
	p->text = p->id.text_start < p->id.text_end;
	if (!p->text) {
		p->id.text_start = 0;
		p->id.text_end = 0;
	}
	elf_end(elf);
	return 0;
}

/*
 * Count result @r of the object @name, and say it: always for a failure,
 * with -v for the others
 */
static __printf(3, 4) void result(enum result r, const char *name, const char *fmt, ...)
{
	va_list ap;

	counts[r]++;
	if (r != R_FAILED && !verbose && (r != R_STORED || !watching || quiet))
		return;
	progress_clear();
	fprintf(stderr, "sframe-store: %s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Count a skip, and say why: with -v, and without -q if @loud */
static void note_skip(const char *name, bool loud, const char *why)
{
	counts[R_SKIPPED]++;
	if (!verbose && (quiet || !loud))
		return;
	progress_clear();
	fprintf(stderr, "sframe-store: %s: skipped: %s\n", name, why);
}

static int do_prctl(int op, struct sfs_args *a)
{
	return prctl(PR_SFRAME, op, (unsigned long)a, sizeof(*a), 0) ? errno : 0;
}

static __noreturn void no_privilege(void)
{
	progress_clear();
	msg("the store needs CAP_PERFMON or root");
	exit(EXIT_PERM);
}

/*
 * Generate the section of the object @name, open at @fd, and add it to
 * the store.  @loud: say why it is skipped without -v (a path asked for);
 * else one of the objects found running, for which an object that is no
 * ELF file is skipped rather than failed.
 */
static void add_fd(const char *name, int fd, bool loud)
{
	struct sfs_args a = { 0 };
	char fdpath[64], err[512], id[2 * BUILD_ID_MAX + 1];
	const char *why;
	struct sfg_obj o;
	struct stat st;
	struct probe p;
	uint8_t *sec;
	size_t size, skip;
	int e;

	if (fstat(fd, &st)) {
		result(R_FAILED, name, "%s", strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		result(R_FAILED, name, "not a regular file");
		return;
	}
	if (probe(fd, &st, &p)) {
		result(R_FAILED, name, "cannot read: %s", elf_errmsg(-1));
		return;
	}
	if (!p.elf) {
		if (loud)
			result(R_FAILED, name, "not an ELF file");
		else
			note_skip(name, false, "not an ELF file");
		return;
	}
	why = !p.native ? "not a 64-bit object of this architecture" :
	      !p.phdrs ? "program headers the kernel does not read" :
	      p.sframe ? "has .sframe (PT_GNU_SFRAME)" :
	      !p.text ? "no executable segment" :
	      !p.id.build_id_len ? "no build ID of 1 to 20 bytes in its notes" : NULL;
	if (why) {
		note_skip(name, loud, why);
		return;
	}
	hex(id, p.id.build_id, p.id.build_id_len);
	if (is_known(&p.id)) {
		result(R_HAD, name, "already stored (build ID %s)", id);
		return;
	}

	/* Read through this descriptor: the file it opened, whatever its path */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	if (sfg_read(fdpath, &o, err, sizeof(err))) {
		skip = strlen(fdpath);
		why = !strncmp(err, fdpath, skip) && !strncmp(err + skip, ": ", 2) ?
		      err + skip + 2 : err;
		result(R_FAILED, name, "%s", why);
		return;
	}
	if (o.text_start != p.id.text_start || o.text_end != p.id.text_end ||
	    (uint64_t)o.st.st_size != p.id.size) {
		result(R_FAILED, name, "its headers read differently twice (changed?)");
		sfg_free(&o);
		return;
	}
	if (!o.nrows) {
		sfg_free(&o);
		note_skip(name, loud, "no CFI that SFrame can express");
		return;
	}
	sec = sfg_encode(&o, &size);
	sfg_free(&o);
	if (!sec) {
		result(R_FAILED, name, "out of memory");
		return;
	}

	a.sframe = (uintptr_t)sec;
	a.sframe_len = size;
	a.sframe_addr = 0;	/* sfg_encode(): offsets from address 0 */
	a.text_start = p.id.text_start;
	a.text_end = p.id.text_end;
	a.file_size = p.id.size;
	a.build_id_len = p.id.build_id_len;
	memcpy(a.build_id, p.id.build_id, p.id.build_id_len);

	if (dry_run) {
		progress_clear();
		printf("%s: build ID %s, size %llu, text %llx-%llx, sframe %zu bytes, %lu FDEs\n",
		       name, id, (unsigned long long)a.file_size,
		       (unsigned long long)a.text_start,
		       (unsigned long long)a.text_end, size, o.stats.sframe_fdes);
		fflush(stdout);
		e = 0;
	} else {
		e = do_prctl(PR_SFRAME_STORE_ADD, &a);
	}
	free(sec);
	switch (e) {
	case 0:
		add_known(&p.id);
		result(R_STORED, name, "%s, %lu FDEs, %zu bytes",
		       dry_run ? "would be stored" : "stored",
		       o.stats.sframe_fdes, size);
		break;
	case EEXIST:
		add_known(&p.id);
		result(R_HAD, name, "already stored (build ID %s)", id);
		break;
	case EPERM:
		no_privilege();
		break;
	case EINVAL:
		result(R_FAILED, name,
		       "the kernel refused its section or identity (see the kernel log)");
		break;
	case E2BIG:
		result(R_FAILED, name,
		       "its section of %zu bytes is above kernel.sframe_store_max_kb", size);
		break;
	case ENOSPC:
		result(R_FAILED, name, "the store is full (kernel.sframe_store_max_kb)");
		break;
	default:
		result(R_FAILED, name, "%s", strerror(e));
		break;
	}
}

static void add_path(const char *path)
{
	int fd;

	progress_show(path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		result(R_FAILED, path, "%s", strerror(errno));
	} else {
		add_fd(path, fd, true);
		close(fd);
	}
	done++;
}

/* An object found running, open, and the path of its first mapping */
struct found {
	int	fd;
	char	*name;
};

static void add_found(struct found *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		progress_show(f[i].name);
		add_fd(f[i].name, f[i].fd, false);
		close(f[i].fd);
		free(f[i].name);
		done++;
	}
}

/*
 * Open the object of the mapping [@start, @end) of @pid at @path (as
 * /proc/PID/maps shows it): the very file mapped through map_files, else
 * the path in the process's root.  Return the descriptor, -1 with errno,
 * or -2 for a deleted file that map_files does not open for us.
 */
static int open_mapped(const char *pid, unsigned long start,
		       unsigned long end, const char *path)
{
	static const char del[] = " (deleted)";
	size_t len = strlen(path);
	char p[PATH_MAX + 64];
	int fd;

	snprintf(p, sizeof(p), "/proc/%s/map_files/%lx-%lx", pid, start, end);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || errno == ENOENT)
		return fd;
	if (len >= sizeof(del) - 1 && !strcmp(path + len - sizeof(del) + 1, del))
		return -2;
	snprintf(p, sizeof(p), "/proc/%s/root%s", pid, path);
	return open(p, O_RDONLY | O_CLOEXEC);
}

/* The executable file mappings of every process */
static void add_running(void)
{
	struct pairs maps = { 0 };
	struct found *f = NULL;
	unsigned long unreadable = 0;
	size_t nf = 0, batch;
	struct rlimit rl;
	struct dirent *de;
	char *line = NULL;
	size_t cap = 0;
	DIR *proc;

	/* As many objects open at a time as the limit of descriptors allows */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
			getrlimit(RLIMIT_NOFILE, &rl);
		}
	} else {
		rl.rlim_cur = 1024;
	}
	batch = rl.rlim_cur > 65536 + 64 ? 65536 :
		rl.rlim_cur > 128 ? rl.rlim_cur - 64 : 64;
	f = xrealloc(NULL, batch * sizeof(*f));

	proc = opendir("/proc");
	if (!proc) {
		msg("/proc: %s", strerror(errno));
		counts[R_FAILED]++;
		free(f);
		return;
	}
	while ((de = readdir(proc))) {
		char mp[PATH_MAX];
		FILE *m;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(mp, sizeof(mp), "/proc/%s/maps", de->d_name);
		m = fopen(mp, "re");
		if (!m) {
			if (errno == EACCES || errno == EPERM)
				unreadable++;
			continue;
		}
		while (getline(&line, &cap, m) > 0) {
			unsigned long start, end, ino;
			unsigned int major, minor;
			char perms[5], *path;
			struct stat st;
			int at = 0, fd;

			if (sscanf(line, "%lx-%lx %4s %*x %x:%x %lu %n", &start, &end,
				   perms, &major, &minor, &ino, &at) < 6 || !at ||
			    perms[2] != 'x')
				continue;
			path = line + at;
			path[strcspn(path, "\n")] = 0;
			/* [vdso], [vsyscall], anonymous memory */
			if (path[0] != '/' ||
			    pairs_has(&maps, (uint64_t)major << 32 | minor, ino, false))
				continue;
			fd = open_mapped(de->d_name, start, end, path);
			/* Unmapped since: another process may have it */
			if (fd < 0 && errno == ENOENT)
				continue;
			pairs_has(&maps, (uint64_t)major << 32 | minor, ino, true);
			if (fd == -2) {
				note_skip(path, false,
					  "deleted, and /proc/PID/map_files needs root");
				continue;
			}
			if (fd < 0) {
				result(R_FAILED, path, "%s", strerror(errno));
				continue;
			}
			if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
			    pairs_has(&files, st.st_dev, st.st_ino, true)) {
				close(fd);
				continue;
			}
			f[nf].fd = fd;
			f[nf].name = strdup(path);
			if (!f[nf].name) {
				msg("out of memory");
				exit(EXIT_FAIL);
			}
			nf++;
			total++;
			if (nf == batch) {
				add_found(f, nf);
				nf = 0;
			}
		}
		fclose(m);
	}
	closedir(proc);
	add_found(f, nf);
	free(f);
	free(line);
	free(maps.k);
	if (unreadable && !quiet)
		msg("the mappings of %lu process%s could not be read%s",
		    unreadable, unreadable == 1 ? "" : "es",
		    geteuid() ? " (not root)" : "");
}

/*
 * Read the store's list into the known identities, so that what it holds
 * is not generated again: for root only, as is /proc/sframe_store
 */
static void read_store(void)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	f = fopen(STORE_PROC, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long size, start, end;
		char hexid[2 * BUILD_ID_MAX + 2];
		struct ident id = { 0 };

		if (sscanf(line, "%41s %llu %llx-%llx", hexid, &size, &start,
			   &end) != 4)
			continue;
		id.build_id_len = parse_build_id(hexid, id.build_id);
		if (!id.build_id_len)
			continue;
		id.size = size;
		id.text_start = start;
		id.text_end = end;
		add_known(&id);
	}
	free(line);
	fclose(f);
}

/*
 * Whether this kernel has the store; exit with 3 if it has not, but for a
 * dry run if @dry_ok
 */
static void need_store(bool dry_ok)
{
	struct stat st;

	if (!stat(STORE_PROC, &st))
		return;
	if (dry_run && dry_ok) {
		if (!quiet)
			msg("this kernel has no SFrame store (%s); dry run", STORE_PROC);
		return;
	}
	msg("this kernel has no SFrame store (no %s)", STORE_PROC);
	exit(EXIT_NO_STORE);
}

/*
 * Whether this process may change the store, before generating anything:
 * a removal of no identity, which the kernel refuses with EINVAL after
 * it checked the privilege
 */
static void need_privilege(void)
{
	struct sfs_args a = { 0 };

	if (!dry_run && do_prctl(PR_SFRAME_STORE_REMOVE, &a) == EPERM)
		no_privilege();
}

static void summary(void)
{
	progress_clear();
	if (quiet)
		return;
	fprintf(stderr,
		"sframe-store: %lu object%s %s, %lu already stored, %lu without CFI/skipped, %lu failed\n",
		counts[R_STORED], counts[R_STORED] == 1 ? "" : "s",
		dry_run ? "would be stored" : "stored",
		counts[R_HAD], counts[R_SKIPPED], counts[R_FAILED]);
}

static int cmd_add(int argc, char **argv, bool running)
{
	int i;

	if (argc < 1 && !running)
		return -1;
	need_store(true);
	need_privilege();
	read_store();
	elf_version(EV_CURRENT);
	total = argc;
	for (i = 0; i < argc; i++) {
		struct stat st;

		/* The same file named twice is read once */
		if (!stat(argv[i], &st) && pairs_has(&files, st.st_dev, st.st_ino, true)) {
			total--;
			continue;
		}
		add_path(argv[i]);
	}
	if (running)
		add_running();
	summary();
	return counts[R_FAILED] ? EXIT_FAIL : EXIT_OK;
}

/* The files of the kernel's notices handled, by the device and inode it gave */
static struct pairs notified;

/*
 * The object of notice @ev: the file mapped at ev->start in process
 * ev->pid, found in its maps by the notice's inode, opened through
 * map_files.  A process that exited meanwhile is passed over: the next
 * process that maps the object and is unwound gives another notice.
 */
static void add_notified(const struct sfw_event *ev)
{
	char mp[64], pid[16], *line = NULL;
	bool found = false;
	size_t cap = 0;
	FILE *m;

	if (pairs_has(&notified, ev->dev, ev->ino, false))
		return;
	snprintf(pid, sizeof(pid), "%u", ev->pid);
	snprintf(mp, sizeof(mp), "/proc/%s/maps", pid);
	m = fopen(mp, "re");
	if (!m)
		return;
	while (!found && getline(&line, &cap, m) > 0) {
		unsigned long start, end, ino;
		char perms[5], *path;
		struct stat st;
		int at = 0, fd;

		if (sscanf(line, "%lx-%lx %4s %*x %*x:%*x %lu %n", &start, &end,
			   perms, &ino, &at) < 4 || !at || ino != ev->ino ||
		    ev->start < start || ev->start >= end)
			continue;
		found = true;
		path = line + at;
		path[strcspn(path, "\n")] = 0;
		if (path[0] != '/')
			break;
		fd = open_mapped(pid, start, end, path);
		if (fd < 0)
			break;	/* unmapped since, or deleted */
		pairs_has(&notified, ev->dev, ev->ino, true);
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		    pairs_has(&files, st.st_dev, st.st_ino, true)) {
			close(fd);
			break;
		}
		total++;
		add_fd(path, fd, false);
		close(fd);
		done++;
	}
	free(line);
	fclose(m);
}

static void on_signal(int sig)
{
	stop = sig;
}

/*
 * Add the objects of the kernel's notices as they come, after those of
 * every running process with @running, until SIGINT or SIGTERM
 */
static int cmd_watch(int argc, bool running)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sfw_event ev[64];
	uint64_t lost = 0;
	char err[256];
	struct sfw *w;
	int i, n;

	if (argc)
		return -1;
	need_store(false);
	need_privilege();
	read_store();
	elf_version(EV_CURRENT);
	/* Open before --running: what is found meanwhile is noticed */
	w = sfw_open(err, sizeof(err));
	if (!w) {
		msg("%s", err);
		return EXIT_FAIL;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	progress = false;
	watching = true;
	if (running)
		add_running();
	if (!quiet)
		msg("watching for objects found without SFrame");
	while (!stop) {
		n = sfw_read(w, ev, ARRAY_SIZE(ev), 1000);
		if (n < 0) {
			msg("reading the tracepoint: %s", strerror(errno));
			sfw_close(w);
			return EXIT_FAIL;
		}
		for (i = 0; i < n && !stop; i++)
			add_notified(&ev[i]);
		if (sfw_lost(w) != lost && !stop) {
			msg("%llu notices lost: looking at every running process",
			    (unsigned long long)(sfw_lost(w) - lost));
			lost = sfw_lost(w);
			add_running();
		}
	}
	sfw_close(w);
	summary();
	return EXIT_OK;
}

/* A line of the store's list, for sorting */
static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmd_list(int argc)
{
	char **lines = NULL, *line = NULL;
	size_t n = 0, cap = 0, i;
	FILE *f;

	if (argc)
		return -1;
	need_store(false);
	f = fopen(STORE_PROC, "re");
	if (!f) {
		msg("%s: %s%s", STORE_PROC, strerror(errno),
		    errno == EACCES ? " (root only)" : "");
		return errno == EACCES ? EXIT_PERM : EXIT_FAIL;
	}
	while (getline(&line, &cap, f) > 0) {
		lines = xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = line;
		line = NULL;
		cap = 0;
	}
	free(line);
	fclose(f);
	qsort(lines, n, sizeof(*lines), cmp_line);
	printf("%-40s %10s %-25s %9s %7s %8s\n", "BUILD-ID", "SIZE", "TEXT",
	       "BYTES", "FDES", "MAPPINGS");
	for (i = 0; i < n; i++) {
		char id[41], size[21], text[34], bytes[21], fdes[11], maps[11];

		if (sscanf(lines[i], "%40s %20s %33s %20s %10s %10s", id, size,
			   text, bytes, fdes, maps) == 6)
			printf("%-40s %10s %-25s %9s %7s %8s\n", id, size, text,
			       bytes, fdes, maps);
		else
			fputs(lines[i], stdout);
		free(lines[i]);
	}
	free(lines);
	return EXIT_OK;
}

/* Remove the sections of @a's identity, or all; @name for the messages */
static void remove_one(const char *name, struct sfs_args *a)
{
	int e = dry_run ? 0 : do_prctl(PR_SFRAME_STORE_REMOVE, a);

	switch (e) {
	case 0:
		result(R_STORED, name, "%s", dry_run ? "would be removed" : "removed");
		break;
	case ENOENT:
		result(R_FAILED, name, "not in the store");
		break;
	case EPERM:
		no_privilege();
		break;
	default:
		result(R_FAILED, name, "%s", strerror(e));
		break;
	}
}

static int cmd_remove(int argc, char **argv, bool all)
{
	int i;

	if (!argc == !all)
		return -1;
	need_store(true);
	elf_version(EV_CURRENT);
	if (all) {
		struct sfs_args a = { .flags = PR_SFRAME_STORE_ALL };

		remove_one("--all", &a);
	}
	for (i = 0; i < argc; i++) {
		struct sfs_args a = { 0 };
		struct stat st;
		struct probe p;
		int fd;

		/* A build ID, of any file size */
		a.build_id_len = parse_build_id(argv[i], a.build_id);
		if (a.build_id_len) {
			remove_one(argv[i], &a);
			continue;
		}
		/* An object: the sections of its build ID and size */
		fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) || probe(fd, &st, &p)) {
			result(R_FAILED, argv[i], "%s",
			       fd < 0 ? strerror(errno) : "cannot read");
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		if (!p.elf || !p.id.build_id_len) {
			result(R_FAILED, argv[i], "%s", !p.elf ? "not an ELF file" :
			       "no build ID of 1 to 20 bytes in its notes");
			continue;
		}
		a.build_id_len = p.id.build_id_len;
		memcpy(a.build_id, p.id.build_id, a.build_id_len);
		a.file_size = p.id.size;
		remove_one(argv[i], &a);
	}
	if (!quiet)
		fprintf(stderr, "sframe-store: %lu %s, %lu failed\n",
			counts[R_STORED], dry_run ? "would be removed" : "removed",
			counts[R_FAILED]);
	return counts[R_FAILED] ? EXIT_FAIL : EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "running", no_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool running = false, all = false;
	const char *cmd, *env;
	int c, ret;

	while ((c = getopt_long(argc, argv, "vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			verbose = true;
			quiet = false;
			break;
		case 'q':
			quiet = true;
			verbose = false;
			break;
		case 'r':
			running = true;
			break;
		case 'a':
			all = true;
			break;
		case 'V':
			printf("sframe-store %s\n", SFS_VERSION);
			return EXIT_OK;
		case 'h':
			print_help(stdout);
			return EXIT_OK;
		default:
			print_help(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	env = getenv("SFRAME_STORE_DRY_RUN");
	dry_run = env && *env && strcmp(env, "0");
	progress = !quiet && isatty(STDERR_FILENO);
	cmd = argv[optind++];
	argc -= optind;
	argv += optind;
	ret = -1;
	if (!strcmp(cmd, "add") && !all)
		ret = cmd_add(argc, argv, running);
	else if (!strcmp(cmd, "list") && !all && !running)
		ret = cmd_list(argc);
	else if (!strcmp(cmd, "remove") && !running)
		ret = cmd_remove(argc, argv, all);
	else if (!strcmp(cmd, "watch") && !all)
		ret = cmd_watch(argc, running);
	if (ret < 0) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	return ret;
}
