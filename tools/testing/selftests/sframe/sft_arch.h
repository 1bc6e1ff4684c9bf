/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the SFrame kselftests need to know of the architecture (x86-64,
 * arm64, s390x): system calls made inline (sft_syscall0(), sft_syscall2(),
 * which -O2 inlines), so that the function making them is the topmost
 * frame of a sampled chain, and a tiny JIT function with the SFrame rules
 * that describe it (sft_sframe.h builds the section).
 */
#ifndef SFT_ARCH_H
#define SFT_ARCH_H

#include <stdint.h>

/*
 * An FRE of the JIT function: from byte @at, CFA = SP + @cfa, and the
 * return address at CFA + @ra, or (@ra 0) where the ABI keeps it: at
 * the fixed offset SFT_FIXED_RA (x86-64), in the link register (arm64,
 * s390x's r14).  SFT_CFA(@cfa) is how an FRE stores the CFA offset.
 */
struct sft_jit_fre {
	uint8_t at;
	int16_t cfa;
	int8_t ra;
};

#if defined(__x86_64__)

static inline long sft_syscall0(long nr)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"(nr) : "rcx", "r11", "memory");
	return ret;
}

static inline long sft_syscall2(long nr, long a, long b)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"(nr), "D"(a), "S"(b)
		     : "rcx", "r11", "memory");
	return ret;
}

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

static const struct sft_jit_fre jit_fres[] = {
	{ 0, 8, 0 },			/* sub $0x18,%rsp */
	{ 4, 32, 0 },			/* after it */
	{ 10, 8, 0 },			/* ret */
};

/* A sled instruction: nop; its rule */
static const unsigned char sft_nop[] = { 0x90 };
#define SFT_SLED_CFA	8
#define SFT_CFA(cfa)	(cfa)
#define SFT_ABI		3		/* AMD64, little endian */
#define SFT_FIXED_RA	(-8)

/*
 * Frame pointer code: outer and inner both push %rbp, inner calls the
 * leaf given in %rsi; the return addresses into inner and outer.
 */
static const unsigned char jit_fp_code[] = {
	0x55,				/* 0: push %rbp */
	0x48, 0x89, 0xe5,		/* 1: mov %rsp,%rbp */
	0xe8, 0x03, 0x00, 0x00, 0x00,	/* 4: call 0xc */
	0x5d,				/* 9: pop %rbp */
	0xc3,				/* a: ret */
	0x90,				/* b: nop */
	0x55,				/* c: push %rbp */
	0x48, 0x89, 0xe5,		/* d: mov %rsp,%rbp */
	0xff, 0xd6,			/* 10: call *%rsi */
	0x5d,				/* 12: pop %rbp */
	0xc3,				/* 13: ret */
};

#define SFT_JIT_FP_RA_INNER	0x12
#define SFT_JIT_FP_RA_OUTER	0x9

/* The PLT relocation that sframe_discovery's mini loader resolves */
#define SFT_R_JUMP_SLOT		R_X86_64_JUMP_SLOT

/*
 * A frame record (%rbp) is at the top of its frame: a frame-pointer step
 * gives the caller's stack pointer, and SFrame can take over again
 */
/*
 * sft_restorer: a signal restorer of the test's own (SA_RESTORER), the
 * rt_sigreturn system call as libc's __restore_rt makes it
 */
#define SFT_RESTORER_ASM					\
	"	.pushsection .text\n"				\
	"	.p2align 4\n"					\
	"	.type	sft_restorer, @function\n"		\
	"sft_restorer:\n"					\
	"	movq	$15, %rax\n"				\
	"	syscall\n"					\
	"	.size	sft_restorer, .-sft_restorer\n"	\
	"	.popsection\n"

#define SFT_FP_SP_EXACT		1

#elif defined(__aarch64__)

static inline long sft_syscall0(long nr)
{
	register long x8 asm("x8") = nr;
	register long x0 asm("x0");

	asm volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	return x0;
}

static inline long sft_syscall2(long nr, long a, long b)
{
	register long x8 asm("x8") = nr;
	register long x0 asm("x0") = a;
	register long x1 asm("x1") = b;

	asm volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
	return x0;
}

/* The code is made of A64 instruction words (little-endian) */
/*
 * jit: sub sp, sp, #32; str x30, [sp, #16]; blr x1; ldr x30, [sp, #16];
 * add sp, sp, #32; ret.  It calls leaf(x) with x0 unchanged.
 */
static const uint32_t jit_code[] = {
	0xd10083ff,		/* 0: sub sp, sp, #32 */
	0xf9000bfe,		/* 4: str x30, [sp, #16] */
	0xd63f0020,		/* 8: blr x1 */
	0xf9400bfe,		/* c: ldr x30, [sp, #16] */
	0x910083ff,		/* 10: add sp, sp, #32 */
	0xd65f03c0,		/* 14: ret */
};

static const struct sft_jit_fre jit_fres[] = {
	{ 0, 0, 0 },			/* return address in x30 */
	{ 4, 32, 0 },			/* after the sub */
	{ 8, 32, -16 },			/* after the str */
	{ 16, 32, 0 },			/* after the ldr */
	{ 20, 0, 0 },			/* ret */
};

static const uint32_t sft_nop[] = { 0xd503201f };
#define SFT_SLED_CFA	0
#define SFT_CFA(cfa)	(cfa)
#define SFT_ABI		2		/* AArch64, little endian */
#define SFT_FIXED_RA	0

/*
 * Frame pointer code: outer and inner both push a frame record
 * (stp x29, x30, [sp, #-16]!; mov x29, sp), inner calls the leaf given
 * in x1; the return addresses into inner and outer.
 */
static const uint32_t jit_fp_code[] = {
	0xa9bf7bfd,		/* 0: stp x29, x30, [sp, #-16]! */
	0x910003fd,		/* 4: mov x29, sp */
	0x94000004,		/* 8: bl 0x18 */
	0xa8c17bfd,		/* c: ldp x29, x30, [sp], #16 */
	0xd65f03c0,		/* 10: ret */
	0xd503201f,		/* 14: nop */
	0xa9bf7bfd,		/* 18: stp x29, x30, [sp, #-16]! */
	0x910003fd,		/* 1c: mov x29, sp */
	0xd63f0020,		/* 20: blr x1 */
	0xa8c17bfd,		/* 24: ldp x29, x30, [sp], #16 */
	0xd65f03c0,		/* 28: ret */
};

#define SFT_JIT_FP_RA_INNER	0x24
#define SFT_JIT_FP_RA_OUTER	0xc

#define SFT_R_JUMP_SLOT		R_AARCH64_JUMP_SLOT

/* A frame record may be anywhere in its frame (UNWIND_USER_FP_EXACT_SP) */
/*
 * sft_restorer: a signal restorer of the test's own (SA_RESTORER), the
 * two instructions of the vDSO's __kernel_rt_sigreturn
 */
#define SFT_RESTORER_ASM					\
	"	.pushsection .text\n"				\
	"	.p2align 2\n"					\
	"	.type	sft_restorer, %function\n"		\
	"sft_restorer:\n"					\
	"	mov	x8, #139\n"				\
	"	svc	#0\n"					\
	"	.size	sft_restorer, .-sft_restorer\n"	\
	"	.popsection\n"

#define SFT_FP_SP_EXACT		0

#elif defined(__s390x__)

static inline long sft_syscall0(long nr)
{
	register long r1 asm("1") = nr;
	register long r2 asm("2");

	asm volatile("svc 0" : "=d"(r2) : "d"(r1) : "memory");
	return r2;
}

static inline long sft_syscall2(long nr, long a, long b)
{
	register long r1 asm("1") = nr;
	register long r2 asm("2") = a;
	register long r3 asm("3") = b;

	asm volatile("svc 0" : "+d"(r2) : "d"(r1), "d"(r3) : "memory");
	return r2;
}

/*
 * jit: save r14 and r15 in the caller's register save area, allocate
 * a frame of 160 bytes, call the leaf given in r3 with r2 unchanged,
 * restore and return.
 */
static const unsigned char jit_code[] = {
	0xeb, 0xef, 0xf0, 0x70, 0x00, 0x24,	/* 0: stmg %r14,%r15,112(%r15) */
	0xa7, 0xfb, 0xff, 0x60,			/* 6: aghi %r15,-160 */
	0x0d, 0xe3,				/* a: basr %r14,%r3 */
	0xeb, 0xef, 0xf1, 0x10, 0x00, 0x04,	/* c: lmg %r14,%r15,272(%r15) */
	0x07, 0xfe,				/* 12: br %r14 */
};

/* The CFA is SP + 160 at the entry; r14 is saved at CFA - 48 */
static const struct sft_jit_fre jit_fres[] = {
	{ 0, 160, 0 },			/* return address in r14 */
	{ 6, 160, -48 },		/* after the stmg */
	{ 10, 320, -48 },		/* after the aghi */
	{ 18, 160, 0 },			/* after the lmg */
};

/* A sled instruction: nopr (bcr 0,%r0); its rule */
static const unsigned char sft_nop[] = { 0x07, 0x00 };
#define SFT_SLED_CFA	160
/* s390x FREs store the CFA offset less 160, in units of 8 bytes */
#define SFT_CFA(cfa)	(((cfa) - 160) / 8)
#define SFT_ABI		4		/* s390x, big endian */
#define SFT_FIXED_RA	0

/*
 * Back chain code (s390x's frame-pointer step, -mbackchain): outer and
 * inner both save r14 and r15, allocate a frame and store the caller's
 * stack pointer at its bottom; inner calls the leaf given in r3.  The
 * return addresses into inner and outer.
 */
static const unsigned char jit_fp_code[] = {
	0xeb, 0xef, 0xf0, 0x70, 0x00, 0x24,	/* 0: stmg %r14,%r15,112(%r15) */
	0xb9, 0x04, 0x00, 0x1f,			/* 6: lgr %r1,%r15 */
	0xa7, 0xfb, 0xff, 0x60,			/* a: aghi %r15,-160 */
	0xe3, 0x10, 0xf0, 0x00, 0x00, 0x24,	/* e: stg %r1,0(%r15) */
	0xa7, 0xe5, 0x00, 0x07,			/* 14: bras %r14,0x22 */
	0xeb, 0xef, 0xf1, 0x10, 0x00, 0x04,	/* 18: lmg %r14,%r15,272(%r15) */
	0x07, 0xfe,				/* 1e: br %r14 */
	0x07, 0x00,				/* 20: nopr */
	0xeb, 0xef, 0xf0, 0x70, 0x00, 0x24,	/* 22: stmg %r14,%r15,112(%r15) */
	0xb9, 0x04, 0x00, 0x1f,			/* 28: lgr %r1,%r15 */
	0xa7, 0xfb, 0xff, 0x60,			/* 2c: aghi %r15,-160 */
	0xe3, 0x10, 0xf0, 0x00, 0x00, 0x24,	/* 30: stg %r1,0(%r15) */
	0x0d, 0xe3,				/* 36: basr %r14,%r3 */
	0xeb, 0xef, 0xf1, 0x10, 0x00, 0x04,	/* 38: lmg %r14,%r15,272(%r15) */
	0x07, 0xfe,				/* 3e: br %r14 */
};

#define SFT_JIT_FP_RA_INNER	0x38
#define SFT_JIT_FP_RA_OUTER	0x18

#define SFT_R_JUMP_SLOT		R_390_JMP_SLOT

/*
 * sft_restorer: a signal restorer of the test's own (SA_RESTORER) for a
 * handler installed without SA_SIGINFO, the sigreturn system call as the
 * vDSO's __kernel_sigreturn makes it
 */
#define SFT_RESTORER_ASM					\
	"	.pushsection .text\n"				\
	"	.p2align 3\n"					\
	"	.type	sft_restorer, @function\n"		\
	"sft_restorer:\n"					\
	"	svc	119\n"					\
	"	.size	sft_restorer, .-sft_restorer\n"	\
	"	.popsection\n"

/* The back chain gives the caller's stack pointer */
#define SFT_FP_SP_EXACT		1

/* The frame-pointer walk of s390x follows the back chain */
#define SFT_FP	__attribute__((__noipa__,				\
			       __optimize__("no-omit-frame-pointer"),	\
			       __target__("backchain")))
/*
 * sft_fpr_leaf: a leaf that keeps its return address in f2 and r11 in
 * f0 while it makes the getppid system call, with r14 and r11 zeroed:
 * its CFI makes a flexible FDE (RA and FP in registers), and the
 * unwinder must read the user's floating-point registers
 */
#define SFT_FPR_LEAF_ASM					\
	"	.pushsection .text\n"				\
	"	.p2align 3\n"					\
	"	.type	sft_fpr_leaf, @function\n"		\
	"sft_fpr_leaf:\n"					\
	"	.cfi_startproc\n"				\
	"	ldgr	%f2,%r14\n"				\
	"	.cfi_register 14, 17\n"	/* r14 in f2 */	\
	"	ldgr	%f0,%r11\n"				\
	"	.cfi_register 11, 16\n"	/* r11 in f0 */	\
	"	lghi	%r14,0\n"				\
	"	lghi	%r11,0\n"				\
	"	lghi	%r1,64\n"	/* __NR_getppid */	\
	"	svc	0\n"					\
	"	lgdr	%r11,%f0\n"				\
	"	.cfi_restore %r11\n"				\
	"	lgdr	%r14,%f2\n"				\
	"	.cfi_restore %r14\n"				\
	"	br	%r14\n"				\
	"	.cfi_endproc\n"				\
	"	.size	sft_fpr_leaf, .-sft_fpr_leaf\n"	\
	"	.popsection\n"

#else
#error "the SFrame kselftests know x86-64, arm64 and s390x"
#endif

/* Functions that keep frame pointers (sft_calls.h) */
#ifndef SFT_FP
#define SFT_FP	__attribute__((__noipa__, __optimize__("no-omit-frame-pointer")))
#endif
/* Defined where a test puts SFT_RESTORER_ASM, SFT_FPR_LEAF_ASM */
void sft_restorer(void);
long sft_fpr_leaf(long x);

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define SFT_JIT_NFRES	ARRAY_SIZE(jit_fres)

#endif
