// SPDX-License-Identifier: GPL-2.0
/*
 * Discovery of .sframe sections in mapped ELF files: the exact checks
 * the kernel makes on the object, and objects embedded in a larger file.
 *
 * Each test writes a copy of libsft_a.so (built without frame pointers,
 * with SFrame) to a temporary file: with its ELF headers patched, or at
 * a page-aligned offset behind other data, as a library inside an APK.
 * It maps the copy's PT_LOAD segments itself, like a minimal loader: one
 * anonymous reservation, each segment mapped over it from the file at
 * the object's offset plus the segment's, and the one relocation that
 * dl_call() needs (the GOT slot of its call to dl_inner() through the
 * PLT).  Then it calls the copy's dl_call() with a callback that makes a
 * getppid() system call, sampled by a perf event with a deferred user
 * callchain: the unwind at the return to user space meets the copy's
 * text, which the kernel discovers.  The tests check the copy's line in
 * /proc/self/sframe, "ok" with the exact address of its section or
 * "none", and, for usable copies, the call chain: it must be the chain
 * through the same library loaded by dlopen(), frame for frame, the
 * copy's frames moved by the difference of the two load addresses.
 * Without SFrame, the frames of the copy (no frame pointers) are lost.
 *
 * The store's tests (fixture "store") map a copy without PT_GNU_SFRAME,
 * and hand the library's section to the kernel's store of sections for
 * objects that ship none, with its identity (build ID, file size, text
 * span): the copy is then served by the store, with the same exact
 * chain.  They need CAP_PERFMON, and leave the store as they found it.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
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
#include "sft_img.h"

#define MAX_CHAIN	256
#define RB_PAGES	16

/* Why sample() may get no deferred call chain */
#define NO_SAMPLE_MSG \
	"no deferred sample (%d): perf_event_open of syscalls:sys_enter_getppid with defer_callchain?"

#include "sft_chain.h"

typedef long (*dl_call_fn)(sft_cb cb, long x);

/* dl_call() of the library or of its copy */
static dl_call_fn via_target;

SFT_NOINLINE long via(long x)
{
	return via_target(sft_leaf, x) + 1;
}

/* ---- the chains in the log ---- */

static void chain_log(struct __test_metadata *_metadata, const char *what,
		      const struct chain *c)
{
	char name[128];
	int i;

	TH_LOG("%s: %d frames", what, c->nr);
	for (i = 0; i < c->nr && i < 24; i++)
		TH_LOG("  #%d %#lx %s", i, c->ip[i],
		       sym(c->ip[i], name, sizeof(name)));
}

static const char *self_dir(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;

	path[n > 0 ? n : 0] = 0;
	slash = strrchr(path, '/');
	if (slash)
		*slash = 0;
	return path;
}

/* ---- ELF images ---- */

/* A library file beside this program, read into memory */
static int img_read(struct img *im, const char *name)
{
	snprintf(im->path, sizeof(im->path), "%s/%s", self_dir(), name);
	return img_load(im);
}

static Elf64_Shdr *img_shdr(const struct img *im, int i)
{
	return (Elf64_Shdr *)(im->b + img_ehdr(im)->e_shoff) + i;
}

/* The value of the defined symbol @name, or 0 */
static unsigned long img_sym(const struct img *im, const char *name)
{
	int i;

	for (i = 0; i < img_ehdr(im)->e_shnum; i++) {
		Elf64_Shdr *sh = img_shdr(im, i);
		Elf64_Sym *sym = (Elf64_Sym *)(im->b + sh->sh_offset);
		const char *str;
		size_t j;

		if (sh->sh_type != SHT_SYMTAB && sh->sh_type != SHT_DYNSYM)
			continue;
		str = (char *)im->b + img_shdr(im, sh->sh_link)->sh_offset;
		for (j = 0; j < sh->sh_size / sizeof(*sym); j++)
			if (sym[j].st_shndx != SHN_UNDEF &&
			    !strcmp(str + sym[j].st_name, name))
				return sym[j].st_value;
	}
	return 0;
}

/* The address span of the object's PT_LOAD segments, whole pages */
static size_t img_span(const struct img *im)
{
	size_t page = getpagesize(), end = 0;
	int i;

	for (i = 0; i < img_ehdr(im)->e_phnum; i++) {
		Elf64_Phdr *ph = img_phdr(im, i);

		if (ph->p_type == PT_LOAD && ph->p_vaddr + ph->p_memsz > end)
			end = ph->p_vaddr + ph->p_memsz;
	}
	return (end + page - 1) & ~(page - 1);
}

/* ---- the minimal loader ---- */

/* An object mapped by the test */
struct obj {
	const struct img *im;
	unsigned char *base;		/* load bias */
	unsigned long text_start;	/* its executable mapping */
	unsigned long text_end;
};

/*
 * Map the object @im, stored at offset @at of @fd, at @base (reserved):
 * each PT_LOAD from the file like ld.so does (no .bss cleared: the code
 * called does not use it).  Apply the SFT_R_JUMP_SLOT relocations to
 * the object's own functions, so that its PLT calls work.
 */
static int obj_map(struct __test_metadata *_metadata, struct obj *o,
		   const struct img *im, int fd, off_t at, unsigned char *base)
{
	unsigned long page = getpagesize();
	int i;

	o->im = im;
	o->base = base;
	o->text_start = 0;
	o->text_end = 0;
	for (i = 0; i < img_ehdr(im)->e_phnum; i++) {
		Elf64_Phdr *ph = img_phdr(im, i);
		unsigned long va = ph->p_vaddr & ~(page - 1);
		unsigned long len = ph->p_vaddr + ph->p_filesz - va;
		int prot = 0;
		void *p;

		if (ph->p_type != PT_LOAD || !ph->p_filesz)
			continue;
		prot |= ph->p_flags & PF_R ? PROT_READ : 0;
		prot |= ph->p_flags & PF_W ? PROT_WRITE : 0;
		prot |= ph->p_flags & PF_X ? PROT_EXEC : 0;
		p = mmap(base + va, len, prot, MAP_PRIVATE | MAP_FIXED, fd,
			 at + (ph->p_offset & ~(page - 1)));
		if (p == MAP_FAILED) {
			TH_LOG("mmap of segment %d at file offset %#lx: %s", i,
			       (unsigned long)at + (ph->p_offset & ~(page - 1)),
			       strerror(errno));
			return -1;
		}
		if (ph->p_flags & PF_X) {
			o->text_start = (unsigned long)base + va;
			o->text_end = (unsigned long)base + va +
				      ((len + page - 1) & ~(page - 1));
		}
	}
	for (i = 0; i < img_ehdr(im)->e_shnum; i++) {
		Elf64_Shdr *sh = img_shdr(im, i);
		Elf64_Rela *r = (Elf64_Rela *)(im->b + sh->sh_offset);
		Elf64_Sym *dynsym;
		size_t j;

		if (sh->sh_type != SHT_RELA)
			continue;
		dynsym = (Elf64_Sym *)(im->b + img_shdr(im, sh->sh_link)->sh_offset);
		for (j = 0; j < sh->sh_size / sizeof(*r); j++) {
			Elf64_Sym *s = &dynsym[ELF64_R_SYM(r[j].r_info)];

			if (ELF64_R_TYPE(r[j].r_info) != SFT_R_JUMP_SLOT ||
			    s->st_shndx == SHN_UNDEF)
				continue;
			*(unsigned long *)(base + r[j].r_offset) =
				(unsigned long)base + s->st_value;
		}
	}
	if (!o->text_start) {
		TH_LOG("no executable PT_LOAD");
		return -1;
	}
	return 0;
}

/* ---- /proc/self/sframe ---- */

struct proc_entry {
	unsigned long ts, te, ss, se, lookups, failures;
	unsigned int version, fdes;
	char state[16], how[16], path[PATH_MAX];
	char line[PATH_MAX + 256];
};

/* The line of the text range starting at @start, parsed */
static int proc_entry(unsigned long start, struct proc_entry *p)
{
	if (proc_range(start, p->line, sizeof(p->line)))
		return -1;
	p->line[strcspn(p->line, "\n")] = 0;
	if (sscanf(p->line, "%lx-%lx %15s %15s %lx-%lx v%u %u %lu %lu %s",
		   &p->ts, &p->te, p->state, p->how, &p->ss, &p->se,
		   &p->version, &p->fdes, &p->lookups, &p->failures,
		   p->path) != 11)
		return -1;
	return 0;
}

/* ---- the tests ---- */

FIXTURE(disc) {
	struct img a, b;		/* libsft_a.so, libsft_b.so */
	char path[64];			/* the file of the copies */
	int fd;
	unsigned char *region;		/* reserved for the copies */
	size_t region_size;
	void *dl[2];
};

FIXTURE_SETUP(disc)
{
	char buf[8] = "";
	int fd;

	self->fd = -1;
	if (access("/proc/self/sframe", R_OK))
		SKIP(return, "no /proc/self/sframe: a kernel without CONFIG_UNWIND_USER_SFRAME");
	fd = open("/proc/sys/kernel/sframe_unwind", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = 0;
		close(fd);
	}
	if (buf[0] == '0')
		SKIP(return, "kernel.sframe_unwind is 0");
	ASSERT_EQ(0, img_read(&self->a, "libsft_a.so"))
		TH_LOG("%s: %s", self->a.path, strerror(errno));
	ASSERT_EQ(0, img_read(&self->b, "libsft_b.so"))
		TH_LOG("%s: %s", self->b.path, strerror(errno));
	ASSERT_NE(NULL, img_phdr_type(&self->a, PT_GNU_SFRAME))
		TH_LOG("libsft_a.so has no PT_GNU_SFRAME: built without --gsframe?");
	ASSERT_NE(NULL, img_phdr_type(&self->b, PT_GNU_SFRAME));
	snprintf(self->path, sizeof(self->path), "/tmp/sft_disc_%d_XXXXXX",
		 getpid());
	self->fd = mkstemp(self->path);
	ASSERT_LE(0, self->fd) TH_LOG("mkstemp: %s", strerror(errno));
	/* Room for two objects and a page after them */
	self->region_size = img_span(&self->a) + img_span(&self->b) +
			    getpagesize();
	self->region = mmap(NULL, self->region_size, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->region);
}

FIXTURE_TEARDOWN(disc)
{
	if (self->region && self->region != MAP_FAILED)
		munmap(self->region, self->region_size);
	if (self->fd >= 0) {
		close(self->fd);
		unlink(self->path);
	}
	if (self->dl[0])
		dlclose(self->dl[0]);
	if (self->dl[1])
		dlclose(self->dl[1]);
	free(self->a.b);
	free(self->b.b);
}

/* Write @len bytes of @buf at @off of the copies' file */
static void file_put(struct __test_metadata *_metadata, int fd,
		     const void *buf, size_t len, off_t off)
{
	ASSERT_EQ((ssize_t)len, pwrite(fd, buf, len, off))
		TH_LOG("write: %s", strerror(errno));
}

/*
 * A copy of @im at offset @at of the file, with @patch applied to it, if
 * not NULL, before it is written.  What comes before @at is left as the
 * caller wrote it (a hole reads as zeroes).
 */
static void file_put_img(struct __test_metadata *_metadata, int fd,
			 const struct img *im, off_t at,
			 void (*patch)(unsigned char *b, const struct img *im))
{
	unsigned char *b = malloc(im->size);

	ASSERT_NE(NULL, b);
	memcpy(b, im->b, im->size);
	if (patch)
		patch(b, im);
	file_put(_metadata, fd, b, im->size, at);
	free(b);
}

/* Where the object of @im starts in a file that holds @prefix bytes first */
static off_t page_after(size_t prefix)
{
	size_t page = getpagesize();

	return (prefix + page - 1) & ~(page - 1);
}

/*
 * Assert that the kernel discovered the text of @o (mapped from the
 * file at @path), and that it has no usable section.
 */
static void expect_none(struct __test_metadata *_metadata, struct obj *o,
			const char *path)
{
	struct proc_entry p;
	struct chain c;
	int ret;

	via_target = (dl_call_fn)(o->base + img_sym(o->im, "dl_call"));
	ret = sample(via, 1, &c);
	ASSERT_EQ(0, ret) TH_LOG(NO_SAMPLE_MSG, ret);
	ASSERT_EQ(0, proc_entry(o->text_start, &p))
		TH_LOG("no line for the copy's text %#lx-%#lx in /proc/self/sframe",
		       o->text_start, o->text_end);
	TH_LOG("%s", p.line);
	EXPECT_EQ(o->text_start, p.ts);
	EXPECT_EQ(o->text_end, p.te);
	EXPECT_STREQ("none", p.state);
	EXPECT_STREQ("elf", p.how);
	EXPECT_EQ(0, p.ss);
	EXPECT_EQ(0, p.se);
	EXPECT_EQ(0, p.version);
	EXPECT_EQ(0, p.fdes);
	EXPECT_STREQ(path, p.path);
}

/*
 * Assert that the kernel found the section of @o (a copy of @im mapped
 * from the file at @path) where it is, from the source @how ("elf", or
 * "store" for a copy without PT_GNU_SFRAME), and unwinds through the
 * copy's dl_call() and dl_inner() exactly as through the library loaded
 * by dlopen() (handle kept in *@dl for the teardown).
 */
static void expect_usable(struct __test_metadata *_metadata, struct obj *o,
			  const char *path, const char *how, void **dl)
{
	static const char * const exp[] = { "sft_leaf", "dl_inner", "dl_call",
					    "via", "sample", NULL };
	const Elf64_Phdr *sf = img_phdr_type(o->im, PT_GNU_SFRAME);
	const unsigned char *hdr = o->im->b + sf->p_offset;
	unsigned long lo, hi, delta, want;
	dl_call_fn call[2];
	struct chain c[2];
	struct proc_entry p;
	char name[128];
	bool main_seen = false;
	Dl_info info;
	int i, ret;
	__u32 fdes;

	*dl = dlopen(o->im->path, RTLD_NOW | RTLD_LOCAL);
	ASSERT_NE(NULL, *dl) TH_LOG("dlopen %s: %s", o->im->path, dlerror());
	call[0] = (dl_call_fn)dlsym(*dl, "dl_call");
	ASSERT_NE(NULL, call[0]);
	ASSERT_NE(0, dladdr((void *)call[0], &info));
	call[1] = (dl_call_fn)(o->base + img_sym(o->im, "dl_call"));
	ASSERT_EQ((unsigned long)call[0] - (unsigned long)info.dli_fbase,
		  (unsigned long)call[1] - (unsigned long)o->base);

	/* One call site for both: the frames outside the library are equal */
	for (i = 0; i < 2; i++) {
		via_target = call[i];
		ret = sample(via, 1, &c[i]);
		ASSERT_EQ(0, ret) TH_LOG(NO_SAMPLE_MSG, ret);
	}

	/* The reference: the library as ld.so loaded it */
	for (i = 0; exp[i]; i++) {
		sym(i < c[0].nr ? c[0].ip[i] : 0, name, sizeof(name));
		if (strcmp(exp[i], name))
			chain_log(_metadata, "through the dlopen()ed library",
				  &c[0]);
		ASSERT_STREQ(exp[i], name)
			TH_LOG("frame %d of the chain through the dlopen()ed library",
			       i);
	}
	for (i = 0; i < c[0].nr && !main_seen; i++)
		main_seen = !strcmp("main", sym(c[0].ip[i], name, sizeof(name)));
	if (!main_seen)
		chain_log(_metadata, "through the dlopen()ed library", &c[0]);
	ASSERT_TRUE(main_seen) TH_LOG("the reference chain does not reach main");

	/* The copy: the same chain, its frames at the copy's addresses */
	lo = (unsigned long)info.dli_fbase;
	hi = lo + img_span(o->im);
	delta = (unsigned long)o->base - lo;
	for (i = 0; i < c[0].nr; i++) {
		want = c[0].ip[i] + (c[0].ip[i] >= lo && c[0].ip[i] < hi ?
				     delta : 0);
		if (i >= c[1].nr || c[1].ip[i] != want) {
			chain_log(_metadata, "through the dlopen()ed library",
				  &c[0]);
			chain_log(_metadata, "through the copy", &c[1]);
			TH_LOG("copy mapped at %p, library at %#lx", o->base, lo);
			ASSERT_EQ(want, i < c[1].nr ? c[1].ip[i] : 0)
				TH_LOG("frame %d of the copy's chain", i);
		}
	}
	ASSERT_EQ(c[0].nr, c[1].nr);

	/* Discovered, usable, the section where the copy maps it */
	ASSERT_EQ(0, proc_entry(o->text_start, &p))
		TH_LOG("no line for the copy's text %#lx-%#lx in /proc/self/sframe",
		       o->text_start, o->text_end);
	TH_LOG("%s", p.line);
	memcpy(&fdes, hdr + 8, sizeof(fdes));
	EXPECT_EQ(o->text_start, p.ts);
	EXPECT_EQ(o->text_end, p.te);
	EXPECT_STREQ("ok", p.state);
	EXPECT_STREQ(how, p.how);
	EXPECT_EQ((unsigned long)o->base + sf->p_vaddr, p.ss);
	EXPECT_EQ((unsigned long)o->base + sf->p_vaddr + sf->p_memsz, p.se);
	EXPECT_EQ(hdr[2], p.version);
	EXPECT_EQ(fdes, p.fdes);
	EXPECT_STREQ(path, p.path);
}

/* Map the copy of @im at file offset @at at the start of the region */
static void map_copy(struct __test_metadata *_metadata, int fd,
		     unsigned char *region, struct obj *o,
		     const struct img *im, off_t at)
{
	ASSERT_EQ(0, obj_map(_metadata, o, im, fd, at, region));
}

/* The control: an unchanged copy at file offset 0 is found */
TEST_F(disc, copy_at_offset_0)
{
	struct obj o;

	file_put_img(_metadata, self->fd, &self->a, 0, NULL);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, 0);
	expect_usable(_metadata, &o, self->path, "elf", &self->dl[0]);
}

static void patch_machine(unsigned char *b, const struct img *im)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;

	eh->e_machine = eh->e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
}

/* An object of another architecture: its section is not for this task */
TEST_F(disc, other_machine)
{
	struct obj o;

	file_put_img(_metadata, self->fd, &self->a, 0, patch_machine);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, 0);
	expect_none(_metadata, &o, self->path);
}

static void patch_class32(unsigned char *b, const struct img *im)
{
	b[EI_CLASS] = ELFCLASS32;
}

/* Headers that say ELFCLASS32 are not read as 64-bit ones */
TEST_F(disc, elfclass32)
{
	struct obj o;

	file_put_img(_metadata, self->fd, &self->a, 0, patch_class32);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, 0);
	expect_none(_metadata, &o, self->path);
}

static void patch_byte_order(unsigned char *b, const struct img *im)
{
	b[EI_DATA] = b[EI_DATA] == ELFDATA2MSB ? ELFDATA2LSB : ELFDATA2MSB;
}

/* An object of the other byte order (big-endian on x86-64, say) */
TEST_F(disc, other_byte_order)
{
	struct obj o;

	file_put_img(_metadata, self->fd, &self->a, 0, patch_byte_order);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, 0);
	expect_none(_metadata, &o, self->path);
}

static Elf64_Phdr *patch_sframe_phdr(unsigned char *b, const struct img *im)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	Elf64_Phdr *ph = (Elf64_Phdr *)(b + eh->e_phoff);
	int i;

	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_GNU_SFRAME)
			return &ph[i];
	return NULL;	/* not reached: checked at setup */
}

/*
 * PT_GNU_SFRAME says the section is at a file offset 0x40 below where the
 * PT_LOAD holding its address maps: the bytes at that address are not
 * the section the headers describe.
 */
static void patch_sframe_offset(unsigned char *b, const struct img *im)
{
	patch_sframe_phdr(b, im)->p_offset -= 0x40;
}

TEST_F(disc, sframe_offset_mismatch)
{
	const Elf64_Phdr *sf = img_phdr_type(&self->a, PT_GNU_SFRAME);
	struct obj o;

	/* Still inside the file range of the PT_LOAD that maps it */
	ASSERT_LE(0x40, sf->p_offset % getpagesize());
	file_put_img(_metadata, self->fd, &self->a, 0, patch_sframe_offset);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, 0);
	expect_none(_metadata, &o, self->path);
}

/*
 * PT_GNU_SFRAME beyond every PT_LOAD, at the page after the object's
 * span, same offset in the page.  The test maps a copy of the real
 * section there, so that only the check that the section is loaded from
 * the file tells it from a usable one.
 */
static void patch_sframe_outside(unsigned char *b, const struct img *im)
{
	Elf64_Phdr *sf = patch_sframe_phdr(b, im);
	unsigned long at = img_span(im) + sf->p_vaddr % getpagesize();

	sf->p_vaddr = at;
	sf->p_paddr = at;
	sf->p_offset = at;
}

TEST_F(disc, sframe_outside_load)
{
	const Elf64_Phdr *sf = img_phdr_type(&self->a, PT_GNU_SFRAME);
	size_t page = getpagesize();
	unsigned char *after;
	struct obj o;

	ASSERT_GE(page, sf->p_vaddr % page + sf->p_filesz);
	file_put_img(_metadata, self->fd, &self->a, 0, patch_sframe_outside);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, 0);
	after = mmap(self->region + img_span(&self->a), page,
		     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		     MAP_FIXED, -1, 0);
	ASSERT_NE(MAP_FAILED, after);
	memcpy(after + sf->p_vaddr % page, self->a.b + sf->p_offset,
	       sf->p_filesz);
	ASSERT_EQ(0, mprotect(after, page, PROT_READ));
	expect_none(_metadata, &o, self->path);
}

/*
 * Map an unchanged copy of @im at the start of @region, from offset 0 of
 * @fd, in @o, and give the page-aligned range of its section in [*@lo, *@hi):
 * false if that range shares a page with the text (arm64's libraries may
 * hold both in one page)
 */
static bool map_copy_section(struct __test_metadata *_metadata, int fd,
			     unsigned char *region, const struct img *im,
			     struct obj *o, unsigned long *lo,
			     unsigned long *hi)
{
	const Elf64_Phdr *sf = img_phdr_type(im, PT_GNU_SFRAME);
	unsigned long page = getpagesize();

	file_put_img(_metadata, fd, im, 0, NULL);
	map_copy(_metadata, fd, region, o, im, 0);
	*lo = (unsigned long)o->base + (sf->p_vaddr & ~(page - 1));
	*hi = ((unsigned long)o->base + sf->p_vaddr + sf->p_memsz + page - 1) &
	      ~(page - 1);
	return *hi <= o->text_start || *lo >= o->text_end;
}

#define BACKOFF_SAMPLES	40
#define BACKOFF_MAX_TRIES	8

/*
 * A section that cannot be read (its pages PROT_NONE) leaves the entry
 * pending, and the unwinds back off: over BACKOFF_SAMPLES samples, each
 * looking up two frames of the copy, at most BACKOFF_MAX_TRIES
 * resolutions fail (each one counted with the entry's failed lookups),
 * where one per lookup would read the ELF headers every time.  Once the
 * pages are readable again, a later sample resolves it.
 */
TEST_F(disc, unreadable_section_backs_off)
{
	unsigned long lo, hi;
	struct proc_entry p;
	struct chain c;
	struct obj o;
	int i, ret;

	if (!map_copy_section(_metadata, self->fd, self->region, &self->a, &o,
			      &lo, &hi))
		SKIP(return, "the section shares a page with the text");
	ASSERT_EQ(0, mprotect((void *)lo, hi - lo, PROT_NONE));

	via_target = (dl_call_fn)(o.base + img_sym(o.im, "dl_call"));
	for (i = 0; i < BACKOFF_SAMPLES; i++) {
		ret = sample(via, 1, &c);
		ASSERT_EQ(0, ret) TH_LOG(NO_SAMPLE_MSG, ret);
	}
	ASSERT_EQ(0, proc_entry(o.text_start, &p));
	TH_LOG("%s", p.line);
	EXPECT_STREQ("pending", p.state);
	EXPECT_LE(1, p.failures);
	EXPECT_GE(BACKOFF_MAX_TRIES, p.failures);

	ASSERT_EQ(0, mprotect((void *)lo, hi - lo, PROT_READ));
	for (i = 0; i < 20 * BACKOFF_SAMPLES; i++) {
		ret = sample(via, 1, &c);
		ASSERT_EQ(0, ret) TH_LOG(NO_SAMPLE_MSG, ret);
		ASSERT_EQ(0, proc_entry(o.text_start, &p));
		if (!strcmp(p.state, "ok"))
			break;
	}
	TH_LOG("%s (after %d more samples)", p.line, i + 1);
	EXPECT_STREQ("ok", p.state);
}

/*
 * A process that wrote its private copy of a file's section (made its
 * pages writable and cleared the header's "FDEs sorted" flag, as a
 * hostile process may) has that copy checked on its own: corrupt for its
 * mapping, and not for another mapping of the same file, whose check
 * reads the file's pages and which unwinds exactly.  Were what the first
 * check found kept for the file, the second mapping would be corrupt too.
 */
TEST_F(disc, written_section_not_shared)
{
	const Elf64_Phdr *sf = img_phdr_type(&self->a, PT_GNU_SFRAME);
	unsigned long lo, hi;
	size_t span = img_span(&self->a);
	unsigned char *second;
	struct proc_entry p;
	struct chain c;
	struct obj o, o2;
	int ret;

	if (!map_copy_section(_metadata, self->fd, self->region, &self->a, &o,
			      &lo, &hi))
		SKIP(return, "the section shares a page with the text");
	ASSERT_EQ(0, mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE));
	/* The preamble's flags byte, after the magic and the version */
	o.base[sf->p_vaddr + 3] &= ~1;
	ASSERT_EQ(0, mprotect((void *)lo, hi - lo, PROT_READ));

	via_target = (dl_call_fn)(o.base + img_sym(o.im, "dl_call"));
	ret = sample(via, 1, &c);
	ASSERT_EQ(0, ret) TH_LOG(NO_SAMPLE_MSG, ret);
	ASSERT_EQ(0, proc_entry(o.text_start, &p));
	TH_LOG("%s", p.line);
	EXPECT_STREQ("bad", p.state);

	/* The same file, mapped again in a region of its own */
	second = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		      0);
	ASSERT_NE(MAP_FAILED, second);
	map_copy(_metadata, self->fd, second, &o2, &self->a, 0);
	expect_usable(_metadata, &o2, self->path, "elf", &self->dl[0]);
	munmap(second, span);
}

/* As SFRAME_MAX_DISCOVERED in kernel/unwind/sframe_registry.h */
#define MAX_DISCOVERED	4096
/* Copies mapped by many_mappings_bounded: past the cap */
#define MANY_COPIES	(MAX_DISCOVERED + 64)
/* Kernel memory that one discovered range may take, debug kernels included */
#define ENTRY_BOUND_KB	16

/* Slab and vmalloc memory in use, in KiB, from /proc/meminfo */
static long kernel_kb(void)
{
	char line[128];
	long kb, sum = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1 ||
		    sscanf(line, "VmallocUsed: %ld kB", &kb) == 1)
			sum += kb;
	fclose(f);
	return sum;
}

/* Lines of /proc/self/sframe, and those that name @path in *@of */
static int proc_lines(const char *path, int *of)
{
	char line[PATH_MAX + 256];
	FILE *f = fopen("/proc/self/sframe", "r");
	int n = 0;

	*of = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		n++;
		line[strcspn(line, "\n")] = 0;
		if (strlen(line) > strlen(path) &&
		    !strcmp(line + strlen(line) - strlen(path), path))
			(*of)++;
	}
	fclose(f);
	return n;
}

/*
 * The review's memory case: one ELF file mapped thousands of times, and
 * every mapping sampled.  The process gets at most MAX_DISCOVERED
 * discovered ranges (the rest of its text is unwound with frame
 * pointers), all the copies share the check of the file's section, and
 * the kernel memory that the sampling adds (slab and vmalloc) stays
 * within ENTRY_BOUND_KB per range: 10.6 KiB measured in the debug VM
 * kernel (KASAN, kmemleak), about 4.5 KiB without debugging.
 */
TEST_F_TIMEOUT(disc, many_mappings_bounded, 600)
{
	struct timespec t0, t1;
	size_t span = img_span(&self->a);
	int i, lines, copies, ret;
	long before, after;
	struct sampler s;
	unsigned char *all;
	struct chain c;
	struct obj o;

#ifndef __x86_64__
	/*
	 * The cap is the architecture-neutral registry's (its KUnit case
	 * runs everywhere); 48 s of TCG on x86_64 is several minutes here
	 */
	SKIP(return, "x86_64 only: too slow under TCG elsewhere");
#endif
	clock_gettime(CLOCK_MONOTONIC, &t0);
	file_put_img(_metadata, self->fd, &self->a, 0, NULL);
	all = mmap(NULL, span * MANY_COPIES, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, all);
	for (i = 0; i < MANY_COPIES; i++)
		ASSERT_EQ(0, obj_map(_metadata, &o, &self->a, self->fd, 0,
				     all + i * span));

	before = kernel_kb();
	ASSERT_LT(0, before);
	ret = sft_sampler_open(&s, PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN, 1,
			       RB_PAGES);
	ASSERT_EQ(0, ret) TH_LOG(NO_SAMPLE_MSG, ret);
	ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < MANY_COPIES; i++) {
		via_target = (dl_call_fn)(all + i * span +
					  img_sym(&self->a, "dl_call"));
		via(1);
		if (i % 16 == 15)
			sampler_chain(&s, &c);	/* only drained */
	}
	ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
	sampler_close(&s);
	after = kernel_kb();

	clock_gettime(CLOCK_MONOTONIC, &t1);
	lines = proc_lines(self->path, &copies);
	TH_LOG("%d ranges in /proc/self/sframe, %d of them copies; kernel memory +%ld KiB; %ld ms",
	       lines, copies, after - before,
	       (t1.tv_sec - t0.tv_sec) * 1000 +
	       (t1.tv_nsec - t0.tv_nsec) / 1000000);
	/* Every range of this process was discovered: the cap holds them */
	EXPECT_EQ(MAX_DISCOVERED, lines);
	EXPECT_LT(MAX_DISCOVERED - 64, copies);
	EXPECT_GE((long)ENTRY_BOUND_KB * MAX_DISCOVERED, after - before);
	munmap(all, span * MANY_COPIES);
}

/* Pages before an embedded object, beginning like a zip archive (APK) */
#define EMBED_PAGES	3

static void put_zip_prefix(struct __test_metadata *_metadata, int fd)
{
	static const char zip[] = "PK\3\4";

	file_put(_metadata, fd, zip, 4, 0);
}

/*
 * An object embedded at a non-zero page-aligned offset, as ld.so does not
 * but Android's linker and custom loaders do: its section is found, every
 * offset counted from the object's start, and it is unwound exactly.
 */
TEST_F(disc, embedded_at_page_offset)
{
	off_t at = EMBED_PAGES * getpagesize();
	struct obj o;

	put_zip_prefix(_metadata, self->fd);
	file_put_img(_metadata, self->fd, &self->a, at, NULL);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, at);
	expect_usable(_metadata, &o, self->path, "elf", &self->dl[0]);
}

/* The checks apply to an embedded object too */
TEST_F(disc, embedded_other_machine)
{
	off_t at = EMBED_PAGES * getpagesize();
	struct obj o;

	put_zip_prefix(_metadata, self->fd);
	file_put_img(_metadata, self->fd, &self->a, at, patch_machine);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, at);
	expect_none(_metadata, &o, self->path);
}

/*
 * Two objects in one file, both mapped, next to each other: libsft_b.so
 * at offset 0 (a valid ELF object at the start of the file) and
 * libsft_a.so after it.  Each is found with its own headers.
 */
TEST_F(disc, two_objects_in_one_file)
{
	off_t at = page_after(self->b.size);
	struct obj oa, ob;

	file_put_img(_metadata, self->fd, &self->b, 0, NULL);
	file_put_img(_metadata, self->fd, &self->a, at, NULL);
	ASSERT_EQ(0, obj_map(_metadata, &ob, &self->b, self->fd, 0,
			     self->region));
	ASSERT_EQ(0, obj_map(_metadata, &oa, &self->a, self->fd, at,
			     self->region + img_span(&self->b)));
	expect_usable(_metadata, &oa, self->path, "elf", &self->dl[0]);
	expect_usable(_metadata, &ob, self->path, "elf", &self->dl[1]);
}

/* ---- the store: sections for objects that ship none ---- */

/* Build IDs made from libsft_a.so's for store_full, removed at teardown */
#define STORE_FAKE_IDS	64

/* No PT_GNU_SFRAME: the section is still in the file, but not announced */
static void patch_no_sframe(unsigned char *b, const struct img *im)
{
	patch_sframe_phdr(b, im)->p_type = PT_NULL;
}

/*
 * The line of /proc/sframe_store for the identity of @a, parsed: the
 * section's size, its FDEs and the mappings that use it.  -1 if none.
 */
static int store_line(const struct prctl_sframe_store *a, unsigned long *bytes,
		      unsigned int *fdes, unsigned int *maps)
{
	char line[256], want[96];
	FILE *f = fopen("/proc/sframe_store", "r");
	unsigned int i;
	int len, ret = -1;

	if (!f)
		return -1;
	for (i = 0, len = 0; i < a->build_id_len; i++)
		len += snprintf(want + len, sizeof(want) - len, "%02x",
				a->build_id[i]);
	snprintf(want + len, sizeof(want) - len, " %llu %llx-%llx ",
		 (unsigned long long)a->file_size,
		 (unsigned long long)a->text_start,
		 (unsigned long long)a->text_end);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)) &&
		    sscanf(line + strlen(want), "%lu %u %u", bytes, fdes,
			   maps) == 3) {
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/* Remove every section that the store's tests may add (@a: libsft_a.so's) */
static void store_clean(const struct prctl_sframe_store *a)
{
	struct prctl_sframe_store f = *a;
	int i;

	store_remove(a, true);
	for (i = 0; i < STORE_FAKE_IDS; i++) {
		f.build_id[0] = a->build_id[0] ^ (i + 1);
		store_remove(&f, true);
	}
}

FIXTURE(store) {
	struct img a;
	struct prctl_sframe_store args;	/* libsft_a.so's identity */
	char path[128];			/* a copy of it, in /tmp or in mnt */
	int fd;
	unsigned char *region;
	size_t span;
	void *dl;
	char max_kb[32];		/* kernel.sframe_store_max_kb, if changed */
	char mnt[64];			/* a tmpfs, in a mount namespace */
};

FIXTURE_SETUP(store)
{
	self->fd = -1;
	if (access("/proc/self/sframe", R_OK))
		SKIP(return, "no /proc/self/sframe: a kernel without CONFIG_UNWIND_USER_SFRAME");
	if (access("/proc/sframe_store", F_OK))
		SKIP(return, "no /proc/sframe_store: a kernel without the store");
	if (geteuid())
		SKIP(return, "the store needs CAP_PERFMON: run as root");
	ASSERT_EQ(0, sft_write_sysctl("1"));
	ASSERT_EQ(0, img_read(&self->a, "libsft_a.so"))
		TH_LOG("%s: %s", self->a.path, strerror(errno));
	ASSERT_NE(NULL, img_phdr_type(&self->a, PT_GNU_SFRAME));
	store_args(&self->a, &self->args);
	ASSERT_LT(0, self->args.build_id_len)
		TH_LOG("libsft_a.so has no build ID: linked without --build-id?");
	/* Nothing left from an earlier run */
	store_clean(&self->args);
	snprintf(self->path, sizeof(self->path), "/tmp/sft_store_%d_XXXXXX",
		 getpid());
	self->fd = mkstemp(self->path);
	ASSERT_LE(0, self->fd) TH_LOG("mkstemp: %s", strerror(errno));
	self->span = img_span(&self->a);
	self->region = mmap(NULL, self->span, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->region);
}

FIXTURE_TEARDOWN(store)
{
	int fd;

	if (self->max_kb[0]) {
		fd = open("/proc/sys/kernel/sframe_store_max_kb", O_WRONLY);
		if (fd >= 0) {
			if (write(fd, self->max_kb, strlen(self->max_kb)) < 0)
				TH_LOG("restoring sframe_store_max_kb: %s",
				       strerror(errno));
			close(fd);
		}
	}
	if (self->args.build_id_len)
		store_clean(&self->args);
	if (self->mnt[0]) {
		umount2(self->mnt, MNT_DETACH);
		rmdir(self->mnt);
	}
	if (self->region && self->region != MAP_FAILED)
		munmap(self->region, self->span);
	if (self->fd >= 0) {
		close(self->fd);
		unlink(self->path);
	}
	if (self->dl)
		dlclose(self->dl);
	free(self->a.b);
}

/*
 * A copy of libsft_a.so without PT_GNU_SFRAME (another file, so another
 * inode, with the same build ID, as in a container image), mapped and
 * sampled before the store has its section: found without one, its
 * frames lost.  Then its section is added, and the next unwind looks
 * again: served by the store, "store" in /proc/self/sframe, the chain
 * exactly that of the library loaded by dlopen().  The store counts the
 * mapping, and drops it when the copy is unmapped.
 */
TEST_F(store, serves_mapping_made_before)
{
	unsigned long bytes;
	unsigned int fdes, maps;
	struct obj o;

	file_put_img(_metadata, self->fd, &self->a, 0, patch_no_sframe);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, 0);
	expect_none(_metadata, &o, self->path);

	ASSERT_EQ(0, sframe_store_prctl(PR_SFRAME_STORE_ADD, &self->args));
	ASSERT_EQ(0, store_line(&self->args, &bytes, &fdes, &maps));
	EXPECT_EQ(self->args.sframe_len, bytes);
	EXPECT_EQ(0, maps);
	expect_usable(_metadata, &o, self->path, "store", &self->dl);
	ASSERT_EQ(0, store_line(&self->args, &bytes, &fdes, &maps));
	EXPECT_EQ(1, maps);

	ASSERT_NE(MAP_FAILED, mmap(self->region, self->span, PROT_NONE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				   -1, 0));
	ASSERT_EQ(0, store_line(&self->args, &bytes, &fdes, &maps));
	EXPECT_EQ(0, maps) TH_LOG("the store's section still used after munmap");
}

/* Processes of store.shared_by_processes */
#define SHARE_PROCS	200

/*
 * A child of store.shared_by_processes: once it reads a byte from @go,
 * it samples a call through its copy of the object @o (inherited from
 * the parent, which never unwound it), which makes the kernel resolve
 * the copy from the store, and writes to @done whether /proc/self/sframe
 * says "ok store" for it; then it waits for @quit to close.
 */
static void share_child(struct obj *o, int go, int done, int quit)
{
	struct proc_entry p;
	struct chain c;
	char b, ok = 0;

	if (read(go, &b, 1) == 1) {
		via_target = (dl_call_fn)(o->base + img_sym(o->im, "dl_call"));
		ok = !sample(via, 1, &c) && !proc_entry(o->text_start, &p) &&
		     !strcmp(p.state, "ok") && !strcmp(p.how, "store");
	}
	if (write(done, &ok, 1) != 1)
		_exit(1);
	while (read(quit, &b, 1) > 0)
		;
	_exit(0);
}

/*
 * One image per object, however many processes map it: SHARE_PROCS
 * processes, each with the copy without PT_GNU_SFRAME mapped and
 * unwound through it, share the store's one section.  The store's line
 * keeps its bytes from 1 process to SHARE_PROCS and counts a mapping
 * per process; what a process adds (its entry, its rule cache) stays
 * within ENTRY_BOUND_KB; when they exit the count is 0.
 */
TEST_F_TIMEOUT(store, shared_by_processes, 600)
{
	int go[2], done[2], quit[2], i, got = 0;
	unsigned long bytes, bytes1;
	unsigned int fdes, maps;
	long k1, kn;
	pid_t pid;
	struct obj o;
	char ok;

	file_put_img(_metadata, self->fd, &self->a, 0, patch_no_sframe);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, 0);
	ASSERT_EQ(0, sframe_store_prctl(PR_SFRAME_STORE_ADD, &self->args));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	ASSERT_EQ(0, pipe(quit));
	for (i = 0; i < SHARE_PROCS; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			close(go[1]);
			close(done[0]);
			close(quit[1]);
			share_child(&o, go[0], done[1], quit[0]);
			_exit(0);
		}
	}
	close(go[0]);
	close(done[1]);
	close(quit[0]);

	/* One process unwound through the copy */
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(1, read(done[0], &ok, 1));
	got += ok;
	ASSERT_EQ(0, store_line(&self->args, &bytes1, &fdes, &maps));
	EXPECT_EQ(self->args.sframe_len, bytes1);
	EXPECT_EQ(1, maps);
	k1 = kernel_kb();

	/* And all of them */
	for (i = 1; i < SHARE_PROCS; i++)
		ASSERT_EQ(1, write(go[1], "g", 1));
	for (i = 1; i < SHARE_PROCS; i++) {
		ASSERT_EQ(1, read(done[0], &ok, 1));
		got += ok;
	}
	ASSERT_EQ(0, store_line(&self->args, &bytes, &fdes, &maps));
	kn = kernel_kb();
	TH_LOG("%d processes: the section %lu bytes (%lu with 1), %u mappings",
	       SHARE_PROCS, bytes, bytes1, maps);
	/* (noisy under KASAN's quarantine, which may even shrink it) */
	TH_LOG("slab and vmalloc %+ld KiB from 1 process to %d", kn - k1,
	       SHARE_PROCS);
	EXPECT_EQ(SHARE_PROCS, got) TH_LOG("processes not served by the store");
	EXPECT_EQ(bytes1, bytes);
	EXPECT_EQ(SHARE_PROCS, maps);
	EXPECT_GE((long)ENTRY_BOUND_KB * (SHARE_PROCS - 1), kn - k1);

	close(quit[1]);
	close(go[1]);
	for (i = 0; i < SHARE_PROCS; i++)
		wait(NULL);
	close(done[0]);
	ASSERT_EQ(0, store_line(&self->args, &bytes, &fdes, &maps));
	EXPECT_EQ(0, maps) TH_LOG("mappings still counted after their processes exited");
}

/*
 * A mapping made after the section was added, from a file on a tmpfs
 * mounted in a new mount namespace (a container's view): served from
 * the first unwind.
 */
TEST_F(store, serves_other_mount_namespace)
{
	struct obj o;

	/* The fixture's file is not the one of this test: give it up */
	close(self->fd);
	unlink(self->path);
	self->fd = -1;
	snprintf(self->mnt, sizeof(self->mnt), "/tmp/sft_store_ns_%d_XXXXXX",
		 getpid());
	ASSERT_NE(NULL, mkdtemp(self->mnt)) TH_LOG("mkdtemp: %s", strerror(errno));
	ASSERT_EQ(0, unshare(CLONE_NEWNS)) TH_LOG("unshare: %s", strerror(errno));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("sft", self->mnt, "tmpfs", 0, NULL))
		TH_LOG("mount: %s", strerror(errno));
	snprintf(self->path, sizeof(self->path), "%s/copy_XXXXXX", self->mnt);
	self->fd = mkstemp(self->path);
	ASSERT_LE(0, self->fd) TH_LOG("mkstemp: %s", strerror(errno));

	ASSERT_EQ(0, sframe_store_prctl(PR_SFRAME_STORE_ADD, &self->args));
	file_put_img(_metadata, self->fd, &self->a, 0, patch_no_sframe);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, 0);
	expect_usable(_metadata, &o, self->path, "store", &self->dl);
}

/*
 * The identity is the build ID, the file's size and the text span: a
 * section stored for the same build ID with another size, or another
 * span, is not used (an object and its stripped copy share a build ID)
 */
TEST_F(store, identity_mismatch_refused)
{
	struct prctl_sframe_store a = self->args;
	struct obj o;

	a.file_size++;
	ASSERT_EQ(0, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));
	a = self->args;
	a.text_end += 16;
	ASSERT_EQ(0, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));
	file_put_img(_metadata, self->fd, &self->a, 0, patch_no_sframe);
	map_copy(_metadata, self->fd, self->region, &o, &self->a, 0);
	expect_none(_metadata, &o, self->path);
}

/* What the store refuses, with which error; and removal */
TEST_F(store, errors)
{
	const Elf64_Phdr *sf = img_phdr_type(&self->a, PT_GNU_SFRAME);
	struct prctl_sframe_store a;
	unsigned char *bad;

	a = self->args;
	a.build_id_len = 0;
	EXPECT_EQ(EINVAL, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));
	a.build_id_len = 21;
	EXPECT_EQ(EINVAL, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));
	a = self->args;
	a.file_size = 0;
	EXPECT_EQ(EINVAL, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));
	a = self->args;
	a.text_end = a.text_start;
	EXPECT_EQ(EINVAL, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));
	a = self->args;
	a.flags = PR_SFRAME_STORE_ALL;
	EXPECT_EQ(EINVAL, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));
	a = self->args;
	a.sframe_len = 0;
	EXPECT_EQ(EINVAL, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));
	/* Larger than the store may hold, refused before it is read */
	a.sframe_len = 1ULL << 31;
	EXPECT_EQ(E2BIG, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));
	a = self->args;
	a.sframe = 8;
	EXPECT_EQ(EFAULT, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));

	/* A corrupt section: the magic's first byte */
	bad = malloc(sf->p_filesz);
	ASSERT_NE(NULL, bad);
	memcpy(bad, self->a.b + sf->p_offset, sf->p_filesz);
	bad[0] ^= 0xff;
	a = self->args;
	a.sframe = (unsigned long)bad;
	EXPECT_EQ(EINVAL, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));
	free(bad);

	/* One section per identity */
	EXPECT_EQ(0, sframe_store_prctl(PR_SFRAME_STORE_ADD, &self->args));
	EXPECT_EQ(EEXIST, sframe_store_prctl(PR_SFRAME_STORE_ADD, &self->args));

	/*
	 * Removal names the build ID and the file size (or 0) only; then
	 * nothing is left to match
	 */
	EXPECT_EQ(EINVAL, sframe_store_prctl(PR_SFRAME_STORE_REMOVE, &self->args));
	a = self->args;
	a.file_size++;
	EXPECT_EQ(ENOENT, store_remove(&a, false));
	EXPECT_EQ(0, store_remove(&self->args, false));
	EXPECT_EQ(ENOENT, store_remove(&self->args, false));
	/* PR_SFRAME_STORE_ALL with a build ID */
	memset(&a, 0, sizeof(a));
	a.flags = PR_SFRAME_STORE_ALL;
	a.build_id_len = self->args.build_id_len;
	memcpy(a.build_id, self->args.build_id, sizeof(a.build_id));
	EXPECT_EQ(EINVAL, sframe_store_prctl(PR_SFRAME_STORE_REMOVE, &a));
}

/*
 * kernel.sframe_store_max_kb bounds what the store holds: sections of
 * other identities are added until it is full, which gives ENOSPC, and
 * one section above the limit gives E2BIG.  The store may hold more than
 * it lists (sections removed but still used by a mapping count until
 * it is unmapped), so the limit is raised a KiB at a time from the
 * section's size until one add succeeds; from there, a few more fit.
 */
TEST_F(store, limit)
{
	struct prctl_sframe_store a = self->args;
	unsigned long kb, max;
	char val[32];
	int fd, i = 0, ret = ENOSPC;
	ssize_t n;

	fd = open("/proc/sys/kernel/sframe_store_max_kb", O_RDWR);
	ASSERT_LE(0, fd);
	n = read(fd, self->max_kb, sizeof(self->max_kb) - 1);
	ASSERT_LT(0, n);
	self->max_kb[n] = 0;
	max = strtoul(self->max_kb, NULL, 10);

	for (kb = a.sframe_len / 1024 + 1; kb <= max && ret == ENOSPC; kb++) {
		snprintf(val, sizeof(val), "%lu", kb);
		ASSERT_LT(0, pwrite(fd, val, strlen(val), 0));
		a.build_id[0] = self->args.build_id[0] ^ 1;
		ret = sframe_store_prctl(PR_SFRAME_STORE_ADD, &a);
	}
	close(fd);
	ASSERT_EQ(0, ret) TH_LOG("no add at up to %lu KiB", max);
	kb--;
	for (i = 1; i < STORE_FAKE_IDS; i++) {
		a.build_id[0] = self->args.build_id[0] ^ (i + 1);
		ret = sframe_store_prctl(PR_SFRAME_STORE_ADD, &a);
		if (ret)
			break;
	}
	TH_LOG("%d sections of %llu bytes at %lu KiB", i,
	       (unsigned long long)a.sframe_len, kb);
	EXPECT_EQ(ENOSPC, ret);

	a.sframe_len = kb * 1024 + 1;
	EXPECT_EQ(E2BIG, sframe_store_prctl(PR_SFRAME_STORE_ADD, &a));
}

/*
 * Without CAP_PERFMON (or CAP_SYS_ADMIN), a process cannot change the
 * store; nor can it read /proc/sframe_store, which is root's (0400)
 */
TEST_F(store, needs_perfmon)
{
	int status, err;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(100);
		err = sframe_store_prctl(PR_SFRAME_STORE_ADD, &self->args);
		if (err != EPERM)
			_exit(101);
		err = store_remove(&self->args, true);
		if (err != EPERM)
			_exit(102);
		if (open("/proc/sframe_store", O_RDONLY) >= 0 || errno != EACCES)
			_exit(103);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("100: no setresuid(); 101, 102: add or remove not EPERM; %s",
		       "103: /proc/sframe_store readable");
}

TEST_HARNESS_MAIN
