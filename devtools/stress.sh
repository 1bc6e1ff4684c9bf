#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh [--kcsan] [SECONDS]: the soak of make stress (default 600 s).
# Boots the debug VM (KASAN, lockdep, UBSAN, kmemleak, the lockup and hung
# task detectors), or with --kcsan the KCSAN flavour (make stress-kcsan:
# the data-race detector, lockdep, the lockup and hung task detectors),
# runs the guest part below, then checks its results here. On the KCSAN
# kernel, a data race fails the soak if one of its stacks is in the
# series' code; races elsewhere in the kernel are listed (splat-check.sh,
# SFRAME_SPLAT_KCSAN=ours).
#
# stress.sh guest SECONDS OUTDIR (in the VM): with kernel.sframe_unwind=1
# and kernel.hung_task_timeout_secs=30, three perf record sessions sample
# every CPU (-a, cpu-clock at SFRAME_STRESS_FREQ Hz, default 1000) with
# --call-graph sframe, -g and --call-graph fp,defer at once, perf stat
# counts the sframe:* tracepoints and tracefs keeps their text (for the
# reasons), while sframe_stress (tools/testing/selftests/sframe) runs
# SECONDS with SFRAME_STRESS_PROCS processes of SFRAME_STRESS_THREADS
# threads (default 4 x 3), with up to SFRAME_STRESS_NEST + 1 (default 6)
# hostile JIT frames on a stack. Everything goes to OUTDIR.
#
# stress.sh check OUTDIR (on the host): a summary (operations, samples
# per session, unwinds, errors by reason, lost events) and TAP lines;
# exits non-zero if a line is "not ok". What fails:
#   - sframe_stress did not end with "result ok" (an operation failed
#     where it must not, a worker died, stragglers killed, watchdog);
#   - a perf session did not stop cleanly, or recorded no samples, or
#     recorded LOST or LOST_SAMPLES events (the kernel dropped records);
#   - in the two deferred sessions (sframe, fp,defer), a sample of
#     sframe_stress that asked for a deferred user chain (cookie) has no
#     PERF_RECORD_CALLCHAIN_DEFERRED with its tid and cookie: every such
#     task exited or returned to user space before perf stopped, so every
#     request must have been answered;
#   - perf stat counted no sframe:* event at all, or the trace buffer
#     overran (then the reasons are incomplete: reported, not failed);
# and, in the host mode, the VM run's status: 99 is a kernel splat in
# the console, dmesg or kmemleak report (devtools/splat-check.sh: also
# hung tasks, soft and hard lockups, RCU stalls).
#
# SFRAME_STRESS_BIN: the program (default build/selftests/sframe/
# sframe_stress, built by devtools/selftests.sh; its libsft_*.so beside it).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

perf=$REPO/build/perf/perf

# ---- in the VM ----
guest() {
	local secs=$1 out=$2 bin=${SFRAME_STRESS_BIN:-$REPO/build/selftests/sframe/sframe_stress}
	local freq=${SFRAME_STRESS_FREQ:-1000} t=/sys/kernel/tracing
	local hung mode pid cat_pid stat_pid rc
	local -A rec_pid
	mkdir -p "$out"
	[ -x "$bin" ] || { echo "no $bin" >"$out/guest.err"; return 1; }
	[ -x "$perf" ] || { echo "no $perf" >"$out/guest.err"; return 1; }
	mountpoint -q $t || mount -t tracefs tracefs $t
	hung=$(cat /proc/sys/kernel/hung_task_timeout_secs)
	echo 30 >/proc/sys/kernel/hung_task_timeout_secs
	echo 1 >/proc/sys/kernel/sframe_unwind
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate
	cat /proc/sys/kernel/watchdog /proc/sys/kernel/watchdog_thresh \
		>"$out/watchdog" 2>&1

	# The sframe tracepoints: text (reasons) and exact counts
	echo 8192 >$t/buffer_size_kb
	echo >$t/trace
	# (not sframe_lookup, one event per lookup that the rule cache
	# did not answer: perf stat counts it)
	for e in sframe_register sframe_unregister sframe_corrupt sframe_unwind_error; do
		echo 1 >$t/events/sframe/$e/enable
	done
	cat $t/trace_pipe >"$out/sframe.trace" &
	cat_pid=$!
	"$perf" stat -a -x, -e 'sframe:*' -o "$out/sframe.stat" &
	stat_pid=$!

	# Three sessions at once; -B -N: no build-id pass at the end; -z:
	# perf cannot write its ring buffer's pages to 9p (EFAULT), but it
	# writes compressed records from its own buffer (and fewer bytes).
	# nice -n -10: under TCG the soak's 12 busy threads could starve a
	# reader long enough for its 8 MiB ring to fill (a LOST record in
	# the -g session of one CI run): that is the reader's lag, not
	# a record the kernel dropped; at a higher weight the readers keep up
	for mode in sframe g defer; do
		local cg
		case $mode in
		sframe) cg=(--call-graph sframe) ;;
		g) cg=(-g) ;;
		defer) cg=(--call-graph "fp,defer") ;;
		esac
		nice -n -10 "$perf" record -a -e cpu-clock -F "$freq" -m 2048 -B -N -z \
			--proc-map-timeout 20000 \
			"${cg[@]}" -o "$out/$mode.data" 2>"$out/$mode.record.log" &
		rec_pid[$mode]=$!
	done
	# perf takes seconds to start under TCG + KASAN
	for _ in $(seq 120); do
		[ -s "$out/sframe.data" ] && [ -s "$out/g.data" ] &&
			[ -s "$out/defer.data" ] && break
		sleep 1
	done
	sleep 5
	date +%s >"$out/start"

	rc=0
	"$bin" -s "$secs" -p "${SFRAME_STRESS_PROCS:-4}" \
		-t "${SFRAME_STRESS_THREADS:-3}" -n "${SFRAME_STRESS_NEST:-5}" \
		>"$out/stress.txt" \
		2>"$out/stress.err" || rc=$?
	echo "$rc" >"$out/stress.rc"
	date +%s >"$out/end"
	sleep 2

	# Stop perf: each must end by itself after SIGINT
	: >"$out/perf-stop"
	for mode in sframe g defer stat; do
		if [ $mode = stat ]; then pid=$stat_pid; else pid=${rec_pid[$mode]}; fi
		kill -INT "$pid" 2>/dev/null
	done
	for mode in sframe g defer stat; do
		if [ $mode = stat ]; then pid=$stat_pid; else pid=${rec_pid[$mode]}; fi
		for _ in $(seq 300); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 1
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -KILL "$pid"
			echo "$mode killed" >>"$out/perf-stop"
		fi
		wait "$pid"
		echo "$mode exit $?" >>"$out/perf-stop"
	done
	echo 0 >$t/events/sframe/enable
	sleep 1
	kill "$cat_pid" 2>/dev/null
	wait "$cat_pid" 2>/dev/null
	cat $t/per_cpu/cpu*/stats >"$out/trace-stats" 2>/dev/null
	echo 1408 >$t/buffer_size_kb
	echo "$hung" >/proc/sys/kernel/hung_task_timeout_secs
	cat /proc/sys/kernel/perf_event_max_sample_rate >"$out/max_sample_rate"
	dmesg | grep -E 'perf: interrupt took too long|corrupt .sframe' \
		>"$out/dmesg-notes" || true
	return 0
}

# ---- on the host ----
n=0 fail=0
tap() { # tap OK|FAIL description
	n=$((n + 1))
	if [ "$1" = OK ]; then echo "ok $n stress: $2"
	else echo "not ok $n stress: $2"; fail=$((fail + 1)); fi
}

# stat FILE TYPE: the aggregated count of TYPE records in perf report --stats
stat_of() {
	awk -v t="$2" '$1 == t && $2 == "events:" { print $3; exit }' "$1"
}

# dump_check DUMP: the deferred requests of sframe_stress's threads and
# the PERF_RECORD_CALLCHAIN_DEFERRED records of a perf report -D dump.
# Prints "requests N answered N unanswered N records N user_chains N".
dump_check() {
	awk '
	# comm of every tid: COMM records, inherited at FORK
	/PERF_RECORD_COMM/ {
		if (match($0, /: [^:]*:[0-9]+\/[0-9]+$/)) {
			s = substr($0, RSTART + 2); split(s, a, ":"); split(a[2], b, "/")
			comm[b[2]] = a[1]
		}
		next
	}
	/PERF_RECORD_FORK\(/ {
		# FORK(pid:tid):(ppid:ptid)
		if (match($0, /FORK\([0-9]+:[0-9]+\):\([0-9]+:[0-9]+\)/)) {
			s = substr($0, RSTART, RLENGTH); gsub(/[^0-9:]/, " ", s)
			split(s, a, /[ :]+/)
			# a[2]=pid a[3]=tid a[4]=ppid a[5]=ptid
			if (a[5] in comm) comm[a[3]] = comm[a[5]]
		}
		next
	}
	/PERF_RECORD_SAMPLE\(/ {
		insample = 1; deferred = 0; user = 0
		if (match($0, /: [0-9]+\/[0-9]+: /)) {
			s = substr($0, RSTART + 2, RLENGTH - 4); split(s, a, "/"); tid = a[2]
		}
		next
	}
	/PERF_RECORD_CALLCHAIN_DEFERRED/ {
		insample = 0
		if (match($0, /: [0-9]+\/[0-9]+: 0x[0-9a-f]+/)) {
			s = substr($0, RSTART + 2, RLENGTH - 2); split(s, a, /[\/: ]+/)
			answered[a[2] " " a[3]] = 1; records++
		}
		next
	}
	/^\.\.\.\.\. *[0-9]+: / && insample {
		if (deferred) {
			c = $3; sub(/^0+/, "", c)
			if (comm[tid] == "sframe_stress") want[tid " 0x" c] = 1
			deferred = 0
		}
		if ($0 ~ /PERF_CONTEXT_USER_DEFERRED/) deferred = 1
		if ($0 ~ /\(PERF_CONTEXT_USER\)/) user_chains++
		next
	}
	/^$/ { insample = 0 }
	END {
		for (k in want) { req++; if (k in answered) ok++; else { bad++; if (bad <= 5) print "unanswered " k > "/dev/stderr" } }
		printf "requests %d answered %d unanswered %d records %d user_chains %d\n", req, ok, bad, records, user_chains
	}'
}

check() {
	local out=$1 mode st s lost lostsam v line
	[ -d "$out" ] || { tap FAIL "no results in $out"; return 1; }
	echo "# stress run: $(( $(cat "$out/end" 2>/dev/null || echo 0) - $(cat "$out/start" 2>/dev/null || echo 0) )) s of sframe_stress in the VM"

	# The program's own account
	if [ -s "$out/stress.txt" ]; then
		echo "# operations (count, errors):"
		sed -n 's/^op \([a-z_]*\) count \([0-9]*\) errors \([0-9]*\)$/#   \1 \2 \3/p' "$out/stress.txt"
		grep -E '^(workers|killed|watchdog) ' "$out/stress.txt" | sed 's/^/#   /'
	fi
	if grep -qx 'result ok' "$out/stress.txt" 2>/dev/null &&
		[ "$(cat "$out/stress.rc" 2>/dev/null)" = 0 ]; then
		tap OK "sframe_stress ran to its end without errors"
	else
		tap FAIL "sframe_stress: exit $(cat "$out/stress.rc" 2>/dev/null) ($(tail -n3 "$out/stress.err" 2>/dev/null | tr '\n' ' '))"
	fi
	line=$(awk '/^op / && $4 == 0 && $2 !~ /^(rewrite_in_use|unmap_|register|unregister|worker_exit)/ { printf "%s ", $2 }' "$out/stress.txt" 2>/dev/null)
	if [ -s "$out/stress.txt" ] && [ -z "$line" ]; then
		tap OK "every operation ran"
	else
		tap FAIL "operations that never ran: ${line:-all}"
	fi

	# perf sessions
	for mode in sframe g defer; do
		local data=$out/$mode.data
		# perf record ends with SIGINT's status (130) once it has written
		if ! grep -qxE "$mode exit (0|130)" "$out/perf-stop" 2>/dev/null; then
			tap FAIL "perf record ($mode) did not stop cleanly: $(grep "^$mode" "$out/perf-stop" 2>/dev/null) ($(tail -n2 "$out/$mode.record.log" 2>/dev/null | tr '\n' ' '))"
		fi
		"$REPO/devtools/chroot.sh" "$perf" report --stats -i "$data" \
			>"$out/$mode.stats" 2>"$out/$mode.stats.err"
		s=$(stat_of "$out/$mode.stats" SAMPLE)
		lost=$(stat_of "$out/$mode.stats" LOST)
		lostsam=$(stat_of "$out/$mode.stats" LOST_SAMPLES)
		echo "# perf $mode: samples ${s:-0}, LOST ${lost:-0}, LOST_SAMPLES ${lostsam:-0}, THROTTLE $(stat_of "$out/$mode.stats" THROTTLE || true), CALLCHAIN_DEFERRED $(stat_of "$out/$mode.stats" CALLCHAIN_DEFERRED || true)"
		if [ "${s:-0}" -gt 0 ]; then
			tap OK "perf --call-graph $mode: ${s} samples"
		else
			tap FAIL "perf --call-graph $mode: no samples (build/vm/stress/$mode.stats.err)"
		fi
		if [ "${lost:-0}" = 0 ] && [ "${lostsam:-0}" = 0 ]; then
			tap OK "perf --call-graph $mode: no LOST or LOST_SAMPLES records"
		else
			tap FAIL "perf --call-graph $mode: LOST ${lost:-0}, LOST_SAMPLES ${lostsam:-0}"
		fi
		"$REPO/devtools/chroot.sh" "$perf" report -D -i "$data" 2>/dev/null |
			dump_check >"$out/$mode.defer" 2>"$out/$mode.defer.err"
		echo "# perf $mode: $(cat "$out/$mode.defer")"
		[ $mode = g ] && continue
		# shellcheck disable=SC2046 # words of the summary line
		set -- $(cat "$out/$mode.defer")
		if [ "${2:-0}" -gt 0 ] && [ "${6:-1}" = 0 ]; then
			tap OK "perf --call-graph $mode: all ${2} deferred requests of sframe_stress answered"
		else
			tap FAIL "perf --call-graph $mode: ${6:-?} of ${2:-?} deferred requests unanswered ($(head -n2 "$out/$mode.defer.err" | tr '\n' ' '))"
		fi
	done

	# Kernel side: tracepoint counts, errors by reason
	echo "# sframe tracepoints (perf stat):"
	if [ -s "$out/sframe.stat" ]; then
		awk -F, '$3 ~ /^sframe:/ { printf "#   %s %s\n", $3, $1; t += $1 } END { exit !(t > 0) }' "$out/sframe.stat"
		st=$?
		if [ $st = 0 ]; then tap OK "sframe tracepoints counted"
		else tap FAIL "no sframe:* event counted (build/vm/stress/sframe.stat)"; fi
	else
		tap FAIL "no perf stat output for sframe:*"
	fi
	if [ -f "$out/sframe.trace" ]; then
		echo "# sframe_unwind_error by error (trace):"
		sed -n 's/.*sframe_unwind_error: .* error=\(-*[0-9]*\)$/\1/p' "$out/sframe.trace" |
			sort | uniq -c | sort -rn | awk '{ printf "#   error %s: %d\n", $2, $1 }'
		echo "# sframe_corrupt by reason (trace):"
		sed -n 's/.*sframe_corrupt: .* reason=\(.*\)$/\1/p' "$out/sframe.trace" |
			sort | uniq -c | sort -rn | sed 's/^ */#   /'
		echo "# sframe_register: $(grep -c 'sframe_register: .* registered$' "$out/sframe.trace") registered, $(grep -c 'sframe_register: .* discovered$' "$out/sframe.trace") discovered, $(grep -c 'sframe_register: .* shared$' "$out/sframe.trace") shared; sframe_unregister: $(grep -c 'sframe_unregister: ' "$out/sframe.trace")"
		v=$(awk '/^overrun:/ { o += $2 } END { print o + 0 }' "$out/trace-stats" 2>/dev/null)
		echo "# trace buffer overrun: $v events (the reasons above are complete only if 0)"
	fi
	echo "# kernel.perf_event_max_sample_rate at the end: $(cat "$out/max_sample_rate" 2>/dev/null)"
	echo "# soft/hard lockup detectors: watchdog=$(head -n1 "$out/watchdog" 2>/dev/null), thresh=$(tail -n1 "$out/watchdog" 2>/dev/null)"
	[ $fail = 0 ]
}

case ${1:-} in
guest) guest "${2:?seconds}" "${3:?outdir}"; exit ;;
check) check "${2:?outdir}"; exit ;;
esac

# Host: boot the debug VM and run the guest part, then check
vmflavour=()
if [ "${1:-}" = --kcsan ]; then
	vmflavour=(--kcsan)
	export SFRAME_SPLAT_KCSAN=ours
	shift
fi
secs=${1:-600}
case $secs in ''|*[!0-9]*) die "usage: stress.sh [--kcsan] [SECONDS]" ;; esac
need_root "booting the VM"
[ "${SFRAME_DIRTY:-0}" = 1 ] || "$REPO/devtools/selftests.sh" >&2 || exit 1
"$REPO/devtools/perf.sh" >/dev/null || exit 1
# The guest gets the settings on its command line
env=
for v in SFRAME_STRESS_BIN SFRAME_STRESS_FREQ SFRAME_STRESS_PROCS \
	SFRAME_STRESS_THREADS SFRAME_STRESS_NEST; do
	[ -n "${!v:-}" ] && env+="$v=$(printf '%q' "${!v}") "
done
SFRAME_VM_TIMEOUT=${SFRAME_VM_TIMEOUT:-$((secs + 1800))} SFRAME_VM_QUIET=1 \
	"$REPO/devtools/vm.sh" "${vmflavour[@]}" "$env$REPO/devtools/stress.sh guest $secs $REPO/build/vm/stress; exit 7"
vmrc=$?
check "$REPO/build/vm/stress"
# A KCSAN kernel that watches nothing would pass whatever happens
if [ ${#vmflavour[@]} != 0 ]; then
	if grep -aq 'kcsan: enabled early' "$REPO/build/vm/console.log"; then
		tap OK "KCSAN was on from boot"
	else
		tap FAIL "KCSAN was not on from boot (no \"kcsan: enabled early\" in build/vm/console.log)"
	fi
fi
case $vmrc in
7) tap OK "the VM ran the soak to its end" ;;
99) tap FAIL "kernel splat during the soak (build/vm/console.log, dmesg.txt, kmemleak.txt)" ;;
*) tap FAIL "the VM run returned $vmrc, not 7 (build/vm/console.log)" ;;
esac
echo "1..$n"
echo "$((n - fail)) passed, $fail failed"
[ $fail = 0 ]
