#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# py-check.sh FILE: sframe-profile's samples (blocks of "ip sym+off (dso)"
# lines) of `python3 -X perf devtools/bpf/py-spin.py`, and how many of
# those taken in leaf() carry its Python chain through the interpreter:
# from the innermost frame out, py::leaf, then py::middle, py::outer and
# py::<module> of py-spin.py, in that order, interpreter frames between
# them, and then the start of the program in libc
# (__libc_start_call_main or __libc_start_main).  Kernel frames are left
# out.  Prints
#   N of M samples in py::leaf with the Python chain to the program's start (P%)
# and exits 0 if P >= 99 over at least 100 samples.
set -euo pipefail
file=${1:?usage: py-check.sh FILE}
awk '
function base(s) { sub(/\+0x[0-9a-f]+$/, "", s); return s }
function sample(    i, k, want, n, ok) {
	if (!nf) return
	for (i = 1; i <= nf; i++) if (sym[i] ~ /^py::leaf:.*py-spin\.py$/) break
	if (i > nf) { nf = 0; return }
	total++
	n = split("py::middle: py::outer: py::<module>:", want, " ")
	k = 1
	for (i++; i <= nf && k <= n; i++)
		if (index(sym[i], want[k]) == 1) k++
	ok = k > n
	if (ok) {
		ok = 0
		for (; i <= nf; i++) if (sym[i] ~ /^__libc_start(_call)?_main$/) ok = 1
	}
	if (ok) exact++
	else if (bad < 3) { bad++; printf "# not exact:"; for (i = 1; i <= nf && i <= 40; i++) printf " %s", sym[i]; print "" }
	nf = 0
}
/^[ \t]*$/ { sample(); next }
{
	if ($NF ~ /kernel\.kallsyms/) next
	sym[++nf] = base($2)
}
END {
	sample()
	p = total ? 100 * exact / total : 0
	printf "%d of %d samples in py::leaf with the Python chain to the program'"'"'s start (%.1f%%)\n", exact, total, p
	exit !(total >= 100 && p >= 99)
}' "$file"
