// SPDX-License-Identifier: GPL-2.0
/*
 * Check the SFrame sections that sframe-gen generates from DWARF call frame
 * information, three ways, at every address of the text:
 *
 *   - the kernel's reader (kernel/unwind/sframe_walk.c, built as
 *     tools/testing/sframe builds it) takes the section:
 *     sframe_section_init() and sframe_validate() pass;
 *   - at every address with CFI, the rule the reader returns is the rule
 *     libdw gives for that address (dwarf_cfi_addrframe(), .eh_frame then
 *     .debug_frame), put in the reader's form here, independently of the
 *     generator; where the reader has no rule and the CFI has one, the
 *     address counts as unrepresentable, and where the CFI has none, the
 *     reader must have none either, but in x86-64 linker stubs (a section
 *     .plt, .iplt, .plt.sec or .plt.got), where it must have the rule of
 *     a function's first instruction, CFA = SP + 8 (counted as stubs);
 *   - at every address of a generated FDE, binutils' libsframe decodes the
 *     same rule as the reader (as sframe_diff does for the assembler's
 *     sections).
 *
 * The last line is
 *
 *	checked N PCs in M functions, K mismatches, U unrepresentable
 *
 * after a line "ELF: S PCs in linker stubs without CFI" for each object
 * that has them. *
 * and the exit status is non-zero if K > 0.  Only objects of the host's
 * byte order are checked (the reader reads native words).
 *
 * With -a, an object that also has an .sframe section from the assembler
 * gets a comparison of the two at every address of the text: where both
 * have a rule, and whether it is the same; where only one has a rule.
 * These are reported, with the first differences, not counted as
 * mismatches: the assembler's section is not the reference.
 *
 * Big-endian objects (s390x) are checked by a build for their machine, run
 * under qemu-user, which has no libdw: the host writes libdw's rows to a
 * file with -o (nothing else is checked then), and that build reads them
 * with -r instead of asking libdw (built with -DGENCHECK_ROWS_ONLY).
 *
 * Usage: sframe_gencheck [-v] [-a] ELF CACHE-FILE [ELF CACHE-FILE]...
 *        sframe_gencheck -o ROWS ELF CACHE-FILE
 *        sframe_gencheck -r ROWS ELF CACHE-FILE
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/array_size.h>

#ifndef GENCHECK_ROWS_ONLY
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#endif

#include "sframe_cache.h"
#include "diff_lib.h"
#include "elfsec.h"
#include "sframe_kunit_builder.h"
#include "sframe_walk.h"
#include "uspace.h"

#define MAX_REPORTS	20
/*
 * Where the generated section is put in the simulated address space: 64 MiB
 * past the text (beyond the object's other segments, which -a maps), within
 * reach of libsframe's 32-bit PC offsets
 */
static unsigned long sec_addr;
#define SEC_ADDR	sec_addr

static unsigned long checked, functions, mismatches, unrepresentable, stubs;
static int verbose, asm_cmp;

static void mismatch(const char *path, unsigned long pc, const char *what,
		     const char *ours, const char *theirs)
{
	if (verbose || mismatches < MAX_REPORTS)
		printf("MISMATCH %s %#lx %s:\n  reader: %s\n  %s\n",
		       path, pc, what, ours, theirs);
	mismatches++;
}

#ifndef GENCHECK_ROWS_ONLY
/* DWARF registers of the oracle: SP, FP, RA */
struct regs {
	unsigned int	sp, fp, ra;
	int		fixed_ra;
};

static bool oracle_regs(unsigned int machine, struct regs *r)
{
	switch (machine) {
	case EM_X86_64:
		*r = (struct regs){ 7, 6, 16, -8 };
		return true;
	case EM_AARCH64:
		*r = (struct regs){ 31, 29, 30, 0 };
		return true;
	case EM_S390:
		*r = (struct regs){ 15, 11, 14, 0 };
		return true;
	}
	return false;
}

/*
 * The location libdw gives for register @regno, in the reader's terms;
 * false for an expression that has no such form.
 */
static bool oracle_loc(Dwarf_Frame *f, int regno, struct sframe_loc *loc)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	memset(loc, 0, sizeof(*loc));
	if (dwarf_frame_register(f, regno, mem, &ops, &n))
		return false;
	if (!n) {
		loc->kind = ops ? SFRAME_LOC_UNDEFINED : SFRAME_LOC_SAME;
		return true;
	}
	/*
	 * [call_frame_cfa, bregR K (, stack_value)]: DW_CFA_expression and
	 * DW_CFA_val_expression of one register and offset (libdw pushes
	 * the CFA first)
	 */
	if (n >= 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    ((ops[1].atom >= DW_OP_breg0 && ops[1].atom <= DW_OP_breg31) ||
	     (ops[1].atom == DW_OP_bregx && ops[1].number <= 255))) {
		bool x = ops[1].atom == DW_OP_bregx;

		loc->reg = x ? ops[1].number :
			   (Dwarf_Word)(ops[1].atom - DW_OP_breg0);
		loc->off = (int32_t)(x ? ops[1].number2 : ops[1].number);
		if (n == 2) {
			loc->kind = SFRAME_LOC_REG_DEREF;
			return true;
		}
		if (n == 3 && ops[2].atom == DW_OP_stack_value) {
			loc->kind = SFRAME_LOC_REG;
			return true;
		}
		return false;
	}
	/* [call_frame_cfa, plus_uconst K (, stack_value)] */
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		size_t k = 1;

		if (k < n && ops[k].atom == DW_OP_plus_uconst)
			loc->off = (int32_t)ops[k++].number;
		if (k == n) {
			loc->kind = SFRAME_LOC_CFA_DEREF;
			return true;
		}
		if (k + 1 == n && ops[k].atom == DW_OP_stack_value) {
			loc->kind = SFRAME_LOC_CFA_VAL;
			return true;
		}
		return false;
	}
	/* register(R) */
	if (n == 1 && ops[0].atom == DW_OP_regx) {
		loc->kind = SFRAME_LOC_REG;
		loc->reg = ops[0].number;
		return true;
	}
	if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		loc->kind = SFRAME_LOC_REG;
		loc->reg = ops[0].atom - DW_OP_reg0;
		return true;
	}
	return false;
}

/*
 * Evaluate the CFA expression @ops at @pc as SP + constant, the PC known
 * and SP unknown: a value is a * SP + b.  Return 0 and the constant, or
 * -1 for an expression of another form or other operations.
 */
static int eval_cfa(const Dwarf_Op *ops, size_t n, unsigned int sp,
		    unsigned long pc, unsigned int pcreg, int32_t *off)
{
	long long a[8], b[8];
	size_t i, d = 0;

	for (i = 0; i < n; i++) {
		unsigned int op = ops[i].atom;

		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			if (d == 8)
				return -1;
			a[d] = 0;
			b[d++] = op - DW_OP_lit0;
		} else if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			if (d == 8 || (op - DW_OP_breg0 != sp &&
				       op - DW_OP_breg0 != pcreg))
				return -1;
			a[d] = op - DW_OP_breg0 == sp;
			b[d] = (long long)ops[i].number +
			       (a[d] ? 0 : (long long)pc);
			d++;
		} else if (d >= 2 && (op == DW_OP_and || op == DW_OP_ge ||
				      op == DW_OP_shl || op == DW_OP_plus)) {
			d--;
			if (op == DW_OP_plus) {
				a[d - 1] += a[d];
				b[d - 1] += b[d];
				continue;
			}
			if (a[d] || a[d - 1])
				return -1;
			if (op == DW_OP_and)
				b[d - 1] &= b[d];
			else if (op == DW_OP_ge)
				b[d - 1] = b[d - 1] >= b[d];
			else
				b[d - 1] <<= b[d];
		} else {
			return -1;
		}
	}
	if (d != 1 || a[0] != 1 || b[0] < INT32_MIN || b[0] > INT32_MAX)
		return -1;
	*off = b[0];
	return 0;
}

/* The rule at @pc per libdw: 0, 1 if it has no SFrame form, -1 if no CFI */
static int oracle(Dwarf_CFI **cfi, const struct regs *r, unsigned long pc,
		  struct sframe_rule *rule, Dwarf_Addr *end)
{
	Dwarf_Frame *f = NULL;
	Dwarf_Addr start;
	Dwarf_Op *ops;
	bool signal;
	size_t n;
	int i, ret = 1;

	memset(rule, 0, sizeof(*rule));
	for (i = 0; i < 2 && !f; i++)
		if (cfi[i] && dwarf_cfi_addrframe(cfi[i], pc, &f))
			f = NULL;
	if (!f)
		return -1;
	if (dwarf_frame_info(f, &start, end, &signal) < 0 || *end <= pc)
		*end = pc + 1;
	if (signal)
		rule->flags |= SFRAME_RULE_SIGNAL;
	if (!oracle_loc(f, r->ra, &rule->ra))
		goto out;
	if (rule->ra.kind == SFRAME_LOC_UNDEFINED) {
		rule->flags |= SFRAME_RULE_OUTERMOST;
		ret = 0;
		goto out;
	}
	if (!oracle_loc(f, r->fp, &rule->fp))
		goto out;
	if (dwarf_frame_cfa(f, &ops, &n) || n < 1)
		goto out;
	if (n > 2) {
		/* An expression SP + constant at this PC (x86-64 PLT) */
		if (eval_cfa(ops, n, r->sp, pc, r->ra, &rule->cfa.off))
			goto out;
		rule->cfa.kind = SFRAME_LOC_REG;
		rule->cfa.reg = r->sp;
		/* The value holds at this PC only */
		*end = pc + 1;
		ret = 0;
		goto out;
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		rule->cfa.reg = ops[0].atom - DW_OP_breg0;
		rule->cfa.off = (int32_t)ops[0].number;
	} else if (ops[0].atom == DW_OP_bregx) {
		rule->cfa.reg = ops[0].number;
		rule->cfa.off = (int32_t)ops[0].number2;
	} else {
		goto out;
	}
	if (n == 1)
		rule->cfa.kind = SFRAME_LOC_REG;
	else if (ops[1].atom == DW_OP_deref)
		rule->cfa.kind = SFRAME_LOC_REG_DEREF;
	else
		goto out;
	ret = 0;
out:
	free(f);
	return ret;
}

#endif /* GENCHECK_ROWS_ONLY */

/* The reader's rule, without what only says how it was encoded */
static char *fmt_rule(struct sframe_rule *rule, char *buf, size_t len)
{
	rule->flags &= ~(SFRAME_RULE_FLEX | SFRAME_RULE_PAUTH_KEY_B |
			 SFRAME_RULE_MANGLED_RA);
	return sfb_rulefmt(rule, buf, len);
}

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	void *buf = NULL;
	long n = -1;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END))
		n = ftell(f);
	if (n > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc(n);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*size = n;
	}
	fclose(f);
	return buf;
}

/* libsframe against the reader at every address of every generated FDE */
static void check_libsframe(const char *path, struct sframe_section *sec,
			    const uint8_t *buf, size_t size)
{
	char err[256], a[SFB_RULE_LEN + 64], b[SFB_RULE_LEN + 64];
	struct lib_ctx *lib = lib_open(buf, size, err, sizeof(err));
	unsigned int i, lsize;
	long long lstart;

	if (!lib) {
		mismatch(path, SEC_ADDR, "libsframe", "accepted", err);
		return;
	}
	for (i = 0; i < sec->num_fdes; i++) {
		unsigned long start, pc;

		if (lib_fde(lib, i, &lstart, &lsize)) {
			mismatch(path, 0, "libsframe FDE", "", "unreadable");
			continue;
		}
		start = SEC_ADDR + lstart;
		for (pc = start; pc - start < lsize; pc++) {
			struct sframe_rule ours, theirs;
			int r1, r2;

			r1 = sframe_find(sec, pc, &ours, NULL);
			r2 = lib_rule(lib, i, pc - SEC_ADDR, start, &theirs);
			if (r1 == -ENOENT && r2 == -ENOENT)
				continue;
			if (r1 || r2) {
				snprintf(a, sizeof(a), "%d", r1);
				snprintf(b, sizeof(b), "libsframe: %d", r2);
				mismatch(path, pc, "libsframe", a, b);
				continue;
			}
			sfb_rulefmt(&ours, a, sizeof(a));
			sfb_rulefmt(&theirs, b + 11, sizeof(b) - 11);
			memcpy(b, "libsframe: ", 11);
			if (strcmp(a, b + 11))
				mismatch(path, pc, "libsframe", a, b);
		}
	}
	lib_close(lib);
}

/*
 * Compare the assembler's .sframe of @path (if any) with the generated
 * section @gen at every address of the text.
 */
static void compare_asm(const char *path, struct sframe_section *gen,
			const uint8_t *buf, size_t size)
{
	char err[256], a[SFB_RULE_LEN], b[SFB_RULE_LEN];
	unsigned long pc, both = 0, same = 0, asm_only = 0, gen_only = 0;
	struct sframe_section as;
	enum sframe_reason why;
	struct elfsec e;
	int shown = 0;

	if (elfsec_load(path, &e, &as, err, sizeof(err)))
		return;
	/* elfsec_load() started a new address space: the section again */
	uspace_map(SEC_ADDR, buf, size);
	if (sframe_section_init(&as, &why)) {
		printf("%s: assembler .sframe: %s\n", path, sframe_reason_str(why));
		elfsec_close(&e);
		return;
	}
	for (pc = gen->text_start; pc < gen->text_end; pc++) {
		struct sframe_rule x, y;
		int rx, ry;

		rx = sframe_find(&as, pc, &x, NULL);
		ry = sframe_find(gen, pc, &y, NULL);
		if (rx && ry)
			continue;
		if (rx || ry) {
			if (rx)
				gen_only++;
			else
				asm_only++;
			if (verbose && shown++ < 40)
				printf("  %#lx only %s: %s\n", pc,
				       rx ? "sframe-gen" : "the assembler",
				       fmt_rule(rx ? &y : &x, a, sizeof(a)));
			continue;
		}
		both++;
		fmt_rule(&x, a, sizeof(a));
		fmt_rule(&y, b, sizeof(b));
		if (!strcmp(a, b)) {
			same++;
			continue;
		}
		if (shown++ < (verbose ? 40 : 5))
			printf("  %#lx assembler: %s\n  %#lx sframe-gen: %s\n",
			       pc, a, pc, b);
	}
	printf("%s: vs the assembler's .sframe: %lu PCs in both (%lu same rule, ",
	       path, both, same);
	printf("%lu differ), %lu only in the assembler's, %lu only in sframe-gen's\n",
	       both - same, asm_only, gen_only);
	elfsec_close(&e);
}

/* Where the expected rules come from: libdw, or a file of rows */
struct source {
#ifndef GENCHECK_ROWS_ONLY
	Dwarf_CFI	*cfi[2];
	struct regs	regs;
#endif
	FILE		*in;		/* -r: rows "START END KIND RULE" */
	FILE		*out;		/* -o: write them */
	bool		have;		/* a row read from @in */
	unsigned long	start, end;
	int		kind;		/* 0: a rule, 1: an expression */
	char		text[SFB_RULE_LEN + 64];
};

static const char *rows_file, *rows_mode;

/*
 * The expected rule at @pc, as text in @text, and the end of the range it
 * holds for: 0, 1 for a rule without SFrame form, -1 for no CFI.
 */
static int expect(struct source *src, unsigned long pc, char *text,
		  size_t len, unsigned long *end)
{
	if (src->in) {
		while (!src->have || pc >= src->end) {
			char line[sizeof(src->text) + 64];
			int n = 0;

			if (!fgets(line, sizeof(line), src->in)) {
				*end = ULONG_MAX;
				return -1;
			}
			line[strcspn(line, "\n")] = 0;
			if (sscanf(line, "%lx %lx %d %n", &src->start, &src->end,
				   &src->kind, &n) < 3 || !n)
				continue;
			snprintf(src->text, sizeof(src->text), "%s", line + n);
			src->have = true;
		}
		if (pc < src->start) {
			*end = src->start;
			return -1;
		}
		snprintf(text, len, "%s", src->text);
		*end = src->end;
		return src->kind;
	}
#ifndef GENCHECK_ROWS_ONLY
	{
		struct sframe_rule want;
		Dwarf_Addr e;
		int o = oracle(src->cfi, &src->regs, pc, &want, &e);

		*end = o < 0 ? pc + 1 : e;
		fmt_rule(&want, text, len);
		if (src->out && o >= 0)
			fprintf(src->out, "%lx %lx %d %s\n", pc, *end, o, text);
		return o;
	}
#else
	return -1;
#endif
}

/* Open the source of expected rules for @path */
static bool source_open(const char *path, struct source *src, void **elfp,
			void **dwp)
{
	memset(src, 0, sizeof(*src));
	*elfp = *dwp = NULL;
	if (rows_mode && *rows_mode == 'r') {
		src->in = fopen(rows_file, "r");
		return !!src->in;
	}
#ifndef GENCHECK_ROWS_ONLY
	{
		GElf_Ehdr eh;
		Elf *elf;
		Dwarf *dw;
		int fd;

		elf_version(EV_CURRENT);
		fd = open(path, O_RDONLY);
		elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
		*elfp = elf;
		if (!elf || !gelf_getehdr(elf, &eh) ||
		    !oracle_regs(eh.e_machine, &src->regs))
			return false;
		src->cfi[0] = dwarf_getcfi_elf(elf);
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		*dwp = dw;
		if (dw)
			src->cfi[1] = dwarf_getcfi(dw);
		if (rows_mode && *rows_mode == 'o') {
			src->out = fopen(rows_file, "w");
			return !!src->out;
		}
		return true;
	}
#else
	(void)path;
	return false;
#endif
}

/*
 * Whether @pc is in an x86-64 linker stub section of @elf, and the rule
 * @text is that of a function's first instruction: what sframe-gen gives
 * the linker's stubs that have no CFI
 */
static bool stub_rule(void *elf, unsigned long pc, const char *text)
{
#ifndef GENCHECK_ROWS_ONLY
	static const char *const names[] = {
		".plt", ".iplt", ".plt.sec", ".plt.got",
	};
	Elf_Scn *scn = NULL;
	size_t shstrndx, i;
	GElf_Ehdr eh;

	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    strcmp(text, "cfa=r7+8 ra=[cfa-8] fp=same") ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || pc < sh.sh_addr ||
		    pc - sh.sh_addr >= sh.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		for (i = 0; name && i < ARRAY_SIZE(names); i++)
			if (!strcmp(name, names[i]))
				return true;
	}
#endif
	(void)elf;
	(void)pc;
	(void)text;
	return false;
}

static void source_close(struct source *src, void *elf, void *dw)
{
	if (src->in)
		fclose(src->in);
	if (src->out)
		fclose(src->out);
#ifndef GENCHECK_ROWS_ONLY
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
#else
	(void)elf;
	(void)dw;
#endif
}

/* The cache header, in the byte order of the machine that wrote it */
static void hdr_native(struct sfg_cache_hdr *h)
{
	if (h->version == SFG_CACHE_VERSION)
		return;
	h->version = bswap_32(h->version);
	h->hdr_size = bswap_32(h->hdr_size);
	h->sframe_size = bswap_64(h->sframe_size);
	h->text_start = bswap_64(h->text_start);
	h->text_end = bswap_64(h->text_end);
	h->obj_size = bswap_64(h->obj_size);
	h->build_id_len = bswap_32(h->build_id_len);
}

static void check(const char *path, const char *cache)
{
	char a[SFB_RULE_LEN + 64], b[SFB_RULE_LEN + 64];
	unsigned long pc, end, u0 = unrepresentable, c0 = checked, s0 = stubs;
	unsigned long k0 = mismatches;
	struct sframe_section sec = { 0 };
	struct sfg_cache_hdr *h;
	enum sframe_reason why;
	uint8_t *file, *buf;
	void *elf = NULL, *dw = NULL;
	struct source src = { 0 };
	size_t size;

	uspace_reset();
	file = read_file(cache, &size);
	h = (void *)file;
	if (file && size >= sizeof(*h))
		hdr_native(h);
	if (!file || size < sizeof(*h) || memcmp(h->magic, SFG_CACHE_MAGIC, 8) ||
	    h->hdr_size > size || h->sframe_size > size - h->hdr_size) {
		mismatch(path, 0, "cache file", cache, "unreadable");
		free(file);
		return;
	}
	if (!source_open(path, &src, &elf, &dw)) {
		mismatch(path, 0, "CFI", path, "unreadable");
		goto out;
	}
	if (src.out) {
		/* -o: libdw's rows only, for a check on another machine */
		for (pc = h->text_start; pc < h->text_end; pc = end)
			expect(&src, pc, b, sizeof(b), &end);
		goto out;
	}
	buf = file + h->hdr_size;
	size = h->sframe_size;
	sec_addr = ((h->text_end + 0xfffff) & ~0xfffffUL) + 0x4000000;
	if (sfg_cache_relocate(buf, size, 0, SEC_ADDR)) {
		mismatch(path, 0, "relocation", cache, "failed");
		goto out;
	}
	uspace_map(SEC_ADDR, buf, size);
	sec.sframe_start = SEC_ADDR;
	sec.sframe_end = SEC_ADDR + size;
	sec.text_start = h->text_start;
	sec.text_end = h->text_end;
	/* With the FDE index, as the kernel makes it for a registration */
	if (sframe_section_init(&sec, &why) || sframe_validate(&sec, &why) ||
	    sframe_index_attach(&sec, &why)) {
		mismatch(path, SEC_ADDR, "section", sframe_reason_str(why),
			 "valid");
		goto out;
	}
	functions += sec.num_fdes;
	check_libsframe(path, &sec, buf, size);

	for (pc = h->text_start; pc < h->text_end;) {
		struct sframe_rule got;
		int o, r;

		o = expect(&src, pc, b, sizeof(b), &end);
		if (end > h->text_end)
			end = h->text_end;
		for (; pc < end; pc++) {
			r = sframe_find(&sec, pc, &got, &why);
			if (o < 0) {
				if (!r && stub_rule(elf, pc, fmt_rule(&got, a, sizeof(a))))
					stubs++;
				else if (r != -ENOENT)
					mismatch(path, pc, "no CFI here",
						 r ? sframe_reason_str(why) :
						 fmt_rule(&got, a, sizeof(a)),
						 "libdw: no CFI");
				continue;
			}
			checked++;
			if (r == -ENOENT) {
				unrepresentable++;
				continue;
			}
			if (r) {
				mismatch(path, pc, "rule",
					 sframe_reason_str(why), b);
				continue;
			}
			if (o > 0) {
				mismatch(path, pc, "rule", fmt_rule(&got, a, sizeof(a)),
					 "libdw: an expression");
				continue;
			}
			fmt_rule(&got, a, sizeof(a));
			if (strcmp(a, b)) {
				char t[sizeof(b) + 16];

				snprintf(t, sizeof(t), "libdw:  %s", b);
				mismatch(path, pc, "rule", a, t);
			}
		}
	}
	if (stubs != s0)
		printf("%s: %lu PCs in linker stubs without CFI\n", path,
		       stubs - s0);
	printf("%s: checked %lu PCs, %lu mismatches, %lu unrepresentable\n",
	       path, checked - c0, mismatches - k0, unrepresentable - u0);
	if (asm_cmp)
		compare_asm(path, &sec, buf, size);
out:
	sframe_index_put(sec.fde_index);
	source_close(&src, elf, dw);
	free(file);
}

int main(int argc, char **argv)
{
	int i;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-v")) {
			verbose = 1;
		} else if (!strcmp(argv[1], "-a")) {
			asm_cmp = 1;
		} else if ((!strcmp(argv[1], "-o") || !strcmp(argv[1], "-r")) &&
			   argc > 2) {
			rows_mode = argv[1] + 1;
			rows_file = argv[2];
			argv++;
			argc--;
		} else {
			break;
		}
		argv++;
		argc--;
	}
	if (argc < 3 || (argc - 1) % 2 || (rows_mode && argc != 3)) {
		fprintf(stderr,
			"usage: sframe_gencheck [-v] [-a] [-o|-r ROWS] ELF CACHE-FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i += 2)
		check(argv[i], argv[i + 1]);
	printf("checked %lu PCs in %lu functions, %lu mismatches, %lu unrepresentable\n",
	       checked, functions, mismatches, unrepresentable);
	return mismatches ? 1 : 0;
}
