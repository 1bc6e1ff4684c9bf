#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: the project in one command. Builds the non-debug VM kernel and
# perf from the patched tree, builds the demo workload (devtools/demo/:
# no frame pointers, with SFrame, one shared library), boots the VM and
# records the workload with perf --call-graph sframe, fp and dwarf at the
# same sampling rate; prints a side-by-side table and the top call chains
# of the SFrame run. REPEAT=N runs each mode N times (medians; default 3).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_root "the demo (toolchain root, VM)"

out=$REPO/build/demo
repeat=${REPEAT:-3}
[ "${SFRAME_DIRTY:-0}" = 1 ] || "$REPO/devtools/tree.sh" apply
"$REPO/devtools/kbuild.sh" perf >/dev/null
perf=$("$REPO/devtools/perf.sh")
"$REPO/devtools/demo/build.sh" "$out"

msg "booting the VM (non-debug kernel) and recording the workload three ways"
vm_bench perf "$out/vm.log" \
	"$REPO/devtools/demo/record-guest.sh $perf $out $REPO/build/vm $repeat" ||
	{ cat "$out/vm.log" >&2; die "the recording failed in the VM"; }
cp "$REPO/build/vm/runs.txt" "$REPO/build/vm/top.txt" "$out/"
"$REPO/devtools/demo/table.sh" "$out/runs.txt" | tee "$out/table.md"
echo
echo "Top call chains of the SFrame run (perf report --stdio -g folded):"
sed 's/^/    /' "$out/top.txt"
