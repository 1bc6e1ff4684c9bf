// SPDX-License-Identifier: GPL-2.0
/*
 * A 32-bit (compat) task asks to register an SFrame section, with an
 * argument pointer that is not mapped: the kernel must refuse 32-bit
 * tasks first, with EINVAL (a 64-bit task gets EFAULT for the same call).
 * The exit status is the error number the prctl() returned, 0 if none.
 *
 * Built -m32 -nostdlib -static: no 32-bit libc is needed, the system
 * call is made with int $0x80 and the constants are spelled out.
 */
#define NR_EXIT_32		1
#define NR_PRCTL_32		172
#define PR_SFRAME		82
#define PR_SFRAME_REGISTER	1
#define PRCTL_SFRAME_SIZE_VER0	40
#define UNMAPPED		0x1000UL

static long sys5(long nr, long a1, long a2, long a3, long a4, long a5)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a" (ret)
		     : "a" (nr), "b" (a1), "c" (a2), "d" (a3), "S" (a4), "D" (a5)
		     : "memory");
	return ret;
}

void _start(void)
{
	long ret = sys5(NR_PRCTL_32, PR_SFRAME, PR_SFRAME_REGISTER, UNMAPPED,
			PRCTL_SFRAME_SIZE_VER0, 0);

	sys5(NR_EXIT_32, ret < 0 ? -ret : 0, 0, 0, 0, 0);
	for (;;)
		;
}
