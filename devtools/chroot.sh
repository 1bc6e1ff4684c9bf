#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command inside a toolchain root:
#   chroot.sh [--root DIR] [--] CMD ...     (default root: the sid root)
#
# The command runs in a private mount namespace: /proc, /sys, /dev, the
# repository and the cache are bind-mounted at the same paths inside the
# root, and every mount disappears with the namespace when
# the command ends, whether it succeeds, fails or is interrupted.  Its
# environment is clean but for the http, https and no_proxy variables
# (either case), passed on when set.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

root=$SID_ROOT
if [ "${1:-}" = --root ]; then root=$2; shift 2; fi
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || die "usage: chroot.sh [--root DIR] [--] CMD ..."
need_root "running builds in the toolchain root"
[ -x "$root/bin/sh" ] || die "no toolchain root at $root: run 'make root' first"

work=$SFRAME_CACHE/work
mkdir -p "$work/ccache" "$root$REPO" "$root$SFRAME_CACHE"
cwd=$PWD
case $cwd in "$REPO"|"$REPO"/*|"$work"|"$work"/*) ;; *) cwd=$REPO ;; esac

export SFRAME_CACHE
exec unshare --mount --propagation private --fork -- /bin/bash -c '
	set -e
	root=$1 repo=$2 work=$3 cwd=$4; shift 4
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys"
	mount --rbind /dev "$root/dev"
	# /tmp first: the repository or the cache may live below it.
	mount -t tmpfs -o size=8g tmpfs "$root/tmp"
	mkdir -p "$root$repo" "$root$SFRAME_CACHE"
	mount --bind "$repo" "$root$repo"
	mount --bind "$SFRAME_CACHE" "$root$SFRAME_CACHE"
	cd "$root"
	# A clean environment, but for the proxies that apt inside the
	# root needs where the host reaches its mirror through one
	exec chroot "$root" /usr/bin/env -i \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		CCACHE_DIR="$work/ccache" SFRAME_CACHE="$SFRAME_CACHE" CI="${CI:-}" \
		${http_proxy:+"http_proxy=$http_proxy"} \
		${https_proxy:+"https_proxy=$https_proxy"} \
		${no_proxy:+"no_proxy=$no_proxy"} \
		${HTTP_PROXY:+"HTTP_PROXY=$HTTP_PROXY"} \
		${HTTPS_PROXY:+"HTTPS_PROXY=$HTTPS_PROXY"} \
		${NO_PROXY:+"NO_PROXY=$NO_PROXY"} \
		/bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
' sframe-chroot "$root" "$REPO" "$work" "$cwd" "$@"
