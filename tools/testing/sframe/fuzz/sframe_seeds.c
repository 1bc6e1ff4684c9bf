// SPDX-License-Identifier: GPL-2.0
/*
 * Write the seed corpus of the SFrame fuzz target (sframe_fuzz.c): inputs
 * built with sframe_kunit_builder.h that reach every decoding path (V2 and
 * V3, three ABIs, PCREL or not, ADDR1/2/4, 1/2/4-byte data words,
 * PCTYPE_MASK, flexible FDEs, outermost and signal frames, s390x register
 * encoding), and the .sframe sections of the ELF files given, which must
 * be of this machine's byte order; sections over 64 KiB are skipped.
 *
 * Usage: sframe_seeds OUTDIR [ELF-FILE...]
 */
#include <stdio.h>
#include <string.h>

#include <linux/array_size.h>

#include "elfsec.h"
#define SFB_SHORT_NAMES
#include "sframe_kunit_builder.h"
#include "fuzz/sframe_fuzz.h"

#define TEXT	(FUZZ_SEC_BASE - 0x200000UL)
#define F(n)	(TEXT + 0x1000UL * (n))

static const char *outdir;
static unsigned int nr;

static int write_seed(const char *name, const struct fuzz_hdr *h,
		      const void *sec, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%03u-%s", outdir, nr++, name);
	f = fopen(path, "wb");
	if (!f || fwrite(h, sizeof(*h), 1, f) != 1 ||
	    fwrite(sec, 1, len, f) != len || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

/* Build @s; one seed per mode, PCs spread over the functions */
static int seed(const char *name, const struct sfb_sec *s)
{
	static const u8 modes[] = { 0, FUZZ_M_FAULT, FUZZ_M_LAZY };
	static u8 buf[8192];
	struct sfb_layout lay;
	struct fuzz_hdr h;
	unsigned int i, m;
	size_t len;
	int ret = 0;

	len = sfb_build(s, FUZZ_SEC_BASE, buf, sizeof(buf), &lay);
	if (!len) {
		fprintf(stderr, "%s: does not build\n", name);
		return 1;
	}
	for (m = 0; m < sizeof(modes); m++) {
		memset(&h, 0, sizeof(h));
		h.mode = modes[m];
		h.text_rel = (s64)(TEXT - FUZZ_SEC_BASE);
		h.text_size = 0x100000;
		h.fault_off = lay.fres + m;
		h.fault_len = 2;
		for (i = 0; i < FUZZ_NPCS; i++) {
			const struct sfb_fde *f = &s->fdes[i % (s->nfdes ? s->nfdes : 1)];

			h.pc[i] = s->nfdes ? f->func - TEXT + (i * 5) % (f->size + 1) : i;
		}
		ret |= write_seed(name, &h, buf, len);
	}
	return ret;
}

static const struct sfb_fre amd64[] = {
	{ 0, FRE_INFO(SP, 1, W1), { 8 } },
	{ 1, FRE_INFO(SP, 2, W1), { 16, -16 } },
	{ 4, FRE_INFO(FP, 2, W1), { 16, -16 } },
	{ 20, FRE_INFO(SP, 1, W1), { 8 } },
};

static const struct sfb_fre sizes[] = {
	{ 0, FRE_INFO(SP, 2, W1), { 127, -128 } },
	{ 1, FRE_INFO(SP, 2, W2), { 0x1234, -0x7fff } },
	{ 3, FRE_INFO(SP, 2, W4), { 0x12345678, -0x12345678 } },
	{ 5, FRE_INFO(SP, 0, W1), { 0 } },
};

static const struct sfb_fre far[] = {
	{ 0, FRE_INFO(SP, 1, W1), { 8 } },
	{ 0x1234, FRE_INFO(SP, 1, W1), { 16 } },
	{ 0x12345, FRE_INFO(SP, 1, W1), { 24 } },
};

static const struct sfb_fre arm64[] = {
	{ 0, FRE_INFO(SP, 1, W1), { 0 } },
	{ 4, FRE_INFO(SP, 3, W1), { 32, -24, -32 } },
	{ 8, FRE_INFO(FP, 3, W1) | FRE_MANGLED, { 32, -24, -32 } },
	{ 12, FRE_INFO(SP, 1, W1) | FRE_MANGLED, { 0 } },
};

static const struct sfb_fre s390x[] = {
	{ 0, FRE_INFO(SP, 1, W1), { 0 } },
	{ 6, FRE_INFO(SP, 3, W1), { 0, -48, -72 } },
	{ 10, FRE_INFO(SP, 3, W1), { 20, 0, -72 } },
	{ 14, FRE_INFO(FP, 3, W1), { 0, 49, 51 } },
};

static const struct sfb_fre flex[] = {
	{ 0, FRE_INFO(SP, 6, W1), { CTRL(6, 1, 1), -8, CTRL(0, 1, 0), -8,
				    CTRL(6, 1, 1), 0 } },
	{ 4, FRE_INFO(SP, 5, W1), { CTRL(10, 0, 1), 0, 0, CTRL(0, 1, 0), -16 } },
	{ 8, FRE_INFO(FP, 2, W2), { CTRL(7, 0, 1), 0x1000 } },
	{ 12, FRE_INFO(SP, 4, W4), { CTRL(7, 0, 1), 8, CTRL(16, 0, 1), 0 } },
};

static const struct sfb_fre plt[] = {
	{ 0, FRE_INFO(SP, 1, W1), { 8 } },
	{ 11, FRE_INFO(SP, 1, W1), { 16 } },
};

static int builder_seeds(void)
{
	const struct sfb_fde fdes[] = {
		{ F(1), 24, FDE_INFO(A1, INC), 0, 0, 4, amd64 },
		{ F(2), 8, FDE_INFO(A1, INC) | FDE_SIGNAL, 0, 0, 4, sizes },
		{ F(3), 0x20000, FDE_INFO(A4, INC), 0, 0, 3, far },
		{ F(0x30), 0x40, FDE_INFO(A1, MASK), 0, 16, 2, plt },
		{ F(0x31), 16, FDE_INFO(A1, INC), 0, 0, 0, NULL },
	};
	const struct sfb_fde fdes2[] = {
		{ F(1), 0x10000, FDE_INFO(A2, INC), 0, 0, 3, far },
	};
	const struct sfb_fde arm[] = {
		{ F(1), 16, FDE_INFO(A1, INC), 0, 0, 4, arm64 },
		{ F(2), 16, FDE_INFO(A1, INC) | FDE_KEY_B, 0, 0, 4, arm64 },
	};
	const struct sfb_fde s390[] = {
		{ F(1), 18, FDE_INFO(A1, INC), 0, 0, 4, s390x },
	};
	const struct sfb_fde fl[] = {
		{ F(1), 16, FDE_INFO(A1, INC), SFRAME_FDE_TYPE_FLEX, 0, 4, flex },
	};
	const u8 amd = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	const u8 s390abi = SFRAME_ABI_S390X_ENDIAN_BIG;
	int ret = 0, v;

	for (v = SFRAME_VERSION_2; v <= SFRAME_VERSION_3; v++) {
		struct sfb_sec secs[] = {
			{ v, SORTED | PCREL, amd, 0, -8, 0, 5, fdes },
			{ v, SORTED, amd, 0, -8, 3, 5, fdes },
			{ v, SORTED | PCREL, amd, 0, -8, 0, 1, fdes2 },
			{ v, SORTED | PCREL, SFRAME_ABI_AARCH64_ENDIAN_LITTLE,
			  0, 0, 0, 2, arm },
			{ v, SORTED | PCREL, s390abi, 0, 0, 0, 1, s390 },
		};
		static const char * const names[] = {
			"amd64", "amd64-secrel", "addr2", "aarch64", "s390x"
		};
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(secs); i++) {
			char name[64];

			snprintf(name, sizeof(name), "v%d-%s", v, names[i]);
			ret |= seed(name, &secs[i]);
		}
	}
	{
		struct sfb_sec s = { SFRAME_VERSION_3, SORTED | PCREL, amd, 0,
				     -8, 0, 1, fl };

		ret |= seed("v3-flex-amd64", &s);
		s.abi = s390abi;
		s.fixed_ra = 0;
		ret |= seed("v3-flex-s390x", &s);
	}
	return ret;
}

static int elf_seed(const char *path)
{
	struct sframe_section sec;
	struct fuzz_hdr h;
	struct elfsec e;
	char err[256];
	const char *base = strrchr(path, '/');
	unsigned int i;
	int ret;

	if (elfsec_load(path, &e, &sec, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (e.sframe_size > 65536) {
		elfsec_close(&e);
		return 0;
	}
	memset(&h, 0, sizeof(h));
	h.text_rel = (s64)(e.text_start - e.sframe_addr);
	h.text_size = e.text_end - e.text_start;
	for (i = 0; i < FUZZ_NPCS; i++)
		h.pc[i] = (u32)(h.text_size / FUZZ_NPCS * i + 7 * i);
	ret = write_seed(base ? base + 1 : path, &h, e.data + e.sframe_off,
			 e.sframe_size);
	elfsec_close(&e);
	return ret;
}

int main(int argc, char **argv)
{
	int i, ret;

	if (argc < 2) {
		fprintf(stderr, "usage: sframe_seeds OUTDIR [ELF-FILE...]\n");
		return 2;
	}
	outdir = argv[1];
	ret = builder_seeds();
	for (i = 2; i < argc; i++)
		ret |= elf_seed(argv[i]);
	printf("%u seeds in %s\n", nr, outdir);
	return ret;
}
