/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbols whose choice is subtle, for usym-check (usym.c against
 * libdwfl): two globals and a weak one at one start with other sizes (the
 * larger first in .symtab, as the linker orders these names); a
 * local symbol nested in a global one; a global label (no size); a local
 * function after it; a local alias of a global function.
 */
	.text
	.p2align 4
	.globl	big, small
	.weak	w_same
	.type	big, @function
	.type	small, @function
	.type	w_same, @function
big:
small:
w_same:
	.fill	64, 1, 0x90
	.size	big, 64
	.size	small, 32
	.size	w_same, 16

	.globl	outer
	.type	outer, @function
	.type	inner, @function
outer:
	.fill	32, 1, 0x90
inner:
	.fill	96, 1, 0x90
	.size	outer, 128
	.size	inner, 16

	.globl	g_label
g_label:
	.fill	16, 1, 0x90
	.type	l_after, @function
l_after:
	.fill	48, 1, 0x90
	.size	l_after, 48

	.globl	g_fn
	.type	g_fn, @function
	.type	l_alias, @function
g_fn:
l_alias:
	.fill	40, 1, 0x90
	.size	g_fn, 40
	.size	l_alias, 40
	.section .note.GNU-stack, "", @progbits
