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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/types.h>

#include "sft_arch.h"

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
#ifndef PR_SFRAME_STORE_ADD
#define PR_SFRAME_STORE_ADD		3
#define PR_SFRAME_STORE_REMOVE		4
#define PR_SFRAME_STORE_ALL		1
struct prctl_sframe_store {
	__u64	sframe;
	__u64	sframe_len;
	__u64	sframe_addr;
	__u64	text_start;
	__u64	text_end;
	__u64	file_size;
	__u64	flags;
	__u32	build_id_len;
	__u8	build_id[20];
};
#endif

/* Bytes of sft_jit_emit(@sled)'s code */
#define SFT_JIT_SIZE(sled)	((sled) + sizeof(jit_code))

/*
 * Bytes of the section sft_build_sframe(@sled, @step) builds, at most:
 * header and FDE, an FRE of up to five bytes per sled step and per FRE
 * of jit_code
 */
#define SFT_SFRAME_SIZE(sled, step)					\
	(48 + 5 * (((sled) + (step) - 1) / (step) + SFT_JIT_NFRES))

/*
 * Write @sled bytes of nops (a multiple of the nop's size) and then
 * jit_code to @text: one function
 */
static inline size_t sft_jit_emit(unsigned char *text, size_t sled)
{
	size_t i;

	for (i = 0; i < sled; i += sizeof(sft_nop))
		memcpy(text + i, sft_nop, sizeof(sft_nop));
	memcpy(text + sled, jit_code, sizeof(jit_code));
	return SFT_JIT_SIZE(sled);
}

/*
 * A hand-built SFrame V2 section at @sec (user address @sec_addr) for the
 * code of sft_jit_emit(@sled) at @text: one function, an FRE every @step
 * bytes of the sled (CFA = SP + SFT_SLED_CFA), then the FREs of jit_code
 * (jit_fres).  With @sled 0 it is the FREs of jit_code alone; a long
 * sled with a small step is a hostile section, every lookup of the
 * return address reading all its FREs.  FRE start offsets are one byte
 * wide for functions below 256 bytes, two bytes otherwise.  @sec must
 * hold SFT_SFRAME_SIZE(@sled, @step) bytes.  Return the section's size.
 */
static inline size_t sft_build_sframe(unsigned char *sec,
				      unsigned long sec_addr,
				      unsigned long text, size_t sled,
				      size_t step)
{
	const size_t size = SFT_JIT_SIZE(sled);
	const int addr2 = size > 255;
	uint32_t nfres = 0, fre_bytes;
	int32_t start = text - sec_addr - 28;	/* PC-relative to the FDE */
	unsigned char *p = sec, *fre = sec + 48;
	size_t off, i;

/* FRE info: CFA based on SP, one or two one-byte offsets */
#define SFT_FRE(at, cfa, ra) do {					\
		uint16_t at16_ = (at);					\
		if (addr2) {						\
			memcpy(fre, &at16_, 2);				\
			fre += 2;					\
		} else {						\
			*fre++ = (unsigned char)at16_;			\
		}							\
		*fre++ = (ra) ? 0x05 : 0x03;				\
		*fre++ = SFT_CFA(cfa);					\
		if (ra)							\
			*fre++ = (unsigned char)(ra);			\
		nfres++;						\
	} while (0)
	for (off = 0; off < sled; off += step)
		SFT_FRE(off, SFT_SLED_CFA, 0);
	for (i = 0; i < SFT_JIT_NFRES; i++)
		SFT_FRE(sled + jit_fres[i].at, jit_fres[i].cfa, jit_fres[i].ra);
#undef SFT_FRE
	fre_bytes = fre - (sec + 48);

	/* header: magic, v2, FDE_SORTED | FDE_FUNC_START_PCREL */
	memcpy(p, &(uint16_t){0xdee2}, 2); p += 2;	/* target's order */
	*p++ = 2; *p++ = 0x05;
	*p++ = SFT_ABI;
	*p++ = 0;			/* no fixed FP offset */
	*p++ = (unsigned char)SFT_FIXED_RA;
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

/* The section of jit_code alone at @text (ADDR1 FREs) */
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

/* prctl(PR_SFRAME, PR_SFRAME_STORE_ADD or _REMOVE, @a, sizeof(*@a)) */
static inline int sframe_store_prctl(int op, struct prctl_sframe_store *a)
{
	return prctl(PR_SFRAME, op, (unsigned long)a, sizeof(*a), 0) ? errno : 0;
}

/*
 * The hostile but valid section of hostile_section_sampling and of make
 * bench's hostile workload: jit_code after a sled of SFT_HOSTILE_SLED
 * bytes with an FRE every SFT_HOSTILE_STEP bytes (sft_jit_map()), just
 * under the reader's limit of FREs per function, so that every lookup of
 * a return address into it reads them all; a stack that returns into it
 * at every other of 2 * SFT_HOSTILE_DEPTH + 1 frames.
 */
#define SFT_HOSTILE_SLED	2000
#define SFT_HOSTILE_STEP	2
#define SFT_HOSTILE_DEPTH	50

/*
 * Map sft_jit_emit(@sled)'s code as a new executable mapping and register
 * sft_build_sframe(@sled, @step)'s section for it with prctl(PR_SFRAME).
 * The code is stored in *@fn once mapped.  Return 0, -1 if a mapping
 * failed, or prctl()'s errno.
 */
static inline int sft_jit_map(size_t sled, size_t step, void **fn)
{
	size_t tlen = SFT_JIT_SIZE(sled), slen = SFT_SFRAME_SIZE(sled, step);
	struct prctl_sframe a;
	unsigned char *text, *sec;

	text = mmap(NULL, tlen, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sec = mmap(NULL, slen, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (text == MAP_FAILED || sec == MAP_FAILED)
		return -1;
	sft_jit_emit(text, sled);
	if (mprotect(text, tlen, PROT_READ | PROT_EXEC))
		return -1;
	*fn = text;
	a = (struct prctl_sframe){
		.text_start	= (unsigned long)text,
		.text_len	= tlen,
		.sframe_start	= (unsigned long)sec,
		.sframe_len	= sft_build_sframe(sec, (unsigned long)sec,
						   (unsigned long)text, sled,
						   step),
	};
	return sframe_prctl(PR_SFRAME_REGISTER, &a, sizeof(a));
}

#endif
