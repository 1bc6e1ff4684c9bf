/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files of the sframe-gen cache: one per ELF object, named by the
 * object's build ID and size, holding a header and an SFrame V3 section generated
 * for the object by sframe-gen.  In the file, the section's function start
 * fields hold the functions' ELF addresses, and SFRAME_F_FDE_FUNC_START_PCREL
 * is clear; whoever maps the file for a process turns them into the
 * PC-relative offsets that the assembler emits, for the address the object
 * is loaded at and the address of the section, with sfg_cache_relocate(),
 * before registering the section with prctl(PR_SFRAME).
 *
 * Header-only, with no library but libc's string functions, for the
 * LD_AUDIT module, sframe-gen and the tests.
 */
#ifndef _SFRAME_CACHE_H
#define _SFRAME_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define SFG_CACHE_MAGIC		"SFGCACHE"
#define SFG_CACHE_VERSION	1

/**
 * struct sfg_cache_hdr - start of a cache file, in the byte order of the
 *			  machine that wrote it
 * @magic:	SFG_CACHE_MAGIC
 * @version:	SFG_CACHE_VERSION
 * @hdr_size:	offset of the section in the file: sizeof(struct
 *		sfg_cache_hdr), the only value readers accept
 * @sframe_size: size of the section, which ends the file
 * @text_start:	ELF addresses of the executable segments of the object,
 * @text_end:	which the section describes
 * @obj_size:	size of the object file
 * @build_id_len: length of @build_id, 0 if the object has none
 * @build_id:	the object's NT_GNU_BUILD_ID
 */
struct sfg_cache_hdr {
	char		magic[8];
	uint32_t	version;
	uint32_t	hdr_size;
	uint64_t	sframe_size;
	uint64_t	text_start;
	uint64_t	text_end;
	uint64_t	obj_size;
	uint32_t	build_id_len;
	uint8_t		build_id[64];
	uint32_t	reserved;
};

/*
 * The cache file name of an object: its build ID and its size in hex,
 * "<build-id>-<size>.sframe", or, without a build ID, its device, inode,
 * size and modification time.  The size tells apart objects that share a
 * build ID, such as an object and its copy made by strip(1), which keeps
 * the build ID: each has a file of its own, and neither's hides the
 * other's.
 */
static inline void sfg_cache_name(char *buf, size_t len, const uint8_t *id,
				  unsigned int id_len, const struct stat *st)
{
	size_t at = 0;
	unsigned int i;

	if (!id_len) {
		snprintf(buf, len, "noid-%llx-%llx-%llx-%llx.sframe",
			 (unsigned long long)st->st_dev,
			 (unsigned long long)st->st_ino,
			 (unsigned long long)st->st_size,
			 (unsigned long long)st->st_mtime);
		return;
	}
	for (i = 0; i < id_len && at + 3 < len; i++, at += 2)
		snprintf(buf + at, len - at, "%02x", id[i]);
	snprintf(buf + at, len - at, "-%llx.sframe",
		 (unsigned long long)st->st_size);
}

static inline uint64_t sfg_get(const uint8_t *p, unsigned int n, bool swap)
{
	uint64_t v = 0;
	unsigned int i;

	/* Native order, or the other one */
	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (swap == (*(const uint8_t *)&(const uint16_t){ 1 } == 1)) {
		uint64_t r = 0;

		for (i = 0; i < n; i++)
			r |= (uint64_t)p[n - 1 - i] << (8 * i);
		v = r;
	}
	return v;
}

static inline void sfg_set(uint8_t *p, uint64_t v, unsigned int n, bool swap)
{
	bool le = *(const uint8_t *)&(const uint16_t){ 1 } == 1;
	unsigned int i;

	for (i = 0; i < n; i++)
		p[(le != swap) ? i : n - 1 - i] = v >> (8 * i);
}

/**
 * sfg_cache_relocate() - make a generated section usable at its address
 * @sec:	the section, writable
 * @size:	its size
 * @bias:	load bias of the object
 * @addr:	address of @sec in the process
 *
 * Return: 0, or -1 if @sec is not a V3 section of sframe-gen's layout
 * (function starts not PC-relative yet) that fits in @size.
 */
static inline int sfg_cache_relocate(uint8_t *sec, uint64_t size,
				     uint64_t bias, uint64_t addr)
{
	uint64_t num_fdes, fdeoff, i;
	bool swap;

	if (size < 28)
		return -1;
	if (sfg_get(sec, 2, false) == 0xdee2)
		swap = false;
	else if (sfg_get(sec, 2, true) == 0xdee2)
		swap = true;
	else
		return -1;
	/* Version 3, sorted, start offsets not PC-relative, no aux header */
	if (sec[2] != 3 || sec[3] != 1 || sec[7])
		return -1;
	num_fdes = sfg_get(sec + 8, 4, swap);
	fdeoff = sfg_get(sec + 20, 4, swap);
	if (fdeoff > size - 28 || num_fdes > (size - 28 - fdeoff) / 16)
		return -1;
	for (i = 0; i < num_fdes; i++) {
		uint64_t at = 28 + fdeoff + i * 16;

		sfg_set(sec + at, sfg_get(sec + at, 8, swap) + bias - addr - at,
			8, swap);
	}
	sec[3] |= 4;	/* SFRAME_F_FDE_FUNC_START_PCREL */
	return 0;
}

#endif /* _SFRAME_CACHE_H */
