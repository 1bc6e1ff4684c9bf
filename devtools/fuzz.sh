#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz the SFrame reader with libFuzzer (tools/testing/sframe/fuzz):
#
#   fuzz.sh [SECONDS]    fuzz for SECONDS (default 60), print executions,
#                        coverage and findings; the working corpus is kept
#                        in $SFRAME_CACHE/work/fuzz/corpus, crashes go to
#                        $SFRAME_CACHE/work/fuzz/artifacts
#   fuzz.sh --smoke      for `make test` (about 25 s): run the committed
#                        regression corpus once, then fuzz 20 s from the
#                        seeds; TAP lines
#
# Built with clang (-fsanitize=fuzzer,address,undefined
# -fno-sanitize-recover=all) in the sid root.  Every input runs with a
# 1 s timeout and a 2 GiB RSS limit.  Seeds: sections made by the test
# builder (sframe_seeds) and, when the corpus of build-corpus.sh exists,
# the .sframe sections of a few of its little-endian binaries.
# Exit status non-zero on any finding.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

T=$REPO/tools/testing/sframe
F=$SFRAME_CACHE/work/fuzz
B=$SFRAME_CACHE/work/sframe-build/fuzz
REGRESS=$T/fuzz/corpus
OPTS="-timeout=1 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1"

# seeds DIR: write the seed corpus into DIR
seeds() {
	local c=$SFRAME_CACHE/work/corpus elf=() f
	rm -rf "$1"
	mkdir -p "$1"
	for f in "$c"/v3-x86_64-o2-{special,drap,plt,big} "$c"/v3-aarch64-pacb-cxx \
		 "$c"/v2-x86_64-o2-{special,drap} "$c"/v2-aarch64-pac-cxx; do
		[ -f "$f" ] && elf+=("$f")
	done
	"$B/sframe_seeds" "$1" "${elf[@]}" >/dev/null
}

# stats LOG: "E execs, cov C, ft X" from libFuzzer's output
stats() {
	local execs cov ft
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -1)
	cov=$(grep -oE 'cov: [0-9]+' "$1" | tail -1 | cut -d' ' -f2)
	ft=$(grep -oE 'ft: [0-9]+' "$1" | tail -1 | cut -d' ' -f2)
	echo "${execs:-0} execs, cov ${cov:-0}, ft ${ft:-0}"
}

inner() {
	local mode=$1 secs=${2:-60} n=0 rc=0 log k
	make -s -C "$T" B="$B" fuzz || { echo "not ok 1 fuzz: build failed"; return 1; }
	mkdir -p "$F/artifacts"
	log=$(mktemp)
	if [ "$mode" = smoke ]; then
		k=$(find "$REGRESS" -type f | wc -l)
		n=$((n + 1))
		# shellcheck disable=SC2086
		if "$B/sframe_fuzz" $OPTS -runs=0 -artifact_prefix="$F/artifacts/" \
			"$REGRESS" >"$log" 2>&1; then
			echo "ok $n fuzz regression corpus ($k inputs)"
		else
			echo "not ok $n fuzz regression corpus ($k inputs)"
			grep -E 'INVARIANT|ERROR|SUMMARY' "$log" | head -5 | sed 's/^/# /'
			rc=1
		fi
		local work
		work=$(mktemp -d)
		seeds "$work/seeds"
		mkdir -p "$work/corpus"
		n=$((n + 1))
		# shellcheck disable=SC2086
		if "$B/sframe_fuzz" $OPTS -max_total_time=20 \
			-artifact_prefix="$F/artifacts/" "$work/corpus" \
			"$work/seeds" "$REGRESS" >"$log" 2>&1; then
			echo "ok $n fuzz smoke 20 s: $(stats "$log")"
		else
			echo "not ok $n fuzz smoke 20 s: $(stats "$log")"
			grep -E 'INVARIANT|ERROR|SUMMARY|Test unit written' "$log" | head -5 | sed 's/^/# /'
			rc=1
		fi
		rm -rf "$work"
	else
		seeds "$F/seeds"
		mkdir -p "$F/corpus"
		echo "fuzzing for $secs s; corpus $F/corpus"
		# shellcheck disable=SC2086
		"$B/sframe_fuzz" $OPTS -max_total_time="$secs" \
			-artifact_prefix="$F/artifacts/" "$F/corpus" "$F/seeds" \
			"$REGRESS" >"$log" 2>&1 || rc=1
		grep -E '^#[0-9]+ +(INITED|DONE)|INVARIANT|ERROR|SUMMARY|Test unit written' "$log" | tail -8
		echo "corpus: $(find "$F/corpus" -type f | wc -l) inputs"
		echo "result: $(stats "$log"), $([ $rc = 0 ] && echo "no findings" || echo "FINDINGS in $F/artifacts")"
	fi
	rm -f "$log"
	return $rc
}

inner_dispatch "$@"

need_root "fuzzing (it builds and runs in the sid root)"
"$REPO/devtools/root.sh" sid || exit 1
if [ "${1:-}" = --smoke ]; then
	in_root_inner smoke
else
	secs=${1:-60}
	case $secs in *[!0-9]*|"") die "usage: fuzz.sh [SECONDS] | --smoke" ;; esac
	in_root_inner run "$secs"
fi
