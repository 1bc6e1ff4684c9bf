/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframe-gen: SFrame V3 sections generated from the DWARF call frame
 * information (.eh_frame, .debug_frame) of an ELF object, for objects built
 * without -Wa,--gsframe.
 *
 * The CFI is read with elfutils' libdw (sframe_gen_cfi.c), row by row, and
 * each row's rule is put in the form that the kernel's SFrame reader
 * returns, struct sframe_rule; the encoder (sframe_gen_enc.c) writes the
 * rules as a section that the reader decodes back to the same rules.  What
 * SFrame cannot express is left out, so that the kernel unwinds those
 * addresses with frame pointers, and counted by reason.
 */
#ifndef _SFRAME_GEN_H
#define _SFRAME_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <linux/sframe_rule.h>

/* Why a row of CFI was left out */
enum sfg_why {
	SFG_OK,
	SFG_CFA_EXPR,		/* CFA is a DWARF expression SFrame lacks */
	SFG_CFA_REG,		/* CFA register SFrame cannot name here */
	SFG_RA_RULE,		/* return address rule SFrame cannot express */
	SFG_FP_RULE,		/* frame pointer rule SFrame cannot express */
	SFG_OFFSET,		/* an offset out of range or misaligned */
	SFG_NO_ROW,		/* libdw gave no row for an address of an FDE */
	SFG_OUTSIDE,		/* FDE outside the executable segments */
	SFG_NR_WHY
};

extern const char *const sfg_why_str[SFG_NR_WHY];

/* The architecture of an object: SFrame ABI and DWARF registers */
struct sfg_arch {
	const char	*name;
	unsigned int	machine;	/* e_machine */
	uint8_t		abi;		/* SFRAME_ABI_* */
	bool		big_endian;
	uint8_t		sp, fp, ra;	/* DWARF register numbers */
	int8_t		fixed_ra;	/* header: RA at CFA + this, or 0 */
	int		cfa_adjust;	/* s390x: CFA offsets are stored */
	int		cfa_scale;	/* (off + cfa_adjust) / cfa_scale */
};

const struct sfg_arch *sfg_arch_find(unsigned int machine);

/**
 * struct sfg_row - the rule of a range of addresses
 * @start:	first address (ELF virtual address)
 * @end:	end of the range (exclusive)
 * @first:	the first row of an FDE of the CFI (a function starts here)
 * @plt_k:	x86-64 PLT entries (16 bytes each, from @start): the CFA is
 *		SP + 8 below offset @plt_k of each entry, SP + 16 from there,
 *		as the CFA expression of the linker's .eh_frame says; written
 *		as an FDE of PC type SFRAME_FDE_PCTYPE_MASK.  0 otherwise, and
 *		@rule holds the rule
 * @rule:	what the kernel's reader is to return there: cfa, ra, fp and
 *		the flags SFRAME_RULE_OUTERMOST, _SIGNAL, _PAUTH_KEY_B
 */
struct sfg_row {
	uint64_t		start;
	uint64_t		end;
	bool			first;
	uint8_t			plt_k;
	struct sframe_rule	rule;
};

/* Counts of a generation, for the report */
struct sfg_stats {
	unsigned long	fdes;		/* CFI FDEs read */
	unsigned long	rows;		/* CFI rows read */
	unsigned long	rows_out;	/* rows left out */
	uint64_t	bytes;		/* text bytes with CFI */
	uint64_t	bytes_out;	/* text bytes left out */
	uint64_t	stub_bytes;	/* linker stubs without CFI, given rows */
	unsigned long	why_rows[SFG_NR_WHY];
	unsigned long	sframe_fdes;	/* FDEs written */
	unsigned long	sframe_fres;	/* FREs written */
	size_t		sframe_size;	/* section size */
	size_t		eh_frame_size;	/* .eh_frame + .debug_frame sizes */
};

/**
 * struct sfg_obj - an ELF object and the rows generated for it
 * @arch:	its architecture
 * @text_start:	span of the executable PT_LOAD segments (ELF addresses)
 * @text_end:
 * @st:		status of the file read (fstat())
 * @build_id:	NT_GNU_BUILD_ID, if any
 * @build_id_len: its length, 0 if none
 * @rows:	representable rows, sorted by address, not overlapping
 * @nrows:	number of rows
 * @stats:	counts
 */
struct sfg_obj {
	const struct sfg_arch	*arch;
	uint64_t		text_start;
	uint64_t		text_end;
	struct stat		st;
	uint8_t			build_id[64];
	unsigned int		build_id_len;
	struct sfg_row		*rows;
	size_t			nrows;
	struct sfg_stats	stats;
};

/*
 * Read the CFI of the ELF file @path into @obj.  Return 0, or -1 with a
 * message in @err.
 */
int sfg_read(const char *path, struct sfg_obj *obj, char *err, size_t errlen);
/*
 * The same without the CFI (no rows, no counts): what names its cache file,
 * the build ID and the file's status, with the architecture and the text.
 */
int sfg_read_id(const char *path, struct sfg_obj *obj, char *err,
		size_t errlen);
void sfg_free(struct sfg_obj *obj);

/*
 * Encode @obj's rows as an SFrame V3 section, FDEs sorted, with function
 * start offsets relative to the section start as if the section were at
 * address 0 and the object loaded at its ELF addresses: the user of the
 * section adds (load bias - section address) to each, see sframe_cache.h.
 * Return a malloc'd buffer and its size in @size, or NULL.
 */
uint8_t *sfg_encode(struct sfg_obj *obj, size_t *size);

#endif /* _SFRAME_GEN_H */
