#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel tree in build/linux: pristine Debian linux-source-7.2 as the
# first commit (tag 'pristine'), then one commit per entry of patches/series.
#
#   tree.sh apply     create or update build/linux (idempotent)
#   tree.sh export    write the series with a cover letter to build/patches
#   tree.sh status    say whether build/linux matches the repository
#   tree.sh save      write the commits of build/linux back: after editing
#                     upstream files in build/linux and amending the
#                     series' commits there (git commit --fixup, rebase
#                     --autosquash), regenerate patches/*.patch and copy
#                     changed overlay files back into the repository
#
# Each series line is "PATCH [OVERLAY-PATH...]": PATCH (git format-patch
# form) carries the commit message and the edits to upstream files, the
# overlay paths name the new files of that commit, which live in this
# repository at their kernel-tree paths as the whole series leaves them.
# A later patch that edits such a file carries that edit as a diff, like
# an edit to an upstream file; the file's first version, which the
# commit that adds it gets, is the repository's copy with the later
# diffs reversed. So every file of the repository at a kernel-tree path
# is the final tree's, and apply checks it. Commits get fixed dates, so
# the same inputs always give the same commit ids.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KVER=7.2
TREE=$REPO/build/linux
PRISTINE=$SFRAME_CACHE/linux-$KVER-pristine.git
SERIES=$REPO/patches/series
STATE=$TREE/.git/sframe-applied
export GIT_AUTHOR_NAME="SFrame unwind developers"
export GIT_AUTHOR_EMAIL="sframe-unwind@lists.invalid"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2026-11-01T00:00:00Z" GIT_COMMITTER_DATE="2026-11-01T00:00:00Z"
g() { git -C "$TREE" -c core.hooksPath=/dev/null -c advice.detachedHead=false "$@"; }

# Where an overlay path lands in the kernel tree. Only the feature's
# Kconfig, kept at the repository root so one file shows every option,
# moves; everything else keeps its path.
dest() {
	case $1 in
	Kconfig) echo kernel/unwind/Kconfig ;;
	*) echo "$1" ;;
	esac
}

# series_entries: "patch path..." lines without comments.
series_entries() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES"; }

# overlay_files PATH...: the files below the given overlay paths.
overlay_files() {
	local p
	for p in "$@"; do
		[ -e "$REPO/$p" ] || die "patches/series names $p, which is not in the repository"
		# What git tracks or would track: build products stay out.
		git -C "$REPO" ls-files --cached --others --exclude-standard -- "$p" | sort
	done
}

fingerprint() {
	{
		sha1sum "$0" "$SERIES"
		local patch paths
		while read -r patch paths; do
			sha1sum "$REPO/patches/$patch"
			# shellcheck disable=SC2086
			for f in $(overlay_files $paths); do sha1sum "$REPO/$f"; done
		done < <(series_entries)
	} | sed "s|$REPO/||" | sha1sum | cut -d' ' -f1
}

fetch_pristine() {
	[ -d "$PRISTINE" ] && git -C "$PRISTINE" rev-parse -q --verify pristine >/dev/null && return
	msg "fetching Debian linux-source-$KVER in the sid root (once)"
	local tmp=$SFRAME_CACHE/work/linux-source.tmp
	rm -rf "$tmp" "$PRISTINE"
	mkdir -p "$tmp"
	"$REPO/devtools/chroot.sh" sh -ec "
		cd '$tmp'
		apt-get -q update >/dev/null
		apt-get -q download linux-source-$KVER >/dev/null
		dpkg-deb -x linux-source-${KVER}_*.deb x
		ls linux-source-${KVER}_*.deb | sed 's/^linux-source-${KVER}_//; s/_all.deb//' > version
		tar -C . -xaf x/usr/src/linux-source-$KVER.tar.*
		rm -rf x *.deb
	" || die "could not fetch linux-source-$KVER with apt in the sid root"
	local src=$tmp/linux-source-$KVER ver
	ver=$(cat "$tmp/version")
	msg "importing linux-source-$KVER ($ver) into $PRISTINE"
	# -f: Debian's top-level .gitignore ignores the whole top level.
	git -C "$src" init -q
	git -C "$src" add -A -f
	git -C "$src" commit -q -m "Linux $KVER (Debian linux-source-$KVER $ver), pristine"
	git -C "$src" tag pristine
	git clone -q --bare "$src" "$PRISTINE"
	rm -rf "$tmp"
}

# Debian's tarball ignores everything at the top level of its .gitignore,
# which would hide new files from `git status`; drop that block in the work
# tree only (skip-worktree: the commits never see it).
unignore() {
	g update-index --no-skip-worktree .gitignore
	g checkout -q -- .gitignore
	sed -i '/^# Debian packaging/,$d' "$TREE/.gitignore"
	g update-index --skip-worktree .gitignore
}

# check_clean: refuse to touch a build/linux holding work that is not in
# the repository.
check_clean() {
	local dirty
	dirty=$(g status --porcelain --untracked-files=all | head -20)
	if [ -n "$dirty" ]; then
		echo "$dirty" >&2
		die "build/linux has edits that are not in the repository (listed above).
Copy them to the repository (new files at their kernel paths, edits to upstream
files into their patch in patches/), or discard them with
  git -C build/linux reset --hard && git -C build/linux clean -fdx
then run the command again. Nothing was changed."
	fi
	if [ -f "$STATE" ]; then
		local head
		head=$(g rev-parse HEAD)
		[ "$head" = "$(cut -d' ' -f2 "$STATE")" ] ||
			die "build/linux has commits that were not made from the repository (HEAD $head).
Move them into patches/ and the overlay, or drop them with
  git -C build/linux reset --hard $(cut -d' ' -f2 "$STATE")"
	fi
}

# first_version FILE DEST N TOTAL TMP: the repository's FILE (at DEST in
# the tree) as patch N adds it: the copy with the diffs of patches TOTAL
# down to N+1 (TMP/diff.K, from apply) reversed, for those that touch it
# (TMP/files.K lists the files diff K touches)
first_version() {
	local f=$1 d=$2 n=$3 k=$4 tmp=$5 w
	w=$tmp/first
	rm -rf "$w"
	mkdir -p "$w/$(dirname "$d")"
	cp "$REPO/$f" "$w/$d"
	for ((; k > n; k--)); do
		grep -qxF "$d" "$tmp/files.$k" || continue
		(cd "$w" && git apply -R --include="$d" --whitespace=nowarn "$tmp/diff.$k") ||
			return 1
	done
	cat "$w/$d"
}

# final_check: every overlay file is what the last commit holds
final_check() {
	local patch paths f bad=
	while read -r patch paths; do
		# shellcheck disable=SC2086
		for f in $(overlay_files $paths); do
			cmp -s "$REPO/$f" "$TREE/$(dest "$f")" || bad="$bad $f"
		done
	done < <(series_entries)
	[ -z "$bad" ] || die "files of the repository that the series does not end with:$bad"
}

apply() {
	fetch_pristine
	if ! [ -d "$TREE/.git" ]; then
		msg "checking out the pristine tree into build/linux"
		mkdir -p "$REPO/build"
		git clone -q --shared --no-checkout "$PRISTINE" "$TREE"
		g checkout -q pristine
	fi
	unignore
	local fp
	fp=$(fingerprint)
	if [ -f "$STATE" ] && [ "$(cut -d' ' -f1 "$STATE")" = "$fp" ]; then
		check_clean
		return 0
	fi
	check_clean
	msg "applying patches/series to build/linux"
	g update-index --no-skip-worktree .gitignore
	g checkout -q -- .gitignore
	g checkout -q --detach pristine
	local patch paths n=0 tmp total
	tmp=$(mktemp -d)
	# Every patch's message and diff first: an overlay file's first
	# version needs the diffs of the patches after the one adding it
	while read -r patch paths; do
		n=$((n + 1))
		local pf=$REPO/patches/$patch
		[ -f "$pf" ] || die "patches/series names $patch, which is not in patches/"
		git mailinfo "$tmp/msg.$n" "$tmp/diff.$n" <"$pf" >"$tmp/info.$n"
		: >"$tmp/files.$n"
		[ ! -s "$tmp/diff.$n" ] ||
			git apply --numstat "$tmp/diff.$n" | cut -f3 >"$tmp/files.$n"
	done < <(series_entries)
	total=$n n=0
	while read -r patch paths; do
		n=$((n + 1))
		if [ -s "$tmp/diff.$n" ]; then
			g apply --index --whitespace=nowarn "$tmp/diff.$n" ||
				die "patch $patch does not apply to the tree"
		fi
		local f
		# shellcheck disable=SC2086
		for f in $(overlay_files $paths); do
			local d
			d=$(dest "$f")
			mkdir -p "$TREE/$(dirname "$d")"
			first_version "$f" "$d" "$n" "$total" "$tmp" >"$TREE/$d" ||
				die "$f: the diffs of the patches after $patch do not reverse onto the repository's copy"
			chmod --reference="$REPO/$f" "$TREE/$d"
			g add -f "$d"
		done
		{ sed -n 's/^Subject: //p' "$tmp/info.$n"; echo; cat "$tmp/msg.$n"; } >"$tmp/commit"
		g commit -q --allow-empty -F "$tmp/commit"
	done < <(series_entries)
	rm -rf "$tmp"
	g tag -f sframe-series >/dev/null
	unignore
	final_check
	echo "$fp $(g rev-parse HEAD)" >"$STATE"
	msg "build/linux: pristine + $n patches ($(g rev-parse --short HEAD))"
}

export_series() {
	apply
	local out=$REPO/build/patches
	rm -rf "$out"
	mkdir -p "$out"
	local subj body
	subj=$(sed -n '1p' "$REPO/patches/cover-letter.txt")
	body=$(sed '1,2d' "$REPO/patches/cover-letter.txt")
	# Its figures: make bench's saved results (make results)
	if [[ $body == *@RESULTS@* ]]; then
		local fig
		fig=$(python3 "$REPO/devtools/results.py" --text "$REPO/docs/results") ||
			die "the cover letter's figures: devtools/results.py failed"
		body=${body/@RESULTS@/$fig}
	fi
	g format-patch -q --cover-letter --cover-from-description=auto \
		--base=pristine -o "$out" pristine..sframe-series
	# Fill in the cover letter's blurb.
	local cl=$out/0000-cover-letter.patch
	SUBJ=$subj BODY=$body perl -0pi -e \
		's/\*\*\* SUBJECT HERE \*\*\*/$ENV{SUBJ}/; s/\*\*\* BLURB HERE \*\*\*/$ENV{BODY}/' "$cl"
	msg "series written to build/patches ($(ls "$out" | wc -l) files)"
}

# save: the reverse of apply, for a build/linux whose commits on top of
# 'pristine' correspond one to one to the lines of patches/series.
save() {
	local commits patch paths i=0 c f d excl
	[ -z "$(g status --porcelain --untracked-files=all)" ] ||
		die "build/linux has uncommitted changes: commit them into the series' commits first"
	mapfile -t commits < <(g rev-list --reverse pristine..HEAD)
	local want
	want=$(series_entries | wc -l)
	[ "${#commits[@]}" = "$want" ] ||
		die "build/linux has ${#commits[@]} commits on pristine, patches/series has $want entries"
	while read -r patch paths; do
		c=${commits[$i]}
		i=$((i + 1))
		excl=()
		# shellcheck disable=SC2086
		for f in $(overlay_files $paths); do
			d=$(dest "$f")
			excl+=(":(exclude)$d")
			# the file as the series leaves it; later commits' edits
			# of it stay in their patches
			if g cat-file -e "HEAD:$d" 2>/dev/null; then
				g show "HEAD:$d" >"$REPO/$f"
			fi
		done
		{
			echo "From: $(g log -1 --format='%an <%ae>' "$c")"
			echo "Subject: [PATCH] $(g log -1 --format=%s "$c")"
			echo
			g log -1 --format=%b "$c" | sed -e '${/^$/d}'
			echo "---"
			g show --format= --binary "$c" -- . "${excl[@]}"
		} >"$REPO/patches/$patch"
	done < <(series_entries)
	g tag -f sframe-series >/dev/null
	echo "$(fingerprint) $(g rev-parse HEAD)" >"$STATE"
	msg "saved ${#commits[@]} commits of build/linux to patches/ and the overlay"
}

case ${1:-} in
apply) apply ;;
save) save ;;
export) export_series ;;
status) apply ; msg "build/linux matches the repository" ;;
*) die "usage: tree.sh apply|export|status|save" ;;
esac
