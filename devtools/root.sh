#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Create or update a Debian toolchain root with debootstrap.
#   root.sh sid      the main root: compilers, QEMU, virtme-ng, libsframe ...
#   root.sh trixie   the small root with binutils 2.44 (SFrame V2 inputs)
#   root.sh arm64    the arm64 guest root of the arm64 VM (Debian sid arm64,
#                    its perf and what the guest needs), bootstrapped under
#                    qemu-user emulation
#   root.sh s390x    the same for the s390x VM
# Idempotent: a root whose package list did not change costs one stat.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

suite=${1:?usage: root.sh sid|trixie|arm64|s390x}
case $suite in
sid)    dir=$SID_ROOT list=$REPO/devtools/packages-sid.txt ;;
trixie) dir=$TRIXIE_ROOT list=$REPO/devtools/packages-trixie.txt ;;
arm64|s390x) dir=$(guest_root "$suite") list=$REPO/devtools/packages-guest.txt ;;
*)      die "unknown suite '$suite'" ;;
esac
# The stamp covers the package list and this script's own set-up steps.
want="$(pkglist "$list")
root.sh $(sha1sum "$0" | cut -c1-12)"
stamp=$dir/.sframe-packages

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi
need_root "creating the $suite toolchain root"

# A guest root: Debian sid of another architecture, whose maintainer scripts
# run under the sid root's qemu-user through binfmt_misc.
dbs_arch=() dbs_suite=$suite
case $suite in
arm64|s390x)
	dbs_arch=(--arch="$suite") dbs_suite=sid
	"$REPO/devtools/root.sh" sid
	binfmt_register "$suite"
	;;
esac

if ! [ -x "$dir/usr/bin/apt-get" ] || ! [ -f "$dir/.sframe-bootstrapped" ]; then
	if ! command -v debootstrap >/dev/null; then
		if command -v apt-get >/dev/null; then
			msg "installing debootstrap on the host"
			apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null
		fi
		command -v debootstrap >/dev/null ||
			die "debootstrap is missing: install it (Debian/Ubuntu: apt-get install debootstrap)"
	fi
	msg "debootstrap $suite into $dir (once; a few minutes)"
	rm -rf "$dir"
	mkdir -p "$dir"
	debootstrap --variant=minbase --components=main "${dbs_arch[@]}" \
		"$dbs_suite" "$dir" "$SFRAME_MIRROR" >"$dir.debootstrap.log" 2>&1 ||
		die "debootstrap failed, see $dir.debootstrap.log"
	touch "$dir/.sframe-bootstrapped"
fi

# The mirror may serve a sid Release file past its Valid-Until date.
cat >"$dir/etc/apt/apt.conf.d/99sframe" <<'CONF'
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Dpkg::Use-Pty "false";
CONF
echo "deb $SFRAME_MIRROR $dbs_suite main" >"$dir/etc/apt/sources.list"
# The sid root also gets sources: the differential-test corpus builds
# Debian programs (zstd) from them.
if [ "$suite" = sid ]; then
	echo "deb-src $SFRAME_MIRROR $suite main" >>"$dir/etc/apt/sources.list"
fi
cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true

pkgs=$(pkglist "$list")
# Packages named NAME:ARCH need the foreign architecture ARCH (multiarch),
# e.g. libsframe-dev:s390x for the big-endian sframe_diff.
archs=$(echo "$pkgs" | sed -n 's/^[^:]*:\([a-z0-9]*\)$/\1/p' | sort -u | tr '\n' ' ')
msg "installing the $suite package list ($(echo "$pkgs" | wc -l) packages)"
# shellcheck disable=SC2086
"$REPO/devtools/chroot.sh" --root "$dir" -- sh -ec "
	export DEBIAN_FRONTEND=noninteractive
	for a in $archs; do
		dpkg --print-foreign-architectures | grep -qx \$a ||
			dpkg --add-architecture \$a
	done
	apt-get -q update >/dev/null
	apt-get -y -q install $(echo $pkgs) >/tmp/apt.log 2>&1 || { tail -30 /tmp/apt.log; exit 1; }
	apt-get clean
	# virtme-ng powers the guest off with poweroff(8), which no package of
	# the list provides: busybox does.
	for c in poweroff reboot halt; do
		command -v \$c >/dev/null || ln -sf /bin/busybox /usr/sbin/\$c
	done
" || die "installing packages into the $suite root failed"
if [ "$suite" = sid ]; then
	# The feature needs SFrame V3 from the assembler (binutils >= 2.46).
	v=$("$REPO/devtools/chroot.sh" --root "$dir" -- sh -c '
		printf "f:\n.cfi_startproc\nret\n.cfi_endproc\n" >/tmp/v.s &&
		as --gsframe -o /tmp/v.o /tmp/v.s 2>/dev/null &&
		objcopy -O binary --only-section=.sframe /tmp/v.o /tmp/v.sf &&
		od -An -tu1 -j2 -N1 /tmp/v.sf' | tr -d ' ')
	[ "$v" = 3 ] || die "the sid root's assembler does not emit SFrame V3 with --gsframe \
($("$REPO/devtools/chroot.sh" --root "$dir" -- as --version | head -1)); binutils >= 2.46 is needed"
fi
echo "$want" >"$stamp"
msg "$suite root ready: $dir"
