#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deep-check.sh FORMAT FILE: the samples of sframe_bpf_deep (the deep
# no-frame-pointer chain of tools/testing/selftests/sframe_bpf) printed
# by a profiler, and how many carry the exact user chain
#   leaf, rec x 21, realign, with_alloca, work, main
# FORMAT is
#   script    blocks of "ip sym+off (dso)" lines, a blank line between
#             samples (sframe-profile, perf script -F ip,sym,dso)
#   bpftrace  bpftrace's map of ustack to count: @[ frames ]: N
#   folded    comm;outer;...;inner N (flame-graph input)
# Kernel frames are left out.  A sample is in the chain when its innermost
# user frame is one of the chain's functions, and exact when its frames
# out to main are the end of the chain: most are in leaf, with the whole
# chain; a few are taken in the descent (page faults of new stack pages)
# or the return, in an outer function, with the chain from there.  One
# without user frames counts against the chain too (a lost stack), unless
# its kernel stack is in execve() or the exit (start-up and exit).  Prints
#   N of M samples in the chain with the exact chain to main (P%)
# and exits 0 if P >= 99 over at least 200 samples.
set -euo pipefail
fmt=${1:?usage: deep-check.sh script|bpftrace|folded FILE}
file=${2:?usage: deep-check.sh script|bpftrace|folded FILE}
awk -v fmt="$fmt" '
function base(s) { sub(/\+0x[0-9a-f]+$/, "", s); sub(/\+[0-9]+$/, "", s); return s }
BEGIN {
	want[1] = "leaf"
	for (i = 2; i <= 22; i++) want[i] = "rec"
	want[23] = "realign"; want[24] = "with_alloca"; want[25] = "work"; want[26] = "main"
}
function sample(count,    i, m, ok, inner) {
	total += count
	# No user frames: lost, unless taken in execve() or exit (the task
	# asked before an exec or an exit gets no deferred stack)
	if (!nf) { if (kx) other += count; else lost += count; kx = 0; return }
	kx = 0
	inner = sym[1]
	if (inner !~ /^(leaf|rec|realign|with_alloca|work)$/) { other += count; nf = 0; return }
	chain += count
	m = 0
	for (i = 1; i <= nf && !m; i++) if (sym[i] == "main") m = i
	ok = m > 0 && m <= 26
	for (i = 1; ok && i <= m; i++) if (sym[i] != want[26 - m + i]) ok = 0
	if (ok) exact += count
	else if (bad < 3) { bad++; printf "# not exact:"; for (i = 1; i <= nf && i <= 30; i++) printf " %s", sym[i]; print "" }
	nf = 0
}
fmt == "script" && /^[ \t]*$/ { if (inblock) sample(1); inblock = 0; next }
fmt == "script" {
	inblock = 1
	if ($NF ~ /kernel\.kallsyms/) { if ($2 ~ /sys_execve|do_exit|sys_exit_group/) kx = 1; next }
	nf++; sym[nf] = base($2); next
}
fmt == "bpftrace" && /^@\[/ { nf = 0; inmap = 1; next }
fmt == "bpftrace" && inmap && /^\]: [0-9]+/ { inmap = 0; sample($2 + 0); next }
fmt == "bpftrace" && inmap { if ($1 != "") { nf++; sym[nf] = base($1) } next }
fmt == "folded" && NF >= 2 && $1 ~ /;/ {
	n = split($1, f, ";"); nf = 0
	for (i = n; i >= 2; i--) {
		if (f[i] ~ /_\[k\]$/) { if (f[i] ~ /sys_execve|do_exit|sys_exit_group/) kx = 1; continue }
		nf++; sym[nf] = f[i]
	}
	sample($NF + 0); next
}
END {
	if (fmt == "script" && inblock) sample(1)
	d = chain + lost
	p = d ? 100 * exact / d : 0
	printf "# %d samples: %d in the chain, %d without a user stack, %d elsewhere\n", total, chain, lost, other
	printf "%d of %d samples in the chain with the exact chain to main (%.1f%%)\n", exact, d, p
	exit !(d >= 200 && p >= 99)
}' "$file"
