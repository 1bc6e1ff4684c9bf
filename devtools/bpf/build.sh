#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh: build sframe-profile (tools/bpf/sframe-profile of build/linux)
# and the test of its symbols (usym-check) into build/bpf/, in the sid
# root (clang, bpftool, libbpf, libdw); and put the files of its flame
# graphs (d3 and d3-flame-graph, from their npm packages, fetched once
# into the cache with the host's npm and checked against the hashes
# below) in build/bpf/flamegraph/: without them, which it says, only
# --flamegraph fails.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

# package@version sha256-of-the-tarball
FLAMEGRAPH_PACKAGES=(
	"d3@7.9.2 f0c1d2c2479907a6e3265370d0fd715f7aef0f561cdd2b415df385ba7df9d1aa"
	"d3-flame-graph@5.0.0 f12f7540b6e6e787277908d70b7169da7ced5be8737bcff2bd27f3fe4b9961c9"
)

# flamegraph_assets DIR: d3's and d3-flame-graph's files in DIR
flamegraph_assets() {
	local dir=$1 cache=$SFRAME_CACHE/npm p pkg sum tgz x
	# Nothing from an earlier build, if this one puts nothing there
	rm -rf "$dir"
	mkdir -p "$cache" "$dir"
	x=$(mktemp -d)
	trap 'rm -rf "$x"; trap - RETURN' RETURN
	: >"$x/LICENSES"
	for p in "${FLAMEGRAPH_PACKAGES[@]}"; do
		read -r pkg sum <<<"$p"
		tgz=$cache/${pkg/@/-}.tgz
		if ! [ -f "$tgz" ]; then
			if ! command -v npm >/dev/null; then
				warn "no npm to fetch $pkg: sframe-profile --flamegraph will fail"
				return 0
			fi
			msg "fetching $pkg with npm"
			if ! (cd "$x" && npm pack --silent "$pkg" >/dev/null); then
				warn "npm pack $pkg failed: sframe-profile --flamegraph will fail"
				return 0
			fi
			mv "$x/${pkg/@/-}.tgz" "$tgz.tmp" && mv "$tgz.tmp" "$tgz"
		fi
		if ! echo "$sum  $tgz" | sha256sum -c --quiet - >/dev/null 2>&1; then
			warn "$tgz: not the $pkg that build.sh knows (sha256), not used; remove it to fetch it again"
			return 0
		fi
		mkdir -p "$x/$pkg"
		if ! tar -xzf "$tgz" -C "$x/$pkg" package/LICENSE package/dist; then
			warn "$tgz: cannot be unpacked: sframe-profile --flamegraph will fail"
			return 0
		fi
		{ echo "$pkg:"; cat "$x/$pkg/package/LICENSE"; echo; } >>"$x/LICENSES"
	done
	# (the page holds the licenses inside an HTML comment: no "--")
	sed -e ':a' -e 's/--/- -/' -e 'ta' "$x/LICENSES" >"$dir/LICENSES" &&
	cp "$x/d3@7.9.2/package/dist/d3.min.js" \
	   "$x/d3-flame-graph@5.0.0/package/dist/d3-flamegraph.umd.min.js" \
	   "$x/d3-flame-graph@5.0.0/package/dist/d3-flamegraph.css" "$dir/" ||
		warn "the flame graph's files were not put in $dir"
}

[ "${SFRAME_DIRTY:-0}" = 1 ] || "$REPO/devtools/tree.sh" apply
mkdir -p "$REPO/build/bpf"
flamegraph_assets "$REPO/build/bpf/flamegraph"
"$REPO/devtools/chroot.sh" -- make -s -C "$REPO/build/linux/tools/bpf/sframe-profile" \
	OUTPUT="$REPO/build/bpf/" SP_ASSETS="$REPO/build/bpf/flamegraph" \
	all check-usym >&2
msg "built build/bpf/sframe-profile, its usym-check and its flame graph's files"
