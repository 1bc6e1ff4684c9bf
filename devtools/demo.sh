#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: the project in one command. Builds the non-debug VM kernel and
# perf from the patched tree, builds the demo workload (devtools/demo/:
# no frame pointers, with SFrame, one shared library), boots the VM and
# records the workload with perf --call-graph sframe, fp and dwarf at the
# same sampling rate; prints a side-by-side table and the top call chains
# of the SFrame run, and a row for libc_walk (devtools/libc-walk/), whose
# samples land inside Debian's libc, with and without sframe-run
# (tools/sframe); then draws the flame graphs of the sframe and dwarf runs
# and prints their paths. REPEAT=N runs each mode N times (medians;
# default 3).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_root "the demo (toolchain root, VM)"

out=$REPO/build/demo
repeat=${REPEAT:-3}
[ "${SFRAME_DIRTY:-0}" = 1 ] || "$REPO/devtools/tree.sh" apply
"$REPO/devtools/kbuild.sh" perf >/dev/null
perf=$("$REPO/devtools/perf.sh")
"$REPO/devtools/demo/build.sh" "$out"
"$REPO/devtools/libc-walk/build.sh" "$out/libc-walk"

msg "booting the VM (non-debug kernel) and recording the workload three ways"
vm_bench perf "$out/vm.log" \
	"$REPO/devtools/demo/record-guest.sh $perf $out $REPO/build/vm $repeat $out/libc-walk/libc_walk" ||
	{ cat "$out/vm.log" >&2; die "the recording failed in the VM"; }
cp "$REPO/build/vm/runs.txt" "$REPO/build/vm/top.txt" "$REPO/build/vm/libc.txt" \
	"$REPO/build/vm/sframe.folded" "$REPO/build/vm/dwarf.folded" "$out/"
"$REPO/devtools/demo/table.sh" "$out/runs.txt" | tee "$out/table.md"
echo
awk '
BEGIN {
	print "| libc_walk: samples in Debian libc (qsort, memcpy, getppid), --call-graph sframe | samples | user chain reaches main |"
	print "|---|---:|---:|"
}
{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
  printf "| %s | %d | %.1f %% |\n", f["mode"] == "plain" ? "without sframe-run" : "with sframe-run (SFrame generated from libc'"'"'s .eh_frame)", f["samples"], f["samples"] ? 100 * f["complete"] / f["samples"] : 0 }
' "$out/libc.txt" | tee -a "$out/table.md"
echo
echo "Top call chains of the SFrame run (perf report --stdio -g folded):"
sed 's/^/    /' "$out/top.txt"

# The flame graphs of the last sframe and dwarf runs, drawn by
# sframe-profile's flamegraph-folded (d3-flame-graph)
SFRAME_DIRTY=1 "$REPO/devtools/bpf/build.sh"
for mode in sframe dwarf; do
	"$REPO/devtools/chroot.sh" -- env SFRAME_PROFILE_ASSETS="$REPO/build/bpf/flamegraph" \
		"$REPO/build/bpf/flamegraph-folded" "make demo: perf --call-graph $mode" \
		<"$out/$mode.folded" >"$out/flamegraph-$mode.html" ||
		die "drawing the flame graph of the $mode run failed"
done
echo
echo "Flame graphs of the demo workload:"
echo "    $out/flamegraph-sframe.html (--call-graph sframe)"
echo "    $out/flamegraph-dwarf.html (--call-graph dwarf)"
