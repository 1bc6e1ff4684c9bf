#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo-defer.sh: Debian sid's own perf (7.2, unmodified) records a program
# built without frame pointers, with SFrame, using deferred callchains
# (--call-graph fp,defer), in the debug VM. With kernel.sframe_unwind=1
# the user chains are complete; with 0 they stop at the first frame.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$REPO/build/demo
mkdir -p "$out"
"$REPO/devtools/chroot.sh" -- gcc -O2 -fomit-frame-pointer -Wa,--gsframe \
	-o "$out/work" "$REPO/devtools/demo/work.c"
"$REPO/devtools/vm.sh" "$REPO/devtools/demo/fp-defer-guest.sh $out/work"
