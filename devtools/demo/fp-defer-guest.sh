#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the VM: Debian's unmodified perf records the workload with
# --call-graph fp,defer, SFrame unwinding on and then off.
work=$1
perf --version
for s in 1 0; do
	echo $s >/proc/sys/kernel/sframe_unwind
	perf record -q -e cpu-clock:u -F 499 --call-graph fp,defer \
		-o /tmp/perf-$s.data "$work" 2>&1 | grep -v schedstat
	echo "== kernel.sframe_unwind=$s: perf script, first samples"
	perf script -i /tmp/perf-$s.data -F comm,ip,sym 2>/dev/null | head -21
	echo "== kernel.sframe_unwind=$s: samples whose user chain reaches main:"
	perf script -i /tmp/perf-$s.data -F ip,sym 2>/dev/null |
		awk -f "$(dirname "$0")/../chains-main.awk" |
		{ read -r n m; echo "$m of $n"; }
done
echo 1 >/proc/sys/kernel/sframe_unwind
