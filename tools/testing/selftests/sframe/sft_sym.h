/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolization of user addresses for the SFrame kselftests: the name of
 * the function at an address of this process, from the ELF symbol tables
 * (.symtab, .dynsym) of the loaded objects.  The includer defines
 * _GNU_SOURCE (dl_iterate_phdr()) before its first #include.
 */
#ifndef SFT_SYM_H
#define SFT_SYM_H

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct sym_query {
	unsigned long ip;
	char name[128];
	char object[PATH_MAX];
};

static int sym_in_file(const char *path, unsigned long off, char *name,
		       size_t len)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	struct stat st;
	void *map;
	int i;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(*eh)) {
		close(fd);
		return -1;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	eh = map;
	sh = (Elf64_Shdr *)((char *)map + eh->e_shoff);
	for (i = 0; i < eh->e_shnum && ret; i++) {
		Elf64_Sym *sym = (Elf64_Sym *)((char *)map + sh[i].sh_offset);
		const char *str;
		size_t j;

		if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM)
			continue;
		str = (char *)map + sh[sh[i].sh_link].sh_offset;
		for (j = 0; j < sh[i].sh_size / sizeof(*sym); j++) {
			if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC ||
			    off < sym[j].st_value ||
			    off >= sym[j].st_value + sym[j].st_size)
				continue;
			snprintf(name, len, "%s", str + sym[j].st_name);
			ret = 0;
			break;
		}
	}
	munmap(map, st.st_size);
	return ret;
}

static int sym_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sym_query *q = data;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *ph = &info->dlpi_phdr[i];
		unsigned long start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || q->ip < start ||
		    q->ip >= start + ph->p_memsz)
			continue;
		snprintf(q->object, sizeof(q->object), "%s",
			 info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe");
		if (sym_in_file(q->object, q->ip - info->dlpi_addr, q->name,
				sizeof(q->name)))
			snprintf(q->name, sizeof(q->name), "?");
		return 1;
	}
	return 0;
}

/* Name of the function at @ip, "?" if unknown, "!" if in no object */
static const char *sym(unsigned long ip, char *buf, size_t len)
{
	struct sym_query q = { .ip = ip };

	if (!dl_iterate_phdr(sym_phdr_cb, &q))
		snprintf(q.name, sizeof(q.name), "!");
	snprintf(buf, len, "%s", q.name);
	return buf;
}

#endif
