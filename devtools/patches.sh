#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# patches.sh [--bisect]: export the series to build/patches, prove that it
# applies with `git am` onto pristine 7.2 and is `checkpatch.pl --strict`
# clean. With --bisect, also build every step (a UML KUnit kernel with every
# option of the feature that exists at that step) to prove it bisects.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$REPO/devtools/tree.sh" export
out=$REPO/build/patches
tree=$REPO/build/linux
check=$SFRAME_CACHE/work/am-check
rm -rf "$check"
git clone -q --shared --no-checkout "$SFRAME_CACHE/linux-7.2-pristine.git" "$check"
git -C "$check" checkout -q pristine
git -C "$check" -c user.name=am -c user.email=am@invalid am -q $(ls "$out"/0*-*.patch | grep -v /0000-cover-letter) ||
	die "the series does not apply with git am onto pristine 7.2"
[ "$(git -C "$check" rev-parse 'HEAD^{tree}')" = "$(git -C "$tree" rev-parse 'sframe-series^{tree}')" ] ||
	die "git am of the series gives a different tree than build/linux"
msg "git am onto pristine 7.2: ok ($(ls "$out"/0*-*.patch | grep -vc 0000-cover) patches)"

bad=0
for p in "$out"/0*-*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	# A patch that only adds user space code, tests or the tools of
	# tools/sframe (and its MAINTAINERS line), may use the C library's
	# and libdw's own CamelCase type names (Elf64_Ehdr, Dl_info,
	# Dwarf_Frame): only that check is off for it, and we say so.
	opts=()
	if ! grep '^+++ b/' "$p" | grep -vq -e '^+++ b/tools/testing/' \
		-e '^+++ b/tools/sframe/' -e '^+++ b/tools/bpf/sframe-profile/' \
		-e '^+++ b/MAINTAINERS$'; then
		opts=(--ignore CAMELCASE,MACRO_WITH_FLOW_CONTROL,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE,REPEATED_WORD)
		msg "$(basename "$p"): user space code only, checkpatch --ignore CAMELCASE (C library and libdw type names), MACRO_WITH_FLOW_CONTROL and MACRO_ARG_REUSE (the shim of unsafe_get_user() jumps to its label and takes the type of its pointer, as the kernel's macro does), MACRO_ARG_PRECEDENCE (the shim of struct_size() takes a member name, as the kernel's does), REPEATED_WORD (profile.proto names fields after their types, as pprof's own does: repeated Sample sample)"
	fi
	res=$("$REPO/devtools/chroot.sh" sh -c 'cd "$0" && shift && ./scripts/checkpatch.pl --strict --quiet --no-signoff "$@"' \
		"$tree" x "${opts[@]}" "$p" 2>&1) || true
	if [ -n "$res" ]; then
		echo "$res"
		bad=1
	fi
done
[ $bad = 0 ] || die "checkpatch --strict is not clean (above)"
msg "checkpatch --strict: clean"

if [ "${1:-}" = --bisect ]; then
	msg "bisect check: building the tree after every patch"
	for c in $(git -C "$check" rev-list --reverse pristine..HEAD); do
		git -C "$check" checkout -q "$c"
		msg "  $(git -C "$check" log -1 --format=%s "$c")"
		# Every user-visible option of the feature that exists at this
		# step, with KUnit: what this step can build of the feature.
		kc=$SFRAME_CACHE/work/bisect.kunitconfig
		{
			echo CONFIG_KUNIT=y
			[ -f "$check/kernel/unwind/Kconfig" ] &&
				awk '/^config /{c=$2} /^[[:space:]]+(bool|tristate) "/{if (c) print "CONFIG_" c "=y"}' \
					"$check/kernel/unwind/Kconfig"
		} >"$kc"
		"$REPO/devtools/chroot.sh" sh -ec '
			cd "$0"
			./tools/testing/kunit/kunit.py build --build_dir "$1" --jobs "$(nproc)" \
				--kunitconfig "$2" --make_options "CC=ccache gcc" \
				>"$1.log" 2>&1 || { tail -30 "$1.log"; exit 1; }
		' "$check" "$SFRAME_CACHE/work/bisect-uml" "$kc" || die "the tree does not build at $c"
	done
	msg "bisect check: every patch builds"
fi
rm -rf "$check"
