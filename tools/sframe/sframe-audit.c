// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-audit.so: an LD_AUDIT module that gives every ELF object a process
 * loads without an .sframe section (at start-up and with dlopen()) the
 * SFrame section sframe-gen generated for it, registered with
 * prctl(PR_SFRAME), so that the kernel unwinds through it; objects with
 * .sframe are left to the kernel's discovery.
 *
 * For each object, the module reads the ELF program headers and the build
 * ID from the memory the loader mapped (not from the file at the object's
 * path, which may have been replaced since), computes the cache file name
 * from the build ID and the size of the file (sframe_cache.h) and looks
 * for it in $SFRAME_GEN_CACHE (default $XDG_CACHE_HOME/sframe-gen, or
 * $HOME/.cache/sframe-gen; relative paths are ignored) and then in
 * /var/cache/sframe-gen: a file refused in the first does not hide the
 * second's.  If neither has one that fits and $SFRAME_GEN names the
 * sframe-gen program, it runs "sframe-gen -q --cache DIR OBJECT" for the
 * first directory and waits for it, $SFRAME_GEN_TIMEOUT seconds at most
 * (default 60), then kills it.  If that leaves no file, it does not run it
 * again for that object for an hour: a mark in $XDG_RUNTIME_DIR/sframe-gen
 * (or /tmp/sframe-gen-EUID) says so.  The file is mapped privately, the
 * section's function starts are made PC-relative for the load address,
 * and it is registered for each executable segment of the object.
 * la_objclose() unregisters them and unmaps the file.
 *
 * Nothing here may disturb the program: every failure is silent, unless
 * $SFRAME_AUDIT_DEBUG is set, which says what happens to each object on
 * stderr.  A cache file is used only if it is a regular file, not a
 * symbolic link, if it and its directory belong to root or to the
 * process's effective user and nobody else may write them (whoever can
 * write them decides what every process of the user maps and registers),
 * and if it is exactly as long as its header says and matches the object.  sframe-gen runs with
 * its standard streams on /dev/null, never in a set-user-ID program
 * (secure_getenv()) or one that may be under seccomp (a filter may not
 * allow the process creation), and the loader's lock serializes these
 * callbacks, so their large buffers are static.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sframe_cache.h"

#ifndef PR_SFRAME
#define PR_SFRAME		82
#define PR_SFRAME_REGISTER	1
#define PR_SFRAME_UNREGISTER	2
#endif

#ifndef SYS_pidfd_open			/* the same on every architecture */
#define SYS_pidfd_send_signal	424
#define SYS_pidfd_open		434
#endif

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

#ifndef RTLD_DI_PHDR			/* glibc 2.36 */
#define RTLD_DI_PHDR		11
#endif

/* The SFrame ABIs of the kernel's unwinder */
#if defined(__x86_64__) || defined(__aarch64__)
#elif defined(__s390x__)
#else
#error "sframe-audit: unsupported architecture"
#endif

#define MAX_PHDRS		128
#define MAX_NOTES		65536
#define SFA_MAX_SFRAME		0x40000000UL	/* bytes of a generated section */
#define SFA_GEN_TIMEOUT		60	/* seconds sframe-gen gets, by default */
#define SFA_GEN_RETRY		3600	/* seconds before it runs again after failing */

/* The uapi struct of PR_SFRAME_REGISTER (include/uapi/linux/prctl.h) */
struct sfa_prctl {
	uint64_t	text_start;
	uint64_t	text_len;
	uint64_t	sframe_start;
	uint64_t	sframe_len;
	uint64_t	flags;
};

/*
 * What la_objclose() undoes, in the cookie of the object: the mapping of
 * the cache file, and the start of each range registered with it
 */
struct sfa_reg {
	void		*map;
	size_t		map_len;
	unsigned int	nr;
	uint64_t	text_start[];
};

static int debug = -1;

static void say(const char *name, const char *fmt, ...)
{
	va_list ap;

	if (debug < 0)
		debug = !!secure_getenv("SFRAME_AUDIT_DEBUG");
	if (!debug)
		return;
	fprintf(stderr, "sframe-audit: %s: ", *name ? name : "(main)");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

/*
 * The object as the cache knows it, and its executable segments (ELF
 * addresses, in address order), which text_start and text_end span
 */
struct sfa_obj {
	uint64_t	text_start, text_end;
	uint8_t		build_id[64];
	unsigned int	build_id_len;
	struct stat	st;
	unsigned int	nr_segs;
	struct {
		uint64_t	start, end;
	} segs[MAX_PHDRS];
};

/* Add the executable segment [@start, @end) to @o, in address order */
static void add_seg(struct sfa_obj *o, uint64_t start, uint64_t end)
{
	unsigned int i = o->nr_segs;

	if (start >= end || i >= MAX_PHDRS)
		return;
	/* At most MAX_PHDRS moves */
	for (; i && o->segs[i - 1].start > start; i--)
		o->segs[i] = o->segs[i - 1];
	o->segs[i].start = start;
	o->segs[i].end = end;
	o->nr_segs++;
	if (start < o->text_start)
		o->text_start = start;
	if (end > o->text_end)
		o->text_end = end;
}

/*
 * Whether the @len bytes at ELF address @vaddr of the object of the @n
 * program headers @ph lie in the file-backed part of a readable PT_LOAD
 * segment: in what the loader mapped, and may be read.
 */
static bool mapped(const Elf64_Phdr *ph, unsigned int n, uint64_t vaddr,
		   uint64_t len)
{
	uint64_t size;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_R))
			continue;
		size = ph[i].p_filesz < ph[i].p_memsz ? ph[i].p_filesz :
							ph[i].p_memsz;
		if (vaddr >= ph[i].p_vaddr && len <= size &&
		    vaddr - ph[i].p_vaddr <= size - len)
			return true;
	}
	return false;
}

/*
 * NT_GNU_BUILD_ID from the @len bytes of notes at @buf, each of their
 * parts aligned to @align (4, or 8 as in a PT_NOTE of that p_align)
 */
static void find_build_id(const uint8_t *buf, size_t len, size_t align,
			  struct sfa_obj *o)
{
	size_t at = 0, name, desc;
	Elf64_Nhdr n;

	/* Each round moves past a header, at most len / 12 rounds */
	while (at < len && len - at >= sizeof(n)) {
		memcpy(&n, buf + at, sizeof(n));
		name = at + sizeof(n);
		if (n.n_namesz > len - name)
			return;
		desc = (name + n.n_namesz + align - 1) & ~(align - 1);
		if (desc > len || n.n_descsz > len - desc)
			return;
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4) && n.n_descsz &&
		    n.n_descsz <= sizeof(o->build_id)) {
			memcpy(o->build_id, buf + desc, n.n_descsz);
			o->build_id_len = n.n_descsz;
			return;
		}
		at = (desc + n.n_descsz + align - 1) & ~(align - 1);
	}
}

/*
 * Read the object @map as the loader mapped it: the program headers the
 * loader has for it (dlinfo(RTLD_DI_PHDR), glibc 2.36 and later; an audit
 * module's dl_iterate_phdr() lists its own namespace only), and the build
 * ID in the notes they locate, if the notes lie in what the loader mapped
 * (mapped()), read there.  Not from the file at the object's path, which
 * may have been replaced since it was mapped.
 *
 * Return: 0 if it needs a generated section; 1 if it has .sframe; -1 if it
 * is not for us, or its headers could not be had.
 */
static int read_obj(struct link_map *map, struct sfa_obj *o)
{
	const Elf64_Phdr *ph = NULL;
	unsigned int i, n;
	int ret;

	memset(o, 0, sizeof(*o));
	o->text_start = UINT64_MAX;
	ret = dlinfo(map, RTLD_DI_PHDR, &ph);
	if (ret <= 0 || ret > MAX_PHDRS || !ph)
		return -1;
	n = ret;
	for (i = 0; i < n; i++) {
		if (ph[i].p_type == PT_GNU_SFRAME)
			return 1;
		if (ph[i].p_type == PT_NOTE && !o->build_id_len &&
		    ph[i].p_filesz <= MAX_NOTES &&
		    mapped(ph, n, ph[i].p_vaddr, ph[i].p_filesz))
			find_build_id((const uint8_t *)(uintptr_t)
				      (map->l_addr + ph[i].p_vaddr),
				      ph[i].p_filesz, ph[i].p_align == 8 ? 8 : 4,
				      o);
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) &&
		    ph[i].p_vaddr + ph[i].p_memsz > ph[i].p_vaddr)
			add_seg(o, ph[i].p_vaddr, ph[i].p_vaddr + ph[i].p_memsz);
	}
	return o->nr_segs ? 0 : -1;
}

/*
 * The user's cache directory, or NULL.  Only from absolute paths: a
 * relative one would be looked up (and generated into) in whatever
 * directory the program is working in.  The XDG base directory
 * specification says to ignore a relative $XDG_CACHE_HOME; a relative
 * $SFRAME_GEN_CACHE or $HOME is ignored alike, as if unset.
 */
static const char *user_cache(char *buf, size_t len)
{
	const char *d = secure_getenv("SFRAME_GEN_CACHE"), *x, *h;
	int n;

	if (d && *d == '/')
		return d;
	x = secure_getenv("XDG_CACHE_HOME");
	h = secure_getenv("HOME");
	if (x && *x == '/')
		n = snprintf(buf, len, "%s/sframe-gen", x);
	else if (h && *h == '/')
		n = snprintf(buf, len, "%s/.cache/sframe-gen", h);
	else
		return NULL;
	return n > 0 && (size_t)n < len ? buf : NULL;
}

/*
 * The Seccomp field of /proc/self/status: the mode (0: none, 1: strict,
 * 2: filter), SFA_SECCOMP_NOLINE if the whole file was read and has no
 * such line, or SFA_SECCOMP_UNKNOWN if it could not be read whole (an
 * error, or longer than SFA_STATUS_MAX: its Groups line alone takes up to
 * 11 bytes per supplementary group, and a user may have 65536) or the line
 * is malformed.
 */
#define SFA_STATUS_MAX		65536
#define SFA_SECCOMP_NOLINE	-1
#define SFA_SECCOMP_UNKNOWN	-2

static int seccomp_mode(void)
{
	static char buf[SFA_STATUS_MAX];
	unsigned int eintr = 0;
	size_t len = 0;
	ssize_t n = -1;
	char *p, *end;
	long mode;
	int fd;

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return SFA_SECCOMP_UNKNOWN;
	/* At most sizeof(buf) reads that return data, and 8 interrupted */
	while (len < sizeof(buf) - 1) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n > 0)
			len += n;
		else if (n == 0 || errno != EINTR || ++eintr > 8)
			break;
	}
	close(fd);
	/* Not at the end of the file: too long for the buffer, or an error */
	if (n != 0)
		return SFA_SECCOMP_UNKNOWN;
	buf[len] = 0;
	/* The Name line, the only one a process sets, escapes its newlines */
	p = strstr(buf, "\nSeccomp:");
	if (!p)
		return SFA_SECCOMP_NOLINE;
	p += strlen("\nSeccomp:");
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return SFA_SECCOMP_UNKNOWN;
	mode = strtol(p, &end, 10);
	if (*end != '\n' || mode > INT_MAX)
		return SFA_SECCOMP_UNKNOWN;
	return mode;
}

/*
 * Whether a seccomp filter or strict mode may be on: then no sframe-gen,
 * since a filter may kill the process when it creates one.  Anything but
 * a Seccomp line that says 0 means it may, except a status file read
 * whole without the line, which is what a kernel without CONFIG_SECCOMP
 * writes: there, PR_GET_SECCOMP fails with EINVAL, and no filter can
 * exist that would see the prctl().  With CONFIG_SECCOMP, the line is
 * always there, and the prctl() is not made (unless a file was mounted
 * over /proc/self/status, when a filter that lets prctl() through makes
 * it return 2).
 */
static bool under_seccomp(void)
{
	int mode = seccomp_mode();

	if (mode == SFA_SECCOMP_NOLINE)
		return !(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0 && errno == EINVAL);
	return mode != 0;
}

/* The time sframe-gen gets, in ms: $SFRAME_GEN_TIMEOUT seconds, 1 to 3600 */
static long gen_timeout_ms(void)
{
	const char *t = secure_getenv("SFRAME_GEN_TIMEOUT");
	char *end;
	long sec;

	if (!t || !*t)
		return SFA_GEN_TIMEOUT * 1000L;
	errno = 0;
	sec = strtol(t, &end, 10);
	if (errno || *end || sec < 1 || sec > 3600)
		return SFA_GEN_TIMEOUT * 1000L;
	return sec * 1000;
}

/* CLOCK_MONOTONIC in ms, or -1 */
static long now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return -1;
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/*
 * Wait for our child @pid to end, at most @ms milliseconds, then kill it.
 * A pidfd is polled, or, before Linux 5.3, the child every 10 ms.  The
 * child may have been reaped already (SIGCHLD ignored): ECHILD ends the
 * wait too.  Its status does not matter: the cache file says what it did.
 */
static void wait_gen(pid_t pid, long ms)
{
	long end = now_ms(), now;
	int pfd, status;
	pid_t w;

	end = end < 0 ? 0 : end + ms;
	pfd = syscall(SYS_pidfd_open, pid, 0);
	/* Bounded by the deadline: each round checks the time left */
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			goto out;
		now = now_ms();
		if (now < 0 || now >= end)
			break;
		if (pfd >= 0) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };
			int left = end - now < INT_MAX ? end - now : INT_MAX;

			/* Broken: the 10 ms rounds then */
			if (poll(&p, 1, left) < 0 && errno != EINTR) {
				close(pfd);
				pfd = -1;
			}
		} else {
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	/*
	 * Through the pidfd if there is one: the child may have been reaped
	 * since the last waitpid() (SIGCHLD ignored), and its PID reused
	 */
	if (pfd >= 0)
		syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
	else
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
out:
	if (pfd >= 0)
		close(pfd);
}

/*
 * Run "sframe-gen -q [--force] --cache @dir @path" and wait for it, within
 * the time limit: its standard streams on /dev/null, and without LD_AUDIT
 * in its environment, so that it does not load this module in turn.
 * @force: replace the file that is there (which does not fit the object).
 *
 * Return: true if it ran.
 */
static bool generate(const char *dir, const char *path, bool force)
{
	const char *gen = secure_getenv("SFRAME_GEN");
	char *const argv[] = { (char *)gen, "-q", "--cache", (char *)dir,
			       (char *)path, NULL };
	char *const fargv[] = { (char *)gen, "-q", "--force", "--cache",
				(char *)dir, (char *)path, NULL };
	posix_spawn_file_actions_t fa;
	bool ran = false;
	char **env, **e;
	size_t n = 0;
	pid_t pid;
	int i;

	if (!gen || !*gen || !dir || under_seccomp())
		return false;
	for (e = environ; e && *e; e++)
		n++;
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		return false;
	for (n = 0, e = environ; e && *e; e++)
		if (strncmp(*e, "LD_AUDIT=", 9))
			env[n++] = *e;
	if (posix_spawn_file_actions_init(&fa)) {
		free(env);
		return false;
	}
	for (i = 0; i < 3; i++)
		if (posix_spawn_file_actions_addopen(&fa, i, "/dev/null",
						     i ? O_WRONLY : O_RDONLY, 0))
			goto out;
	if (!posix_spawn(&pid, gen, &fa, NULL, force ? fargv : argv, env)) {
		wait_gen(pid, gen_timeout_ms());
		ran = true;
	}
out:
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	return ran;
}

/*
 * Whether a cache directory or file, of status @st, is to be trusted:
 * owned by root or by the user whose rights the process has, and writable
 * by nobody else (no group or other write permission, sticky or not), so
 * that no other user can have put it there, or change it.
 */
static bool trusted(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) &&
	       !(st->st_mode & 0022);
}

/*
 * Open the cache file @name in @dir.  Return: the file descriptor; -1 if
 * there is no such file or it is refused (a symbolic link, not a regular
 * file, or not trusted()); -2 if the directory exists and is not trusted.
 * *@why says why a file or directory that exists was refused.
 */
static int open_in(const char *dir, const char *name, const char **why)
{
	struct stat st;
	int dfd, fd;

	/* The directory whose status is checked is the one searched */
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (fstat(dfd, &st) || !trusted(&st)) {
		*why = "cache directory not trusted (owner or mode)";
		close(dfd);
		return -2;
	}
	/* Not following a symbolic link, nor blocking on a FIFO */
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	close(dfd);
	if (fd < 0) {
		if (errno == ELOOP)
			*why = "cache file is a symbolic link";
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !trusted(&st)) {
		*why = "cache file not trusted (type, owner or mode)";
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The directory of the marks of failed generations, opened with O_PATH, or
 * -1: $XDG_RUNTIME_DIR/sframe-gen (the user's, gone at logout), else
 * /tmp/sframe-gen-EUID; made 0700 if @make.  Used only if it is trusted()
 * and not a symbolic link: one that another user made is ignored, and
 * generation is then retried as if no mark were there.
 */
static int marks_dir(bool make)
{
	static char buf[PATH_MAX];
	const char *r = secure_getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int n, fd;

	if (r && *r == '/')
		n = snprintf(buf, sizeof(buf), "%s/sframe-gen", r);
	else
		n = snprintf(buf, sizeof(buf), "/tmp/sframe-gen-%u",
			     (unsigned int)geteuid());
	if (n <= 0 || (size_t)n >= sizeof(buf))
		return -1;
	if (make && mkdir(buf, 0700) && errno != EEXIST)
		return -1;
	fd = open(buf, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || !trusted(&st)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether sframe-gen failed on cache file @name under SFA_GEN_RETRY s ago */
static bool failed_recently(const char *name)
{
	struct timespec now;
	struct stat st;
	bool recent;
	int dfd;

	dfd = marks_dir(false);
	if (dfd < 0)
		return false;
	recent = !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
		 S_ISREG(st.st_mode) && trusted(&st) &&
		 !clock_gettime(CLOCK_REALTIME, &now) &&
		 now.tv_sec >= st.st_mtime &&
		 now.tv_sec - st.st_mtime < SFA_GEN_RETRY;
	close(dfd);
	return recent;
}

/* Mark the cache file @name as one sframe-gen failed on, now */
static void mark_failed(const char *name)
{
	int dfd, fd;

	dfd = marks_dir(true);
	if (dfd < 0)
		return;
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC, 0600);
	if (fd >= 0) {
		/* The time of an old mark too */
		futimens(fd, NULL);
		close(fd);
	}
	close(dfd);
}

/*
 * Why the cache file @fd does not fit the object @o, or NULL if it does:
 * its header, read into @h, must be for the object (build ID, size and
 * executable segment span) and say exactly what sframe-gen writes, the
 * header, then the section, to the end of the file.  So what is mapped
 * and populated is the section and no more, and every page of the mapping
 * is backed by the file (no SIGBUS).
 */
static const char *misfit(int fd, const struct sfa_obj *o,
			  struct sfg_cache_hdr *h)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    read_at(fd, h, sizeof(*h), 0) ||
	    memcmp(h->magic, SFG_CACHE_MAGIC, sizeof(h->magic)) ||
	    h->version != SFG_CACHE_VERSION ||
	    h->text_start != o->text_start || h->text_end != o->text_end ||
	    h->obj_size != (uint64_t)o->st.st_size ||
	    h->build_id_len != o->build_id_len ||
	    memcmp(h->build_id, o->build_id, o->build_id_len))
		return "cache file does not match the object";
	if (h->hdr_size != sizeof(*h) || h->sframe_size > SFA_MAX_SFRAME ||
	    (uint64_t)st.st_size != sizeof(*h) + h->sframe_size)
		return "cache file's sizes do not match its header";
	return NULL;
}

/*
 * Open the cache file of @o (the object @path, @obj in messages) that fits
 * it (misfit()), with its header in @h and its path in @file: from the
 * user cache, else from the system cache.  A file that is refused in one
 * directory does not hide the other's.  If neither has one, generate it
 * into the user cache, unless that exists and is not trusted, or
 * sframe-gen failed on the object recently; the user cache's file, if it
 * was there and did not fit, is replaced.  A generation that leaves no
 * file used (sframe-gen failed, was killed, or could not write the cache,
 * read-only for instance) is marked as failed, so that the processes that
 * load the object in the next SFA_GEN_RETRY seconds do not try again.
 */
static int open_cache(const char *path, const char *obj,
		      const struct sfa_obj *o, struct sfg_cache_hdr *h,
		      char *file, size_t flen)
{
	static char name[256], ubuf[PATH_MAX];
	const char *dirs[2], *why, *last = "no generated SFrame";
	bool ubad = false, stale = false;
	int i, fd, n, pass;

	sfg_cache_name(name, sizeof(name), o->build_id, o->build_id_len, &o->st);
	dirs[0] = user_cache(ubuf, sizeof(ubuf));
	dirs[1] = "/var/cache/sframe-gen";
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 2; i++) {
			if (!dirs[i])
				continue;
			why = NULL;
			fd = open_in(dirs[i], name, &why);
			if (fd == -2) {
				say(obj, "%s: %s", dirs[i], why);
				ubad |= !i;
				continue;
			}
			if (fd < 0) {
				if (why)
					say(obj, "%s/%s: %s", dirs[i], name, why);
				continue;
			}
			why = misfit(fd, o, h);
			n = snprintf(file, flen, "%s/%s", dirs[i], name);
			if (!why && n > 0 && (size_t)n < flen)
				return fd;
			say(obj, "%s/%s: %s", dirs[i], name,
			    why ? why : "path too long");
			close(fd);
			stale |= !i;
		}
		/* What sframe-gen would write there would be refused */
		if (pass || ubad)
			break;
		if (failed_recently(name)) {
			last = "sframe-gen failed on it recently";
			break;
		}
		if (!generate(dirs[0], path, stale))
			break;
	}
	/* The second look failed: after sframe-gen ran */
	if (pass == 1)
		mark_failed(name);
	say(obj, "%s", last);
	return -1;
}

/*
 * Map the cache file @fd (@file, of header @h, which fits @o) for the
 * object @o loaded at @bias, and register it for each executable segment
 * of the object on its own: the kernel takes a range only if a single
 * executable mapping covers it, which the span of two segments with
 * others or a hole between them is not (several executable segments come
 * from BOLT or linker scripts).  The segments' pages, that is: segments
 * that share a page are one range.  The refusal of a range is its own;
 * the others stay registered, and with one, the mapping stays.
 */
static struct sfa_reg *attach(const char *name, int fd, const char *file,
			      const struct sfg_cache_hdr *h,
			      const struct sfa_obj *o, uint64_t bias)
{
	uint64_t page = sysconf(_SC_PAGESIZE), start, end;
	struct sfa_prctl args;
	struct sfa_reg *reg;
	uint8_t *map, *sec;
	unsigned int i, j;
	size_t len;

	len = sizeof(*h) + h->sframe_size;
	/* Populated: the kernel reads it in NMI context, without faulting */
	map = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		say(name, "%s: mmap: %s", file, strerror(errno));
		return NULL;
	}
	sec = map + h->hdr_size;
	if (sfg_cache_relocate(sec, h->sframe_size, bias, (uintptr_t)sec) ||
	    mprotect(map, len, PROT_READ)) {
		say(name, "%s: bad cache file", file);
		goto unmap;
	}
	reg = malloc(sizeof(*reg) + o->nr_segs * sizeof(reg->text_start[0]));
	if (!reg)
		goto unmap;
	reg->map = map;
	reg->map_len = len;
	reg->nr = 0;
	for (i = 0; i < o->nr_segs; i = j) {
		start = (bias + o->segs[i].start) & ~(page - 1);
		end = start;
		/* This segment and the next ones that share a page with it */
		for (j = i; j < o->nr_segs; j++) {
			uint64_t s = (bias + o->segs[j].start) & ~(page - 1);
			uint64_t e = (bias + o->segs[j].end + page - 1) & ~(page - 1);

			if (j > i && s >= end)
				break;
			if (e > end)
				end = e;
		}
		args = (struct sfa_prctl){
			.text_start = start,
			.text_len = end - start,
			.sframe_start = (uintptr_t)sec,
			.sframe_len = h->sframe_size,
		};
		if (prctl(PR_SFRAME, PR_SFRAME_REGISTER, &args, sizeof(args), 0)) {
			say(name, "prctl(PR_SFRAME): %s (%#llx-%#llx, %s)",
			    strerror(errno), (unsigned long long)start,
			    (unsigned long long)end, file);
			continue;
		}
		reg->text_start[reg->nr++] = start;
		say(name, "registered %#llx-%#llx with %llu bytes of SFrame of %s",
		    (unsigned long long)start, (unsigned long long)end,
		    (unsigned long long)h->sframe_size, file);
	}
	if (reg->nr)
		return reg;
	free(reg);
unmap:
	munmap(map, len);
	return NULL;
}

unsigned int la_version(unsigned int version)
{
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	const char *path = map->l_name, *file_path = path;
	static char exe[PATH_MAX], file[PATH_MAX + 256];
	static struct sfa_obj o;
	struct sfg_cache_hdr h;
	int fd, kind, saved = errno;
	ssize_t n;

	(void)lmid;
	*cookie = 0;
	/* Not a file (the vDSO): never open it relative to the cwd */
	if (*path && !strchr(path, '/'))
		goto out;
	kind = read_obj(map, &o);
	if (kind) {
		say(map->l_name, kind > 0 ? "has .sframe" :
			"no program headers, or no executable segment");
		goto out;
	}
	if (!*path) {
		/*
		 * The main program: its name for sframe-gen, and its size
		 * from the file the kernel mapped
		 */
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			goto out;
		exe[n] = 0;
		path = exe;
		file_path = "/proc/self/exe";
	}
	/* Only the size, for the name of the cache file, is the file's */
	if (stat(file_path, &o.st) || !S_ISREG(o.st.st_mode)) {
		say(map->l_name, "cannot stat %s", file_path);
		goto out;
	}
	fd = open_cache(path, map->l_name, &o, &h, file, sizeof(file));
	if (fd < 0)
		goto out;
	*cookie = (uintptr_t)attach(map->l_name, fd, file, &h, &o, map->l_addr);
	close(fd);
out:
	errno = saved;
	return 0;
}

unsigned int la_objclose(uintptr_t *cookie)
{
	struct sfa_reg *reg = (struct sfa_reg *)*cookie;
	struct sfa_prctl args = { 0 };
	unsigned int i;

	if (!reg)
		return 0;
	for (i = 0; i < reg->nr; i++) {
		args.text_start = reg->text_start[i];
		prctl(PR_SFRAME, PR_SFRAME_UNREGISTER, &args, sizeof(args), 0);
	}
	munmap(reg->map, reg->map_len);
	free(reg);
	*cookie = 0;
	return 0;
}
