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
#
# Exits non-zero if a case fails.  KEEP=1 keeps the temporary directory.
set -uo pipefail

n=1
if [ "${1:-}" = -n ]; then n=$2; shift 2; fi
B=${1:?usage: sframe-gen-read.sh [-n N] BUILD_DIR}
B=$(cd "$B" && pwd) || exit 1

fail=0
tap() { # tap OK|FAIL description
	if [ "$1" = OK ]; then echo "ok $n $2"
	else echo "not ok $n $2"; fail=$((fail + 1)); fi
	n=$((n + 1))
}

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

[ $fail = 0 ]
