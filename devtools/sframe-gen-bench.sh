#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframe-gen-bench.sh: what the generated SFrame costs, natively in the sid
# root (the host kernel has no PR_SFRAME: the module does all its work but
# the registration fails, which costs one system call): sframe-gen's time
# and output size per library against .eh_frame, a process start under
# sframe-run with an empty cache (sframe-gen runs for each object) and a
# warm one, against none, and the cost per dlopen().  Medians of 5 (times)
# or means of 200 (start-ups, dlopen()s).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$REPO/devtools/sframe-gen-check.sh" --build
out=$REPO/build/sframe-bench
mkdir -p "$out"
"$REPO/devtools/chroot.sh" -- /bin/bash -ec '
	B=$1/build/sframe out=$2 src=$1/devtools/libc-walk
	gcc -O2 -o "$out/dlopen_bench" "$src/dlopen_bench.c"
	ms() { echo $(($(date +%s%N) / 1000)); }
	echo "| object | .eh_frame | generated .sframe | ratio | sframe-gen time |"
	echo "|---|---:|---:|---:|---:|"
	for f in /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6 \
		/usr/lib/x86_64-linux-gnu/libm.so.6 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
		/usr/aarch64-linux-gnu/lib/libc.so.6 /usr/s390x-linux-gnu/lib/libc.so.6; do
		ts=()
		for i in 1 2 3 4 5; do
			t=$(ms); "$B/sframe-gen" -q -o "$out/x.sframe" "$f"; ts+=($(($(ms) - t)))
		done
		med=$(printf "%s\n" "${ts[@]}" | sort -n | sed -n 3p)
		line=$("$B/sframe-gen" -o "$out/x.sframe" "$f" 2>&1)
		eh=$(sed -nE "s/.*CFI ([0-9]+) bytes.*/\1/p" <<<"$line")
		sf=$(sed -nE "s/.*sframe ([0-9]+) bytes.*/\1/p" <<<"$line")
		printf "| %s | %d | %d | %.2f | %.1f ms |\n" "$f" "$eh" "$sf" \
			"$(echo "$sf / $eh" | bc -l)" "$(echo "$med / 1000" | bc -l)"
	done
	echo
	run() { # run N CMD...: mean microseconds per run
		local n=$1 t; shift
		t=$(ms); for ((i = 0; i < n; i++)); do "$@" >/dev/null 2>&1; done
		echo $((($(ms) - t) / n))
	}
	export SFRAME_GEN_CACHE=$out/cache
	cold=0
	for i in 1 2 3 4 5; do
		rm -rf "$SFRAME_GEN_CACHE"
		t=$(ms); "$B/sframe-run" /bin/true; cold=$((cold + $(ms) - t))
	done
	echo "| process start (/bin/true: program, ld.so, libc) | time |"
	echo "|---|---:|"
	echo "| without sframe-run | $(run 200 /bin/true) us |"
	echo "| LD_AUDIT=sframe-audit.so, cache warm | $(LD_AUDIT=$B/sframe-audit.so run 200 /bin/true) us |"
	echo "| sframe-run, cache warm | $(run 200 "$B/sframe-run" /bin/true) us |"
	echo "| sframe-run, cache empty (sframe-gen for 3 objects) | $((cold / 5)) us |"
	echo
	echo "| dlopen()+dlclose() of libbz2.so.1.0 | first (cache empty) | then, mean of 200 |"
	echo "|---|---:|---:|"
	echo "| without sframe-run | $("$out/dlopen_bench" libbz2.so.1.0 200 | sed -E "s/first_us=([0-9]+) mean_us=([0-9.]+)/\1 us | \2 us/") |"
	rm -rf "$SFRAME_GEN_CACHE"
	"$B/sframe-run" /bin/true
	echo "| sframe-run | $("$B/sframe-run" "$out/dlopen_bench" libbz2.so.1.0 200 | sed -E "s/first_us=([0-9]+) mean_us=([0-9.]+)/\1 us | \2 us/") |"
' bench "$REPO" "$out" | tee "$out/results.md"
