#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pprof-check.sh FOLDED PROFILE HZ: sframe-profile's pprof PROFILE, read
# by an independent reader (the npm package pprof-format, under Debian's
# Node.js in the sid root: devtools/bpf/pprof-check.mjs), against the
# folded stacks FOLDED of the same run: the same stacks with the same
# counts, once the profile's samples are folded again by comm and
# function names.  Prints
#   N stacks, S samples read back by pprof-format as folded
# and exits 0, or prints the first differences and exits 1.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
folded=${1:?usage: pprof-check.sh FOLDED PROFILE HZ}
profile=${2:?usage: pprof-check.sh FOLDED PROFILE HZ}
hz=${3:?usage: pprof-check.sh FOLDED PROFILE HZ}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The folded stacks, those that fold the same counted once
awk 'match($0, / [0-9]+$/) { c[substr($0, 1, RSTART - 1)] += substr($0, RSTART + 1) }
     END { for (s in c) print s " " c[s] }' "$folded" | LC_ALL=C sort >"$tmp/want"
"$REPO/devtools/chroot.sh" -- node "$REPO/devtools/bpf/pprof-check.mjs" \
	"$REPO/build/bpf/pprof-format" "$(realpath "$profile")" "$hz" 2>"$tmp/err" |
	LC_ALL=C sort >"$tmp/got"
if [ -s "$tmp/got" ] && cmp -s "$tmp/want" "$tmp/got"; then
	echo "$(wc -l <"$tmp/got") stacks, $(awk '{ s += $NF } END { print s + 0 }' "$tmp/got") samples read back by pprof-format as folded"
	exit 0
fi
diff "$tmp/want" "$tmp/got" | head -n 6 | sed 's/^/# /'
sed 's/^/# /' "$tmp/err" | tail -n 3
echo "$(wc -l <"$tmp/got") stacks read back, $(wc -l <"$tmp/want") folded"
exit 1
