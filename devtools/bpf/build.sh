#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh: build sframe-profile (tools/bpf/sframe-profile of build/linux)
# and its tests (usym-check, jitmap-check, flamegraph-folded,
# pprof-folded) into build/bpf/, in the sid root (clang, bpftool, libbpf,
# libdw, protobuf-c); and put npm packages, fetched once into the cache
# with the host's npm and checked against the hashes below, in place:
# the files of its flame graphs (d3 and d3-flame-graph) in
# build/bpf/flamegraph/, and the independent reader of its pprof
# profiles (pprof-format, for the tests) in build/bpf/pprof-format/.
# Without them, which it says, only --flamegraph and the reader's test
# fail.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

# package@version sha256-of-the-tarball
NPM_PACKAGES=(
	"d3@7.9.2 f0c1d2c2479907a6e3265370d0fd715f7aef0f561cdd2b415df385ba7df9d1aa"
	"d3-flame-graph@5.0.0 f12f7540b6e6e787277908d70b7169da7ced5be8737bcff2bd27f3fe4b9961c9"
	"pprof-format@2.3.2 209b123f810b084accdcdbba2e2304469a7161250f28974d194c226aeb94026c"
)

# npm_unpack PKG@VERSION DIR: the package's tarball, from the cache (or
# npm, once), checked, unpacked in DIR (DIR/package/...)
npm_unpack() {
	local pkg=$1 dir=$2 cache=$SFRAME_CACHE/npm p sum tgz
	for p in "${NPM_PACKAGES[@]}"; do
		[ "${p%% *}" = "$pkg" ] && sum=${p#* }
	done
	tgz=$cache/${pkg/@/-}.tgz
	mkdir -p "$cache" "$dir"
	if ! [ -f "$tgz" ]; then
		if ! command -v npm >/dev/null; then
			warn "no npm to fetch $pkg"
			return 1
		fi
		msg "fetching $pkg with npm"
		if ! (cd "$dir" && npm pack --silent "$pkg" >/dev/null); then
			warn "npm pack $pkg failed"
			return 1
		fi
		mv "$dir/${pkg/@/-}.tgz" "$tgz.tmp" && mv "$tgz.tmp" "$tgz"
	fi
	if ! echo "$sum  $tgz" | sha256sum -c --quiet - >/dev/null 2>&1; then
		warn "$tgz: not the $pkg that build.sh knows (sha256), not used; remove it to fetch it again"
		return 1
	fi
	tar -xzf "$tgz" -C "$dir" package/LICENSE package/package.json package/dist ||
		{ warn "$tgz: cannot be unpacked"; return 1; }
}

# npm_assets BPF: d3's and d3-flame-graph's files in BPF/flamegraph,
# pprof-format in BPF/pprof-format; nothing from an earlier build where
# this one puts nothing
npm_assets() {
	local bpf=$1 x fg=$1/flamegraph pkg
	rm -rf "$fg" "$bpf/pprof-format"
	mkdir -p "$fg"
	x=$(mktemp -d)
	trap 'rm -rf "$x"; trap - RETURN' RETURN
	: >"$x/LICENSES"
	for pkg in d3@7.9.2 d3-flame-graph@5.0.0; do
		if ! npm_unpack "$pkg" "$x/$pkg"; then
			warn "sframe-profile --flamegraph will fail"
			break
		fi
		{ echo "$pkg:"; cat "$x/$pkg/package/LICENSE"; echo; } >>"$x/LICENSES"
	done
	# (the page holds the licenses inside an HTML comment: no "--")
	[ -d "$x/d3-flame-graph@5.0.0/package" ] &&
		sed -e ':a' -e 's/--/- -/' -e 'ta' "$x/LICENSES" >"$fg/LICENSES" &&
		cp "$x/d3@7.9.2/package/dist/d3.min.js" \
		   "$x/d3-flame-graph@5.0.0/package/dist/d3-flamegraph.umd.min.js" \
		   "$x/d3-flame-graph@5.0.0/package/dist/d3-flamegraph.css" "$fg/" ||
		warn "the flame graph's files were not put in $fg"
	if npm_unpack pprof-format@2.3.2 "$x/pprof-format"; then
		mv "$x/pprof-format/package" "$bpf/pprof-format"
	else
		warn "no pprof-format: the test of sframe-profile --pprof will fail"
	fi
}

[ "${SFRAME_DIRTY:-0}" = 1 ] || "$REPO/devtools/tree.sh" apply
mkdir -p "$REPO/build/bpf"
npm_assets "$REPO/build/bpf"
"$REPO/devtools/chroot.sh" -- make -s -C "$REPO/build/linux/tools/bpf/sframe-profile" \
	OUTPUT="$REPO/build/bpf/" SP_ASSETS="$REPO/build/bpf/flamegraph" \
	all check-usym >&2
msg "built build/bpf/sframe-profile and its tests; the flame graph's files, pprof-format"
