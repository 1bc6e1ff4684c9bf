#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf record --call-graph sframe
#
# The sframeloop workload runs sframeloop -> sframe_top -> sframe_mid ->
# sframe_leaf, built without frame pointers but with SFrame. The kernel
# unwinds it from .sframe at return to user: every sample in sframe_leaf
# must carry the whole chain down to perf's main().

shelldir=$(dirname "$0")
# shellcheck source=lib/perf_has_symbol.sh
. "${shelldir}"/lib/perf_has_symbol.sh

skip_test_missing_symbol sframe_leaf

err=0
data=$(mktemp /tmp/__perf_test.perf.data.XXXXX)
log=$(mktemp /tmp/__perf_test.log.XXXXX)
config=$(mktemp /tmp/__perf_test.config.XXXXX)
sysctl=/proc/sys/kernel/sframe_unwind
saved=""

cleanup() {
	[ -n "$saved" ] && echo "$saved" > "$sysctl"
	rm -f "$data" "$data.old" "$log" "$config"
	trap - EXIT TERM INT
}
trap cleanup EXIT TERM INT

record() {
	perf record -o "$data" -e cpu-clock -c 1000000 "$@" \
		-- perf test -w sframeloop 1 > "$log" 2>&1
}

# Kernel without SFrame unwinding: a clear refusal, not a frame-pointer run.
if [ ! -e "$sysctl" ]; then
	if record --call-graph sframe; then
		echo "FAIL: recorded on a kernel without SFrame unwinding"
		exit 1
	fi
	if ! grep -q "CONFIG_UNWIND_USER_SFRAME" "$log"; then
		echo "FAIL: the error does not say what is missing:"
		cat "$log"
		exit 1
	fi
	echo "kernel without SFrame unwinding: refused as expected; skipping the rest"
	exit 2
fi

if [ "$(id -u)" != 0 ]; then
	echo "Skipping: needs root to switch kernel.sframe_unwind"
	exit 2
fi
saved=$(cat "$sysctl")

# A sample's chain as " leaf caller ...", innermost first
FULL="^ sframe_leaf sframe_mid sframe_top sframeloop( [^ ]+)* main( |$)"

# Print "<samples in sframe_leaf> <of them with the whole chain>"
count_chains() {
	perf script -i "$data" --no-inline -F ip,sym 2> /dev/null | awk -v full="$FULL" '
		function flush() {
			if (chain ~ /^ sframe_leaf( |$)/) {
				n++
				if (chain ~ full) c++
			}
			chain = ""
		}
		/^$/ { flush(); next }
		{ chain = chain " " $2 }
		END { flush(); printf "%d %d\n", n, c }'
}

test_sframe() {
	echo 1 > "$sysctl"
	if ! record --call-graph sframe; then
		echo "FAIL: perf record --call-graph sframe"
		cat "$log"
		err=1
		return
	fi
	read -r n c <<< "$(count_chains)"
	echo "sframe: $c of $n samples in sframe_leaf have the whole chain"
	if [ "$n" -lt 10 ] || [ $((c * 100)) -lt $((n * 95)) ]; then
		echo "FAIL: expected >= 10 samples and >= 95% complete chains"
		perf script -i "$data" -F ip,sym | head -n 20
		err=1
	fi
	if ! perf report -i "$data" --header-only 2> /dev/null |
	     grep -q "call-graph record mode : cpu-clock: sframe"; then
		echo "FAIL: perf report --header-only does not show the sframe mode"
		err=1
	fi
	if ! perf evlist -v -i "$data" 2> /dev/null | grep -q "call-graph: sframe"; then
		echo "FAIL: perf evlist -v does not show the sframe mode"
		err=1
	fi
}

test_perfconfig() {
	printf '[call-graph]\n\trecord-mode = sframe\n' > "$config"
	if ! PERF_CONFIG="$config" record -g ||
	   ! perf evlist -v -i "$data" 2> /dev/null | grep -q "call-graph: sframe"; then
		echo "FAIL: -g with call-graph.record-mode = sframe"
		err=1
	fi
}

# Frame pointers alone cannot unwind the workload: proof that SFrame did.
test_fp_control() {
	echo 0 > "$sysctl"
	if ! record --call-graph fp,defer; then
		echo "FAIL: perf record --call-graph fp,defer"
		err=1
		return
	fi
	read -r n c <<< "$(count_chains)"
	echo "fp,defer with SFrame off: $c of $n samples have the whole chain"
	if [ "$n" -lt 10 ] || [ "$c" -ne 0 ]; then
		echo "FAIL: expected samples and no complete chain from frame pointers"
		err=1
	fi
}

# SFrame switched off: perf refuses the mode and says why.
test_disabled() {
	echo 0 > "$sysctl"
	if record --call-graph sframe; then
		echo "FAIL: recorded with kernel.sframe_unwind = 0"
		err=1
	elif ! grep -q "kernel.sframe_unwind = 0" "$log"; then
		echo "FAIL: the error does not name the sysctl:"
		cat "$log"
		err=1
	fi
}

# perf top cannot join deferred chains: it refuses the mode and says so.
test_top() {
	if timeout 60 perf top --stdio -d 1 --call-graph sframe > "$log" 2>&1; then
		echo "FAIL: perf top --call-graph sframe was not refused"
		err=1
	elif ! grep -q "perf top does not show deferred user callchains" "$log"; then
		echo "FAIL: perf top --call-graph sframe: not the expected error:"
		cat "$log"
		err=1
	fi
}

test_sframe
test_perfconfig
test_top
test_fp_control
test_disabled
exit $err
