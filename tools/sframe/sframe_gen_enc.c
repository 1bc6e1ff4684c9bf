// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen: encode rules as an SFrame V3 section, the inverse of the
 * kernel's reader (kernel/unwind/sframe_walk.c): for every rule it takes,
 * the reader decodes the section back to that rule.
 *
 * A rule is written as an FRE of a default FDE when the ABI's fixed
 * layout can hold it (CFA from SP or FP; RA and FP saved on the stack or
 * not saved), else as an FRE of a flexible FDE (other CFA registers,
 * dereferenced CFA, values kept in registers).  An FDE holds the rows of
 * one function of the CFI with the same FDE attributes; a function whose
 * rows change kind (default, flexible, outermost) or that has a gap gets
 * one FDE per run.  The output is in the object's byte order.
 */
#include <stdlib.h>
#include <string.h>

#include "sframe_format.h"
#include "sframe_gen.h"
#include "sframe_gen_int.h"
#include "sframe_walk.h"

#define MAX_WORDS	6

/* The data words of one FRE */
struct fre_words {
	bool		flex;
	bool		outermost;
	uint8_t		base;			/* SFRAME_BASE_REG_* */
	unsigned int	n;
	int64_t		w[MAX_WORDS];
	bool		ctrl[MAX_WORDS];	/* unsigned control word */
};

static bool ra_is_default(const struct sfg_arch *a, const struct sframe_loc *l)
{
	if (a->fixed_ra)
		return l->kind == SFRAME_LOC_CFA_DEREF && l->off == a->fixed_ra;
	return l->kind == SFRAME_LOC_SAME;
}

/* CFA offset as stored (s390x: adjusted and scaled) */
static bool cfa_word(const struct sfg_arch *a, int32_t off, int64_t *w)
{
	int64_t v = (int64_t)off + a->cfa_adjust;

	if (v % a->cfa_scale)
		return false;
	*w = v / a->cfa_scale;
	return true;
}

/* The flexible (control, offset) pair of RA or FP location @l */
static enum sfg_why flex_pair(const struct sframe_loc *l, struct fre_words *f,
			      enum sfg_why why)
{
	int64_t ctrl;

	switch (l->kind) {
	case SFRAME_LOC_CFA_DEREF:
		ctrl = 2;
		break;
	case SFRAME_LOC_REG:
		ctrl = ((int64_t)l->reg << 3) | 1;
		break;
	case SFRAME_LOC_REG_DEREF:
		ctrl = ((int64_t)l->reg << 3) | 3;
		break;
	default:
		return why;
	}
	f->ctrl[f->n] = true;
	f->w[f->n++] = ctrl;
	f->w[f->n++] = l->off;
	return SFG_OK;
}

static enum sfg_why words_flex(const struct sfg_arch *a,
			       const struct sframe_rule *r,
			       struct fre_words *f)
{
	bool fp_saved = r->fp.kind != SFRAME_LOC_SAME;
	enum sfg_why why;

	f->flex = true;
	if (r->cfa.kind != SFRAME_LOC_REG && r->cfa.kind != SFRAME_LOC_REG_DEREF)
		return SFG_CFA_EXPR;
	f->ctrl[0] = true;
	f->w[0] = ((int64_t)r->cfa.reg << 3) | 1 |
		  (r->cfa.kind == SFRAME_LOC_REG_DEREF ? 2 : 0);
	if (!cfa_word(a, r->cfa.off, &f->w[1]))
		return SFG_OFFSET;
	f->n = 2;
	if (!ra_is_default(a, &r->ra)) {
		why = flex_pair(&r->ra, f, SFG_RA_RULE);
		if (why)
			return why;
	} else if (fp_saved) {
		f->ctrl[f->n] = true;
		f->w[f->n++] = SFRAME_FLEX_CTRL_PADDING;
	}
	if (fp_saved)
		return flex_pair(&r->fp, f, SFG_FP_RULE);
	return SFG_OK;
}

/* The FRE data words of @r, default FDE if possible */
static enum sfg_why rule_words(const struct sfg_arch *a,
			       const struct sframe_rule *r,
			       struct fre_words *f)
{
	bool ra_same = r->ra.kind == SFRAME_LOC_SAME;
	bool ra_stack = r->ra.kind == SFRAME_LOC_CFA_DEREF;
	bool fp_same = r->fp.kind == SFRAME_LOC_SAME;
	bool fp_stack = r->fp.kind == SFRAME_LOC_CFA_DEREF;

	memset(f, 0, sizeof(*f));
	if (r->flags & SFRAME_RULE_OUTERMOST) {
		f->outermost = true;
		return SFG_OK;
	}
	if (r->ra.kind == SFRAME_LOC_UNDEFINED)
		return SFG_RA_RULE;
	if (r->fp.kind == SFRAME_LOC_UNDEFINED)
		return SFG_FP_RULE;
	if (r->cfa.kind != SFRAME_LOC_REG ||
	    (r->cfa.reg != a->sp && r->cfa.reg != a->fp))
		goto flex;
	if (!(fp_same || fp_stack))
		goto flex;
	if (!cfa_word(a, r->cfa.off, &f->w[0]))
		return SFG_OFFSET;
	f->n = 1;
	f->base = r->cfa.reg == a->sp ? SFRAME_BASE_REG_SP : SFRAME_BASE_REG_FP;
	if (a->fixed_ra) {
		/* AMD64: RA at its fixed place; FP, if saved, second */
		if (!ra_is_default(a, &r->ra))
			goto flex;
		if (fp_stack)
			f->w[f->n++] = r->fp.off;
		return SFG_OK;
	}
	/* AArch64, s390x: RA second, FP third */
	if (!(ra_same || ra_stack))
		goto flex;
	if (ra_stack && r->ra.off == SFRAME_FRE_RA_OFFSET_INVALID)
		goto flex;
	if (ra_stack)
		f->w[f->n++] = r->ra.off;
	if (fp_stack) {
		if (ra_same && a->abi != SFRAME_ABI_S390X_ENDIAN_BIG)
			goto flex;
		if (ra_same)
			f->w[f->n++] = SFRAME_FRE_RA_OFFSET_INVALID;
		f->w[f->n++] = r->fp.off;
	}
	return SFG_OK;
flex:
	memset(f, 0, sizeof(*f));
	return words_flex(a, r, f);
}

enum sfg_why sfg_fit(const struct sfg_arch *a, const struct sframe_rule *rule)
{
	struct fre_words f;

	return rule_words(a, rule, &f);
}

/* A growing output buffer in the target byte order */
struct out {
	uint8_t	*p;
	size_t	len, cap;
	bool	be;
	bool	nomem;
};

static uint8_t *out_room(struct out *o, size_t n)
{
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 65536;
		uint8_t *p;

		while (cap < o->len + n)
			cap *= 2;
		p = realloc(o->p, cap);
		if (!p) {
			o->nomem = true;
			return NULL;
		}
		o->p = p;
		o->cap = cap;
	}
	o->len += n;
	return o->p + o->len - n;
}

static void put_at(struct out *o, size_t at, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		o->p[at + (o->be ? n - 1 - i : i)] = v >> (8 * i);
}

static void put(struct out *o, uint64_t v, unsigned int n)
{
	if (out_room(o, n))
		put_at(o, o->len - n, v, n);
}

/* Smallest data word size code that holds every word of @f */
static unsigned int word_size(const struct fre_words *f)
{
	unsigned int i, code = SFRAME_FRE_DATAWORD_1B;

	for (i = 0; i < f->n; i++) {
		int64_t v = f->w[i];

		if (f->ctrl[i] ? v > 0xffff : (v < INT16_MIN || v > INT16_MAX))
			return SFRAME_FRE_DATAWORD_4B;
		if (f->ctrl[i] ? v > 0xff : (v < INT8_MIN || v > INT8_MAX))
			code = SFRAME_FRE_DATAWORD_2B;
	}
	return code;
}

static bool same_words(const struct fre_words *x, const struct fre_words *y)
{
	return x->flex == y->flex && x->outermost == y->outermost &&
	       x->base == y->base && x->n == y->n && !memcmp(x->w, y->w, sizeof(x->w)) &&
	       !memcmp(x->ctrl, y->ctrl, sizeof(x->ctrl));
}

/* One FDE being built: rows [first, last] of the object */
struct fde_run {
	uint64_t	start, end;
	size_t		first, last;
	uint8_t		flags;		/* signal, key B */
	uint8_t		plt_k;		/* PLT entries: a mask FDE */
	bool		flex, outermost;
};

/* The two FREs of a run of x86-64 PLT entries: SP + 8, then SP + 16 */
static unsigned int emit_plt(struct out *o, const struct fde_run *run)
{
	put(o, 0, 1);
	put(o, (SFRAME_FRE_DATAWORD_1B << 5) | (1 << 1) | SFRAME_BASE_REG_SP, 1);
	put(o, 8, 1);
	put(o, run->plt_k, 1);
	put(o, (SFRAME_FRE_DATAWORD_1B << 5) | (1 << 1) | SFRAME_BASE_REG_SP, 1);
	put(o, 16, 1);
	return 2;
}

/* Write the FDE attribute record and FREs of @run; return the FRE count. */
static unsigned int emit_fres(struct out *o, const struct sfg_obj *obj,
			      const struct fde_run *run)
{
	const struct sfg_arch *a = obj->arch;
	unsigned int nfres = 0, asize, type, i;
	size_t attr = o->len;
	struct fre_words prev = { 0 }, f;
	uint8_t info;

	if (run->plt_k || run->end - run->start <= 0x100)
		type = SFRAME_FRE_TYPE_ADDR1;
	else if (run->end - run->start <= 0x10000)
		type = SFRAME_FRE_TYPE_ADDR2;
	else
		type = SFRAME_FRE_TYPE_ADDR4;
	asize = 1U << type;
	info = type;
	if (run->flags & SFRAME_RULE_SIGNAL)
		info |= 0x80;
	if (run->flags & SFRAME_RULE_PAUTH_KEY_B)
		info |= SFRAME_AARCH64_PAUTH_KEY_B << 5;
	if (run->plt_k)
		info |= SFRAME_FDE_PCTYPE_MASK << 4;
	put(o, run->plt_k ? 2 : 0, 2);
	put(o, info, 1);
	put(o, run->flex ? SFRAME_FDE_TYPE_FLEX : SFRAME_FDE_TYPE_DEFAULT, 1);
	put(o, run->plt_k ? 16 : 0, 1);
	if (run->outermost)
		return 0;
	if (run->plt_k)
		return emit_plt(o, run);

	for (i = run->first; i <= run->last; i++) {
		const struct sfg_row *row = &obj->rows[i];
		unsigned int ws, k;
		uint8_t fi;

		rule_words(a, &row->rule, &f);
		if (nfres && same_words(&f, &prev))
			continue;
		prev = f;
		ws = word_size(&f);
		fi = (ws << 5) | (f.n << 1) | f.base;
		put(o, row->start - run->start, asize);
		put(o, fi, 1);
		for (k = 0; k < f.n; k++)
			put(o, f.w[k], 1U << ws);
		nfres++;
	}
	if (!o->nomem)
		put_at(o, attr, nfres, 2);
	return nfres;
}

/* Does row @i start a new FDE after @run? */
static bool new_fde(const struct sfg_obj *obj, const struct fde_run *run,
		    size_t i, unsigned int rows)
{
	const struct sfg_row *row = &obj->rows[i];
	struct fre_words f;
	uint8_t flags = row->rule.flags &
			(SFRAME_RULE_SIGNAL | SFRAME_RULE_PAUTH_KEY_B);

	rule_words(obj->arch, &row->rule, &f);
	return row->first || row->start != run->end || row->plt_k ||
	       run->plt_k || flags != run->flags || f.flex != run->flex ||
	       f.outermost != run->outermost ||
	       rows >= SFRAME_FDE_MAX_FRES ||
	       row->end - run->start > UINT32_MAX;
}

static void run_init(const struct sfg_obj *obj, struct fde_run *run, size_t i)
{
	const struct sfg_row *row = &obj->rows[i];
	struct fre_words f;

	rule_words(obj->arch, &row->rule, &f);
	run->start = row->start;
	run->end = row->end;
	run->first = i;
	run->last = i;
	run->flags = row->rule.flags &
		     (SFRAME_RULE_SIGNAL | SFRAME_RULE_PAUTH_KEY_B);
	run->flex = f.flex;
	run->outermost = f.outermost;
	run->plt_k = row->plt_k;
}

uint8_t *sfg_encode(struct sfg_obj *obj, size_t *size)
{
	struct out o = { .be = obj->arch->big_endian };
	struct fde_run *runs = NULL, run;
	size_t nruns = 0, cap = 0, i, fdes, fres;
	unsigned int rows = 0;
	uint64_t num_fres = 0;

	/* Split the rows into FDEs */
	for (i = 0; i < obj->nrows; i++) {
		if (i && !new_fde(obj, &run, i, rows)) {
			run.last = i;
			run.end = obj->rows[i].end;
			rows++;
			continue;
		}
		if (i) {
			if (nruns == cap) {
				struct fde_run *n;

				cap = cap ? 2 * cap : 1024;
				n = realloc(runs, cap * sizeof(*n));
				if (!n)
					goto nomem;
				runs = n;
			}
			runs[nruns++] = run;
		}
		run_init(obj, &run, i);
		rows = 1;
	}
	if (obj->nrows) {
		if (nruns == cap) {
			struct fde_run *n = realloc(runs, (cap + 1) * sizeof(*n));

			if (!n)
				goto nomem;
			runs = n;
		}
		runs[nruns++] = run;
	}

	/* Header, FDE index, FRE sub-section */
	fdes = sizeof(struct sframe_header);
	fres = fdes + nruns * sizeof(struct sframe_fde_v3);
	if (!out_room(&o, fres))
		goto nomem;
	memset(o.p, 0, fres);
	for (i = 0; i < nruns; i++) {
		size_t at = fdes + i * sizeof(struct sframe_fde_v3);

		put_at(&o, at, runs[i].start, 8);
		put_at(&o, at + 8, runs[i].end - runs[i].start, 4);
		put_at(&o, at + 12, o.len - fres, 4);
		num_fres += emit_fres(&o, obj, &runs[i]);
		if (o.nomem)
			goto nomem;
	}
	put_at(&o, 0, SFRAME_MAGIC, 2);
	o.p[2] = SFRAME_VERSION_3;
	o.p[3] = SFRAME_F_FDE_SORTED;
	o.p[4] = obj->arch->abi;
	o.p[5] = 0;
	o.p[6] = (uint8_t)obj->arch->fixed_ra;
	o.p[7] = 0;
	put_at(&o, 8, nruns, 4);
	put_at(&o, 12, num_fres, 4);
	put_at(&o, 16, o.len - fres, 4);
	put_at(&o, 20, 0, 4);
	put_at(&o, 24, fres - fdes, 4);

	obj->stats.sframe_fdes = nruns;
	obj->stats.sframe_fres = num_fres;
	obj->stats.sframe_size = o.len;
	free(runs);
	*size = o.len;
	return o.p;
nomem:
	free(runs);
	free(o.p);
	return NULL;
}
