#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh FLAVOUR: build the x86_64 VM kernel of build/linux.
#   debug  lockdep, KASAN, UBSAN, kmemleak, DEBUG_VM... (VM tests)
#   perf   no debug options (benchmarks)
#   baseline  perf without the feature (what the feature costs)
# The configuration is `make allnoconfig` with configs/vm.config, the
# flavour's fragment and the feature's options forced in; any option of the
# fragments that does not survive is an error. Builds go to the cache
# (out of tree, ccache), so a second build is incremental.
# Prints the path of the kernel image on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: kbuild.sh debug|perf|baseline}
frag=$REPO/devtools/configs/$flavour.config
[ -f "$frag" ] || die "no flavour '$flavour' (devtools/configs/$flavour.config)"
# SFRAME_DIRTY=1 builds build/linux as it is, uncommitted edits included,
# to iterate on a change before folding it into the series.
[ "${SFRAME_DIRTY:-0}" = 1 ] || "$REPO/devtools/tree.sh" apply

out=$(kbuild_dir "x86_64-$flavour")
mkdir -p "$out"
cfg=$out/sframe-fragment.config
# A fragment that switches the feature off does without its options
feature=$REPO/devtools/configs/feature.config
grep -qx '# CONFIG_UNWIND_USER_SFRAME is not set' "$frag" && feature=/dev/null
cat "$REPO/devtools/configs/vm.config" "$feature" "$frag" >"$cfg.new"

"$REPO/devtools/chroot.sh" /bin/bash -ec '
	out=$1 cfg=$2 tree=$3
	make=(make -s -C "$tree" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION=)
	if ! cmp -s "$cfg.new" "$cfg" || ! [ -f "$out/.config" ]; then
		echo "==> configuring (allnoconfig + fragments)" >&2
		KCONFIG_ALLCONFIG="$cfg.new" "${make[@]}" allnoconfig >/dev/null
		bad=0
		while IFS= read -r line; do
			case $line in
			"# CONFIG_"*" is not set")
				opt=${line#\# }; opt=${opt%% *}
				if grep -q "^$opt=" "$out/.config"; then
					echo "config: $opt should be off but is $(grep "^$opt=" "$out/.config")" >&2; bad=1
				fi ;;
			CONFIG_*)
				if ! grep -qxF "$line" "$out/.config"; then
					echo "config: $line did not survive (dependencies?)" >&2; bad=1
				fi ;;
			esac
		done < "$cfg.new"
		[ $bad = 0 ] || { echo "ERROR: the configuration fragments do not apply" >&2; exit 1; }
		mv "$cfg.new" "$cfg"
	fi
	"${make[@]}" -j"$(nproc)" bzImage >&2
' kbuild "$out" "$cfg" "$REPO/build/linux"
echo "$out/arch/x86/boot/bzImage"
