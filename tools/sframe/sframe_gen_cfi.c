// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen: read the call frame information of an ELF object with libdw
 * and turn each row into the rule the kernel's SFrame reader would return.
 *
 * The FDEs of .eh_frame (and of .debug_frame, for addresses .eh_frame does
 * not cover) are listed with dwarf_next_cfi(); their address ranges are
 * decoded with the pointer encoding of their CIE.  Within an FDE, libdw
 * gives one row per range of addresses with the same rules
 * (dwarf_cfi_addrframe(), dwarf_frame_info()); the CFA, return address and
 * frame pointer rules of a row come from dwarf_frame_cfa() and
 * dwarf_frame_register() as DWARF expressions, of which the simple forms
 * that SFrame can express are recognized here.  libdw interprets the CFI;
 * nothing here executes CFA instructions.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/array_size.h>

#include "sframe_format.h"
#include "sframe_gen.h"
#include "sframe_gen_int.h"

const char *const sfg_why_str[SFG_NR_WHY] = {
	[SFG_OK]	= "ok",
	[SFG_CFA_EXPR]	= "CFA expression",
	[SFG_CFA_REG]	= "CFA register",
	[SFG_RA_RULE]	= "return address rule",
	[SFG_FP_RULE]	= "frame pointer rule",
	[SFG_OFFSET]	= "offset out of range",
	[SFG_NO_ROW]	= "no CFI row",
	[SFG_OUTSIDE]	= "outside the text",
};

static const struct sfg_arch sfg_arches[] = {
	{ "x86_64", EM_X86_64, SFRAME_ABI_AMD64_ENDIAN_LITTLE, false,
	  7, 6, 16, -8, 0, 1 },
	{ "aarch64", EM_AARCH64, SFRAME_ABI_AARCH64_ENDIAN_LITTLE, false,
	  31, 29, 30, 0, 0, 1 },
	{ "s390x", EM_S390, SFRAME_ABI_S390X_ENDIAN_BIG, true,
	  15, 11, 14, 0, SFRAME_S390X_CFA_OFFSET_ADJUSTMENT,
	  SFRAME_S390X_CFA_OFFSET_ALIGNMENT_FACTOR },
};

const struct sfg_arch *sfg_arch_find(unsigned int machine)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sfg_arches); i++)
		if (sfg_arches[i].machine == machine)
			return &sfg_arches[i];
	return NULL;
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* A CFI section and what its CIEs say */
struct cfi_sec {
	Elf_Data	*data;
	uint64_t	addr;		/* sh_addr, for pcrel pointers */
	bool		eh;		/* .eh_frame, else .debug_frame */
	Dwarf_CFI	*cfi;
};

/* The CIE facts an FDE needs */
struct cie_info {
	uint8_t	enc;		/* pointer encoding of the FDE addresses */
	bool	key_b;		/* AArch64: 'B' augmentation */
	bool	ok;
};

struct reader {
	struct sfg_obj	*obj;
	unsigned char	ident[EI_NIDENT];
	bool		be;
	size_t		cap;
};

static uint64_t get_uint(const struct reader *r, const uint8_t *p,
			 unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[r->be ? n - 1 - i : i] << (8 * i);
	return v;
}

static int get_leb(const uint8_t **pp, const uint8_t *end, bool sign,
		   uint64_t *v)
{
	const uint8_t *p = *pp;
	unsigned int shift = 0;
	uint8_t b;

	*v = 0;
	do {
		if (p >= end || shift > 63)
			return -1;
		b = *p++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		*v |= ~0ULL << shift;
	*pp = p;
	return 0;
}

/*
 * Decode a pointer of encoding @enc at *@pp (< @end), which is at address
 * @addr when loaded; @apply: apply pcrel, else the value alone (a range).
 */
static int get_ptr(const struct reader *r, uint8_t enc, const uint8_t **pp,
		   const uint8_t *end, uint64_t addr, bool apply,
		   uint64_t *v)
{
	static const uint8_t sizes[16] = {
		[DW_EH_PE_absptr] = 8, [DW_EH_PE_udata2] = 2,
		[DW_EH_PE_udata4] = 4, [DW_EH_PE_udata8] = 8,
		[DW_EH_PE_sdata2] = 2, [DW_EH_PE_sdata4] = 4,
		[DW_EH_PE_sdata8] = 8,
	};
	const uint8_t *p = *pp;
	unsigned int fmt = enc & 0x0f, n = sizes[fmt];

	if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect))
		return -1;
	if (fmt == DW_EH_PE_uleb128 || fmt == DW_EH_PE_sleb128) {
		if (get_leb(&p, end, fmt == DW_EH_PE_sleb128, v))
			return -1;
	} else {
		if (!n || end - p < n)
			return -1;
		*v = get_uint(r, p, n);
		if (n < 8 && (fmt & DW_EH_PE_signed) && (*v >> (8 * n - 1)))
			*v |= ~0ULL << (8 * n);
		p += n;
	}
	*pp = p;
	if (!apply)
		return 0;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		return 0;
	case DW_EH_PE_pcrel:
		*v += addr;
		return 0;
	default:
		return -1;
	}
}

/* The pointer encoding and key of the CIE @cie */
static struct cie_info cie_parse(const struct reader *r,
				 const struct cfi_sec *s, const Dwarf_CIE *cie)
{
	struct cie_info ci = { DW_EH_PE_absptr, false, true };
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;
	const char *a = cie->augmentation;
	uint64_t v;

	if (!a || !*a)
		return ci;
	if (*a != 'z' || !p)
		return (struct cie_info){ 0, false, false };
	for (a++; *a; a++) {
		switch (*a) {
		case 'L':
			if (p >= end)
				ci.ok = false;
			p++;
			break;
		case 'P': {
			uint8_t enc;

			if (p >= end)
				return (struct cie_info){ 0, false, false };
			enc = *p++;
			/* Only its size matters: the value is not used */
			if (get_ptr(r, enc & 0x0f, &p, end, 0, false, &v))
				return (struct cie_info){ 0, false, false };
			break;
		}
		case 'R':
			if (p >= end)
				return (struct cie_info){ 0, false, false };
			ci.enc = *p++;
			break;
		case 'B':
			ci.key_b = true;
			break;
		case 'S':
		case 'G':
			break;
		default:
			/* 'z' says the data is skippable, but not its meaning */
			return (struct cie_info){ 0, false, false };
		}
	}
	(void)s;
	return ci;
}

static bool push_row(struct reader *r, const struct sfg_row *row)
{
	struct sfg_obj *o = r->obj;

	if (o->nrows == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		struct sfg_row *n = realloc(o->rows, cap * sizeof(*n));

		if (!n)
			return false;
		o->rows = n;
		r->cap = cap;
	}
	o->rows[o->nrows++] = *row;
	return true;
}

/* Is op a DW_OP_bregN/DW_OP_bregx?  Then its register and offset. */
static bool op_breg(const Dwarf_Op *op, unsigned int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx && op->number <= 255) {
		*reg = op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* The CFA of @frame as a location: register + offset, or [register + offset] */
static enum sfg_why cfa_loc(Dwarf_Frame *frame, struct sframe_loc *loc)
{
	unsigned int reg;
	Dwarf_Op *ops;
	size_t n;
	int64_t off;

	if (dwarf_frame_cfa(frame, &ops, &n) || !n)
		return SFG_CFA_EXPR;
	if (!op_breg(&ops[0], &reg, &off))
		return SFG_CFA_EXPR;
	if (n == 1)
		loc->kind = SFRAME_LOC_REG;
	else if (n == 2 && ops[1].atom == DW_OP_deref)
		loc->kind = SFRAME_LOC_REG_DEREF;
	else
		return SFG_CFA_EXPR;
	if (reg > 255)
		return SFG_CFA_REG;
	if (!fits32(off))
		return SFG_OFFSET;
	loc->reg = reg;
	loc->off = off;
	return SFG_OK;
}

/*
 * The rule of register @regno in @frame as a location; false if it is an
 * expression SFrame has no form for.
 */
static bool reg_loc(Dwarf_Frame *frame, int regno, struct sframe_loc *loc)
{
	Dwarf_Op mem[3], *ops;
	unsigned int reg = 0;
	bool value;
	size_t n;
	int64_t off = 0;

	if (dwarf_frame_register(frame, regno, mem, &ops, &n))
		return false;
	memset(loc, 0, sizeof(*loc));
	if (!n) {
		loc->kind = ops ? SFRAME_LOC_UNDEFINED : SFRAME_LOC_SAME;
		return true;
	}
	value = ops[n - 1].atom == DW_OP_stack_value;
	if (value)
		n--;
	if (!n)
		return false;
	if (ops[0].atom == DW_OP_call_frame_cfa && n == 2 &&
	    op_breg(&ops[1], &reg, &off)) {
		/*
		 * expression(bregR K) / val_expression(bregR K): libdw puts
		 * the CFA first, as the expression starts with it pushed;
		 * the result is the top of the stack, R + K
		 */
		loc->kind = value ? SFRAME_LOC_REG : SFRAME_LOC_REG_DEREF;
	} else if (ops[0].atom == DW_OP_call_frame_cfa) {
		/* offset(N) / val_offset(N): CFA, plus_uconst N */
		if (n == 2 && ops[1].atom == DW_OP_plus_uconst)
			off = (int64_t)ops[1].number;
		else if (n != 1)
			return false;
		loc->kind = value ? SFRAME_LOC_CFA_VAL : SFRAME_LOC_CFA_DEREF;
	} else if (n == 1 && op_breg(&ops[0], &reg, &off)) {
		/* val_expression(breg): value; expression(breg): saved there */
		loc->kind = value ? SFRAME_LOC_REG : SFRAME_LOC_REG_DEREF;
	} else if (n == 1 && !value && ops[0].atom == DW_OP_regx &&
		   ops[0].number <= 255) {
		/* register(R): the value is in R */
		loc->kind = SFRAME_LOC_REG;
		reg = ops[0].number;
	} else if (n == 1 && !value && ops[0].atom >= DW_OP_reg0 &&
		   ops[0].atom <= DW_OP_reg31) {
		loc->kind = SFRAME_LOC_REG;
		reg = ops[0].atom - DW_OP_reg0;
	} else {
		return false;
	}
	if (!fits32(off) || reg > 255)
		return false;
	loc->reg = reg;
	loc->off = off;
	return true;
}

/*
 * The CFA expression of the x86-64 linker's PLT entries:
 *   rsp + 8 + ((rip & 15) >= K ? 8 : 0)
 * as DW_OP_breg7 8, DW_OP_breg16 0, DW_OP_lit15, DW_OP_and, DW_OP_litK,
 * DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus.  Return K, or 0.
 */
static unsigned int plt_expr(Dwarf_Frame *frame)
{
	static const uint8_t want[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
		DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	unsigned int i, k;
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_frame_cfa(frame, &ops, &n) || n != sizeof(want))
		return 0;
	for (i = 0; i < n; i++)
		if (i != 4 && ops[i].atom != want[i])
			return 0;
	if (ops[0].number != 8 || ops[1].number != 0 ||
	    ops[4].atom <= DW_OP_lit0 || ops[4].atom > DW_OP_lit15)
		return 0;
	k = ops[4].atom - DW_OP_lit0;
	return k;
}

/* The rule of @frame, or why SFrame cannot hold it */
static enum sfg_why frame_rule(const struct sfg_arch *a, Dwarf_Frame *frame,
			       bool key_b, struct sfg_row *row)
{
	struct sframe_rule *rule = &row->rule;
	Dwarf_Addr start, end;
	enum sfg_why why;
	bool signal;

	memset(rule, 0, sizeof(*rule));
	row->plt_k = 0;
	if (dwarf_frame_info(frame, &start, &end, &signal) < 0)
		return SFG_NO_ROW;
	row->start = start;
	row->end = end;
	if (signal)
		rule->flags |= SFRAME_RULE_SIGNAL;
	if (key_b)
		rule->flags |= SFRAME_RULE_PAUTH_KEY_B;

	if (!reg_loc(frame, a->ra, &rule->ra))
		return SFG_RA_RULE;
	if (rule->ra.kind == SFRAME_LOC_UNDEFINED) {
		/* The outermost frame: nothing else matters */
		memset(&rule->ra, 0, sizeof(rule->ra));
		rule->flags |= SFRAME_RULE_OUTERMOST;
		return SFG_OK;
	}
	why = cfa_loc(frame, &rule->cfa);
	if (why == SFG_CFA_EXPR && a->machine == EM_X86_64) {
		row->plt_k = plt_expr(frame);
		if (row->plt_k) {
			rule->cfa = (struct sframe_loc){ SFRAME_LOC_REG, a->sp, 8 };
			why = SFG_OK;
		}
	}
	if (why)
		return why;
	if (!reg_loc(frame, a->fp, &rule->fp))
		return SFG_FP_RULE;
	return sfg_fit(a, rule);
}

static bool add_out(struct reader *r, uint64_t start, uint64_t end,
		    enum sfg_why why)
{
	struct sfg_stats *st = &r->obj->stats;

	st->rows_out++;
	st->bytes_out += end - start;
	st->why_rows[why]++;
	return true;
}

/* The rows of the FDE covering [@lo, @hi) */
static int fde_rows(struct reader *r, Dwarf_CFI *cfi, uint64_t lo,
		    uint64_t hi, bool key_b)
{
	struct sfg_obj *o = r->obj;
	uint64_t pc = lo;

	o->stats.fdes++;
	o->stats.bytes += hi - lo;
	if (lo < o->text_start || hi > o->text_end) {
		o->stats.rows++;
		add_out(r, lo, hi, SFG_OUTSIDE);
		return 0;
	}
	while (pc < hi) {
		Dwarf_Frame *frame;
		struct sfg_row row;
		enum sfg_why why;

		o->stats.rows++;
		if (dwarf_cfi_addrframe(cfi, pc, &frame)) {
			add_out(r, pc, hi, SFG_NO_ROW);
			return 0;
		}
		why = frame_rule(o->arch, frame, key_b, &row);
		free(frame);
		if (why == SFG_NO_ROW || row.start > pc || row.end <= pc) {
			add_out(r, pc, hi, SFG_NO_ROW);
			return 0;
		}
		row.first = pc == lo;
		row.start = pc;
		if (row.end > hi)
			row.end = hi;
		/* A mask FDE repeats from its start: whole entries only */
		if (!why && row.plt_k && (row.start % 16 || row.end % 16))
			why = SFG_CFA_EXPR;
		if (why)
			add_out(r, row.start, row.end, why);
		else if (!push_row(r, &row))
			return -1;
		pc = row.end;
	}
	return 0;
}

/* A range of an FDE that was read */
struct range {
	uint64_t	lo, hi;
	bool		key_b;
	bool		debug;		/* from .debug_frame */
	bool		keep;		/* no overlap with one kept */
	Dwarf_CFI	*cfi;
};

/* Rows by address */
static int cmp_row(const void *a, const void *b)
{
	const struct sfg_row *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* By address, .eh_frame first */
static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (int)x->debug - (int)y->debug;
}

/* A CIE of a CFI section: its offset, and what its FDEs need of it */
struct cie_ent {
	Dwarf_Off	off;
	struct cie_info	ci;
};

static int cmp_cie(const void *a, const void *b)
{
	const struct cie_ent *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/*
 * The entry after the one at @off in @s, through dwarf_next_cfi(): 0 with
 * *@next and @e for an entry, -1 for one it cannot read but can skip, 1 at
 * the end (or an entry it can neither read nor skip).  Each entry read
 * ends after it starts, so a walk of the section is bounded by its size.
 */
static int next_entry(const struct reader *r, const struct cfi_sec *s,
		      Dwarf_Off off, Dwarf_Off *next, Dwarf_CFI_Entry *e)
{
	int rc;

	*next = (Dwarf_Off)-1;
	rc = dwarf_next_cfi(r->ident, s->data, s->eh, off, next, e);
	if (rc > 0 || *next == (Dwarf_Off)-1 || *next <= off)
		return 1;
	return rc < 0 ? -1 : 0;
}

/*
 * The CIEs of @s, sorted by offset, in *@cies (*@n of them): a first walk
 * of the section, so that each FDE finds its CIE by a binary search, even
 * one after it (.debug_frame allows that).
 */
static int list_cies(const struct reader *r, const struct cfi_sec *s,
		     struct cie_ent **cies, size_t *n)
{
	Dwarf_Off off, next;
	Dwarf_CFI_Entry e;
	size_t cap = 0;
	bool sorted = true;
	int rc;

	*cies = NULL;
	*n = 0;
	for (off = 0; (rc = next_entry(r, s, off, &next, &e)) <= 0; off = next) {
		if (rc < 0 || !dwarf_cfi_cie_p(&e))
			continue;
		if (*n == cap) {
			size_t c = cap ? 2 * cap : 64;
			struct cie_ent *nc = realloc(*cies, c * sizeof(*nc));

			if (!nc)
				return -1;
			*cies = nc;
			cap = c;
		}
		if (*n && (*cies)[*n - 1].off >= off)
			sorted = false;
		(*cies)[*n].off = off;
		(*cies)[(*n)++].ci = cie_parse(r, s, &e.cie);
	}
	if (!sorted)
		qsort(*cies, *n, sizeof(**cies), cmp_cie);
	return 0;
}

/* List the FDE ranges of @s into @rs (grown as needed). */
static int list_fdes(struct reader *r, const struct cfi_sec *s,
		     struct range **rs, size_t *n, size_t *cap)
{
	const uint8_t *base = s->data->d_buf;
	struct cie_ent *cies, key, *c;
	Dwarf_Off off, next;
	Dwarf_CFI_Entry e;
	size_t ncies;
	int ret = 0, rc;

	if (list_cies(r, s, &cies, &ncies)) {
		free(cies);
		return -1;
	}
	for (off = 0; (rc = next_entry(r, s, off, &next, &e)) <= 0; off = next) {
		const uint8_t *p, *end;
		uint64_t lo, len;

		if (rc < 0 || dwarf_cfi_cie_p(&e))
			continue;
		key.off = e.fde.CIE_pointer;
		c = ncies ? bsearch(&key, cies, ncies, sizeof(*cies), cmp_cie) :
			    NULL;
		if (!c || !c->ci.ok)
			continue;
		p = e.fde.start;
		end = e.fde.end;
		if (get_ptr(r, s->eh ? c->ci.enc : DW_EH_PE_absptr, &p, end,
			    s->addr + (p - base), true, &lo) ||
		    get_ptr(r, s->eh ? (c->ci.enc & 0x0f) : DW_EH_PE_absptr, &p,
			    end, 0, false, &len) || !len || lo + len < lo)
			continue;
		if (*n == *cap) {
			size_t nc = *cap ? 2 * *cap : 1024;
			struct range *nr = realloc(*rs, nc * sizeof(*nr));

			if (!nr) {
				ret = -1;
				break;
			}
			*rs = nr;
			*cap = nc;
		}
		(*rs)[(*n)++] = (struct range){ lo, lo + len, c->ci.key_b,
						  !s->eh, false, s->cfi };
	}
	free(cies);
	return ret;
}

static void find_text(struct sfg_obj *o, Elf *elf)
{
	size_t i, n;

	o->text_start = UINT64_MAX;
	o->text_end = 0;
	if (elf_getphdrnum(elf, &n))
		n = 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (ph.p_vaddr < o->text_start)
			o->text_start = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > o->text_end)
			o->text_end = ph.p_vaddr + ph.p_memsz;
	}
	if (o->text_start > o->text_end) {
		o->text_start = 0;
		o->text_end = 0;
	}
}

/* The length of the x86 NOP (or int3 padding) at @p, of @n bytes, or 0 */
static size_t x86_nop_len(const uint8_t *p, size_t n)
{
	static const uint8_t nops[][10] = {
		{ 1, 0x90 }, { 1, 0xcc }, { 2, 0x66, 0x90 },
		{ 3, 0x0f, 0x1f, 0x00 }, { 4, 0x0f, 0x1f, 0x40, 0x00 },
		{ 5, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 6, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 7, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
		{ 8, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
		{ 9, 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nops); i++)
		if (nops[i][0] <= n && !memcmp(p, &nops[i][1], nops[i][0]))
			return nops[i][0];
	return 0;
}

/*
 * Whether the @n bytes at @p are x86-64 linker stubs that only jump
 * through the GOT: entries of [endbr64] [bnd] jmp *rel32(%rip), each
 * followed by NOP padding, as the linker writes a static program's IFUNC
 * stubs (.plt, .iplt), IBT's second PLT (.plt.sec) and .plt.got
 */
static bool x86_jmp_stubs(const uint8_t *p, size_t n)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t at = 0, k;

	while (at < n) {
		if (n - at >= sizeof(endbr64) &&
		    !memcmp(p + at, endbr64, sizeof(endbr64)))
			at += sizeof(endbr64);
		if (at < n && p[at] == 0xf2)
			at++;
		if (n - at < 6 || p[at] != 0xff || p[at + 1] != 0x25)
			return false;
		at += 6;
		while (at < n && p[at] != 0xf3 && p[at] != 0xf2 &&
		       p[at] != 0xff) {
			k = x86_nop_len(p + at, n - at);
			if (!k)
				return false;
			at += k;
		}
	}
	return n > 0;
}

/*
 * Rows for x86-64 linker stubs that have no CFI (x86_jmp_stubs()): the
 * linker writes none for a static program's IFUNC stubs, through which
 * it calls memcpy() and the like.  From their first byte to their last
 * the stack is as the caller's call left it: CFA = SP + 8, the return
 * address at CFA - 8, the frame pointer unchanged.  Only a section of
 * such stubs in whole, inside the text and apart from every FDE of the
 * CFI (@rs, @nr), gets a row.
 */
static int stub_rows(struct reader *r, Elf *elf, size_t shstrndx,
		     const struct range *rs, size_t nr)
{
	static const char *const names[] = {
		".plt", ".iplt", ".plt.sec", ".plt.got",
	};
	const struct sfg_arch *a = r->obj->arch;
	struct sfg_obj *o = r->obj;
	Elf_Scn *scn = NULL;
	size_t added = 0, i;

	if (a->machine != EM_X86_64)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		struct sfg_row row = { .first = true };
		const char *name;
		Elf_Data *d;
		GElf_Shdr sh;
		bool apart = true;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size ||
		    sh.sh_addr < o->text_start ||
		    sh.sh_size > o->text_end - sh.sh_addr)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		for (i = 0; name && i < ARRAY_SIZE(names); i++)
			if (!strcmp(name, names[i]))
				break;
		if (!name || i == ARRAY_SIZE(names))
			continue;
		for (i = 0; i < nr && apart; i++)
			apart = rs[i].hi <= sh.sh_addr ||
				rs[i].lo >= sh.sh_addr + sh.sh_size;
		d = elf_getdata(scn, NULL);
		if (!apart || !d || !d->d_buf || d->d_size != sh.sh_size ||
		    !x86_jmp_stubs(d->d_buf, d->d_size))
			continue;
		row.start = sh.sh_addr;
		row.end = sh.sh_addr + sh.sh_size;
		row.rule.cfa = (struct sframe_loc){ SFRAME_LOC_REG, a->sp, 8 };
		row.rule.ra = (struct sframe_loc){ SFRAME_LOC_CFA_DEREF, 0, -8 };
		row.rule.fp = (struct sframe_loc){ SFRAME_LOC_SAME, 0, 0 };
		if (sfg_fit(a, &row.rule))
			continue;
		if (!push_row(r, &row))
			return -1;
		o->stats.stub_bytes += sh.sh_size;
		added++;
	}
	/* Back in address order: the rows do not overlap */
	if (added)
		qsort(o->rows, o->nrows, sizeof(*o->rows), cmp_row);
	return 0;
}

/*
 * Read the ELF file @path into @o: its status, architecture, executable
 * segment span and build ID, and if @cfi, its CFI.  See sfg_read().
 */
static int read_elf(const char *path, struct sfg_obj *o, bool cfi, char *err,
		    size_t errlen)
{
	struct reader r = { .obj = o };
	struct cfi_sec secs[2] = { { 0 } };
	struct range *rs = NULL, **ehs = NULL;
	size_t nr = 0, rcap = 0, i, shstrndx, neh = 0;
	const void *id;
	Dwarf *dw = NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	uint64_t covered = 0;
	bool big_endian;
	Elf *elf;
	int fd, ret = -1, len;

	memset(o, 0, sizeof(*o));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	/* The status of the file read, for the cache file's name and header */
	if (fstat(fd, &o->st)) {
		fail(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		fail(err, errlen, "%s: not an ELF file", path);
		goto out;
	}
	memcpy(r.ident, eh.e_ident, EI_NIDENT);
	o->arch = sfg_arch_find(eh.e_machine);
	big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	if (!o->arch || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    big_endian != o->arch->big_endian) {
		fail(err, errlen, "%s: not a 64-bit x86_64, aarch64 or s390x object",
		     path);
		goto out;
	}
	r.be = o->arch->big_endian;
	find_text(o, elf);
	len = dwelf_elf_gnu_build_id(elf, &id);
	if (len > 0 && (size_t)len <= sizeof(o->build_id)) {
		memcpy(o->build_id, id, len);
		o->build_id_len = len;
	}
	if (!cfi) {
		ret = 0;
		goto out;
	}

	if (elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		int k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".eh_frame"))
			k = 0;
		else if (!strcmp(name, ".debug_frame"))
			k = 1;
		else
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			continue;
		secs[k].data = elf_getdata(scn, NULL);
		secs[k].addr = sh.sh_addr;
		secs[k].eh = !k;
		o->stats.eh_frame_size += sh.sh_size;
	}
	if (secs[0].data)
		secs[0].cfi = dwarf_getcfi_elf(elf);
	if (secs[1].data) {
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		if (dw)
			secs[1].cfi = dwarf_getcfi(dw);
	}
	for (i = 0; i < 2; i++) {
		if (!secs[i].data || !secs[i].cfi)
			continue;
		if (list_fdes(&r, &secs[i], &rs, &nr, &rcap)) {
			fail(err, errlen, "%s: out of memory", path);
			goto out;
		}
	}
	/*
	 * .eh_frame's FDEs, then .debug_frame's where they cover nothing of
	 * .eh_frame's: an FDE that overlaps one kept before it is dropped.
	 * Then the kept ones in address order.
	 */
	qsort(rs, nr, sizeof(*rs), cmp_range);
	ehs = calloc(nr + 1, sizeof(*ehs));
	if (!ehs) {
		fail(err, errlen, "%s: out of memory", path);
		goto out;
	}
	for (i = 0; i < nr; i++) {
		if (rs[i].debug || rs[i].lo < covered)
			continue;
		rs[i].keep = true;
		covered = rs[i].hi;
		ehs[neh++] = &rs[i];
	}
	covered = 0;
	for (i = 0; i < nr; i++) {
		size_t lo = 0, hi = neh;

		if (!rs[i].debug || rs[i].lo < covered)
			continue;
		/* The first kept .eh_frame FDE that ends after this start */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ehs[mid]->hi <= rs[i].lo)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < neh && ehs[lo]->lo < rs[i].hi)
			continue;
		rs[i].keep = true;
		covered = rs[i].hi;
	}
	for (i = 0; i < nr; i++) {
		if (!rs[i].keep)
			continue;
		if (fde_rows(&r, rs[i].cfi, rs[i].lo, rs[i].hi, rs[i].key_b)) {
			fail(err, errlen, "%s: out of memory", path);
			goto out;
		}
	}
	if (stub_rows(&r, elf, shstrndx, rs, nr)) {
		fail(err, errlen, "%s: out of memory", path);
		goto out;
	}
	ret = 0;
out:
	free(ehs);
	free(rs);
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	close(fd);
	if (ret)
		sfg_free(o);
	return ret;
}

int sfg_read(const char *path, struct sfg_obj *o, char *err, size_t errlen)
{
	return read_elf(path, o, true, err, errlen);
}

int sfg_read_id(const char *path, struct sfg_obj *o, char *err, size_t errlen)
{
	return read_elf(path, o, false, err, errlen);
}

void sfg_free(struct sfg_obj *o)
{
	free(o->rows);
	o->rows = NULL;
	o->nrows = 0;
}
