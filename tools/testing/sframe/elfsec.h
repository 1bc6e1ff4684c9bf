/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal, bounds-checked ELF64 reader for the SFrame harness tools: find
 * the .sframe section and the executable segments of a native-endian
 * x86_64, aarch64 or s390x ELF file, and map them into the simulated user
 * address space at their ELF addresses.
 */
#ifndef _SFRAME_TEST_ELFSEC_H
#define _SFRAME_TEST_ELFSEC_H

#include <stddef.h>

#define ELFSEC_MAX_LOADS	8

struct elfsec {
	unsigned char	*data;		/* whole file */
	size_t		size;
	unsigned int	machine;	/* e_machine */
	unsigned long	sframe_addr;	/* .sframe: address and size */
	size_t		sframe_size;
	size_t		sframe_off;	/* file offset of .sframe */
	unsigned long	text_start;	/* span of the executable segments */
	unsigned long	text_end;
	unsigned int	nloads;		/* PT_LOAD file images */
	unsigned long	load_addr[ELFSEC_MAX_LOADS];
	size_t		load_off[ELFSEC_MAX_LOADS];
	size_t		load_size[ELFSEC_MAX_LOADS];
};

/* Return 0, or -1 with a message in @err. */
int elfsec_open(const char *path, struct elfsec *e, char *err, size_t errlen);

/* Map the PT_LOAD images (hence .sframe and the text) into uspace. */
void elfsec_map(const struct elfsec *e);

void elfsec_close(struct elfsec *e);

struct sframe_section;

/*
 * elfsec_open() and elfsec_map(), then point @sec at the .sframe section
 * and the text (its first four fields; the rest zeroed), ready for
 * sframe_section_init().  Return 0, or -1 with a message in @err (@e is
 * closed then).
 */
int elfsec_load(const char *path, struct elfsec *e, struct sframe_section *sec,
		char *err, size_t errlen);
/*
 * Function start and size of FDE @idx of @sec, read directly from the file
 * image (independently of the reader under test).  Return 0 or -1.
 */
int elfsec_fde(const struct elfsec *e, const struct sframe_section *sec,
	       unsigned int idx, unsigned long *start, unsigned int *size);

#endif
