#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# results.sh: `make results`. Saves the last results of make bench (x86_64),
# make bench ARCH=arm64 and ARCH=s390 (build/bench/[ARCH/]results.{json,md})
# as docs/results/ARCH.{json,md}, and remakes README's headline table from
# them (devtools/results.py). An architecture whose benchmark has not run
# keeps its saved results. The test level machinery checks that README's
# table is what docs/results/ gives.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dst=$REPO/docs/results
mkdir -p "$dst"
for arch in x86_64 arm64 s390x; do
	src=$REPO/build/bench
	[ "$arch" = x86_64 ] || src=$src/$arch
	[ -f "$src/results.json" ] || continue
	cp "$src/results.json" "$dst/$arch.json"
	cp "$src/results.md" "$dst/$arch.md"
	msg "saved $arch: docs/results/$arch.json, docs/results/$arch.md"
done
python3 "$REPO/devtools/results.py" "$dst" "$REPO/README.md"
msg "README.md: headline table remade from docs/results/"
