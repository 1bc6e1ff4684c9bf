# SPDX-License-Identifier: GPL-2.0
#
# awk -f perf-fold.awk [FILE]: perf script -F comm,ip,sym output as folded
# stacks, "comm;outermost;...;innermost COUNT", one line per distinct
# stack, sorted: the input of sframe-profile's flamegraph-folded (make
# demo's flame graphs of the sframe and dwarf runs).
#
# The input is blocks, one per sample and a blank line between: a line
# with the command's name (perf prints it first, not indented, and a
# space after it; a ';' in it becomes '_'), then a
# frame per indented line, innermost first, "ip sym" or "ip sym+0xoff"
# (a ';' in sym becomes ':'); a frame without a symbol is [unknown].  Kernel frames are left out
# when their symbol is followed by "([kernel.kallsyms])".
function flush(    s, i) {
	if (comm == "") return
	s = comm
	for (i = nf; i >= 1; i--) s = s ";" fr[i]
	count[s]++
	comm = ""; nf = 0
}
/^[ \t]*$/ { flush(); next }
/^[^ \t]/ { flush(); comm = $0; sub(/[ \t]+$/, "", comm); gsub(/;/, "_", comm); next }
{
	if ($0 ~ /\(\[kernel\.kallsyms\]\)/) next
	# The symbol: what follows the address (it may hold spaces)
	sym = $0
	sub(/^[ \t]*[0-9a-f]+[ \t]*/, "", sym)
	sub(/\+0x[0-9a-f]+$/, "", sym)
	gsub(/;/, ":", sym)
	fr[++nf] = sym == "" ? "[unknown]" : sym
}
END {
	flush()
	for (s in count) print s " " count[s] | "LC_ALL=C sort"
}
