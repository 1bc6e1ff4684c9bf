#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# errors.sh: sframe-profile's errors, checked on the host, whose kernel
# has BTF but not bpf_unwind_user_deferred(): not root, no BTF (a mount
# namespace hides /sys/kernel/btf), no kfunc, bad options, a rate above
# the kernel's maximum, a bad or unknown PID. One line per
# case, "ok CASE: ..." or "FAIL CASE: ...", each with the exit status and
# the message, which must be exact.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
prof=$REPO/build/bpf/sframe-profile

# check NAME RC MESSAGE CMD...: CMD (in the sid root) exits RC and says
# MESSAGE on stderr
check() {
	local name=$1 want_rc=$2 want=$3 err rc
	shift 3
	err=$("$REPO/devtools/chroot.sh" -- "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = "$want_rc" ] && grep -qxF -- "$want" <<<"$err"; then
		echo "ok $name: exits $rc, \"$want\""
	else
		echo "FAIL $name: exits $rc with \"$(head -n3 <<<"$err")\", wanted $want_rc and \"$want\""
	fi
}

check "not root" 1 "sframe-profile: must run as root (needs CAP_BPF and CAP_PERFMON)" \
	setpriv --reuid 65534 --regid 65534 --clear-groups "$prof" -- true
# shellcheck disable=SC2016 # $0 is expanded by the inner shell
check "no BTF" 1 "sframe-profile: the kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)" \
	unshare -m --propagation unchanged sh -c \
	'mount -t tmpfs none /sys/kernel/btf && exec "$0" --in-event -- true' "$prof"
if [ -e /sys/kernel/btf/vmlinux ]; then
	check "no kfunc" 1 "sframe-profile: the kernel has no bpf_unwind_user_deferred() (CONFIG_BPF_UNWIND_USER_DEFERRED); try --in-event" \
		"$prof" --deferred -- true
else
	echo "ok no kfunc # SKIP the host kernel has no BTF"
fi
usage="Usage: sframe-profile [OPTIONS] [-a | -p PID[,PID...] | -- CMD [ARGS...]]"
check "bad option" 2 "$usage" "$prof" --bogus
check "-a and a command" 2 "$usage" "$prof" -a -- true
check "-p and a command" 2 "$usage" "$prof" -p 1 -- true
check "bad rate" 1 "sframe-profile: -F needs a positive rate" "$prof" -F 0 -- true
check "bad duration" 1 "sframe-profile: -d needs a positive number of seconds" "$prof" -d 0
check "bad stack storage size" 1 "sframe-profile: --stack-storage-size needs a number of stacks, 1 to 16777216" "$prof" --stack-storage-size 0 -- true
check "-U and -K" 2 "$usage" "$prof" -U -K -a
check "bad PID list" 1 "sframe-profile: -p needs process IDs, comma-separated: '1,x'" \
	"$prof" --in-event -p 1,x
check "no such process" 1 "sframe-profile: -p 1073741823: no such process" \
	"$prof" --in-event -p 1,1073741823
# A thread that is not its process's leader (the roots share the host's
# process IDs)
tid=
for t in /proc/[0-9]*/task/[0-9]*; do
	p=${t#/proc/}
	[ "${p%%/*}" != "${t##*/}" ] && tid=${t##*/} && break
done
if [ -n "$tid" ]; then
	check "a thread" 1 "sframe-profile: -p $tid: a thread, not a process" \
		"$prof" --in-event -p "$tid"
else
	echo "ok a thread # SKIP no thread but leaders on the host"
fi
if [ -e /sys/kernel/btf/vmlinux ]; then
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	check "rate above the maximum" 1 "sframe-profile: -F $((max + 1)) is above kernel.perf_event_max_sample_rate ($max): lower -F, or raise it with sysctl" \
		"$prof" --in-event -F $((max + 1)) -a
else
	echo "ok rate above the maximum # SKIP the host kernel has no BTF"
fi
