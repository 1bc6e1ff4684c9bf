#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh FLAVOUR: build the VM kernel of build/linux for SFRAME_ARCH
# (x86_64 by default, arm64 or s390x).
#   debug  lockdep, KASAN, UBSAN, kmemleak, DEBUG_VM... (VM tests)
#   perf   no debug options (benchmarks)
#   baseline  perf without the feature (what the feature costs)
# Another architecture's flavours are configs/ARCH-FLAVOUR.config.
# The configuration is `make allnoconfig` with configs/vm.config and
# vm-ARCH.config, the flavour's fragment and the feature's options forced
# in; any option of the
# fragments that does not survive is an error. Builds go to the cache
# (out of tree, ccache), so a second build is incremental.
# Prints the path of the kernel image on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: kbuild.sh debug|perf|baseline}
arch=${SFRAME_ARCH:-x86_64}
case $arch in
x86_64) frag=$REPO/devtools/configs/$flavour.config
	image=arch/x86/boot/bzImage cross= ;;
arm64)	frag=$REPO/devtools/configs/$arch-$flavour.config
	image=arch/arm64/boot/Image cross=aarch64-linux-gnu- ;;
s390x)	frag=$REPO/devtools/configs/$arch-$flavour.config
	image=arch/s390/boot/bzImage cross=s390x-linux-gnu- ;;
*)	die "unknown architecture '$arch' (x86_64, arm64, s390x)" ;;
esac
[ -f "$frag" ] || die "no $arch flavour '$flavour' (devtools/configs/${frag##*/})"
# SFRAME_DIRTY=1 builds build/linux as it is, uncommitted edits included,
# to iterate on a change before folding it into the series.
[ "${SFRAME_DIRTY:-0}" = 1 ] || "$REPO/devtools/tree.sh" apply

out=$(kbuild_dir "$arch-$flavour")
mkdir -p "$out"
cfg=$out/sframe-fragment.config
# A fragment that switches the feature off does without its options
feature=$REPO/devtools/configs/feature.config
grep -qx '# CONFIG_UNWIND_USER_SFRAME is not set' "$frag" && feature=/dev/null
# The kernel's name of the architecture
karch=${arch%x}
cat "$REPO/devtools/configs/vm.config" "$REPO/devtools/configs/vm-$arch.config" \
	"$feature" "$frag" >"$cfg.new"

"$REPO/devtools/chroot.sh" /bin/bash -ec '
	out=$1 cfg=$2 tree=$3 arch=$4 cross=$5 image=$6
	make=(make -s -C "$tree" O="$out" ARCH="$arch" CROSS_COMPILE="$cross"
	      CC="ccache ${cross}gcc" HOSTCC="ccache gcc" LOCALVERSION=)
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
	# The warnings as they come, and kept: an objtool warning in the
	# code of the series fails the build, and its object is removed so
	# that the next build warns again
	set -o pipefail
	start=$(date +%s)
	echo "==> building the ${out##*/} kernel" >&2
	"${make[@]}" -j"$(nproc)" "${image##*/}" 2>&1 >&2 | tee "$out/build.log" >&2
	echo "==> built the ${out##*/} kernel in $(($(date +%s) - start)) s" >&2
	bad=$(sed -n "s/^\([^ ]*\.o\): warning: objtool: .*/\1/p" "$out/build.log" |
	      grep -E "^(kernel/unwind/|kernel/bpf/unwind_user|arch/[^/]*/kernel/unwind_user_sframe)" || true)
	if [ -n "$bad" ]; then
		for o in $bad; do rm -f "$out/$o"; done
		echo "ERROR: objtool warnings in the code of the series (above):" $bad >&2
		exit 1
	fi
' kbuild "$out" "$cfg" "$REPO/build/linux" "$karch" "$cross" "$image"
echo "$out/$image"
