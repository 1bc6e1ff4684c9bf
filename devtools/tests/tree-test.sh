#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of devtools/tree.sh on a scratch clone of this repository: applying
# twice changes nothing, and work done in build/linux but not in the
# repository (an edit, a new file, a commit) is reported and never touched.
# TAP output.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/devtools/lib.sh"
tmp=$(mktemp -d /tmp/tree-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
t() { # t OK|FAIL name
	n=$((n + 1))
	if [ "$1" = OK ]; then echo "ok $n tree: $2"; else echo "not ok $n tree: $2"; fail=$((fail + 1)); fi
}

# A copy of the working tree (committed or not) of what tree.sh reads.
mkdir -p "$tmp/repo"
(cd "$src" && git ls-files --cached --others --exclude-standard -- devtools patches Kconfig kernel tools \
	include arch Documentation |
	tar -cf - -T -) | tar -C "$tmp/repo" -xf -
git -C "$tmp/repo" init -q && git -C "$tmp/repo" add -A >/dev/null
tree=$tmp/repo/build/linux
ts=$tmp/repo/devtools/tree.sh

# A small stand-in for the pristine tree: the files the series edits,
# taken from the real one (fetched first if need be), in a cache of its own.
"$src/devtools/tree.sh" apply >/dev/null 2>&1 || { echo "not ok 1 tree: cannot set up build/linux"; exit 1; }
real=$SFRAME_CACHE/linux-7.2-pristine.git
# (the upstream files only: a patch may also edit a new file of an earlier one)
files=$(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$src"/patches/*.patch | sort -u |
	while read -r f; do git -C "$real" cat-file -e "pristine:$f" 2>/dev/null && echo "$f"; done)
mkdir -p "$tmp/src"
git -C "$real" archive pristine .gitignore kernel/unwind $files | tar -C "$tmp/src" -xf -
git -C "$tmp/src" init -q && git -C "$tmp/src" add -A -f &&
	git -C "$tmp/src" -c user.name=t -c user.email=t@t commit -q -m pristine &&
	git -C "$tmp/src" tag pristine
export SFRAME_CACHE=$tmp/cache
mkdir -p "$SFRAME_CACHE"
git clone -q --bare "$tmp/src" "$SFRAME_CACHE/linux-7.2-pristine.git"

"$ts" apply >"$tmp/log" 2>&1 && t OK "apply builds the tree" || { t FAIL "apply builds the tree"; cat "$tmp/log"; }
head1=$(git -C "$tree" rev-parse HEAD 2>/dev/null)
"$ts" apply >"$tmp/log" 2>&1
[ -n "$head1" ] && [ "$(git -C "$tree" rev-parse HEAD)" = "$head1" ] && ! grep -q applying "$tmp/log" &&
	t OK "a second apply changes nothing" || t FAIL "a second apply changes nothing"
n_patches=$(grep -cvE '^\s*(#|$)' "$tmp/repo/patches/series")
[ "$(git -C "$tree" rev-list --count pristine..HEAD 2>/dev/null)" = "$n_patches" ] &&
	t OK "one commit per series entry ($n_patches)" || t FAIL "one commit per series entry"

# An edit to a tracked file is reported and kept.
echo "/* local edit */" >>"$tree/kernel/unwind/user.c"
if ! "$ts" apply >"$tmp/log" 2>&1 && grep -q 'kernel/unwind/user.c' "$tmp/log" &&
   grep -q 'local edit' "$tree/kernel/unwind/user.c"; then
	t OK "an edit in build/linux is reported and kept"
else
	t FAIL "an edit in build/linux is reported and kept"
fi
git -C "$tree" checkout -q -- kernel/unwind/user.c

# So is a new file, even at the top level (Debian's .gitignore hides those).
echo new >"$tree/kernel/unwind/new.c"
if ! "$ts" apply >"$tmp/log" 2>&1 && grep -q 'new.c' "$tmp/log" && [ -f "$tree/kernel/unwind/new.c" ]; then
	t OK "a new file in build/linux is reported and kept"
else
	t FAIL "a new file in build/linux is reported and kept"
fi
rm -f "$tree/kernel/unwind/new.c"

# An upstream edit amended into a commit of build/linux is saved to its
# patch, and applying the saved series from scratch gives the same tree.
# The edit goes into the last commit, so that no later patch of the
# series has to apply on top of it.
last=$(git -C "$tree" rev-parse HEAD)
echo "# saved edit" >>"$tree/kernel/unwind/Makefile"
git -C "$tree" -c user.name=t -c user.email=t@t commit -q -a --fixup="$last"
GIT_SEQUENCE_EDITOR=: git -C "$tree" -c user.name=t -c user.email=t@t rebase -q -i --autosquash pristine
want_tree=$(git -C "$tree" rev-parse 'HEAD^{tree}')
p2=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$tmp/repo/patches/series" | awk 'END { print $1 }')
if "$ts" save >"$tmp/log" 2>&1 && grep -q '^+# saved edit' "$tmp/repo/patches/$p2" &&
   rm "$tree/.git/sframe-applied" && "$ts" apply >"$tmp/log" 2>&1 &&
   [ "$(git -C "$tree" rev-parse 'HEAD^{tree}')" = "$want_tree" ]; then
	t OK "save writes an amended commit back to its patch; re-applying reproduces the tree"
else
	t FAIL "save writes an amended commit back to its patch; re-applying reproduces the tree"
	cat "$tmp/log"
fi

# Files at kernel-tree paths are the final tree's: sframe_repair.c, which
# patch 0004 adds and 0005 edits, is the last commit's; an edit of the
# repository's copy outside 0005's hunks lands in the commit that adds it.
rel=kernel/unwind/sframe_repair.c
if cmp -s "$tmp/repo/$rel" <(git -C "$tree" show "HEAD:$rel") &&
   [ "$(git -C "$tree" log --format=%H pristine..HEAD -- "$rel" | wc -l)" -ge 2 ]; then
	t OK "a file that a later patch edits is the final tree's ($rel)"
else
	t FAIL "a file that a later patch edits is the final tree's ($rel)"
fi
sed -i '2a \ * (an edit)' "$tmp/repo/$rel"
if "$ts" apply >"$tmp/log" 2>&1 && first=$(git -C "$tree" log --format=%H --diff-filter=A -- "$rel" | tail -1) &&
   git -C "$tree" show "$first:$rel" | grep -q '(an edit)' &&
   cmp -s "$tmp/repo/$rel" <(git -C "$tree" show "HEAD:$rel"); then
	t OK "an edit of it lands in the commit that adds it and stays to the end"
else
	t FAIL "an edit of it lands in the commit that adds it and stays to the end"
	cat "$tmp/log"
fi

# A change of the repository is applied; a commit made in build/linux is not lost.
echo "# comment" >>"$tmp/repo/Kconfig"
"$ts" apply >"$tmp/log" 2>&1 && grep -q '^# comment' "$tree/kernel/unwind/Kconfig" &&
	t OK "a change in the repository is applied" || t FAIL "a change in the repository is applied"
git -C "$tree" -c user.name=t -c user.email=t@t commit -q --allow-empty -m local
local_head=$(git -C "$tree" rev-parse HEAD)
if ! "$ts" apply >"$tmp/log" 2>&1 && grep -q 'commits that were not made' "$tmp/log" &&
   [ "$(git -C "$tree" rev-parse HEAD)" = "$local_head" ]; then
	t OK "a commit in build/linux is reported and kept"
else
	t FAIL "a commit in build/linux is reported and kept"
fi
[ $fail = 0 ]
