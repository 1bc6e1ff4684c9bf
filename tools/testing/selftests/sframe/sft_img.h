/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ELF object read into memory, and its identity and section as the
 * kernel's store of SFrame sections takes them: shared by the store's
 * tests (sframe_discovery) and the stress program's store operation.
 * 64-bit ELF in the host's byte order, built with the tests: the headers
 * are trusted.
 */
#ifndef SFT_IMG_H
#define SFT_IMG_H

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sft_sframe.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif
#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID	3
#endif

/* A file read into memory */
struct img {
	unsigned char *b;
	size_t size;
	char path[PATH_MAX + 32];
};

/* Read the file @im->path into @im: 0, or -1 with errno set */
static inline int img_load(struct img *im)
{
	struct stat st;
	int fd;

	fd = open(im->path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -1;
	}
	im->size = st.st_size;
	im->b = malloc(im->size);
	if (!im->b || pread(fd, im->b, im->size, 0) != (ssize_t)im->size) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static inline Elf64_Ehdr *img_ehdr(const struct img *im)
{
	return (Elf64_Ehdr *)im->b;
}

static inline Elf64_Phdr *img_phdr(const struct img *im, int i)
{
	return (Elf64_Phdr *)(im->b + img_ehdr(im)->e_phoff) + i;
}

/* The first program header of type @type, or NULL */
static inline Elf64_Phdr *img_phdr_type(const struct img *im, Elf64_Word type)
{
	int i;

	for (i = 0; i < img_ehdr(im)->e_phnum; i++)
		if (img_phdr(im, i)->p_type == type)
			return img_phdr(im, i);
	return NULL;
}

/* The NT_GNU_BUILD_ID of @im, in its PT_NOTE segments, into @id: its length */
static inline unsigned int img_build_id(const struct img *im, unsigned char *id)
{
	int i;

	for (i = 0; i < img_ehdr(im)->e_phnum; i++) {
		Elf64_Phdr *ph = img_phdr(im, i);
		size_t off = 0;

		if (ph->p_type != PT_NOTE)
			continue;
		while (off + sizeof(Elf64_Nhdr) <= ph->p_filesz) {
			Elf64_Nhdr *n = (Elf64_Nhdr *)(im->b + ph->p_offset + off);
			size_t name = (n->n_namesz + 3) & ~3UL;
			size_t desc = (n->n_descsz + 3) & ~3UL;
			const char *nm = (const char *)(n + 1);

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(nm, "GNU", 4) && n->n_descsz <= 20 &&
			    off + sizeof(*n) + name + n->n_descsz <= ph->p_filesz) {
				memcpy(id, nm + name, n->n_descsz);
				return n->n_descsz;
			}
			off += sizeof(*n) + name + desc;
		}
	}
	return 0;
}

/*
 * The identity and section of @im for the store, as sframe-store gives
 * them: its build ID, file size, the span of its executable PT_LOAD
 * segments, and its own .sframe section at its ELF address.  @im must
 * have a PT_GNU_SFRAME.
 */
static inline void store_args(const struct img *im, struct prctl_sframe_store *a)
{
	const Elf64_Phdr *sf = img_phdr_type(im, PT_GNU_SFRAME);
	int i;

	memset(a, 0, sizeof(*a));
	a->sframe = (unsigned long)(im->b + sf->p_offset);
	a->sframe_len = sf->p_filesz;
	a->sframe_addr = sf->p_vaddr;
	a->file_size = im->size;
	a->text_start = ~0ULL;
	for (i = 0; i < img_ehdr(im)->e_phnum; i++) {
		Elf64_Phdr *ph = img_phdr(im, i);

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (ph->p_vaddr < a->text_start)
			a->text_start = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > a->text_end)
			a->text_end = ph->p_vaddr + ph->p_memsz;
	}
	a->build_id_len = img_build_id(im, a->build_id);
}

/*
 * Remove the sections of @a's build ID: of its file size, or of any size
 * if @any.  0 or the errno.
 */
static inline int store_remove(const struct prctl_sframe_store *a, bool any)
{
	struct prctl_sframe_store r = {
		.file_size	= any ? 0 : a->file_size,
		.build_id_len	= a->build_id_len,
	};

	memcpy(r.build_id, a->build_id, sizeof(r.build_id));
	return sframe_store_prctl(PR_SFRAME_STORE_REMOVE, &r);
}

#endif /* SFT_IMG_H */
