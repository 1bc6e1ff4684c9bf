#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the arm64 VM (devtools/test.sh level "vm-arm64"): saves the
# kernel's release and configuration, runs perf's shell test of
# --call-graph sframe with perf cross-built from the patched tree
# (build/perf-arm64/perf), records the deep program, built plain, with
# pac-ret and with pac-ret+b-key, with Debian's perf
# (devtools/tests/deep/fp-defer-guest.sh) and runs the cross-built sframe
# kselftests (build/selftests-arm64), all into build/vm/.
# devtools/tests/vm-arm64-check.sh turns that into TAP on the host.
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/build/vm
arm=$repo/build/arm64

uname -r >"$out/release"
zcat /proc/config.gz >"$out/config" 2>/dev/null || : >"$out/config"
# perf from the patched tree, cross-built: its shell test of
# --call-graph sframe (the sframeloop workload)
if [ -x "$repo/build/perf-arm64/perf" ]; then
	(cd "$repo/build/linux/tools/perf" && PATH=$repo/build/perf-arm64:$PATH \
		perf test -vv 'perf record --call-graph sframe') >"$out/perf-test.log" 2>&1
fi
"$repo/devtools/tests/deep/fp-defer-guest.sh" 1 100 "$arm/deep" \
	"$arm/deep-pac" "$arm/deep-bkey" >"$out/deep.tap" 2>&1

# The feature's kselftests (TAP, as they print it)
: >"$out/kselftests.tap"
for t in "$repo"/build/selftests-arm64/*/run_test.sh; do
	[ -x "$t" ] || continue
	"$t" >>"$out/kselftests.tap" 2>&1
done
