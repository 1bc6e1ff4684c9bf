#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-cross-check.sh ARCH: on the host, after devtools/tests/vm-tests-cross.sh
# ran in the VM of ARCH (arm64, s390x), turn what it left in build/vm/
# into TAP:
#   - the booted kernel is the patched 7.2 with the feature's and the
#     ARCH debug flavour's options, and its KUnit cases passed at boot;
#   - Debian's perf, --call-graph fp,defer and fp, on each build of the
#     deep program: exact user chains;
#   - the kselftests' own TAP (PIE, non-PIE, static, discovery; on arm64
#     also pac-ret and pac-ret+b-key);
#   - perf cross-built from the patched tree passes its shell test of
#     --call-graph sframe (record_sframe.sh);
#   - libc_walk through the kernel's store (sframe-store add --running,
#     Debian's perf -a, deferred and in the event): libc from the store,
#     exact chains through qsort();
# and on arm64:
#   - the deep program's builds sign return addresses as asked
#     (build/arm64/deep-build.tap, from devtools/tests/deep/build.sh);
#   - the AArch32 kselftests ran rather than skipped;
# and on s390x, that the kselftest of a return address kept in an FPR ran.
# Exits non-zero if any line is "not ok".
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
arch=${1:?usage: vm-cross-check.sh ARCH}
out=$REPO/build/vm
. "$REPO/devtools/tests/vm-lib.sh"

check_boot "$out" "$REPO/devtools/configs/feature.config" \
	"$REPO/devtools/configs/$arch-debug.config"

# retap FILE WHAT: FILE's TAP lines renumbered, its comments kept
retap() {
	local line
	if ! [ -s "$1" ]; then
		tap FAIL "$2: no results ($1)"
		return
	fi
	while IFS= read -r line; do
		case $line in
		"ok "*) tap OK "$(cut -d' ' -f3- <<<"$line")" ;;
		"not ok "*) tap FAIL "$(cut -d' ' -f4- <<<"$line")" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$1"
}
log=$out/perf-test.log
if ! [ -f "$log" ]; then
	tap FAIL "perf's shell test did not run (no build/perf-$arch/perf?)"
elif grep -q 'perf record --call-graph sframe *: Ok' "$log"; then
	tap OK "perf test (perf cross-built from the patched tree): perf record --call-graph sframe ($(grep -m1 'samples in sframe_leaf' "$log"))"
else
	tap FAIL "perf test (perf cross-built from the patched tree): perf record --call-graph sframe (build/vm/perf-test.log)"
fi
if [ "$arch" = arm64 ]; then
	retap "$REPO/build/arm64/deep-build.tap" "the deep program's builds"
fi
retap "$out/deep.tap" "perf on the deep program"

# libc_walk through the store
# (s390x: samples in the event while the scheduler switches the task in
# have no readable user stack, docs/s390.md)
check_store_run "libc_walk through the store (sframe-store add --running), Debian's perf -a" \
	"$([ "$arch" = s390x ] && echo --switch-in)"

# The kselftests
if ! [ -s "$out/kselftests.tap" ]; then
	tap FAIL "no kselftest output"
else
	cat "$out/kselftests.tap"
	grep -qE '^not ok ' "$out/kselftests.tap" && fail=$((fail + 1))
fi
if [ "$arch" = arm64 ] && [ -s "$out/kselftests.tap" ]; then
	# AArch32 tasks are really run (the root has arm-linux-gnueabihf-gcc,
	# the kernel CONFIG_COMPAT, QEMU's CPU AArch32 at EL0): not skipped
	for t in compat_prctl compat_samples; do
		if grep -qE "^ok [0-9]+ global\.$t\$" "$out/kselftests.tap"; then
			tap OK "AArch32: $t ran and passed (not skipped)"
		else
			tap FAIL "AArch32: $t did not run and pass: $(grep -m1 "global\.$t" "$out/kselftests.tap")"
		fi
	done
fi
if [ "$arch" = s390x ] && [ -s "$out/kselftests.tap" ]; then
	# The return address in an FPR is s390x's case: run, not skipped
	if [ "$(grep -cE '^ok [0-9]+ global\.leaf_ra_in_fpr$' "$out/kselftests.tap")" = 3 ]; then
		tap OK "s390x: leaf_ra_in_fpr ran and passed in the three builds (not skipped)"
	else
		tap FAIL "s390x: leaf_ra_in_fpr did not run and pass in the three builds"
	fi
fi
[ "$fail" = 0 ]
