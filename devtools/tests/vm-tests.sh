#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the debug VM (devtools/test.sh level "vm"): checks that the
# booted kernel is the patched one, then runs the feature's kselftests.
# Writes TAP to build/vm/tap.txt.
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/build/vm/tap.txt
n=0 fail=0
: >"$out"
# Seconds since the last call, for the descriptions of the slow steps
t0=$(date +%s)
lap() { t1=$(date +%s); echo "$((t1 - t0)) s"; t0=$t1; }
tap() { # tap OK|FAIL description
	n=$((n + 1))
	if [ "$1" = OK ]; then echo "ok $n $2" >>"$out"
	else echo "not ok $n $2" >>"$out"; fail=$((fail + 1)); fi
}

rel=$(uname -r)
case $rel in
7.2*-sframe) tap OK "kernel release is the patched 7.2 ($rel)" ;;
*) tap FAIL "kernel release '$rel' is not the patched 7.2 (7.2*-sframe)" ;;
esac

cfg=$(zcat /proc/config.gz 2>/dev/null)
if [ -z "$cfg" ]; then
	tap FAIL "no /proc/config.gz"
else
	for opt in $(grep -hE '^CONFIG_[A-Z0-9_]+=' "$repo/devtools/configs/feature.config" \
		"$repo/devtools/configs/debug.config"); do
		if echo "$cfg" | grep -qxF "$opt"; then
			tap OK "running kernel has $opt"
		else
			tap FAIL "running kernel lacks $opt"
		fi
	done
fi

# The KUnit suites built into the debug kernel ran at boot: one TAP line
# per case, from their KTAP output in the kernel log.
klog=$(dmesg | sed -n 's/^\[[^]]*\] //p')
for suite in sframe sframe_registry; do
	echo "$klog" | grep -qE "^(not )?ok [0-9]+ $suite\$" ||
		tap FAIL "KUnit suite $suite did not run at boot"
done
cases=$(echo "$klog" | grep -E '^    (not )?ok [0-9]+ ' || true)
IFS='
'
for c in $cases; do
	c=${c#    }
	case $c in
	"not ok "*) tap FAIL "kunit: $(echo "$c" | cut -d' ' -f4-)" ;;
	*) tap OK "kunit: $(echo "$c" | cut -d' ' -f3-)" ;;
	esac
done
unset IFS

# perf from the patched tree: its shell test of --call-graph sframe, and
# the agreement of SFrame chains with perf's DWARF unwinding on zstd.
perf=$repo/build/perf/perf
if [ -x "$perf" ]; then
	log=$repo/build/vm/perf-test.log
	lap >/dev/null
	(cd "$repo/build/linux/tools/perf" && PATH=$repo/build/perf:$PATH \
		"$perf" test -vv 'perf record --call-graph sframe') >"$log" 2>&1
	if grep -q 'perf record --call-graph sframe *: Ok' "$log"; then
		tap OK "perf test: perf record --call-graph sframe ($(grep -m1 'samples in sframe_leaf' "$log"); $(lap))"
	else
		tap FAIL "perf test: perf record --call-graph sframe (build/vm/perf-test.log; $(lap))"
	fi
	log=$repo/build/vm/agree.log
	if "$repo/devtools/tests/agree-guest.sh" "$perf" "$repo/build/agree/zstd" \
		"$repo/build/vm" >"$log" 2>&1; then
		tap OK "SFrame vs DWARF (libdw) chains on Debian's zstd: $(tail -n1 "$log") ($(lap))"
	else
		tap FAIL "SFrame vs DWARF (libdw) chains on Debian's zstd: $(tail -n1 "$log") (build/vm/agree.log; $(lap))"
	fi
else
	tap FAIL "no perf binary at build/perf/perf"
fi

# The feature's kselftests (TAP, appended as they are).
for t in "$repo"/build/selftests/*/run_test.sh; do
	[ -x "$t" ] || continue
	lap >/dev/null
	"$t" >>"$out" 2>&1 || fail=$((fail + 1))
	echo "# $t: $(lap)" >>"$out"
done
[ $fail = 0 ]
