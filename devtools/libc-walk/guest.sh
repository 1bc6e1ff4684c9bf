#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh PROGRAM OUT [ROUNDS]: in the VM, Debian's unmodified perf records
# libc_walk with --call-graph fp,defer on cpu-clock, with sframe-run
# (build/sframe) and without, and writes to OUT/:
#   libc-walk-run.script, libc-walk-plain.script   perf script -F tid,ip,sym,dso
#   libc-walk-proc.txt     /proc/self/sframe of libc_walk under sframe-run
#   libc-walk-start.txt    start-up times of sframe-run: cold cache
#                          (sframe-gen runs for each object), warm, none
# check.sh reads them on the host.
# 30 rounds: check.sh wants 200 samples in qsort(). With one CPU (before
# the guest had ACPI) 80 rounds gave about 500; with two CPUs and ACPI's
# timers 80 gave 6,540, so 30 give some 2,500.
prog=${1:?usage: guest.sh PROGRAM OUT [ROUNDS]} out=${2:?} rounds=${3:-30}
repo=$(cd "$(dirname "$0")/../.." && pwd)
run=$repo/build/sframe/sframe-run
export SFRAME_GEN_CACHE=/tmp/sframe-gen-cache
rm -rf "$SFRAME_GEN_CACHE"
echo 1 >/proc/sys/kernel/sframe_unwind

# Start-up cost, in ms of guest time (under emulation: ratios only)
ms() { echo $(($(date +%s%N) / 1000000)); }
{
	t=$(ms); "$run" "$prog" 0 >/dev/null; echo "cold $(($(ms) - t))"
	t=$(ms); "$run" "$prog" 0 >/dev/null; echo "warm $(($(ms) - t))"
	t=$(ms); "$prog" 0 >/dev/null; echo "none $(($(ms) - t))"
} >"$out/libc-walk-start.txt" 2>&1
"$run" "$prog" 0 --proc >"$out/libc-walk-proc.txt" 2>&1

for mode in run plain; do
	if [ $mode = run ]; then set -- "$run" "$prog" "$rounds"
	else set -- "$prog" "$rounds"; fi
	perf record -q -e cpu-clock -F 1000 --call-graph fp,defer \
		-o /tmp/libc-walk-$mode.data -- "$@" >/dev/null 2>"$out/libc-walk-$mode.err"
	perf script -i /tmp/libc-walk-$mode.data --comms libc_walk \
		-F tid,ip,sym,dso >"$out/libc-walk-$mode.script" 2>>"$out/libc-walk-$mode.err"
done
