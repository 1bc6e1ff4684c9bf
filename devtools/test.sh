#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test.sh [LEVEL...]: run the test levels (default: all that exist), print a
# table and end with the line "N passed, N failed". Exit non-zero on any
# failure. Levels:
#   machinery   tests of the tooling itself (splat detector, tree.sh)
#   harness     the userspace SFrame harness (tools/testing/sframe): unit
#               tests, fuzz smoke, differential test against libsframe
#   sframe-gen  sframe-gen's sections against libdw's CFI, libsframe and the
#               reader at every address of libc, libstdc++, libm, ld.so
#               (x86_64, aarch64), libc and ld.so (s390x), zstd; the
#               LD_AUDIT module natively
#   kunit       KUnit on UML (only when named, or SFRAME_CROSS=1: the
#               same suites boot in the vm, vm-arm64 and vm-s390x kernels)
#   kunit-arm64, kunit-s390, kunit-x86   KUnit under QEMU (only when named,
#               or SFRAME_CROSS=1; kunit-x86 adds the unwinder's own cases)
#   vm          the debug VM kernel: machinery checks and kselftests
#   vm-arm64    the arm64 debug kernel in the arm64 VM: booted KUnit, perf
#               on the deep program, perf's own test, kselftests
#   vm-s390x    the s390x debug kernel in the s390x VM: booted KUnit, perf
#               on the deep program
# Logs go to build/test/LEVEL.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
need_root "the tests (they run in the toolchain root)"

logs=$REPO/build/test
mkdir -p "$logs"
declare -a rows
total_pass=0 total_fail=0

# count_tap LOG: "PASS FAIL" from TAP lines (nested KTAP lines included
# only at the top level of each producer).
count_tap() {
	local p f
	p=$(grep -cE '^ok [0-9]+' "$1")
	f=$(grep -cE '^not ok [0-9]+' "$1")
	echo "$p $f"
}

# progress START GUEST: the progress lines ("==> ...") of standard input,
# each after the seconds since START, on standard error; everything to
# the log. The time of the first VM boot (vm.sh's "VM: ..." line) goes
# to the file GUEST: what came before it is building, the rest the guest.
progress() {
	local line
	while IFS= read -r line; do
		case $line in
		"==> VM: "*) [ -s "$2" ] || date +%s >"$2" ;;&
		"==> "*) printf '    %5ss  %s\n' "$(($(date +%s) - $1))" "${line#==> }" >&2 ;;
		esac
	done
}

run_level() {
	local level=$1 fn=$2 log=$logs/$1.log start end rc p f guest build=- gtime=-
	start=$(date +%s)
	guest=$logs/$level.guest-start
	rm -f "$guest"
	msg "test level: $level"
	"$fn" 2>&1 | tee "$log" | progress "$start" "$guest"
	rc=${PIPESTATUS[0]}
	end=$(date +%s)
	if [ -s "$guest" ]; then
		build=$(($(cat "$guest") - start))s
		gtime=$((end - $(cat "$guest")))s
	fi
	rm -f "$guest"
	read -r p f < <("count_$level" "$log")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		# The level failed outside any test case (build error...).
		f=1
		echo "not ok - $level: exited with status $rc" >>"$log"
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	rows+=("$(printf '%-12s %7d %7d %7ss %7s %7s   %s' "$level" "$p" "$f" "$((end - start))" \
		"$build" "$gtime" \
		"$(if [ "$f" != 0 ]; then echo "FAILED: build/test/$level.log"
		elif grep -q '^# cached: ' "$log"; then echo "ok (cached: inputs unchanged since it passed; SFRAME_RETEST=1 reruns)"
		else echo ok; fi)")")
	if [ "$f" != 0 ]; then
		failures "$log" >&2
	fi
}

# failures LOG: the failed cases of LOG, each after the diagnostics that
# its producer printed just before it (kselftest's TH_LOG lines, say; at
# most 15), and the errors outside test cases: 60 lines at most, so that
# a CI log that keeps only the end still shows why.
failures() {
	awk '/^#/ { d[n++ % 15] = $0; next }
	     /^not ok/ { for (i = (n > 15 ? n - 15 : 0); i < n; i++) print d[i % 15]
			 print; n = 0; next }
	     /^ok / { n = 0; next }
	     /ERROR|error:/ { print }' "$1" | head -60
}

# --- machinery ---
level_machinery() {
	local rc=0
	in_root "$REPO/devtools/tests/splat-test.sh" || rc=1
	"$REPO/devtools/tests/tree-test.sh" || rc=1
	in_root "$REPO/devtools/tests/chains-test.sh" || rc=1
	# The driver itself: make warns about a target defined twice, and
	# every target that 'make help' lists must exist (with a CMD, which
	# make vm requires before anything else)
	local warn missing t out
	warn=$(make -C "$REPO" -n help 2>&1 >/dev/null | grep -i warning)
	missing=$(for t in $(make -C "$REPO" -s help | sed -nE 's/^make ([a-z0-9-]+).*/\1/p'); do
		make -C "$REPO" -n -q "$t" CMD=true >/dev/null 2>&1; [ $? = 2 ] && echo "$t"; done)
	if [ -z "$warn$missing" ]; then
		echo "ok 1000 Makefile: every target of 'make help' exists once"
	else
		echo "not ok 1000 Makefile: $warn ${missing:+missing: $missing}"; rc=1
	fi
	"$REPO/devtools/tests/driver-test.sh" || rc=1
	# sframe-store's systemd unit: the one its man page shows, and valid
	# without a warning (the program's path replaced by one that exists
	# in the root)
	local unit=$REPO/tools/sframe/sframe-store.service
	if ! out=$(diff <(sed -n '/^\[Unit\]/,$p' "$unit") \
		<(sed -n '/^\[Unit\]/,/^WantedBy/p' "$REPO/tools/sframe/Documentation/sframe-store.8" |
		  sed 's/\\-/-/g') 2>&1); then
		echo "not ok 1002 sframe-store.service: not the unit of sframe-store(8): $out"; rc=1
	elif ! out=$(sed 's|^ExecStart=/usr/local/sbin/sframe-store|ExecStart=/bin/true|' "$unit" \
		>"$REPO/build/sframe-store-verify.service" &&
		in_root systemd-analyze verify --man=no "$REPO/build/sframe-store-verify.service" 2>&1) ||
	     [ -n "$out" ]; then
		echo "not ok 1002 sframe-store.service: systemd-analyze verify: $out"; rc=1
	else
		echo "ok 1002 sframe-store.service: the unit of sframe-store(8), and systemd-analyze verify passes"
	fi
	# README's results are make bench's, not copies
	if out=$(python3 "$REPO/devtools/results.py" --check "$REPO/docs/results" \
		"$REPO/README.md" 2>&1); then
		echo "ok 1001 README: the results table is what make results makes of docs/results/"
	else
		echo "not ok 1001 README: $out"; rc=1
	fi
	return $rc
}
count_machinery() { count_tap "$1"; }

# --- harness ---
# The unit tests (TAP), the fuzz smoke test (TAP) and the differential test
# against libsframe over the whole corpus, one TAP line per file. The unit
# tests include unwind_test, which compiles kernel/unwind/user.c, an
# upstream file the series patches, from build/linux: brought up to date
# first.
level_harness() {
	local rc=0 key
	key=$(source_key)
	cached_result harness "$key" && return 0
	"$REPO/devtools/tree.sh" apply || rc=1
	in_root make -j"$(nproc)" -C "$REPO/tools/testing/sframe" run KSRC="$REPO/build/linux" || rc=1
	"$REPO/devtools/fuzz.sh" --smoke || rc=1
	"$REPO/devtools/sframe-diff.sh" --tap || rc=1
	[ $rc = 0 ] && save_result harness "$key"
	return $rc
}
count_harness() { count_tap "$1"; }

# --- sframe-gen ---
level_sframe-gen() {
	local key
	key=$(source_key)
	cached_result sframe-gen "$key" && return 0
	"$REPO/devtools/sframe-gen-check.sh" --tap || return 1
	save_result sframe-gen "$key"
}
count_sframe-gen() { count_tap "$1"; }

# --- kunit ---
kunit() {
	local arch=$1 dir
	dir=$(kbuild_dir "kunit-$arch")
	"$REPO/devtools/tree.sh" apply || return 1
	local args=(--kunitconfig "$REPO/build/linux/kernel/unwind/.kunitconfig"
		--build_dir "$dir" --jobs "$(nproc)")
	case $arch in
	um)    args+=(--make_options "CC=ccache gcc") ;;
	arm64) args+=(--arch arm64 --cross_compile aarch64-linux-gnu-
		--make_options "CC=ccache aarch64-linux-gnu-gcc") ;;
	s390)  args+=(--arch s390 --cross_compile s390x-linux-gnu-
		--make_options "CC=ccache s390x-linux-gnu-gcc") ;;
	# the unwinder's own cases too (UML has no CONFIG_UNWIND_USER_SFRAME)
	x86_64) args+=(--arch x86_64 --make_options "CC=ccache gcc"
		--kconfig_add CONFIG_UNWIND_USER_SFRAME=y) ;;
	esac
	local qarch=$arch
	[ "$arch" != um ] || qarch=$(uname -m)
	in_root sh -c '[ "$1" = 0 ] || mount --bind /dev/null /dev/kvm || exit
		cd "$0" && shift && exec ./tools/testing/kunit/kunit.py run "$@"' \
		"$REPO/build/linux" "$(kunit_hide_kvm "$qarch")" "${args[@]}"
}
level_kunit() { kunit um; }
level_kunit-arm64() { kunit arm64; }
level_kunit-s390() { kunit s390; }
level_kunit-x86() { kunit x86_64; }
count_kunit() {
	local line p f
	line=$(grep -aE 'Testing complete\. Ran [0-9]+ tests' "$1" | tail -1)
	p=$(echo "$line" | sed -nE 's/.*passed: ([0-9]+).*/\1/p')
	f=$(echo "$line" | sed -nE 's/.*failed: ([0-9]+).*/\1/p')
	echo "${p:-0} ${f:-0}"
}
count_kunit-arm64() { count_kunit "$1"; }
count_kunit-s390() { count_kunit "$1"; }
count_kunit-x86() { count_kunit "$1"; }

# --- vm ---
# The debug VM runs what needs the patched kernel (vm-tests.sh); the
# results are checked on the host (vm-check.sh), where execs are cheap.
level_vm() {
	"$REPO/devtools/selftests.sh" || return 1
	# perf from the patched tree, and Debian's zstd with its input for
	# the agreement check with perf's DWARF unwinding
	"$REPO/devtools/perf.sh" >/dev/null || return 1
	agree_zstd || return 1
	# sframe-gen's tools (build/sframe) and libc_walk, for the chains
	# through libc
	"$REPO/devtools/libc-walk/build.sh" "$REPO/build/libc-walk" >&2 || return 1
	# sframe-profile, for the BPF clients' end-to-end checks
	"$REPO/devtools/bpf/build.sh" || return 1
	local kernel
	kernel=$("$REPO/devtools/kbuild.sh" debug) || return 1
	in_background prebuild build_cross
	vm_level vm "$(vm_key "$kernel")" "$REPO/devtools/tests/vm-check.sh" \
		"$REPO/devtools/tests/vm-tests.sh"
}

# The cross levels' kernels and perf (build_cross), and their guest roots
# (make_roots), are made in the background while earlier levels run:
# test.sh makes the roots after the trixie root, the vm level builds the
# kernels and perf once its own kernel is built, with SCHED_IDLE, so that
# they take only the CPU time the x86_64 guest leaves (a cold build of
# the two is about 14 minutes of both cores). build/linux is as the
# x86_64 build left it (SFRAME_DIRTY=1: no second tree.sh apply beside
# vm.sh's). A cross level waits for both jobs (their locks in
# build/test/; a level runs in a subshell), then makes its root and
# builds as always: a failure in the background shows there.
cross_archs() {
	local a
	for a in arm64 s390x; do
		case " ${levels[*]} " in *" vm-$a "*) echo "$a" ;; esac
	done
}
make_roots() {
	local a
	for a in "$@"; do
		"$REPO/devtools/root.sh" "$a" &
	done
	wait
}
build_cross() {
	local a
	for a in "$@"; do
		SFRAME_ARCH=$a SFRAME_DIRTY=1 chrt --idle 0 \
			"$REPO/devtools/kbuild.sh" debug || true
		SFRAME_ARCH=$a SFRAME_DIRTY=1 chrt --idle 0 \
			"$REPO/devtools/perf.sh" || true
	done
}

# in_background NAME FUNC: FUNC with the cross architectures of this run
# as its arguments, if there are any, in the background, its output in
# build/test/NAME.log; it holds a lock on build/test/NAME.lock until it
# ends
in_background() {
	local archs
	archs=$(cross_archs)
	[ -n "$archs" ] || return 0
	exec 9>"$logs/$1.lock"
	flock 9
	# shellcheck disable=SC2086 # the architectures, one word each
	"$2" $archs >"$logs/$1.log" 2>&1 &
	exec 9>&-
}
count_vm() { count_tap "$1"; }

# Like 'go test', a level that passed is not run again with the same
# inputs (KEY): its saved result is printed, marked cached. SFRAME_RETEST=1
# runs it anyway. Failures are never saved.
results=$SFRAME_CACHE/work/test-results

# cached_result LEVEL KEY: print LEVEL's saved result for KEY, if any
cached_result() {
	[ -n "$2" ] && [ -z "${SFRAME_RETEST:-}" ] && [ -f "$results/$1-$2.log" ] || return 1
	echo "# cached: $(head -n1 "$results/$1-$2.log")"
	tail -n +2 "$results/$1-$2.log"
}

# save_result LEVEL KEY: save what LEVEL printed so far as its result
save_result() {
	[ -n "$2" ] || return 0
	mkdir -p "$results"
	{ echo "the $1 level passed on $(date -u '+%F %T UTC') with the same inputs (key $2)"
	  cat "$logs/$1.log"; } >"$results/$1-$2.tmp" &&
		mv "$results/$1-$2.tmp" "$results/$1-$2.log"
}

# source_key: what the harness and sframe-gen levels read: the
# repository's files (tracked, changed, untracked), and the packages
# installed in the roots (the compilers, libsframe, libdw, the libraries
# sframe-gen is checked on). The corpus and build/linux derive from these.
# Empty (nothing cached) outside a git checkout.
source_key() {
	git -C "$REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
	(
		cd "$REPO" || exit 1
		git ls-files -s
		git diff HEAD
		git ls-files -o --exclude-standard -z | xargs -0 -r sha256sum
		cat "$SID_ROOT/var/lib/dpkg/status" "$TRIXIE_ROOT/var/lib/dpkg/status"
	) | sha256sum | cut -c1-16
}

# vm_level LEVEL KEY CHECK GUEST: one boot of the VM (SFRAME_ARCH's) that
# runs GUEST, then CHECK on the host, which turns what GUEST left in
# build/vm/ into TAP; two more lines for the splat check and the runner's
# exit status. A level that passed is not run again with the same KEY
# (like 'go test'): its result is shown as cached; SFRAME_RETEST=1 runs
# it anyway.
vm_level() {
	local level=$1 key=$2 check=$3 guest=$4 vmrc rc=0
	cached_result "$level" "$key" && return 0
	# One boot. The command exits 7 after the tests, whose results
	# CHECK reads from build/vm/: the runner must return exactly that
	# status, and 99 if the kernel logged a splat.
	SFRAME_VM_QUIET=1 "$REPO/devtools/vm.sh" "$guest; exit 7"
	vmrc=$?
	# CHECK: a command and its arguments (no spaces in the paths)
	read -ra check <<<"$check"
	"${check[@]}" || rc=1
	if [ "$vmrc" = 99 ]; then
		echo "not ok 1000 kernel splat during the $level level (build/vm/console.log)"
	else
		echo "ok 1000 no kernel splat in the console log, dmesg or kmemleak report"
	fi
	if [ "$vmrc" = 7 ]; then
		echo "ok 1001 vm runner: returns the command's exit status (7)"
	else
		echo "not ok 1001 vm runner: returned $vmrc, not the command's exit status (7)"
	fi
	[ "$vmrc" = 7 ] || rc=1
	[ $rc = 0 ] && save_result "$level" "$key"
	return $rc
}

# --- vm-arm64, vm-s390x ---
# The debug kernel of another architecture in its VM (TCG): booted KUnit,
# Debian's perf on the deep program (devtools/tests/deep/build.sh), and on
# arm64 also perf cross-built from the patched tree (its record_sframe.sh
# test), the deep program built pac-ret and pac-ret+b-key, and the sframe
# kselftests cross-built (selftests.sh with SFRAME_ARCH=arm64). One
# function for both: the arm64-only steps are the cases below and in
# vm-cross-check.sh.
cross_level() {
	local arch=$1 kernel out=$REPO/build/$1
	flock "$logs/roots.lock" true
	flock "$logs/prebuild.lock" true
	export SFRAME_ARCH=$arch
	mkdir -p "$out"
	"$REPO/devtools/root.sh" "$arch" || return 1
	kernel=$("$REPO/devtools/kbuild.sh" debug) || return 1
	"$REPO/devtools/perf.sh" >/dev/null || return 1
	"$REPO/devtools/tests/deep/build.sh" "$arch" "$out" >"$out/deep-build.tap" || return 1
	"$REPO/devtools/libc-walk/build.sh" --arch "$arch" "$out" >&2 || return 1
	"$REPO/devtools/selftests.sh" || return 1
	vm_level "vm-$arch" "$(cross_key "$arch" "$kernel")" \
		"$REPO/devtools/tests/vm-cross-check.sh $arch" \
		"$REPO/devtools/tests/vm-tests-cross.sh $arch"
}
level_vm-arm64() { cross_level arm64; }
count_vm-arm64() { count_tap "$1"; }
level_vm-s390x() { cross_level s390x; }
count_vm-s390x() { count_tap "$1"; }

# cross_key ARCH KERNEL: what the level of ARCH's VM depends on.
cross_key() {
	(
		cd "$REPO" || exit 1
		sha256sum "$2" devtools/*.sh devtools/tests/*.sh devtools/tests/deep/* \
			devtools/libc-walk/* devtools/configs/* \
			"$(guest_root "$1")/var/lib/dpkg/status"
		find "build/$1" "build/perf-$1" "build/selftests-$1" \
			build/linux/tools/perf/tests/shell/record_sframe.sh \
			-type f -print0 2>/dev/null | sort -z | xargs -0 -r sha256sum
	) | sha256sum | cut -c1-16
}

# vm_key KERNEL: a hash of everything the vm level's result depends on:
# the kernel image, perf, the kselftests, the agreement's program and
# input, sframe-gen's tools and libc_walk, the scripts that run and check
# them, the kernel configuration
# fragments and the packages of the sid root (the guest's userspace).
# Like 'go test', a level that passed is not run again with the same
# inputs: its result is shown as cached. SFRAME_RETEST=1 runs it anyway.
vm_key() {
	(
		cd "$REPO" || exit 1
		sha256sum "$1" build/perf/perf build/agree/zstd build/agree/input \
			build/linux/tools/perf/tests/shell/record_sframe.sh \
			devtools/*.sh devtools/tests/*.sh devtools/libc-walk/* \
			devtools/configs/* build/sframe/sframe-gen \
			build/sframe/sframe-audit.so build/sframe/sframe-run build/sframe/sframe-store \
			build/libc-walk/libc_walk build/libc-walk/libc_walk_static \
			devtools/bpf/* build/bpf/sframe-profile \
			"$SFRAME_CACHE/sid-root/var/lib/dpkg/status"
		find build/selftests -type f -print0 | sort -z | xargs -0 sha256sum
	) | sha256sum | cut -c1-16
}

levels=("$@")
if [ ${#levels[@]} = 0 ]; then
	levels=(machinery)
	[ -f "$REPO/tools/testing/sframe/Makefile" ] && levels+=(harness)
	[ -f "$REPO/tools/sframe/Makefile" ] && levels+=(sframe-gen)
	# KUnit boots in the x86_64 (KASAN) and arm64 VM kernels: UML KUnit
	# (make kunit) is no longer worth its cold build in every run
	[ -n "${SFRAME_CROSS:-}" ] && levels+=(kunit kunit-arm64 kunit-s390 kunit-x86)
	levels+=(vm vm-arm64 vm-s390x)
fi

# Every name first: a typo must not wait for the levels before it
for l in "${levels[@]}"; do
	declare -F "level_$l" >/dev/null ||
		die "unknown test level '$l' (levels: $(declare -F | sed -n 's/^declare -f level_//p' | tr '\n' ' '))"
done
"$REPO/devtools/root.sh" sid || exit 1
# The V2 corpus and libsframe 2.44 (harness, sframe-gen) are the trixie
# root's, whose packages are part of those levels' key
case " ${levels[*]} " in
*" harness "*|*" sframe-gen "*) "$REPO/devtools/root.sh" trixie || exit 1 ;;
esac
in_background roots make_roots
for l in "${levels[@]}"; do
	run_level "$l" "level_$l"
done

printf '\n%-12s %7s %7s %8s %7s %7s   %s\n' level passed failed time build guest result
printf '%s\n' "${rows[@]}"
echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
