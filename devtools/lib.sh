# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the development scripts; sourced, never run.

# Where everything slow lives: the toolchain roots, ccache, the kernel
# source package, kernel build trees. Outside the repository so that a
# fresh clone reuses it. Override with SFRAME_CACHE=/some/dir.
: "${SFRAME_CACHE:=/var/cache/sframe-unwind}"
: "${SFRAME_MIRROR:=http://deb.debian.org/debian}"
SID_ROOT=$SFRAME_CACHE/sid-root
TRIXIE_ROOT=$SFRAME_CACHE/trixie-root
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

msg()  { printf '==> %s\n' "$*" >&2; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die()  { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# in_root [--root DIR] CMD...: CMD in the sid root, or in DIR (chroot.sh)
in_root() { "$REPO/devtools/chroot.sh" "$@"; }

# A script that runs its inner part in a root calls, once lib.sh is
# sourced, "inner_dispatch "$@"": started as "SCRIPT --inner ARGS...", it
# runs the script's inner() with ARGS and exits with its status. And
# "in_root_inner [--root DIR] ARGS..." starts the script itself that way
# in the sid root (or in DIR).
inner_dispatch() {
	[ "${1:-}" = --inner ] || return 0
	shift
	inner "$@"
	exit
}
in_root_inner() {
	local root=()
	if [ "${1:-}" = --root ]; then
		root=(--root "$2")
		shift 2
	fi
	in_root "${root[@]}" "$(realpath "$0")" --inner "$@"
}

need_root() {
	[ "$(id -u)" = 0 ] && return 0
	die "$1 needs root: debootstrap, chroot and the bind mounts of /proc, /sys and /dev into the toolchain root are privileged operations. Run as root (e.g. sudo make ...)."
}

# vm_accel ARCH QEMU_OPTS: "kvm" or "tcg", then why, for a VM of ARCH run
# with QEMU_OPTS: KVM where it works, unless SFRAME_KVM=0/1 says otherwise;
# TCG for another architecture's guest, and whenever QEMU_OPTS count
# instructions (-icount, which QEMU refuses with KVM), SFRAME_KVM=1 or not.
vm_accel() {
	local arch=$1 opts=" $2 "
	if [ "$arch" != "$(uname -m)" ]; then
		echo "tcg an $arch guest on an $(uname -m) host"
	elif [[ $opts == *" -icount "* ]]; then
		echo "tcg -icount (instruction counting) needs it${SFRAME_KVM:+, whatever SFRAME_KVM=$SFRAME_KVM says}"
	elif [ -n "${SFRAME_KVM:-}" ]; then
		if [ "$SFRAME_KVM" = 1 ]; then echo "kvm SFRAME_KVM=1"
		else echo "tcg SFRAME_KVM=$SFRAME_KVM"; fi
	elif ! [ -c /dev/kvm ]; then
		echo "tcg no /dev/kvm"
	elif [ -d /sys/module/kvm_pvm ]; then
		echo "tcg /dev/kvm is a PVM hypervisor (kvm_pvm), on which a standard guest hangs"
	elif ! { exec 3<>/dev/kvm; } 2>/dev/null; then
		echo "tcg /dev/kvm is not accessible"
	else
		exec 3>&-
		echo "kvm"
	fi
}

# kunit_hide_kvm ARCH: "1" where vm_accel picks TCG for an ARCH guest on
# this host, else "0". kunit.py's QEMU tries KVM first (-accel kvm -accel
# tcg), which a PVM /dev/kvm accepts and then hangs: its callers bind
# /dev/null over /dev/kvm in their mount namespace when this says 1.
kunit_hide_kvm() {
	local accel
	read -r accel _ <<<"$(vm_accel "$1" "")"
	[ "$accel" = tcg ] && [ -e /dev/kvm ] && echo 1 || echo 0
}

# vm_outdir_reset DIR KEEP: make DIR, the VM's writable folder, ready for
# a run: empty (the test levels read what their run leaves there, never
# an earlier run's), or with KEEP=1 without only the runner's own files
# (a user's make vm keeps what earlier commands wrote there).
vm_outdir_reset() {
	if [ "$2" = 1 ]; then
		rm -f "$1/console.log" "$1/console-kernel.log" "$1/dmesg.txt" \
			"$1/kmemleak.txt" "$1/rc"
	else
		rm -rf "$1"
	fi
	mkdir -p "$1"
}

# vm_tsc_append: kernel command line words for a VM whose timings matter.
# Under TCG the guest's TSC runs at the host's rate, and its calibration
# against the emulated PIT often fails, leaving a 4 ms jiffies clock: give
# the guest the host's TSC rate instead.
vm_tsc_append() {
	awk -F': ' '/^cpu MHz/ { printf "tsc_early_khz=%d tsc=reliable", $2 * 1000; exit }' /proc/cpuinfo
}

# vm_bench FLAVOUR LOG CMD: run CMD in a VM of FLAVOUR (perf, baseline)
# whose timings matter: the guest gets the host's TSC rate and refuses a
# jiffies clocksource, in which case it boots again (up to 3 times).
# The VM's messages go to LOG; returns CMD's status.
vm_bench() {
	local flavour=$1 log=$2 cmd=$3 try rc tsc=
	# (the TSC options are x86's)
	[ "${SFRAME_ARCH:-x86_64}" != x86_64 ] || tsc=$(vm_tsc_append)
	# shellcheck disable=SC2016 # expanded in the guest
	local check='case $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) in *jiffies*) echo "clocksource: jiffies" >&2; exit 3 ;; esac'
	for try in 1 2 3; do
		rc=0
		SFRAME_VM_APPEND="$tsc ${SFRAME_VM_APPEND:-}" SFRAME_VM_QUIET=1 \
			"$REPO/devtools/vm.sh" "--$flavour" "$check; $cmd" 2>"$log" || rc=$?
		[ "$rc" = 3 ] || return "$rc"
		warn "the guest had no usable clock (TSC calibration failed under TCG), booting again"
	done
	return "$rc"
}

# agree_zstd: build/agree/zstd, Debian's zstd (built by the corpus script
# with -O2 -fomit-frame-pointer -Wa,--gsframe), and build/agree/input, a
# fixed, compressible input: text made from the program's own bytes. The
# vm level's agreement check and make bench's PC streams run it.
agree_zstd() {
	local agree=$REPO/build/agree
	"$REPO/tools/testing/sframe/corpus/build-corpus.sh" >&2 || return 1
	mkdir -p "$agree"
	cp "$SFRAME_CACHE/work/corpus/v3-x86_64-o2-zstd" "$agree/zstd"
	# The last head closes the pipe before od is done: od's SIGPIPE (141)
	# is expected, the input's size says whether it was made
	head -c 1000000 "$agree/zstd" | od -An -tx1 -v |
		head -c 3000000 >"$agree/input" || [ $? = 141 ]
	[ "$(stat -c %s "$agree/input")" = 3000000 ]
}

# guest_root ARCH: the Debian root of ARCH's VM (arm64, s390x), in the cache.
guest_root() { echo "$SFRAME_CACHE/$1-root"; }

# qemu_arch ARCH: QEMU's name of a Debian architecture.
qemu_arch() {
	case $1 in
	arm64) echo aarch64 ;;
	*) echo "$1" ;;
	esac
}

# binfmt_register ARCH: run ARCH's ELF binaries with the sid root's static
# qemu-user (binfmt_misc, flag F: the interpreter is opened now, so it
# also works inside chroots). Needed to bootstrap and update guest roots.
binfmt_register() {
	local q conf name bm=/proc/sys/fs/binfmt_misc
	q=$(qemu_arch "$1")
	name=sframe-qemu-$q
	# The roots of two architectures are made side by side: the other
	# one may mount binfmt_misc, or register, between the test and ours
	[ -e "$bm/register" ] || mount -t binfmt_misc binfmt_misc "$bm" ||
		[ -e "$bm/register" ] ||
		die "cannot mount binfmt_misc (needed to run $1 programs under qemu-user)"
	[ -e "$bm/$name" ] && return 0
	conf=$SID_ROOT/usr/lib/binfmt.d/qemu-$q.conf
	[ -f "$conf" ] || die "no $conf: the sid root lacks qemu-user-static"
	# :name:type:offset:magic:mask:interpreter:flags
	awk -F: -v OFS=: -v n="$name" -v i="$SID_ROOT/usr/bin/qemu-$q" \
		'{ $2 = n; $7 = i; if ($8 !~ /F/) $8 = $8 "F"; print }' "$conf" >"$bm/register" ||
		[ -e "$bm/$name" ] ||
		die "registering qemu-$q with binfmt_misc failed"
}

# pkglist FILE: the package names of FILE, comments and blanks removed.
pkglist() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1" | tr -s ' \t' '\n' | sort -u; }

# kbuild_dir NAME: an out-of-tree kernel build directory in the cache, one
# set per repository checkout (the object files name their source paths).
# On the way, the sets of other checkouts are removed when no build was
# made in them for SFRAME_KBUILD_KEEP_DAYS days (default 7) and that
# checkout is gone (its folder holds no devtools/lib.sh) or has no build/
# (a make clean). A checkout that comes back at the same path, as a CI
# clone does, finds its set: its build is incremental, and ccache, whose
# keys hold the paths, hits. A set without a .repo file is removed when
# as old.
kbuild_dir() {
	local base=$SFRAME_CACHE/work/kbuild key d r days=${SFRAME_KBUILD_KEEP_DAYS:-7}
	case $days in ''|*[!0-9]*) die "SFRAME_KBUILD_KEEP_DAYS must be a number of days" ;; esac
	key=$(printf '%s' "$REPO" | sha1sum | cut -c1-10)
	mkdir -p "$base/$key"
	echo "$REPO" >"$base/$key/.repo"
	for d in "$base"/*/; do
		[ "$d" = "$base/$key/" ] && continue
		r=
		[ -f "$d.repo" ] && r=$(head -c 4096 "$d.repo")
		# Another checkout's set is kept while it has a build/ or was
		# built in lately
		[ -n "$r" ] && [ -f "$r/devtools/lib.sh" ] && [ -d "$r/build" ] && continue
		[ -z "$(find "$d" -maxdepth 0 -mtime +"$days" 2>/dev/null)" ] && continue
		rm -rf "$d"
	done
	touch "$base/$key"
	echo "$base/$key/$1"
}
