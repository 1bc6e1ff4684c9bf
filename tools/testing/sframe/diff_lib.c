// SPDX-License-Identifier: GPL-2.0
/*
 * The libsframe side of sframe_diff: the rule for a PC as the system
 * libsframe decodes it, expressed as a struct sframe_rule.  Only the public
 * libsframe API and the format constants of <sframe.h> are used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sframe-api.h>

#include <linux/compiler_attributes.h>
#include <linux/types.h>
#include "sframe_walk.h"
#include "diff_lib.h"

/*
 * Two libsframe APIs: binutils 2.46+ (SFrame V3, declares SFRAME_VERSION_3)
 * and binutils 2.44 (trixie: V2 only, no s390x, no PCREL flag, no outermost
 * FREs, no FDE type argument).
 */
#ifdef SFRAME_VERSION_3
#define LIB_HAS_V3
#define lib_cfa_off		sframe_fre_get_cfa_offset
#define lib_ra_off		sframe_fre_get_ra_offset
#define lib_fp_off		sframe_fre_get_fp_offset
#define lib_ra_undef		sframe_fre_get_ra_undefined_p
#else
#define SFRAME_VERSION_3		3
#define SFRAME_FDE_TYPE_DEFAULT		0
#define SFRAME_FDE_TYPE_FLEX		1
#define SFRAME_F_FDE_FUNC_START_PCREL	0x4
#define SFRAME_ABI_S390X_ENDIAN_BIG	4
#define SFRAME_FRE_RA_OFFSET_INVALID	0
#define SFRAME_V2_S390X_OFFSET_IS_REGNUM(off)		((off) & 1)
#define SFRAME_V2_S390X_OFFSET_DECODE_REGNUM(off)	((off) >> 1)

/* The V3 API with an FDE type argument, which V2 does not need */
static inline int32_t lib_cfa_off(sframe_decoder_ctx *d,
				  sframe_frame_row_entry *f,
				  uint32_t fde_type __always_unused, int *e)
{
	return sframe_fre_get_cfa_offset(d, f, e);
}

static inline int32_t lib_ra_off(sframe_decoder_ctx *d,
				 sframe_frame_row_entry *f,
				 uint32_t fde_type __always_unused, int *e)
{
	return sframe_fre_get_ra_offset(d, f, e);
}

static inline int32_t lib_fp_off(sframe_decoder_ctx *d,
				 sframe_frame_row_entry *f,
				 uint32_t fde_type __always_unused, int *e)
{
	return sframe_fre_get_fp_offset(d, f, e);
}

static inline bool lib_ra_undef(sframe_decoder_ctx *d __always_unused,
				sframe_frame_row_entry *f,
				int *e __always_unused)
{
	return SFRAME_V1_FRE_OFFSET_COUNT(f->fre_info) == 0;
}
#endif

struct lib_ctx {
	sframe_decoder_ctx	*dctx;
	unsigned int		flags;
	unsigned int		version;
	unsigned int		abi;
	int			fixed_ra;
	int			fixed_fp;
};

struct lib_fdesc {
	uint32_t	num_fres;
	uint32_t	size;
	long long	start;		/* relative to the section start */
	unsigned char	info;
	unsigned char	info2;
	uint8_t		rep;
};

struct lib_ctx *lib_open(const void *buf, size_t size, char *err,
			 size_t errlen)
{
	struct lib_ctx *ctx = calloc(1, sizeof(*ctx));
	int e = 0;

	if (!ctx) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ctx->dctx = sframe_decode(buf, size, &e);
	if (!ctx->dctx) {
		snprintf(err, errlen, "libsframe: %s", sframe_errmsg(e));
		free(ctx);
		return NULL;
	}
	/* The preamble's flags byte: libsframe 2.44 has no getter */
	ctx->flags = size > 3 ? ((const unsigned char *)buf)[3] : 0;
	ctx->version = sframe_decoder_get_version(ctx->dctx);
	ctx->abi = sframe_decoder_get_abi_arch(ctx->dctx);
	ctx->fixed_ra = sframe_decoder_get_fixed_ra_offset(ctx->dctx);
	ctx->fixed_fp = sframe_decoder_get_fixed_fp_offset(ctx->dctx);
	return ctx;
}

void lib_close(struct lib_ctx *ctx)
{
	if (!ctx)
		return;
	sframe_decoder_free(&ctx->dctx);
	free(ctx);
}

unsigned int lib_num_fdes(struct lib_ctx *ctx)
{
	return sframe_decoder_get_num_fidx(ctx->dctx);
}

static int get_fdesc(struct lib_ctx *ctx, unsigned int idx,
		     struct lib_fdesc *f)
{
	int e = 0, ret;

	memset(f, 0, sizeof(*f));
	if (ctx->version == SFRAME_VERSION_2) {
		int32_t start;

		ret = sframe_decoder_get_funcdesc_v2(ctx->dctx, idx,
						     &f->num_fres, &f->size,
						     &start, &f->info,
						     &f->rep);
		f->start = start;
	} else {
#ifdef LIB_HAS_V3
		int64_t start;

		ret = sframe_decoder_get_funcdesc_v3(ctx->dctx, idx,
						     &f->num_fres, &f->size,
						     &start, &f->info,
						     &f->info2, &f->rep);
		f->start = start;
#else
		ret = -1;
#endif
	}
	if (ret)
		return -1;
#ifdef LIB_HAS_V3
	/* PCREL: relative to the field; make it relative to the section */
	if (ctx->flags & SFRAME_F_FDE_FUNC_START_PCREL)
		f->start += sframe_decoder_get_offsetof_fde_start_addr(ctx->dctx,
								       idx, &e);
#else
	(void)e;
#endif
	return e ? -1 : 0;
}

int lib_fde(struct lib_ctx *ctx, unsigned int idx, long long *start,
	    unsigned int *size)
{
	struct lib_fdesc f;

	if (get_fdesc(ctx, idx, &f))
		return -1;
	*start = f.start;
	*size = f.size;
	return 0;
}

static int is_aarch64(struct lib_ctx *ctx)
{
	return ctx->abi == SFRAME_ABI_AARCH64_ENDIAN_BIG ||
	       ctx->abi == SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
}

static void abi_regs(struct lib_ctx *ctx, unsigned int *sp, unsigned int *fp)
{
	switch (ctx->abi) {
	case SFRAME_ABI_AMD64_ENDIAN_LITTLE:
		*sp = 7;
		*fp = 6;
		break;
	case SFRAME_ABI_S390X_ENDIAN_BIG:
		*sp = 15;
		*fp = 11;
		break;
	default:
		*sp = 31;
		*fp = 29;
		break;
	}
}

#ifdef LIB_HAS_V3
/* RA/FP location when a flexible FRE gives none */
static void loc_default(struct sframe_loc *loc, int fixed)
{
	if (fixed) {
		loc->kind = SFRAME_LOC_CFA_DEREF;
		loc->off = fixed;
	} else {
		loc->kind = SFRAME_LOC_SAME;
	}
}
#endif

/* RA/FP stack offset of a default FRE, with the s390x special cases */
static void loc_offset(struct lib_ctx *ctx, struct sframe_loc *loc,
		       int32_t off, int ra)
{
	if (ctx->abi == SFRAME_ABI_S390X_ENDIAN_BIG) {
		if (ra && off == SFRAME_FRE_RA_OFFSET_INVALID) {
			loc->kind = SFRAME_LOC_SAME;
			return;
		}
		if (ctx->version == SFRAME_VERSION_2 &&
		    SFRAME_V2_S390X_OFFSET_IS_REGNUM(off)) {
			loc->kind = SFRAME_LOC_REG;
			loc->reg = SFRAME_V2_S390X_OFFSET_DECODE_REGNUM(off);
			loc->off = 0;
			return;
		}
	}
	loc->kind = SFRAME_LOC_CFA_DEREF;
	loc->off = off;
}

#ifdef LIB_HAS_V3
static void loc_flex(struct sframe_loc *loc, uint32_t ctrl, int32_t off)
{
	if (SFRAME_V3_FLEX_FDE_CTRLWORD_REG_P(ctrl)) {
		loc->kind = SFRAME_V3_FLEX_FDE_CTRLWORD_DEREF_P(ctrl) ?
			    SFRAME_LOC_REG_DEREF : SFRAME_LOC_REG;
		loc->reg = SFRAME_V3_FLEX_FDE_CTRLWORD_REGNUM(ctrl);
	} else {
		loc->kind = SFRAME_V3_FLEX_FDE_CTRLWORD_DEREF_P(ctrl) ?
			    SFRAME_LOC_CFA_DEREF : SFRAME_LOC_CFA_VAL;
	}
	loc->off = off;
}
#endif

#ifndef LIB_HAS_V3
/*
 * libsframe 2.44's sframe_find_fre() takes the remainder of the PC by the
 * block size of a PCMASK FDE with the PC relative to the section start,
 * not to the function: for the PLT FDEs of real binaries it finds nothing
 * (the remainder is negative) where an FRE starts at 0 (fixed in later
 * libsframe, which agrees with the spec: FRE start <= (PC - function
 * start) % rep_size).  Select the FRE that way and let libsframe decode
 * the FREs.
 */
static int lib_find_fre_mask(struct lib_ctx *ctx, unsigned int idx,
			     const struct lib_fdesc *f, long long pc,
			     sframe_frame_row_entry *fre)
{
	sframe_frame_row_entry cur;
	long long off;
	unsigned int i;
	int found = 0;

	if (!f->rep || pc < f->start)
		return -1;
	off = (pc - f->start) % f->rep;
	for (i = 0; i < f->num_fres; i++) {
		if (sframe_decoder_get_fre(ctx->dctx, idx, i, &cur))
			return -1;
		if (cur.fre_start_addr > off)
			break;
		*fre = cur;
		found = 1;
	}
	return found ? 0 : -1;
}
#endif

/* The FRE of @pc in FDE @idx (@f): 0 if found */
static int lib_find_fre(struct lib_ctx *ctx, unsigned int idx __maybe_unused,
			const struct lib_fdesc *f __maybe_unused, long long pc,
			sframe_frame_row_entry *fre)
{
#ifndef LIB_HAS_V3
	if (SFRAME_V1_FUNC_FDE_TYPE(f->info) == SFRAME_FDE_TYPE_PCMASK)
		return lib_find_fre_mask(ctx, idx, f, pc, fre);
#endif
	return sframe_find_fre(ctx->dctx, pc, fre);
}

int lib_rule(struct lib_ctx *ctx, unsigned int idx, long long pc,
	     unsigned long func_start, struct sframe_rule *rule)
{
	sframe_frame_row_entry fre;
	unsigned int sp, fp, fde_type = SFRAME_FDE_TYPE_DEFAULT;
	struct lib_fdesc f;
	int e = 0;

	memset(rule, 0, sizeof(*rule));
	if (get_fdesc(ctx, idx, &f))
		return -ENOENT;
	rule->func_start = func_start;
	rule->func_size = f.size;
#ifdef LIB_HAS_V3
	if (ctx->version == SFRAME_VERSION_3) {
		fde_type = SFRAME_V3_FDE_TYPE(f.info2);
		if (SFRAME_V3_FDE_SIGNAL_P(f.info))
			rule->flags |= SFRAME_RULE_SIGNAL;
	}
#endif
	if (fde_type == SFRAME_FDE_TYPE_FLEX)
		rule->flags |= SFRAME_RULE_FLEX;
	if (is_aarch64(ctx) &&
	    SFRAME_V1_FUNC_PAUTH_KEY(f.info) == SFRAME_AARCH64_PAUTH_KEY_B)
		rule->flags |= SFRAME_RULE_PAUTH_KEY_B;
	if (!f.num_fres) {
		rule->flags |= SFRAME_RULE_OUTERMOST;
		return 0;
	}

	if (lib_find_fre(ctx, idx, &f, pc, &fre))
		return -ENOENT;
	rule->fre_start = fre.fre_start_addr;
	if (is_aarch64(ctx) && sframe_fre_get_ra_mangled_p(ctx->dctx, &fre, &e))
		rule->flags |= SFRAME_RULE_MANGLED_RA;
	if (lib_ra_undef(ctx->dctx, &fre, &e)) {
		rule->flags |= SFRAME_RULE_OUTERMOST;
		return 0;
	}
	abi_regs(ctx, &sp, &fp);

#ifdef LIB_HAS_V3
	if (fde_type == SFRAME_FDE_TYPE_FLEX) {
		unsigned int count = SFRAME_V1_FRE_OFFSET_COUNT(fre.fre_info);
		unsigned int i = 2, ent;
		int32_t cfa_off;

		e = 0;
		cfa_off = sframe_fre_get_cfa_offset(ctx->dctx, &fre, fde_type, &e);
		loc_flex(&rule->cfa, sframe_get_fre_udata(&fre, 0, &e), cfa_off);
		loc_default(&rule->ra, ctx->fixed_ra);
		loc_default(&rule->fp, ctx->fixed_fp);
		for (ent = 0; ent < 2 && i < count; ent++) {
			uint32_t ctrl = sframe_get_fre_udata(&fre, i, &e);
			int32_t off;

			if (!ctrl) {
				i++;
				continue;
			}
			e = 0;
			if (ent == 0)
				off = sframe_fre_get_ra_offset(ctx->dctx, &fre,
							       fde_type, &e);
			else
				off = sframe_fre_get_fp_offset(ctx->dctx, &fre,
							       fde_type, &e);
			if (e)
				return -ENOENT;
			loc_flex(ent ? &rule->fp : &rule->ra, ctrl, off);
			i += 2;
		}
		return 0;
	}
#endif

	e = 0;
	rule->cfa.kind = SFRAME_LOC_REG;
	rule->cfa.reg = sframe_fre_get_base_reg_id(&fre, &e) ==
			SFRAME_BASE_REG_SP ? sp : fp;
	rule->cfa.off = lib_cfa_off(ctx->dctx, &fre, fde_type, &e);
	if (e)
		return -ENOENT;

	e = 0;
	rule->ra.off = lib_ra_off(ctx->dctx, &fre, fde_type, &e);
	if (e)
		rule->ra.kind = SFRAME_LOC_SAME;
	else
		loc_offset(ctx, &rule->ra, rule->ra.off, 1);

	e = 0;
	rule->fp.off = lib_fp_off(ctx->dctx, &fre, fde_type, &e);
	if (e) {
		rule->fp.off = 0;
		rule->fp.kind = SFRAME_LOC_SAME;
	} else {
		loc_offset(ctx, &rule->fp, rule->fp.off, 0);
	}
	if (rule->ra.kind == SFRAME_LOC_SAME)
		rule->ra.off = 0;
	return 0;
}
