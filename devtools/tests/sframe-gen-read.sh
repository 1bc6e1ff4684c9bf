#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframe-gen-read.sh [-n N] B: what sframe-gen (tools/sframe, built in B)
# reads of an object; one TAP line per case, numbered from N (default 1).
# Run natively, with gcc (devtools/sframe-gen-check.sh runs it in the sid
# root, after sframe-audit-objects.sh).
#
#   - The name of a cache file comes from the build ID note and the size
#     alone: with libdw's CFI functions made to abort (a library in
#     LD_PRELOAD), "sframe-gen --name" prints the name of libc's file,
#     the same as without, and "sframe-gen --cache DIR" leaves alone a
#     file that is there.
#   - Every FDE of .debug_frame finds its CIE, one after it too (DWARF
#     allows that there): an object whose only FDE for a function comes
#     before its CIE gets the same FDEs and rows as the same object with
#     the CIE first.
#
# Exits non-zero if a case fails.  KEEP=1 keeps the temporary directory.
set -uo pipefail

n=1
if [ "${1:-}" = -n ]; then n=$2; shift 2; fi
B=${1:?usage: sframe-gen-read.sh [-n N] BUILD_DIR}
B=$(cd "$B" && pwd) || exit 1

. "$(dirname "$0")/tap-lib.sh"

T=$(mktemp -d /tmp/sframe-gen-read.XXXXXX) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

# --- the name ---

cat >"$T/nocfi.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>

/* libdw's functions that read CFI, made to abort */
#define NOCFI(f) void f(void); void f(void) \
	{ fputs("nocfi: " #f "\n", stderr); abort(); }
NOCFI(dwarf_getcfi_elf)
NOCFI(dwarf_getcfi)
NOCFI(dwarf_next_cfi)
NOCFI(dwarf_cfi_addrframe)
EOF
gcc -O2 -shared -fPIC -o "$T/nocfi.so" "$T/nocfi.c" || { tap FAIL "gcc nocfi.c"; exit 1; }
libc=$(gcc -print-file-name=libc.so.6)
libc=$(readlink -f "$libc")
want=$("$B/sframe-gen" --name "$libc")
got=$( { LD_PRELOAD="$T/nocfi.so" "$B/sframe-gen" --name "$libc" 2>"$T/err"; } 2>/dev/null)
rc=$?
if [ "$rc" = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then
	tap OK "sframe-gen --name $libc reads no CFI ($got)"
else
	tap FAIL "sframe-gen --name $libc with the CFI functions aborting: exit status $rc, '$got', not '$want' ($(tr '\n' ' ' <"$T/err"))"
fi

mkdir "$T/c" && cp "$T/nocfi.so" "$T/c/$want"
# (the braces' redirection: no "Aborted" from bash)
{ LD_PRELOAD="$T/nocfi.so" "$B/sframe-gen" -q --cache "$T/c" "$libc" 2>"$T/err"; } 2>/dev/null
rc=$?
if [ "$rc" = 0 ] && cmp -s "$T/nocfi.so" "$T/c/$want"; then
	tap OK "sframe-gen --cache keeps the file of $libc that is there, reading no CFI"
else
	tap FAIL "sframe-gen --cache with the file of $libc there and the CFI functions aborting: exit status $rc ($(tr '\n' ' ' <"$T/err"))"
fi

# --- CIEs ---

# cfi.s FIRST: f, with its CFI in .debug_frame only: its CIE first if
# FIRST is 1, else after its FDE
cfi_s() {
	cat <<-EOF
		.text
		.globl	f
		.type	f, @function
	f:
		nop
		ret
	.Lf_end:
		.size	f, .-f
		.section .debug_frame,"",@progbits
	EOF
	[ "$1" = 1 ] && cie
	cat <<-'EOF'
	.Lfde:
		.long	.Lfde_end - .Lfde_start
	.Lfde_start:
		.long	.Lcie
		.quad	f
		.quad	.Lf_end - f
		.balign	8
	.Lfde_end:
	EOF
	[ "$1" = 1 ] || cie
	echo '	.section .note.GNU-stack,"",@progbits'
}
# A version 1 CIE of x86-64: CFA = rsp + 8, return address at CFA - 8
cie() {
	cat <<-'EOF'
	.Lcie:
		.long	.Lcie_end - .Lcie_start
	.Lcie_start:
		.long	0xffffffff
		.byte	1
		.string	""
		.uleb128 1
		.sleb128 -8
		.byte	16
		.byte	0x0c, 7, 8
		.byte	0x90, 1
		.balign	8
	.Lcie_end:
	EOF
}
if [ "$(uname -m)" = x86_64 ]; then
	echo 'int f(void); int main(void) { return f(); }' >"$T/main.c"
	for first in 1 0; do
		cfi_s $first >"$T/f$first.s"
		gcc -O2 -fno-asynchronous-unwind-tables -fno-unwind-tables \
			-o "$T/cie$first" "$T/main.c" "$T/f$first.s" ||
			{ tap FAIL "gcc f$first.s"; exit 1; }
	done
	r1=$("$B/sframe-gen" -o "$T/1.sframe" "$T/cie1" 2>&1) &&
		r0=$("$B/sframe-gen" -o "$T/0.sframe" "$T/cie0" 2>&1)
	rc=$?
	if [ "$rc" = 0 ] && [ "${r0#"$T"/cie0: }" = "${r1#"$T"/cie1: }" ]; then
		tap OK "sframe-gen: an FDE of .debug_frame before its CIE is read (${r0#"$T"/})"
	else
		tap FAIL "sframe-gen: an FDE of .debug_frame before its CIE: exit status $rc; ${r0#"$T"/}; with the CIE first: ${r1#"$T"/}"
	fi
fi

[ $fail = 0 ]
