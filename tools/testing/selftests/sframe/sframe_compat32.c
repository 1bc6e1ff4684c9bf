// SPDX-License-Identifier: GPL-2.0
/*
 * A 32-bit (compat) task for the tests compat_prctl and compat_samples.
 *
 * Without arguments it asks to register an SFrame section, with an
 * argument pointer that is not mapped: the kernel must refuse 32-bit
 * tasks first, with EINVAL (a 64-bit task gets EFAULT for the same call).
 * The exit status is the error number the prctl() returned, 0 if none.
 *
 * With an argument ("spin") it spins in compat_spin() until killed, to be
 * sampled.
 *
 * Built -nostdlib -static for i386 (-m32, on x86-64) or AArch32 (-marm
 * with arm-linux-gnueabihf-gcc, on arm64): no 32-bit libc is needed, the
 * system call is made with int $0x80 or svc #0 and the constants, the
 * same in both ABIs, are spelled out.
 */
#define NR_EXIT_32		1
#define NR_PRCTL_32		172
#define PR_SFRAME		82
#define PR_SFRAME_REGISTER	1
#define PRCTL_SFRAME_SIZE_VER0	40
#define UNMAPPED		0x1000UL

#if defined(__i386)
/* start(sp): sp points to argc, argv[] follows */
asm("	.pushsection .text\n"
	"	.globl	_start\n"
	"	.type	_start, @function\n"
	"_start:\n"
	"	pushl	%esp\n"
	"	call	start\n"
	"	hlt\n"
	"	.popsection\n");

static long sys5(long nr, long a1, long a2, long a3, long a4, long a5)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a" (ret)
		     : "a" (nr), "b" (a1), "c" (a2), "d" (a3), "S" (a4), "D" (a5)
		     : "memory");
	return ret;
}
#elif defined(__arm__)
asm("	.pushsection .text\n"
	"	.globl	_start\n"
	"	.type	_start, %function\n"
	"_start:\n"
	"	mov	r0, sp\n"
	"	bl	start\n"
	"	udf	#0\n"
	"	.popsection\n");

static long sys5(long nr, long a1, long a2, long a3, long a4, long a5)
{
	register long r7 asm("r7") = nr;
	register long r0 asm("r0") = a1;
	register long r1 asm("r1") = a2;
	register long r2 asm("r2") = a3;
	register long r3 asm("r3") = a4;
	register long r4 asm("r4") = a5;

	asm volatile("svc #0"
		     : "+r" (r0)
		     : "r" (r7), "r" (r1), "r" (r2), "r" (r3), "r" (r4)
		     : "memory");
	return r0;
}
#else
#error "sframe_compat32: i386 or AArch32 only"
#endif

/* Not inlined, not cloned: a frame of its own, under start() */
#define COMPAT_FRAME	__attribute__((__noipa__))

COMPAT_FRAME void compat_spin(long n)
{
	for (;;)
		asm("" : "+r" (n));
}

/* Called by _start; never returns */
void start(long *sp)
{
	long ret;

	if (sp[0] > 1)
		compat_spin(0);
	ret = sys5(NR_PRCTL_32, PR_SFRAME, PR_SFRAME_REGISTER, UNMAPPED,
		   PRCTL_SFRAME_SIZE_VER0, 0);
	sys5(NR_EXIT_32, ret < 0 ? -ret : 0, 0, 0, 0, 0);
	for (;;)
		;
}
