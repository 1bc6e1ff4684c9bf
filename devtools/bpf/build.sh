#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh: build sframe-profile (tools/bpf/sframe-profile of build/linux)
# and the test of its symbols (usym-check) into build/bpf/, in the sid
# root (clang, bpftool, libbpf, libdw).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ "${SFRAME_DIRTY:-0}" = 1 ] || "$REPO/devtools/tree.sh" apply
mkdir -p "$REPO/build/bpf"
"$REPO/devtools/chroot.sh" -- make -s -C "$REPO/build/linux/tools/bpf/sframe-profile" \
	OUTPUT="$REPO/build/bpf/" all check-usym >&2
msg "built build/bpf/sframe-profile and its usym-check"
