#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: $0 N [ARCH].  Print a C module for unwind_bench.c with N functions
# f0 .. f(N-1), so that the .sframe section of the program has about N
# more FDEs.  bench_descend(depth, bottom) calls a chain of @depth of
# them, f0, f(S), f(2S), ... with S = N/16 (at least 1, modulo N): with
# the default depth of 16, frames spread over the whole text, each found
# by the unwinder in another part of the FDE table.
#
# Each function is the code and CFI that gcc -O2 -fno-omit-frame-pointer
# emits for the C in the comment of the output, in a file-scope asm():
# gcc spends milliseconds on every function, too long for 100000 of them.
# ARCH (x86_64 by default, arm64 or s390x) is the architecture of that
# code; s390x's is gcc's with -mbackchain too, its frame pointers.
set -eu

n=${1:-}
case $n in
''|*[!0-9]*|0*)
	echo "usage: $0 N [ARCH] (N >= 1 functions)" >&2
	exit 2
	;;
esac
case ${2:-x86_64} in
x86|x86_64) arch=x86_64 ;;
arm64|aarch64) arch=arm64 ;;
s390|s390x) arch=s390x ;;
*)	echo "$0: no function body for ${2}" >&2
	exit 2
	;;
esac

awk -v n="$n" -v arch="$arch" -v prog="${0##*/}" '
function x86_64_body() {
	print "    \"	pushq	%rbp\\n\"					\\"
	print "    \"	.cfi_def_cfa_offset 16\\n\"				\\"
	print "    \"	.cfi_offset 6, -16\\n\"					\\"
	print "    \"	movq	%rsp, %rbp\\n\"					\\"
	print "    \"	.cfi_def_cfa_register 6\\n\"				\\"
	print "    \"	cmpl	$1, %edi\\n\"					\\"
	print "    \"	jg	1f\\n\"						\\"
	print "    \"	call	*%rsi\\n\"					\\"
	print "    \"	popq	%rbp\\n\"					\\"
	print "    \"	.cfi_remember_state\\n\"				\\"
	print "    \"	.cfi_def_cfa 7, 8\\n\"					\\"
	print "    \"	addl	$1, %eax\\n\"					\\"
	print "    \"	ret\\n\"						\\"
	print "    \"	.p2align 4,,10\\n\"					\\"
	print "    \"	.p2align 3\\n\"						\\"
	print "    \"1:\\n\"							\\"
	print "    \"	.cfi_restore_state\\n\"					\\"
	print "    \"	subl	$1, %edi\\n\"					\\"
	print "    \"	call	f\" #j \"\\n\"					\\"
	print "    \"	popq	%rbp\\n\"					\\"
	print "    \"	.cfi_def_cfa 7, 8\\n\"					\\"
	print "    \"	addl	$1, %eax\\n\"					\\"
	print "    \"	ret\\n\"						\\"
}
function arm64_body() {
	print "    \"	stp	x29, x30, [sp, -16]!\\n\"			\\"
	print "    \"	.cfi_def_cfa_offset 16\\n\"				\\"
	print "    \"	.cfi_offset 29, -16\\n\"				\\"
	print "    \"	.cfi_offset 30, -8\\n\"					\\"
	print "    \"	mov	x29, sp\\n\"					\\"
	print "    \"	cmp	w0, 1\\n\"					\\"
	print "    \"	bgt	1f\\n\"						\\"
	print "    \"	blr	x1\\n\"						\\"
	print "    \"	add	w0, w0, 1\\n\"					\\"
	print "    \"	ldp	x29, x30, [sp], 16\\n\"				\\"
	print "    \"	.cfi_remember_state\\n\"				\\"
	print "    \"	.cfi_restore 30\\n\"					\\"
	print "    \"	.cfi_restore 29\\n\"					\\"
	print "    \"	.cfi_def_cfa_offset 0\\n\"				\\"
	print "    \"	ret\\n\"						\\"
	print "    \"	.p2align 2,,3\\n\"					\\"
	print "    \"1:\\n\"							\\"
	print "    \"	.cfi_restore_state\\n\"					\\"
	print "    \"	sub	w0, w0, #1\\n\"					\\"
	print "    \"	bl	f\" #j \"\\n\"					\\"
	print "    \"	ldp	x29, x30, [sp], 16\\n\"				\\"
	print "    \"	.cfi_restore 30\\n\"					\\"
	print "    \"	.cfi_restore 29\\n\"					\\"
	print "    \"	.cfi_def_cfa_offset 0\\n\"				\\"
	print "    \"	add	w0, w0, 1\\n\"					\\"
	print "    \"	ret\\n\"						\\"
}
function s390x_body() {
	print "    \"	stmg	%r11,%r15,88(%r15)\\n\"				\\"
	print "    \"	.cfi_offset 11, -72\\n\"				\\"
	print "    \"	.cfi_offset 12, -64\\n\"				\\"
	print "    \"	.cfi_offset 13, -56\\n\"				\\"
	print "    \"	.cfi_offset 14, -48\\n\"				\\"
	print "    \"	.cfi_offset 15, -40\\n\"				\\"
	print "    \"	lgr	%r14,%r15\\n\"				\\"
	print "    \"	lay	%r15,-160(%r15)\\n\"				\\"
	print "    \"	.cfi_def_cfa_offset 320\\n\"				\\"
	print "    \"	stg	%r14,0(%r15)\\n\"				\\"
	print "    \"	chi	%r2,1\\n\"				\\"
	print "    \"	lgr	%r11,%r15\\n\"				\\"
	print "    \"	.cfi_def_cfa_register 11\\n\"				\\"
	print "    \"	jh	1f\\n\"				\\"
	print "    \"	basr	%r14,%r3\\n\"				\\"
	print "    \"	lmg	%r11,%r15,248(%r11)\\n\"				\\"
	print "    \"	.cfi_remember_state\\n\"				\\"
	print "    \"	.cfi_restore 15\\n\"				\\"
	print "    \"	.cfi_restore 14\\n\"				\\"
	print "    \"	.cfi_restore 13\\n\"				\\"
	print "    \"	.cfi_restore 12\\n\"				\\"
	print "    \"	.cfi_restore 11\\n\"				\\"
	print "    \"	.cfi_def_cfa 15, 160\\n\"				\\"
	print "    \"	ahi	%r2,1\\n\"				\\"
	print "    \"	lgfr	%r2,%r2\\n\"				\\"
	print "    \"	br	%r14\\n\"				\\"
	print "    \"1:\\n\"				\\"
	print "    \"	.cfi_restore_state\\n\"				\\"
	print "    \"	ahi	%r2,-1\\n\"				\\"
	print "    \"	lgfr	%r2,%r2\\n\"				\\"
	print "    \"	brasl	%r14,f\" #j \"\\n\"				\\"
	print "    \"	lmg	%r11,%r15,248(%r11)\\n\"				\\"
	print "    \"	.cfi_restore 15\\n\"				\\"
	print "    \"	.cfi_restore 14\\n\"				\\"
	print "    \"	.cfi_restore 13\\n\"				\\"
	print "    \"	.cfi_restore 12\\n\"				\\"
	print "    \"	.cfi_restore 11\\n\"				\\"
	print "    \"	.cfi_def_cfa 15, 160\\n\"				\\"
	print "    \"	ahi	%r2,1\\n\"				\\"
	print "    \"	lgfr	%r2,%r2\\n\"				\\"
	print "    \"	br	%r14\\n\"				\\"
}
BEGIN {
	s = int(n / 16)
	if (s < 1)
		s = 1
	spdx = "SPDX-License-Identifier"
	printf "// %s: GPL-2.0\n", spdx
	print "/*"
	printf " * Generated by %s %d: do not edit.\n", prog, n
	print " *"
	print " * F(I, J) is what gcc -O2 -fno-omit-frame-pointer makes of"
	print " *"
	print " *	static BENCH_NOIPA int fI(int depth, int (*bottom)(void))"
	print " *	{"
	print " *		return (depth > 1 ? fJ(depth - 1, bottom) : bottom()) + 1;"
	print " *	}"
	print " *"
	print " * with its CFI, from which gas makes the function'"'"'s SFrame FDE."
	print " */"
	print "#include \"unwind_bench.h\""
	print ""
	print "typedef int (*bench_fn)(int depth, int (*bottom)(void));"
	print ""
	print "#define F(i, j)							\\"
	print "int f##i(int depth, int (*bottom)(void));			\\"
	print "asm(\"	.pushsection .text\\n\"					\\"
	print "    \"	.p2align 4\\n\"						\\"
	print "    \"	.type	f\" #i \", @function\\n\"			\\"
	print "    \"f\" #i \":\\n\"						\\"
	print "    \"	.cfi_startproc\\n\"					\\"
	if (arch == "arm64")
		arm64_body()
	else if (arch == "s390x")
		s390x_body()
	else
		x86_64_body()
	print "    \"	.cfi_endproc\\n\"					\\"
	print "    \"	.size	f\" #i \", .-f\" #i \"\\n\"			\\"
	print "    \"	.popsection\\n\")"
	print ""
	for (i = 0; i < n; i++)
		printf "F(%d, %d);\n", i, (i + s) % n
	print ""
	printf "const bench_fn bench_funcs[%d] = {\n", n
	for (i = 0; i < n; i++)
		printf "\tf%d,\n", i
	print "};"
	print ""
	printf "const int bench_nfuncs = %d;\n", n
	print ""
	print "BENCH_NOIPA int bench_descend(int depth, int (*bottom)(void))"
	print "{"
	print "\treturn bench_funcs[0](depth, bottom) + 1;"
	print "}"
}'
