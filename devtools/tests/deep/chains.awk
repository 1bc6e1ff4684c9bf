# SPDX-License-Identifier: GPL-2.0
#
# chains.awk: counts the user chains of the deep program in perf script
# output (-F ip,sym,dso; fp-defer-guest.sh), and prints
# "exact total other lead switch":
#   total	samples whose first user frame is in prog (-v prog="(PATH)")
#		and one of spin d8 ... d1 main;
#   exact	those whose user chain from there is the rest of
#		spin d8 ... d1 main;
#   other	the rest: the kernel's exec of PROG, the dynamic loader, libc,
#		PROG's own start-up code;
#   lead	samples in total, not exact, before the first exact one whose
#		first frame is spin or d8 ... d1;
#   switch	with -v s390x=1, the later samples in total, not exact, taken
#		in finish_task_switch().
# Debian's perf on arm64 adds to a --call-graph fp chain the caller of the
# leaf that it finds with DWARF from LR, one below the same return address
# in the kernel's chain: that duplicate is dropped.
BEGIN {
	nw = split("spin d8 d7 d6 d5 d4 d3 d2 d1 main", w, " ")
	for (i = 1; i <= nw; i++)
		inwant[w[i]] = 1
}
function hex(s,  v, i) {
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function flush(  i, j, sw) {
	sw = inswitch
	inswitch = 0
	if (!n)
		return
	if (dso1 != prog || !(f[1] in inwant)) {
		other++
		n = 0
		return
	}
	total++
	if (n > 2 && f[2] == f[3] && hex(a[2]) + 1 == hex(a[3])) {
		for (i = 2; i < n; i++) {
			f[i] = f[i + 1]
			a[i] = a[i + 1]
		}
		n--
	}
	for (i = 1; i <= nw && w[i] != f[1]; i++)
		;
	for (j = 1; i <= nw && j <= n && f[j] == w[i]; i++)
		j++
	if (i > nw) {
		exact++
		if (f[1] != "main")
			seen = 1
	} else if (!seen) {
		lead++
	} else if (s390x && sw) {
		switched++
	}
	n = 0
}
/^[[:space:]]*$/ { flush(); next }
/kernel\.kallsyms/ { if ($2 ~ /^finish_task_switch/) inswitch = 1; next }
{ a[++n] = $1; f[n] = $2; if (n == 1) dso1 = $NF }
END { flush(); printf "%d %d %d %d %d\n", exact, total, other, lead, switched }
