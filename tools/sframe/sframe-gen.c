// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen: generate an SFrame V3 section from the DWARF call frame
 * information of an ELF object that has none, for the kernel's SFrame user
 * unwinder (see Documentation/userspace-api/sframe.rst).
 *
 *   sframe-gen [-q] -o FILE ELF       write a cache file for ELF to FILE
 *   sframe-gen [-q] --cache DIR ELF...  write DIR/<build-id>-<size>.sframe
 *                                      for each ELF (kept if already there)
 *   sframe-gen --name ELF              print the cache file name of ELF
 *
 * The cache file format is in sframe_cache.h; sframe-audit.so maps those
 * files into the processes that load the objects, and sframe-run runs a
 * program with it.  Each object gets a report line on stderr (-q: none):
 *
 *   PATH: N FDEs, R rows; U rows (B of T bytes) left out [reasons];
 *   sframe S bytes (F FDEs, E FREs), CFI C bytes
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sframe_cache.h"
#include "sframe_gen.h"

static int quiet;
static mode_t cmask;	/* the umask, applied to the files written */

static void print_help(FILE *f)
{
	fprintf(f,
		"usage: sframe-gen [-q] -o FILE ELF\n"
		"       sframe-gen [-q] [--force] --cache DIR ELF...\n"
		"       sframe-gen --name ELF\n"
		"Generate SFrame V3 from the .eh_frame/.debug_frame of ELF objects\n"
		"(x86_64, aarch64, s390x) for sframe-audit.so; see sframe-run(1).\n"
		"  -o FILE      write the cache file of ELF to FILE\n"
		"  --cache DIR  write DIR/NAME for each ELF, NAME from --name\n"
		"  --force      regenerate files that exist\n"
		"  --name       print the cache file name of ELF\n"
		"  -q           no report on stderr\n");
}

static void report(const char *path, const struct sfg_obj *o)
{
	const struct sfg_stats *s = &o->stats;
	int i, n = 0;

	if (quiet)
		return;
	fprintf(stderr, "%s: %lu FDEs, %lu rows; %lu rows (%llu of %llu bytes) left out",
		path, s->fdes, s->rows, s->rows_out,
		(unsigned long long)s->bytes_out, (unsigned long long)s->bytes);
	for (i = 1; i < SFG_NR_WHY; i++)
		if (s->why_rows[i])
			fprintf(stderr, "%s%s %lu", n++ ? ", " : " [",
				sfg_why_str[i], s->why_rows[i]);
	fprintf(stderr, "%s; ", n ? "]" : "");
	if (s->stub_bytes)
		fprintf(stderr, "%llu bytes of linker stubs without CFI; ",
			(unsigned long long)s->stub_bytes);
	fprintf(stderr, "sframe %zu bytes (%lu FDEs, %lu FREs), CFI %zu bytes\n",
		s->sframe_size, s->sframe_fdes, s->sframe_fres,
		s->eh_frame_size);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * Write @h and @sec to @out, atomically: into a new file beside it, of a
 * name nobody can guess, made with O_EXCL by mkstemp(), so that nothing
 * planted in a directory that others may write (a symbolic link to a file
 * of the user running this) is followed, then renamed over @out, which
 * replaces whatever @out was, a symbolic link included, without following
 * it.
 */
static int write_cache(const char *out, const struct sfg_cache_hdr *h,
		       const void *sec, size_t size)
{
	char tmp[PATH_MAX];
	int fd, n, e;

	n = snprintf(tmp, sizeof(tmp), "%s.XXXXXX", out);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	/* mkstemp() makes it 0600: the system cache is for every user */
	if (fchmod(fd, 0644 & ~cmask) || write_all(fd, h, sizeof(*h)) ||
	    write_all(fd, sec, size)) {
		e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	if (close(fd) || rename(tmp, out)) {
		e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/* Generate the cache file of @path into @out, atomically. */
static int generate(const char *path, const char *out)
{
	struct sfg_cache_hdr h = { .version = SFG_CACHE_VERSION };
	struct sfg_obj o;
	char err[512];
	uint8_t *sec;
	size_t size;

	if (sfg_read(path, &o, err, sizeof(err))) {
		fprintf(stderr, "sframe-gen: %s\n", err);
		return -1;
	}
	sec = sfg_encode(&o, &size);
	if (!sec) {
		fprintf(stderr, "sframe-gen: %s: out of memory\n", path);
		sfg_free(&o);
		return -1;
	}
	report(path, &o);

	memcpy(h.magic, SFG_CACHE_MAGIC, sizeof(h.magic));
	h.hdr_size = sizeof(h);
	h.sframe_size = size;
	h.text_start = o.text_start;
	h.text_end = o.text_end;
	h.obj_size = o.st.st_size;
	h.build_id_len = o.build_id_len;
	memcpy(h.build_id, o.build_id, o.build_id_len);
	sfg_free(&o);

	if (write_cache(out, &h, sec, size)) {
		fprintf(stderr, "sframe-gen: %s: %s\n", out, strerror(errno));
		free(sec);
		return -1;
	}
	free(sec);
	return 0;
}

/*
 * The cache file name of @path, from its build ID note and its size: its
 * CFI is not read (sfg_read_id())
 */
static int cache_name(const char *path, char *name, size_t len)
{
	char err[512];
	struct sfg_obj o;

	if (sfg_read_id(path, &o, err, sizeof(err)))
		return -1;
	sfg_cache_name(name, len, o.build_id, o.build_id_len, &o.st);
	sfg_free(&o);
	return 0;
}

static int mkdirs(const char *dir)
{
	char p[PATH_MAX], *s;

	snprintf(p, sizeof(p), "%s", dir);
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "force", no_argument, NULL, 'f' },
		{ "name", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *dir = NULL;
	int c, force = 0, name = 0, ret = 0, i;

	cmask = umask(022);
	umask(cmask);
	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'c':
			dir = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'n':
			name = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			print_help(stdout);
			return 0;
		default:
			print_help(stderr);
			return 2;
		}
	}
	if (optind >= argc || (!!out + !!dir + name) != 1 ||
	    (!dir && argc - optind != 1)) {
		print_help(stderr);
		return 2;
	}
	if (out)
		return generate(argv[optind], out) ? 1 : 0;
	if (name) {
		char n[256];

		if (cache_name(argv[optind], n, sizeof(n))) {
			fprintf(stderr, "sframe-gen: %s: cannot read\n",
				argv[optind]);
			return 1;
		}
		puts(n);
		return 0;
	}
	if (mkdirs(dir)) {
		fprintf(stderr, "sframe-gen: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (i = optind; i < argc; i++) {
		char n[256], path[PATH_MAX];

		if (cache_name(argv[i], n, sizeof(n))) {
			fprintf(stderr, "sframe-gen: %s: cannot read\n", argv[i]);
			ret = 1;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, n);
		if (!force && !access(path, R_OK))
			continue;
		if (generate(argv[i], path))
			ret = 1;
	}
	return ret;
}
