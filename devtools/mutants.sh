#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation check of the tests: `make mutants`.
#
#   mutants.sh [MUTANT...]     (default: every devtools/mutants/*.patch;
#                               a MUTANT is a file name or its NN prefix)
#
# Every mutant is a small unified diff (devtools/mutants/NN-name.patch,
# first line "# mutant: what bug it plants") against any file of the
# repository, or against an upstream file that the series patches and
# that only exists in build/linux (kernel/unwind/user.c). One at a time,
# it is applied to a scratch copy of the repository (or of that file) and
# the VM-free test levels run against it, cheapest first, until one fails
# (the mutant is killed):
#
#   unit   the harness unit binaries (make -C tools/testing/sframe run,
#          with ASan and UBSan: sframe_test, the KUnit cases of
#          sframe_kunit.c and the fault sweeps; unwind_test, the frame
#          loop of build/linux's user.c, given a user.c mutant with
#          UNWIND_MUTANT)
#   fuzz   the fuzz target over the regression corpus fuzz/corpus, each
#          input run once (sframe_fuzz -runs=0: no random fuzzing, so the
#          result is deterministic)
#   kunit  KUnit on UML (kunit.py, kernel/unwind/.kunitconfig)
#   diff   the differential test against libsframe over the corpus
#          (devtools/sframe-diff.sh --inner, one line per file)
#   kunit-x86  the same KUnit suites in an x86_64 kernel under QEMU, with
#          CONFIG_UNWIND_USER_SFRAME (which UML lacks): the cases of the
#          unwinder's own code, such as the exec memo of sframe_repair.c
#
# The order is by measured cost per mutant: unit 1-2 s, fuzz 1 s, kunit
# 12 s (one object rebuilt, the UML kernel relinked and booted), diff
# 75-90 s (three builds, 161 files, s390x under qemu-user), kunit-x86
# (one object rebuilt, the kernel relinked and booted under TCG). Then a table
# "mutant |
# killed by LEVEL" or "survived", and "killed K of N"; exit status
# non-zero if a mutant survived, did not apply or did not build. A check
# to run after changing the tests, not part of `make test`.
# SFRAME_MUTANT_LEVELS="unit fuzz" runs only the levels named (a quick
# look; a mutant that survives them is not proven to survive the rest).
# SFRAME_MUTANT_KUNIT="sframe.*" passes a filter to kunit.py (default:
# every suite of the .kunitconfig).
#
# Before the mutants, every level runs once on the unmutated copy and must
# pass: a level that fails without a mutant would kill them all. The
# harness (unwind_test) and KUnit read build/linux, which must not change
# during the run (`make mutants` brings it up to date first); the run
# fails if it did.
#
# Where things happen, all below $SFRAME_CACHE/work/mutants (the toolchain
# roots see the cache at the same path; their /tmp is private):
#
#   base/    the repository as it is now (tracked and untracked, not
#            ignored, files of the working tree), copied once per run
#   tree/    base/ with the current mutant applied; after each mutant the
#            files it touched are copied back from base/ (with a new mtime,
#            so that make rebuilds what depends on them)
#   ktree/   copies of the build/linux files that mutants change, mutated
#            while their mutant runs
#   build/   every build output: the harness (unit, fuzz), the three
#            sframe_diff builds, the UML and x86_64 KUnit kernels
#            (kunit-um, kunit-x86); nothing is
#            written to the repository, build/linux or the build
#            directories of `make test`
#   logs/    one log per mutant and level
#
# KUnit needs a kernel tree. Copying build/linux per mutant, or a
# worktree of it, would cost a cold UML build (about 10 minutes) for a new
# source path; instead the kernel source stays at $REPO/build/linux and,
# in the private mount namespace of the toolchain root (chroot.sh), the
# feature's files of tree/ (Kconfig, and the kernel/, include/, arch/
# files that exist in build/linux) are bind-mounted over their
# counterparts there when they differ, or when a mutant ever changed them
# (build/kunit-um.touched, for both KUnit builds; for files of
# build/linux only, their copy in ktree/). No other process sees the
# mutated files, build/linux is not written, and as the source path is
# the same, the UML build directory build/kunit-um starts as a copy of the
# one of `make kunit` (and kunit-x86 as one of `make kunit-x86`): a mutant
# costs the objects that depend on the file it changes. The files of
# tree/ and ktree/ are always newer than the objects built from an
# earlier mutant (copied without their mtimes), so nothing stale is
# linked.
#
# shellcheck disable=SC2016 # sh -c scripts: expanded by the shell in the root
# shellcheck disable=SC2094 # a level is given its own log to keep files in
set -uo pipefail
. "$(dirname "$0")/lib.sh"
need_root "the mutation check (it builds and runs in the toolchain roots)"

read -r -a LEVELS <<<"${SFRAME_MUTANT_LEVELS:-unit fuzz kunit diff kunit-x86}"
MDIR=$REPO/devtools/mutants
MW=$SFRAME_CACHE/work/mutants
BASE=$MW/base
TREE=$MW/tree
KTREE=$MW/ktree
B=$MW/build
LOGS=$MW/logs
KB=$B/kunit-um
KB_X86=$B/kunit-x86
# The files mutants ever changed, which the KUnit builds must rebuild
TOUCHED=$KB.touched
CORPUS=$SFRAME_CACHE/work/corpus
T=tools/testing/sframe


# --- the levels: 0 = the tests pass, 1 = they fail (killed), 2 = the
# build failed (a mutant that does not build is broken, not killed) ---

# The patch of the current mutant if it changes user.c (see unwind/Makefile)
MUTANT_USER_C=

level_unit() {
	local mk=(make -s -C "$TREE/$T" B="$B/unit" KSRC="$REPO/build/linux"
		  ${MUTANT_USER_C:+UNWIND_MUTANT="$MUTANT_USER_C"})
	local build=("$B/unit/sframe_test")

	[ -f "$TREE/$T/unwind/Makefile" ] && [ -f "$REPO/build/linux/kernel/unwind/user.c" ] &&
		build+=(unwind)
	in_root "${mk[@]}" "${build[@]}" || return 2
	in_root timeout 600 "${mk[@]}" run || return 1
}

level_fuzz() {
	in_root make -s -C "$TREE/$T" B="$B/fuzz" "$B/fuzz/sframe_fuzz" || return 2
	mkdir -p "$B/fuzz/artifacts"
	# Files, not the directory: libFuzzer runs each once and writes nothing
	in_root sh -c 'cd "$0" && exec "$@"' "$B/fuzz" timeout 600 \
		"$B/fuzz/sframe_fuzz" -timeout=1 -rss_limit_mb=2048 -runs=0 \
		-artifact_prefix="$B/fuzz/artifacts/" "$TREE/$T"/fuzz/corpus/* || return 1
}

# kunit_run BUILD_DIR KUNIT_ARGS...: kunit.py run on build/linux with the
# mutated files bind-mounted over theirs
kunit_run() {
	local kb=$1 binds=() f t rc
	shift
	# The feature's kernel files (the series' new files) in build/linux:
	# bound if they differ from tree/, or if a mutant ever changed them in
	# this build directory, so that their fresh copies (new mtime) make
	# kbuild rebuild what was built from a mutant
	while IFS= read -r f; do
		t=$f
		[ "$f" = Kconfig ] && t=kernel/unwind/Kconfig
		[ -f "$REPO/build/linux/$t" ] || continue
		if ! cmp -s "$TREE/$f" "$REPO/build/linux/$t" ||
		   grep -qxF "$f" "$TOUCHED" 2>/dev/null; then
			binds+=("$TREE/$f" "$REPO/build/linux/$t")
		fi
	done < <(cd "$TREE" && { echo Kconfig; find kernel include arch -type f; } 2>/dev/null)
	# Files of build/linux only, that a mutant changes or changed
	while IFS= read -r f; do
		[ -f "$KTREE/$f" ] && binds+=("$KTREE/$f" "$REPO/build/linux/$f")
	done < <(cd "$KTREE" 2>/dev/null && find . -type f | sed 's|^\./||')
	in_root sh -ec '
		linux=$1 kb=$2 hide=$3; shift 3
		[ "$hide" = 0 ] || mount --bind /dev/null /dev/kvm
		while [ "$1" != -- ]; do mount --bind "$1" "$2"; shift 2; done
		shift
		cd "$linux"
		exec timeout 1800 ./tools/testing/kunit/kunit.py run \
			--kunitconfig "$linux/kernel/unwind/.kunitconfig" \
			--build_dir "$kb" --jobs "$(nproc)" "$@"
	' sh "$REPO/build/linux" "$kb" "$(kunit_hide_kvm x86_64)" "${binds[@]}" -- "$@" \
		${SFRAME_MUTANT_KUNIT:+"$SFRAME_MUTANT_KUNIT"}
}

# kunit_result LOG RC: 0 passed, 1 failed (killed), 2 did not build
kunit_result() {
	cat "$1"
	[ "$2" = 0 ] && return 0
	# A kernel that does not build is a broken mutant, not a killed one
	grep -qE 'Starting KUnit Kernel|Testing complete' "$1" || return 2
	return 1
}

level_kunit() {
	kunit_run "$KB" --make_options "CC=ccache gcc" >"$1.out" 2>&1
	kunit_result "$1.out" $?
}

# KUnit in an x86_64 kernel under QEMU: the cases that need the unwinder
# itself (CONFIG_UNWIND_USER_SFRAME, which UML lacks), such as the exec
# memo of sframe_repair.c
level_kunit-x86() {
	kunit_run "$KB_X86" --arch x86_64 --make_options "CC=ccache gcc" \
		--kconfig_add CONFIG_UNWIND_USER_SFRAME=y >"$1.out" 2>&1
	kunit_result "$1.out" $?
}

level_diff() {
	"$REPO/devtools/sframe-diff.sh" --build "$TREE/$T" \
		"$B/diff/work/sframe-build" || return 2
	# sframe-diff.sh finds its builds in $SFRAME_CACHE/work/sframe-build:
	# point it at ours, so that the builds of `make test` are not touched
	in_root sh -c 'SFRAME_CACHE=$0 exec timeout 1800 "$@"' "$B/diff" \
		"$TREE/devtools/sframe-diff.sh" --inner 1 "$CORPUS"/v* || return 1
}

# --- set-up ---

# snapshot: copy the working tree's files (tracked or not, not ignored)
snapshot() {
	rm -rf "$BASE" "$TREE"
	mkdir -p "$BASE"
	(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -m -xf - -C "$BASE" || die "copying the repository failed"
	cp -a "$BASE" "$TREE"
	# Fresh copies (new mtime) of the build/linux files mutants changed
	rm -rf "$KTREE"
	mkdir -p "$KTREE"
	sort -u "$TOUCHED" 2>/dev/null | while IFS= read -r f; do
		[ ! -e "$BASE/$f" ] && [ -f "$REPO/build/linux/$f" ] &&
			install -D -m 644 "$REPO/build/linux/$f" "$KTREE/$f"
	done
}

# ksrc_state: the state of build/linux (commit and changed files; without
# taking git's index lock or rewriting the index)
ksrc_state() {
	GIT_OPTIONAL_LOCKS=0 git -C "$REPO/build/linux" rev-parse HEAD 2>/dev/null
	GIT_OPTIONAL_LOCKS=0 git -C "$REPO/build/linux" status --porcelain 2>/dev/null | sha1sum
}

# patch_files PATCH: the files a mutant changes
patch_files() { sed -n 's|^+++ b/||p' "$1" | sed 's/\t.*//'; }

# apply PATCH FILE...: apply a mutant, each file in tree/ if it is a file
# of the repository, else in ktree/ (a copy of build/linux's)
apply() {
	local p=$1 f; shift
	local rx=() kx=()
	for f; do
		if [ -e "$BASE/$f" ]; then
			kx+=("--exclude=$f")
		elif [ -f "$REPO/build/linux/$f" ]; then
			install -D -m 644 "$REPO/build/linux/$f" "$KTREE/$f"
			rx+=("--exclude=$f")
			[ "$f" = kernel/unwind/user.c ] && MUTANT_USER_C=$p
		else
			echo "$f: neither in the repository nor in build/linux"
			return 1
		fi
	done
	if [ ${#kx[@]} -gt 0 ]; then (cd "$TREE" && git apply "${rx[@]}" "$p") || return 1; fi
	if [ ${#rx[@]} -gt 0 ]; then (cd "$KTREE" && git apply "${kx[@]}" "$p") || return 1; fi
}

# unapply FILE...: restore the files of a mutant, with a new mtime
unapply() {
	local f
	for f; do
		if [ -e "$BASE/$f" ]; then
			cp "$BASE/$f" "$TREE/$f"
		elif [ -f "$KTREE/$f" ]; then
			cp "$REPO/build/linux/$f" "$KTREE/$f"
		fi
	done
	MUTANT_USER_C=
}

# run_levels NAME: run the levels on tree/ in order; prints the level that
# failed ("killed by L", "broken: L does not build") or "survived"
run_levels() {
	local name=$1 l rc log
	for l in "${LEVELS[@]}"; do
		log=$LOGS/$name.$l.log
		"level_$l" "$log" >"$log" 2>&1
		rc=$?
		case $rc in
		0) ;;
		1) echo "killed by $l"; return ;;
		*) echo "broken: $l does not build"; return ;;
		esac
	done
	echo survived
}

mutants=()
if [ $# = 0 ]; then
	mutants=("$MDIR"/[0-9]*.patch)
else
	for a in "$@"; do
		m=("$MDIR/$a" "$MDIR/$a".patch "$MDIR/$a"-*.patch)
		for f in "${m[@]}"; do [ -f "$f" ] && { mutants+=("$f"); continue 2; }; done
		die "no mutant '$a' in $MDIR"
	done
fi
[ -f "${mutants[0]:-}" ] || die "no mutants in $MDIR"

for l in "${LEVELS[@]}"; do
	declare -F "level_$l" >/dev/null || die "unknown level '$l'"
done
"$REPO/devtools/root.sh" sid || exit 1
if [[ " ${LEVELS[*]} " = *" diff "* ]]; then
	"$REPO/devtools/root.sh" trixie || exit 1
	"$REPO/tools/testing/sframe/corpus/build-corpus.sh" "$CORPUS" >&2 ||
		die "building the corpus failed"
fi
if [[ " ${LEVELS[*]} " = *" kunit"* ]] && [ ! -d "$REPO/build/linux/.git" ]; then
	die "no kernel tree in build/linux: run 'make tree' first"
fi

mkdir -p "$MW"
exec 9>"$MW/lock"
flock -n 9 || die "another mutants.sh is running ($MW/lock)"

start=$(date +%s)
ksrc0=$(ksrc_state)
msg "copying the repository to $TREE"
snapshot
rm -rf "$LOGS"
mkdir -p "$B" "$LOGS"
# The KUnit build directories start as copies of make test's, if any
for l in kunit:um:"$KB" kunit-x86:x86_64:"$KB_X86"; do
	IFS=: read -r level arch dir <<<"$l"
	[[ " ${LEVELS[*]} " = *" $level "* ]] && [ ! -d "$dir" ] || continue
	main_kb=$(kbuild_dir "kunit-$arch")
	if [ -d "$main_kb" ]; then
		msg "$level build directory: starting from a copy of $main_kb"
		cp -a "$main_kb" "$dir"
	fi
done

msg "the levels without a mutant: ${LEVELS[*]}"
for l in "${LEVELS[@]}"; do
	t0=$(date +%s)
	"level_$l" "$LOGS/none.$l.log" >"$LOGS/none.$l.log" 2>&1 ||
		die "level $l fails without a mutant: $LOGS/none.$l.log$([ "$(ksrc_state)" = "$ksrc0" ] ||
			echo " (build/linux changed meanwhile: tree.sh apply?)")"
	msg "  $l: passes ($(($(date +%s) - t0)) s)"
done

rows=() killed=0 bad=0
for p in "${mutants[@]}"; do
	name=$(basename "$p" .patch)
	t0=$(date +%s)
	mapfile -t files < <(patch_files "$p")
	printf '%s\n' "${files[@]}" >>"$TOUCHED"
	if ! apply "$p" "${files[@]}" >"$LOGS/$name.apply.log" 2>&1; then
		res="broken: does not apply"
	else
		res=$(run_levels "$name")
	fi
	unapply "${files[@]}"
	case $res in
	killed*) killed=$((killed + 1)) ;;
	*) bad=1 ;;
	esac
	msg "$name: $res ($(($(date +%s) - t0)) s)"
	rows+=("| $name | $res |")
done

echo
echo "| mutant | result |"
echo "|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "killed $killed of ${#mutants[@]} ($(($(date +%s) - start)) s; logs in $LOGS)"
# The harness and KUnit read build/linux: a change during the run (a
# `make tree` elsewhere) makes the results meaningless
if [ "$(ksrc_state)" != "$ksrc0" ]; then
	echo "build/linux changed during the run: the results above are not reliable, run again"
	exit 1
fi
[ "$bad" = 0 ]
