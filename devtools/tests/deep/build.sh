#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh ARCH OUTDIR: build deep.c without frame pointers, with SFrame,
# for ARCH (x86_64, arm64, s390x) into OUTDIR: deep, and on arm64 also deep-pac
# and deep-bkey (return addresses signed with the A and the B key).
# Prints one TAP line per arm64 variant: its code signs return addresses
# and its .sframe says so.
set -euo pipefail
. "$(dirname "$0")/../../lib.sh"

arch=${1:?usage: build.sh ARCH OUTDIR} out=${2:?usage: build.sh ARCH OUTDIR}
src=$REPO/devtools/tests/deep/deep.c
mkdir -p "$out"
case $arch in
x86_64) "$REPO/devtools/chroot.sh" -- gcc -O2 -fomit-frame-pointer -Wa,--gsframe \
		-o "$out/deep" "$src"
	exit 0 ;;
s390x)	# and without the back chain (-mbackchain), as Debian builds
	"$REPO/devtools/chroot.sh" -- s390x-linux-gnu-gcc -O2 -fomit-frame-pointer \
		-Wa,--gsframe -o "$out/deep" "$src"
	exit 0 ;;
arm64)	;;
*)	die "no deep program for $arch" ;;
esac
# shellcheck disable=SC2016
"$REPO/devtools/chroot.sh" -- sh -ec '
	src=$1 out=$2 n=0
	for v in deep: deep-pac:pac-ret deep-bkey:pac-ret+b-key; do
		name=${v%%:*} bp=${v#*:}
		aarch64-linux-gnu-gcc -O2 -fomit-frame-pointer -Wa,--gsframe \
			${bp:+-mbranch-protection=$bp} -o "$out/$name" "$src"
		[ -n "$bp" ] || continue
		n=$((n + 1))
		case $bp in *b-key) insn=pacibsp key="B key" ;; *) insn=paciasp key="" ;; esac
		signs=$(aarch64-linux-gnu-objdump -d "$out/$name" |
			awk "/<d1>:/ { f = 1 } f && /$insn/ { print \"yes\"; exit }")
		dump=$(aarch64-linux-gnu-objdump --sframe "$out/$name")
		mangled=$(echo "$dump" | grep -c "\[s\]" || true)
		bkey=$(echo "$dump" | grep -c "pauth = B key" || true)
		want=0
		[ -z "$key" ] || want=9
		if [ "$signs" = yes ] && [ "$mangled" -gt 0 ] && [ "$bkey" = "$want" ]; then
			echo "ok $n deep program $name: d1 signs its return address ($insn), $mangled FREs with a signed RA, $bkey FDEs with the B key"
		else
			echo "not ok $n deep program $name: $insn in d1: ${signs:-no}; FREs with a signed RA: $mangled; FDEs with the B key: $bkey (want $want)"
		fi
	done' build "$src" "$out"
