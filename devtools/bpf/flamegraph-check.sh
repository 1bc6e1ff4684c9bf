#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# flamegraph-check.sh FOLDED PAGE: sframe-profile's flame graph PAGE, drawn
# by Debian's Chromium (headless, in the sid root), against the folded
# stacks FOLDED ("comm;outermost;...;innermost COUNT") of the same run.
# Each frame that d3-flame-graph drew is an SVG <g class="frame"> whose
# <title> is "NAME (P%, N samples)"; the frames and their samples must be
# exactly those of the tree of FOLDED: one per distinct stack prefix, with
# the samples of the stacks that start with it, and "all" with every
# sample.  Prints
#   N frames, S samples drawn as folded
# and exits 0, or prints the first differences and exits 1.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
folded=${1:?usage: flamegraph-check.sh FOLDED PAGE}
page=${2:?usage: flamegraph-check.sh FOLDED PAGE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The tree of the folded stacks: "NAME SAMPLES" for each distinct prefix
awk 'match($0, / [0-9]+$/) {
	n = substr($0, RSTART + 1) + 0
	total += n
	k = split(substr($0, 1, RSTART - 1), f, ";"); p = ""
	for (i = 1; i <= k; i++) { p = p ";" f[i]; v[p] += n; name[p] = f[i] }
} END {
	print "all " total
	for (p in v) print name[p] " " v[p]
}' "$folded" | LC_ALL=C sort >"$tmp/want"

# What the browser drew: the DOM once the page's script has run
"$REPO/devtools/chroot.sh" -- chromium-headless-shell --no-sandbox --disable-gpu \
	--dump-dom "file://$(realpath "$page")" >"$tmp/dom" 2>"$tmp/err"
grep -o '<g [^>]*class="frame"><rect[^>]*></rect><title>[^<]*</title>' "$tmp/dom" |
	sed -e 's/.*<title>//' -e 's/<\/title>$//' \
	    -e 's/^\(.*\) ([0-9.]*%, \([0-9]*\) samples)$/\1 \2/' \
	    -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&quot;/"/g' -e 's/&amp;/\&/g' |
	LC_ALL=C sort >"$tmp/got"

if [ -s "$tmp/got" ] && cmp -s "$tmp/want" "$tmp/got"; then
	echo "$(wc -l <"$tmp/got") frames, $(sed -n 's/^all //p' "$tmp/want") samples drawn as folded"
	exit 0
fi
diff "$tmp/want" "$tmp/got" | head -n 6 | sed 's/^/# /'
[ -s "$tmp/got" ] || sed 's/^/# chromium: /' "$tmp/err" | tail -n 3
echo "$(wc -l <"$tmp/got") frames drawn, $(wc -l <"$tmp/want") in the folded stacks"
exit 1
