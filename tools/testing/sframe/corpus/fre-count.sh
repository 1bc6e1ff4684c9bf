#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: ELF...  Prints the largest number of FREs in one function of each
# file's .sframe section (objdump --sframe, binutils >= 2.46), the five
# largest last: the measure behind SFRAME_FDE_MAX_FRES.  Run it in the sid
# root, with devtools/chroot.sh.
set -euo pipefail
for f in "$@"; do
	objdump --sframe "$f" 2>/dev/null | awk -v f="${f##*/}" '
		/func idx/ { if (n > max) { max = n; fn = cur }; n = 0; cur = $0; next }
		/^    [0-9a-f]+ / { n++ }
		END { if (n > max) { max = n; fn = cur }; print max, f, fn }'
done | sort -n | tail -5
