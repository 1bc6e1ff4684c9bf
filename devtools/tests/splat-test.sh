#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of the splat detector on saved console logs: every *.splat.log must
# be flagged, every *.clean.log must pass; with SFRAME_SPLAT_KCSAN=ours (the
# KCSAN flavour), kcsan-ours.* must be flagged and kcsan-other.* (a race
# outside the series) must pass. TAP output.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
check=$dir/../splat-check.sh
n=0 fail=0
logs=("$dir"/splat/*.log)
kcsan=("$dir"/splat/kcsan-*.log)

# one KCSAN LOG WANT: a TAP line for splat-check on LOG, which must exit
# WANT, with SFRAME_SPLAT_KCSAN=KCSAN
one() {
	local kcsan=$1 log=$2 want=$3 name rc
	name=${kcsan:+SFRAME_SPLAT_KCSAN=$kcsan }$(basename "$log" .log)
	n=$((n + 1))
	SFRAME_SPLAT_KCSAN=$kcsan "$check" "$log" >/dev/null 2>&1
	rc=$?
	if [ $rc = "$want" ]; then
		echo "ok $n splat-check $name"
	else
		echo "not ok $n splat-check $name (exit $rc, want $want)"
		fail=$((fail + 1))
	fi
}

echo "1..$((${#logs[@]} + ${#kcsan[@]}))"
for log in "${logs[@]}"; do
	case $log in
	*.splat.log) one "" "$log" 1 ;;
	*) one "" "$log" 0 ;;
	esac
done
for log in "${kcsan[@]}"; do
	case $log in
	*/kcsan-ours*) one ours "$log" 1 ;;
	*) one ours "$log" 0 ;;
	esac
done
exit $((fail > 0))
