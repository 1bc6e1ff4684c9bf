// SPDX-License-Identifier: GPL-2.0
/* Minimal, bounds-checked ELF64 reader for the SFrame harness tools. */
#include <linux/elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>
#include "sframe_walk.h"
#include "elfsec.h"
#include "uspace.h"

#ifndef SHT_GNU_SFRAME
#define SHT_GNU_SFRAME	0x6ffffff4
#endif
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* [off, off + len) inside the file? */
static int in_file(const struct elfsec *e, unsigned long long off,
		   unsigned long long len)
{
	return off <= e->size && len <= e->size - off;
}

static int read_file(const char *path, struct elfsec *e, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return bad(err, errlen, "%s: cannot open", path);
	n = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (n < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return bad(err, errlen, "%s: cannot size", path);
	}
	e->size = n;
	e->data = malloc(e->size ? e->size : 1);
	if (!e->data || fread(e->data, 1, e->size, f) != e->size) {
		fclose(f);
		return bad(err, errlen, "%s: cannot read", path);
	}
	fclose(f);
	return 0;
}

int elfsec_open(const char *path, struct elfsec *e, char *err, size_t errlen)
{
	const unsigned char native = *(const unsigned short *)"\1\0" == 1 ?
				     ELFDATA2LSB : ELFDATA2MSB;
	const struct elf64_shdr *shdrs = NULL, *strtab;
	const struct elf64_phdr *phdrs;
	unsigned long long pt_sframe_addr = 0, pt_sframe_size = 0;
	unsigned long long pt_sframe_off = 0;
	const struct elf64_hdr *eh;
	unsigned int i;
	int found = 0;

	memset(e, 0, sizeof(*e));
	if (read_file(path, e, err, errlen))
		return -1;

	eh = (const struct elf64_hdr *)e->data;
	if (e->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return bad(err, errlen, "%s: not an ELF file", path);
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return bad(err, errlen, "%s: not ELF64", path);
	if (eh->e_ident[EI_DATA] != native)
		return bad(err, errlen, "%s: foreign byte order", path);
	e->machine = eh->e_machine;
	if (e->machine != EM_X86_64 && e->machine != EM_AARCH64 &&
	    e->machine != EM_S390)
		return bad(err, errlen, "%s: unsupported machine %u", path,
			   e->machine);

	/* Program headers: loadable images, text span, PT_GNU_SFRAME */
	if (eh->e_phnum &&
	    (eh->e_phentsize != sizeof(struct elf64_phdr) ||
	     !in_file(e, eh->e_phoff,
		      (unsigned long long)eh->e_phnum * sizeof(struct elf64_phdr))))
		return bad(err, errlen, "%s: bad program headers", path);
	phdrs = (const struct elf64_phdr *)(e->data + eh->e_phoff);
	e->text_start = ~0UL;
	for (i = 0; i < eh->e_phnum; i++) {
		const struct elf64_phdr *ph = &phdrs[i];

		if (ph->p_type == PT_GNU_SFRAME) {
			pt_sframe_addr = ph->p_vaddr;
			pt_sframe_size = ph->p_filesz;
			pt_sframe_off = ph->p_offset;
		}
		if (ph->p_type != PT_LOAD)
			continue;
		if (!in_file(e, ph->p_offset, ph->p_filesz))
			return bad(err, errlen, "%s: PT_LOAD outside file", path);
		if (e->nloads < ELFSEC_MAX_LOADS && ph->p_filesz) {
			e->load_addr[e->nloads] = ph->p_vaddr;
			e->load_off[e->nloads] = ph->p_offset;
			e->load_size[e->nloads] = ph->p_filesz;
			e->nloads++;
		}
		if (ph->p_flags & PF_X) {
			if (ph->p_vaddr < e->text_start)
				e->text_start = ph->p_vaddr;
			if (ph->p_vaddr + ph->p_memsz > e->text_end)
				e->text_end = ph->p_vaddr + ph->p_memsz;
		}
	}
	if (!e->nloads || e->text_start >= e->text_end)
		return bad(err, errlen, "%s: no executable segment (not linked?)",
			   path);

	/* Section headers: .sframe by type or name */
	if (eh->e_shnum && eh->e_shentsize == sizeof(struct elf64_shdr) &&
	    in_file(e, eh->e_shoff,
		    (unsigned long long)eh->e_shnum * sizeof(struct elf64_shdr)) &&
	    eh->e_shstrndx < eh->e_shnum)
		shdrs = (const struct elf64_shdr *)(e->data + eh->e_shoff);
	for (i = 0; shdrs && i < eh->e_shnum; i++) {
		const struct elf64_shdr *sh = &shdrs[i];
		const char *name = "";

		strtab = &shdrs[eh->e_shstrndx];
		if (in_file(e, strtab->sh_offset, strtab->sh_size) &&
		    sh->sh_name < strtab->sh_size &&
		    memchr(e->data + strtab->sh_offset + sh->sh_name, 0,
			   strtab->sh_size - sh->sh_name))
			name = (const char *)e->data + strtab->sh_offset +
			       sh->sh_name;
		if (sh->sh_type != SHT_GNU_SFRAME && strcmp(name, ".sframe"))
			continue;
		if (sh->sh_type == SHT_NOBITS ||
		    !in_file(e, sh->sh_offset, sh->sh_size))
			return bad(err, errlen, "%s: .sframe outside file", path);
		e->sframe_addr = sh->sh_addr;
		e->sframe_size = sh->sh_size;
		e->sframe_off = sh->sh_offset;
		found = 1;
		break;
	}
	if (!found && pt_sframe_size) {
		if (!in_file(e, pt_sframe_off, pt_sframe_size))
			return bad(err, errlen, "%s: PT_GNU_SFRAME outside file",
				   path);
		e->sframe_addr = pt_sframe_addr;
		e->sframe_size = pt_sframe_size;
		e->sframe_off = pt_sframe_off;
		found = 1;
	}
	if (!found || !e->sframe_size)
		return bad(err, errlen, "%s: no .sframe section", path);
	return 0;
}

void elfsec_map(const struct elfsec *e)
{
	unsigned int i;

	uspace_reset();
	/* .sframe first: a section-only mapping wins over the segments */
	uspace_map(e->sframe_addr, e->data + e->sframe_off, e->sframe_size);
	for (i = 0; i < e->nloads; i++)
		uspace_map(e->load_addr[i], e->data + e->load_off[i],
			   e->load_size[i]);
}

void elfsec_close(struct elfsec *e)
{
	free(e->data);
	e->data = NULL;
}

int elfsec_load(const char *path, struct elfsec *e, struct sframe_section *sec,
		char *err, size_t errlen)
{
	if (elfsec_open(path, e, err, errlen)) {
		elfsec_close(e);
		return -1;
	}
	elfsec_map(e);
	memset(sec, 0, sizeof(*sec));
	sec->sframe_start = e->sframe_addr;
	sec->sframe_end = e->sframe_addr + e->sframe_size;
	sec->text_start = e->text_start;
	sec->text_end = e->text_end;
	return 0;
}

int elfsec_fde(const struct elfsec *e, const struct sframe_section *sec,
	       unsigned int idx, unsigned long *start, unsigned int *size)
{
	unsigned long off, at;
	int64_t soff;
	int32_t soff32;
	uint32_t sz;

	if (idx >= sec->num_fdes)
		return -1;
	at = sec->fdes_start + (unsigned long)idx * sec->fde_size;
	off = at - e->sframe_addr;
	if (off > e->sframe_size || sec->fde_size > e->sframe_size - off)
		return -1;
	if (sec->version == 2) {
		memcpy(&soff32, e->data + e->sframe_off + off, 4);
		soff = soff32;
		memcpy(&sz, e->data + e->sframe_off + off + 4, 4);
	} else {
		memcpy(&soff, e->data + e->sframe_off + off, 8);
		memcpy(&sz, e->data + e->sframe_off + off + 8, 4);
	}
	*start = (sec->flags & 0x4 ? at : e->sframe_addr) + (unsigned long)soff;
	*size = sz;
	return 0;
}
