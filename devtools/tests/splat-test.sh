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
echo "1..$((${#logs[@]} + ${#kcsan[@]}))"
for log in "${logs[@]}"; do
	n=$((n + 1))
	name=$(basename "$log" .log)
	"$check" "$log" >/dev/null 2>&1
	rc=$?
	case $name in
	*.splat) want=1 ;;
	*) want=0 ;;
	esac
	if [ $rc = $want ]; then
		echo "ok $n splat-check $name"
	else
		echo "not ok $n splat-check $name (exit $rc, want $want)"
		fail=$((fail + 1))
	fi
done
for log in "${kcsan[@]}"; do
	n=$((n + 1))
	name=$(basename "$log" .log)
	SFRAME_SPLAT_KCSAN=ours "$check" "$log" >/dev/null 2>&1
	rc=$?
	case $name in
	kcsan-ours.*) want=1 ;;
	*) want=0 ;;
	esac
	if [ $rc = $want ]; then
		echo "ok $n splat-check SFRAME_SPLAT_KCSAN=ours $name"
	else
		echo "not ok $n splat-check SFRAME_SPLAT_KCSAN=ours $name (exit $rc, want $want)"
		fail=$((fail + 1))
	fi
done
exit $((fail > 0))
