/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Explicit registration of SFrame sections with prctl(PR_SFRAME), shared
 * by the SFrame kselftests and the stress program: a tiny JIT function,
 * hand-built SFrame V2 sections describing it, and the prctl() wrapper.
 */
#ifndef SFT_SFRAME_H
#define SFT_SFRAME_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <linux/types.h>

#ifndef PR_SFRAME
#define PR_SFRAME			82
#define PR_SFRAME_REGISTER		1
#define PR_SFRAME_UNREGISTER		2
struct prctl_sframe {
	__u64	text_start;
	__u64	text_len;
	__u64	sframe_start;
	__u64	sframe_len;
	__u64	flags;
};
#endif

/*
 * jit: sub $24,%rsp; call *%rsi; add $24,%rsp; ret.
 * It calls leaf(x) with rdi unchanged.
 */
static const unsigned char jit_code[] = {
	0x48, 0x83, 0xec, 0x18,		/* 0: sub $0x18,%rsp */
	0xff, 0xd6,			/* 4: call *%rsi */
	0x48, 0x83, 0xc4, 0x18,		/* 6: add $0x18,%rsp */
	0xc3,				/* a: ret */
};

/* Bytes of sft_jit_emit(@sled)'s code */
#define SFT_JIT_SIZE(sled)	((sled) + sizeof(jit_code))

/* Write @sled nops and then jit_code to @text: one function */
static inline size_t sft_jit_emit(unsigned char *text, size_t sled)
{
	memset(text, 0x90, sled);
	memcpy(text + sled, jit_code, sizeof(jit_code));
	return SFT_JIT_SIZE(sled);
}

/*
 * A hand-built SFrame V2 section at @sec (user address @sec_addr) for the
 * code of sft_jit_emit(@sled) at @text: one function, an FRE every @step
 * bytes of the sled (CFA = SP + 8), then the FREs of jit_code.  With
 * @sled 0 it is the three FREs of jit_code alone; a long sled with a
 * small step is a hostile section, every lookup of the return address
 * reading all its FREs.  FRE start offsets are one byte wide for
 * functions below 256 bytes, two bytes otherwise.  @sec must hold
 * 48 + 4 * (@sled / @step + 3) bytes.  Return the section's size.
 */
static inline size_t sft_build_sframe(unsigned char *sec,
				      unsigned long sec_addr,
				      unsigned long text, size_t sled,
				      size_t step)
{
	const size_t size = SFT_JIT_SIZE(sled);
	const int addr2 = size > 255;
	/* FRE info: CFA based on SP, one one-byte offset */
	const unsigned char info = 0x03;
	uint32_t nfres = 0, fre_bytes;
	int32_t start = text - sec_addr - 28;	/* PC-relative to the FDE */
	unsigned char *p = sec, *fre = sec + 48;
	size_t off;

#define SFT_FRE(at, cfa) do {						\
		uint16_t at16_ = (at);					\
		if (addr2) {						\
			memcpy(fre, &at16_, 2);				\
			fre += 2;					\
		} else {						\
			*fre++ = (unsigned char)at16_;			\
		}							\
		*fre++ = info;						\
		*fre++ = (cfa);						\
		nfres++;						\
	} while (0)
	for (off = 0; off < sled; off += step)
		SFT_FRE(off, 8);
	SFT_FRE(sled, 8);		/* sub $0x18,%rsp: CFA = SP + 8 */
	SFT_FRE(sled + 4, 32);		/* after it: CFA = SP + 32 */
	SFT_FRE(sled + 10, 8);		/* ret: CFA = SP + 8 */
#undef SFT_FRE
	fre_bytes = fre - (sec + 48);

	/* header: magic, v2, FDE_SORTED | FDE_FUNC_START_PCREL */
	*p++ = 0xe2; *p++ = 0xde; *p++ = 2; *p++ = 0x05;
	*p++ = 3;			/* AMD64, little endian */
	*p++ = 0;			/* no fixed FP offset */
	*p++ = (unsigned char)-8;	/* RA at CFA - 8 */
	*p++ = 0;			/* no auxiliary header */
	memcpy(p, &(uint32_t){1}, 4); p += 4;		/* num_fdes */
	memcpy(p, &nfres, 4); p += 4;			/* num_fres */
	memcpy(p, &fre_bytes, 4); p += 4;
	memcpy(p, &(uint32_t){0}, 4); p += 4;		/* FDE offset */
	memcpy(p, &(uint32_t){20}, 4); p += 4;		/* FRE offset */
	/* FDE */
	memcpy(p, &start, 4); p += 4;
	memcpy(p, &(uint32_t){size}, 4); p += 4;
	memcpy(p, &(uint32_t){0}, 4); p += 4;		/* first FRE */
	memcpy(p, &nfres, 4); p += 4;			/* FRE count */
	*p++ = addr2;			/* PCINC, FRE type ADDR1 or ADDR2 */
	*p++ = 0; *p++ = 0; *p++ = 0;	/* rep size, padding */
	return fre - sec;
}

/* The section of jit_code alone at @text (three FREs, ADDR1) */
static inline size_t build_sframe(unsigned char *sec, unsigned long sec_addr,
				  unsigned long text)
{
	return sft_build_sframe(sec, sec_addr, text, 0, 4);
}

/* prctl(PR_SFRAME, @op, @a, @size): 0 or the errno */
static inline int sframe_prctl(int op, struct prctl_sframe *a, size_t size)
{
	return prctl(PR_SFRAME, op, (unsigned long)a, size, 0) ? errno : 0;
}

#endif
