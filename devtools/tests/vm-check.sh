#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-check.sh: on the host, after devtools/tests/vm-tests.sh ran in the
# debug VM, turn what it left in build/vm/ into TAP:
#   - the booted kernel is the patched 7.2 and has the feature's options;
#   - one line per KUnit case that ran at boot (sframe, sframe_registry),
#     from the KTAP in the console log;
#   - perf's shell test of --call-graph sframe;
#   - the SFrame/DWARF agreement on Debian's zstd, run with sframe-run,
#     faults inside libc included (the comparison runs here, natively,
#     in the sid root that was the guest's root);
#   - libc_walk: samples inside qsort() and its callback carry the exact
#     chain with sframe-run (Debian's perf, fp,defer), libc registered
#     through prctl() (/proc/self/sframe);
#   - BPF clients on a deep no-frame-pointer program (sframe-profile
#     deferred and in the event, of a command, its child, -a and -p;
#     bpftrace, profile-libbpf): exact chains; SIGINT stops
#     sframe-profile, which prints its samples;
#     sframe-profile's errors, here on the host (devtools/bpf/errors.sh),
#     and its symbols against libdwfl's lookup (usym-check);
#   - the kselftests' own TAP;
#   - the 60-second soak (devtools/stress.sh check: its summary as
#     comments, its checks as TAP lines).
# Exits non-zero if any line is "not ok".
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
out=$REPO/build/vm
. "$REPO/devtools/tests/vm-lib.sh"

check_boot "$out" "$REPO/devtools/configs/feature.config" \
	"$REPO/devtools/configs/debug.config"

if ! [ -f "$out/perf-test.log" ]; then
	tap FAIL "perf's shell test did not run (no build/perf/perf?)"
else
	log=$out/perf-test.log
	if grep -q 'perf record --call-graph sframe *: Ok' "$log"; then
		tap OK "perf test: perf record --call-graph sframe ($(grep -m1 'samples in sframe_leaf' "$log"); $(cat "$out/perf-test.time") in the VM)"
	else
		tap FAIL "perf test: perf record --call-graph sframe (build/vm/perf-test.log)"
	fi
	desc="SFrame vs DWARF (libdw) chains on Debian's zstd"
	if ! [ -s "$out/agree.data" ]; then
		tap FAIL "$desc: recording failed (build/vm/agree-record.log)"
	elif "$REPO/devtools/chroot.sh" "$REPO/devtools/tests/agree.sh" analyze \
		"$REPO/build/perf/perf" "$out/agree.data" "$REPO/build/agree/zstd" \
		--libs >"$out/agree.log" 2>&1; then
		tap OK "$desc: $(tail -n1 "$out/agree.log") (recorded in $(cat "$out/agree.time"))"
	else
		tap FAIL "$desc: $(tail -n1 "$out/agree.log") (build/vm/agree.log)"
	fi
	echo "# $(tail -n2 "$out/agree.log" | head -n1)"
	# faults inside libraries were compared, and agreed
	lib=$(sed -nE 's/.*in a library: [0-9]+ \(compared: ([0-9]+), agree: ([0-9]+)\).*/\1 \2/p' "$out/agree.log")
	read -r lc la <<<"${lib:-0 0}"
	if [ "$lc" -ge 100 ] && [ $((la * 100)) -ge $((lc * 99)) ]; then
		tap OK "$desc: faults inside libc, under sframe-run: $la of $lc agree"
	else
		tap FAIL "$desc: faults inside libc, under sframe-run: $la of $lc agree (build/vm/agree.log)"
	fi
fi

# libc_walk: qsort() calling back into the program, memcpy(), getppid()
desc="libc_walk under sframe-run, Debian's perf fp,defer"
if ! [ -s "$out/libc-walk-run.script" ]; then
	tap FAIL "$desc: no recording (build/vm/libc-walk.log)"
else
	if grep -qE ' ok +prctl .*/libc\.so\.6$' "$out/libc-walk-proc.txt"; then
		tap OK "$desc: libc registered with prctl() ($(grep -cE ' prctl ' "$out/libc-walk-proc.txt") objects in /proc/self/sframe)"
	else
		tap FAIL "$desc: libc not registered (build/vm/libc-walk-proc.txt)"
	fi
	if "$REPO/devtools/libc-walk/check.sh" "$out/libc-walk-run.script" >"$out/libc-walk-check.log" 2>&1; then
		tap OK "$desc: $(tail -n1 "$out/libc-walk-check.log") (in $(cat "$out/libc-walk.time"))"
	else
		tap FAIL "$desc: $(tail -n1 "$out/libc-walk-check.log") (build/vm/libc-walk-check.log)"
	fi
	echo "# with sframe-run: $(tail -n3 "$out/libc-walk-check.log" | head -n2 | tr '\n' ' ')"
	"$REPO/devtools/libc-walk/check.sh" "$out/libc-walk-plain.script" >"$out/libc-walk-plain.log" 2>&1
	echo "# without sframe-run: $(tail -n3 "$out/libc-walk-plain.log" | head -n1)"
	echo "# start-up (guest ms, TCG): $(tr '\n' ' ' <"$out/libc-walk-start.txt")"
fi
# libc_walk without sframe-run: libc from the store, started before it
# was filled, perf -a, deferred and in the event; sframe-profile -p
if check_store_run "libc_walk through the store (sframe-store add --running), Debian's perf -a"; then
	check_store store-profile.txt script "sframe-profile -p (deferred)"
	# Debian's bpftrace in the BPF track, its @walk map: another
	# libc_walk, started while the store held libc (bpf/guest.sh)
	if [ -e "$out/bpf-bpftrace.txt" ]; then
		if grep -qE ' ok +store .*/libc\.so\.6$' "$out/bpf-walk-proc.txt" 2>/dev/null; then
			tap OK "libc_walk through the store, Debian's bpftrace: libc from the store"
		else
			tap FAIL "libc_walk through the store, Debian's bpftrace: libc not from the store (build/vm/bpf-walk-proc.txt, bpf.log)"
		fi
		awk '/^@walk\[/ { on = 1; sub(/^@walk/, "@"); print; next } /^@/ || /^$/ { on = 0 } on' \
			"$out/bpf-bpftrace.txt" >"$out/store-bpftrace.txt"
		check_store store-bpftrace.txt bpftrace "Debian's bpftrace (ustack(perf), in the event)"
	fi
	echo "# sframe-store add --running: $(tail -n2 "$out/store-add.txt" | tr '\n' ' '); the step: $(cat "$out/store.time" 2>/dev/null) in the VM"
fi
# sframe-store watch: the store filled as the kernel finds objects
# without SFrame, for a set-user-ID program run by an unprivileged user
# and a static one, perf -p, deferred and in the event
desc="sframe-store watch"
if ! [ -s "$out/watch.txt" ]; then
	tap FAIL "$desc: did not run (build/vm/store.log)"
else
	if grep -qE 'libc\.so[^:]*: stored' "$out/watch.txt" &&
	   grep -q 'libc_walk_static: stored' "$out/watch.txt" &&
	   grep -qx 'exit status 0' "$out/watch.txt"; then
		tap OK "$desc: libc and the static program stored once the kernel found them without SFrame; exit status 0 at SIGTERM ($(grep -c ': stored' "$out/watch.txt") objects stored)"
	else
		tap FAIL "$desc: libc or the static program not stored, or not exit status 0 (build/vm/watch.txt)"
	fi
	if grep -qE '^Uid:[[:space:]]+65534[[:space:]]+0[[:space:]]' "$out/watch-suid.txt" &&
	   grep -qE ' ok +store .*/libc\.so\.6$' "$out/watch-suid.txt"; then
		tap OK "$desc: set-user-ID libc_walk, real uid 65534 and effective 0: libc from the store"
	else
		tap FAIL "$desc: set-user-ID libc_walk not run as such, or libc not from the store (build/vm/watch-suid.txt)"
	fi
	if grep -qE ' ok +store .*/libc_walk_static$' "$out/watch-static.txt"; then
		tap OK "$desc: static libc_walk without .sframe, from the store"
	else
		tap FAIL "$desc: static libc_walk not served by the store (build/vm/watch-static.txt)"
	fi
	check_store watch-suid-defer.script script "watch, set-user-ID, perf -p, defer"
	check_store watch-suid-event.script script "watch, set-user-ID, perf -p, event"
	check_store watch-static-defer.script static "watch, static, perf -p, defer"
	check_store watch-static-event.script static "watch, static, perf -p, event"
fi
desc="SFrame vs DWARF (libdw) chains on libc_walk --faults under sframe-run"
if ! [ -s "$out/agree-libc.data" ]; then
	tap FAIL "$desc: recording failed (build/vm/agree-libc-record.log)"
elif "$REPO/devtools/chroot.sh" "$REPO/devtools/tests/agree.sh" analyze \
	"$REPO/build/perf/perf" "$out/agree-libc.data" \
	"$REPO/build/libc-walk/libc_walk" --libs >"$out/agree-libc.log" 2>&1; then
	tap OK "$desc: $(tail -n1 "$out/agree-libc.log") (recorded in $(cat "$out/agree-libc.time"))"
	echo "# $(tail -n2 "$out/agree-libc.log" | head -n1)"
else
	tap FAIL "$desc: $(tail -n1 "$out/agree-libc.log") (build/vm/agree-libc.log)"
fi

# BPF clients on sframe_bpf_deep: >= 99 % of the samples in its chain
# have the exact chain to main
echo "# sframe-profile: $(cat "$out/bpf-sframe-profile.time" 2>/dev/null), bpftrace and profile-libbpf: $(cat "$out/bpf.time" 2>/dev/null) in the VM"
echo "# the chains and BPF tracks side by side: $(cat "$out/tracks.time" 2>/dev/null) in the VM"
for c in "deferred script sframe-profile --deferred" \
	 "in-event script sframe-profile --in-event" \
	 "folded folded sframe-profile --deferred --folded" \
	 "all folded sframe-profile --deferred -a -d 5 --folded, a process it did not start" \
	 "all-event folded sframe-profile --in-event -a -d 5 --folded, a process it did not start" \
	 "pid script sframe-profile --in-event -p PID, stopped by SIGINT, of a program in another mount namespace whose path outside holds another file" \
	 "pid-defer script sframe-profile --deferred -p PID, stopped by SIGINT, the same program" \
	 "fork script sframe-profile --in-event -o FILE -- sh -c 'PROG; echo forked-done', a child of the command" \
	 "bpftrace bpftrace bpftrace ustack" \
	 "profile-libbpf folded profile-libbpf (stack map)"; do
	set -- $c
	f=$out/bpf-$1.txt fmt=$2
	shift 2
	if ! [ -s "$f" ]; then
		tap FAIL "bpf: $*: no output (build/vm/bpf.log, bpf-sframe-profile.log)"
	elif r=$("$REPO/devtools/bpf/deep-check.sh" "$fmt" "$f" 2>&1); then
		tap OK "bpf: $*: $(tail -n1 <<<"$r")"
		head -n-1 <<<"$r"
	else
		tap FAIL "bpf: $*: $(tail -n1 <<<"$r") (build/vm/bpf-$1.txt)"
		head -n-1 <<<"$r"
	fi
done
for f in deferred in-event all all-event pid pid-defer fork python; do
	[ -s "$out/bpf-$f.err" ] && sed 's/^/# /' "$out/bpf-$f.err"
done
if grep -qx "exit status 0" "$out/bpf-pid.err" 2>/dev/null &&
	grep -q "stopped by a signal" "$out/bpf-pid.err"; then
	tap OK "bpf: sframe-profile stopped by SIGINT prints its samples and exits 0"
else
	tap FAIL "bpf: sframe-profile stopped by SIGINT: $(tail -n2 "$out/bpf-pid.err" 2>/dev/null | tr '\n' ' ') (build/vm/bpf-pid.err)"
fi
# Only what was asked for is sampled: -p PID one process, the command
# the shell and its child
for c in "pid 1" "pid-defer 1" "fork 2"; do
	set -- $c
	if grep -q " of $2 processes," "$out/bpf-$1.err" 2>/dev/null; then
		tap OK "bpf: sframe-profile, $1: samples of $2 processes"
	else
		tap FAIL "bpf: sframe-profile, $1: not $2 processes: $(grep -o 'of [0-9]* processes' "$out/bpf-$1.err" 2>/dev/null) (build/vm/bpf-$1.err)"
	fi
done
if [ -s "$out/bpf-all.all" ] && [ -s "$out/bpf-all-event.all" ] &&
   ! grep -q '^sframe-profile;' "$out/bpf-all.all" "$out/bpf-all-event.all"; then
	tap OK "bpf: sframe-profile -a leaves itself out"
else
	tap FAIL "bpf: sframe-profile -a: no samples, or samples of itself (build/vm/bpf-all.all, bpf-all-event.all)"
fi
# Kernel threads are sampled with -a, but not asked for a user stack:
# no request fails with EINVAL. (A process that execs while it is
# sampled has requests from before the exec fail with EBUSY: the other
# track of the guest runs programs meanwhile.)
all_failed=$(grep -o '[0-9]* requests failed ([^)]*)' "$out/bpf-all.err" 2>/dev/null)
if [ -n "$all_failed" ] && ! echo "$all_failed" | grep -q 'Invalid argument'; then
	tap OK "bpf: sframe-profile -a --deferred: no request for a kernel thread ($all_failed)"
else
	tap FAIL "bpf: sframe-profile -a --deferred: ${all_failed:-no summary} (build/vm/bpf-all.err)"
fi
if [ -s "$out/bpf-fork.txt" ] && ! grep -q '^forked-done$' "$out/bpf-fork.txt" &&
	grep -qx 'forked-done' "$out/bpf-fork.stdout"; then
	tap OK "bpf: sframe-profile -o FILE: the samples in FILE, the command's output on standard output"
else
	tap FAIL "bpf: sframe-profile -o FILE: the samples and the command's output are mixed up (build/vm/bpf-fork.txt, bpf-fork.stdout)"
fi
# The bound on distinct stacks, when hit, is reported, and holds: at most
# 4 distinct stacks printed, as many samples as were not dropped
bound_total=$(sed -n 's/^sframe-profile: \([0-9]*\) samples (.*/\1/p' "$out/bpf-bound.err" 2>/dev/null)
bound_dropped=$(sed -n 's/^sframe-profile: \([0-9]*\) samples dropped: more than 4 distinct stacks.*/\1/p' "$out/bpf-bound.err" 2>/dev/null)
bound_blocks=$(grep -c '^$' "$out/bpf-bound.txt" 2>/dev/null)
bound_distinct=$(awk 'BEGIN { RS = "" } { gsub(/\n/, " "); print }' "$out/bpf-bound.txt" 2>/dev/null | sort -u | wc -l)
if [ -n "$bound_total" ] && [ -n "$bound_dropped" ] && [ "$bound_dropped" -gt 0 ] &&
   [ "$bound_blocks" -eq $((bound_total - bound_dropped)) ] &&
   [ "$bound_distinct" -ge 1 ] && [ "$bound_distinct" -le 4 ]; then
	tap OK "bpf: sframe-profile --stack-storage-size 4: $bound_distinct stacks, $bound_blocks samples printed, $bound_dropped of $bound_total reported dropped"
else
	tap FAIL "bpf: sframe-profile --stack-storage-size 4: ${bound_distinct:-?} stacks, ${bound_blocks:-?} samples printed, ${bound_dropped:-?} of ${bound_total:-?} dropped (build/vm/bpf-bound.err, bpf-bound.txt)"
fi

# sframe-profile's clear errors, on the host (no root, no BTF, no kfunc)
while IFS= read -r l; do
	case $l in
	"ok "*) tap OK "bpf: sframe-profile error, ${l#ok }" ;;
	*) tap FAIL "bpf: sframe-profile error, ${l#FAIL }" ;;
	esac
done < <("$REPO/devtools/bpf/errors.sh")
# Its flame graph page, drawn by Chromium: the folded run's stacks; and
# one of stacks whose names need escaping, from flamegraph-folded
desc="bpf: sframe-profile --flamegraph, drawn by Chromium"
if r=$("$REPO/devtools/bpf/flamegraph-check.sh" "$out/bpf-folded.txt" "$out/bpf-folded.html" 2>&1); then
	tap OK "$desc: $(tail -n1 <<<"$r") (the folded run)"
else
	tap FAIL "$desc: $(tail -n1 <<<"$r") (build/vm/bpf-folded.html)"
	head -n-1 <<<"$r"
fi
printf '%s\n' 'prog;main;work;leaf 30' 'prog;main;work;rec;leaf 12' \
	'prog;main;operator new(unsigned long) 5' 'prog;main;a<b>&"c\\</script> 1' \
	"prog;main;d'e 2" 'sh;main 2' >"$out/flamegraph-names.folded"
r="flamegraph-folded failed"
if "$REPO/devtools/chroot.sh" -- env SFRAME_PROFILE_ASSETS="$REPO/build/bpf/flamegraph" \
	"$REPO/build/bpf/flamegraph-folded" "names </title> & \"quotes\"" \
	<"$out/flamegraph-names.folded" >"$out/flamegraph-names.html" &&
   r=$("$REPO/devtools/bpf/flamegraph-check.sh" "$out/flamegraph-names.folded" \
	"$out/flamegraph-names.html" 2>&1); then
	tap OK "$desc: names to escape: $(tail -n1 <<<"$r")"
else
	tap FAIL "$desc: names to escape: $(tail -n1 <<<"$r") (build/vm/flamegraph-names.html)"
	head -n-1 <<<"$r"
fi
# Its pprof profile, read by another reader (pprof-format): the folded
# run's stacks; and one of made-up stacks, from pprof-folded (kernel
# frames, UTF-8, an empty comm, an empty frame)
desc="bpf: sframe-profile --pprof, read by pprof-format"
if r=$("$REPO/devtools/bpf/pprof-check.sh" "$out/bpf-folded.txt" "$out/bpf-folded.pb.gz" 1000 2>&1); then
	tap OK "$desc: $(tail -n1 <<<"$r") (the folded run)"
else
	tap FAIL "$desc: $(tail -n1 <<<"$r") (build/vm/bpf-folded.pb.gz)"
	head -n-1 <<<"$r"
fi
r="pprof-folded failed"
{ cat "$out/flamegraph-names.folded"
  printf '%s\n' 'prog;main;schedule_[k];__schedule_[k] 3' 'prog;main;a:b 1' \
	'prog;main;naïve 2' ';main;f 4' 'prog;;empty 1'
} >"$out/pprof-names.folded"
if "$REPO/devtools/chroot.sh" -- "$REPO/build/bpf/pprof-folded" 99 \
	<"$out/pprof-names.folded" >"$out/pprof-names.pb.gz" &&
   r=$("$REPO/devtools/bpf/pprof-check.sh" "$out/pprof-names.folded" \
	"$out/pprof-names.pb.gz" 99 2>&1); then
	tap OK "$desc: names to escape: $(tail -n1 <<<"$r")"
else
	tap FAIL "$desc: names to escape: $(tail -n1 <<<"$r") (build/vm/pprof-names.pb.gz)"
	head -n-1 <<<"$r"
fi
# Python's frames, from its perf map (python3 -X perf), and jitmap.c on
# maps made up on the host
desc="bpf: sframe-profile, Debian's python3 -X perf"
if ! [ -s "$out/bpf-python.txt" ]; then
	tap FAIL "$desc: no output (build/vm/bpf-python.err)"
elif r=$("$REPO/devtools/bpf/py-check.sh" "$out/bpf-python.txt" 2>&1); then
	tap OK "$desc: $(tail -n1 <<<"$r")"
else
	tap FAIL "$desc: $(tail -n1 <<<"$r") (build/vm/bpf-python.txt)"
	head -n-1 <<<"$r"
fi
while IFS= read -r l; do
	case $l in
	"ok "*) tap OK "bpf: sframe-profile's perf maps (jitmap-check): ${l#ok [0-9]*: }" ;;
	*) tap FAIL "bpf: sframe-profile's perf maps (jitmap-check): ${l#FAIL [0-9]*: }" ;;
	esac
done < <("$REPO/devtools/chroot.sh" -- "$REPO/build/bpf/jitmap-check" 2>&1 ||
	echo "FAIL 0: jitmap-check exit status $?")
# Its symbols, from sorted tables (usym.c), as libdwfl's own lookup names
# them: libc with its debug file (where at most a quarter of the lookups
# may go to libdwfl: the tables must serve), libdw, a stripped bash, the
# deep program, and usym-test.so (symbols of one start and other sizes,
# nested ones, labels, a local alias)
while IFS= read -r l; do
	case $l in
	"#"*) echo "$l" ;;
	*/libc.so.6:*)
		# (not n: tap's count)
		read -r addrs asked < <(sed -n 's/.*: \([0-9]*\) addresses, \([0-9]*\) asked .*/\1 \2/p' <<<"$l")
		case $l in
		*" 0 differ "*) [ "${addrs:-0}" -gt 0 ] && [ $((4 * ${asked:-0})) -lt "$addrs" ] ;;
		*) false ;;
		esac && tap OK "bpf: sframe-profile's symbols are libdwfl's: $l" ||
			tap FAIL "bpf: sframe-profile's symbols are libdwfl's (at most a quarter asked): $l" ;;
	*": "*" 0 differ "*) tap OK "bpf: sframe-profile's symbols are libdwfl's: $l" ;;
	*) tap FAIL "bpf: sframe-profile's symbols are libdwfl's: $l" ;;
	esac
done < <("$REPO/devtools/chroot.sh" -- "$REPO/build/bpf/usym-check" \
	/usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libdw.so.1 \
	/usr/bin/bash "$REPO/build/selftests/sframe_bpf/sframe_bpf_deep" \
	"$REPO/build/bpf/usym-test.so" 2>&1 ||
	echo "usym-check: exit status $?")

if ! [ -d "$out/stress" ]; then
	tap FAIL "stress: the soak did not run (no sframe_stress or perf?)"
else
	echo "# stress: $(cat "$out/stress.time" 2>/dev/null) in the VM"
	while IFS= read -r l; do
		case $l in
		"ok "*) tap OK "${l#ok [0-9]* }" ;;
		"not ok "*) tap FAIL "${l#not ok [0-9]* }" ;;
		*) echo "$l" ;;
		esac
	done < <("$REPO/devtools/stress.sh" check "$out/stress" 2>&1)
fi

if [ -s "$out/kselftests.tap" ]; then
	cat "$out/kselftests.tap"
	grep -qE '^not ok ' "$out/kselftests.tap" && fail=$((fail + 1))
else
	tap FAIL "no kselftest output"
fi
[ $fail = 0 ]
