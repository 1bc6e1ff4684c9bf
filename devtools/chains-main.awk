# SPDX-License-Identifier: GPL-2.0
#
# awk -f chains-main.awk [FILE]: the samples of a call
# chain listing and those whose chain reaches main().
#
# The input is blocks of lines, one block per sample and a blank line
# between, a frame per line: "ip sym ..." as perf script -F ip,sym prints
# it, or "ip sym+0xoff (object)" as sframe-profile does.  A sample
# reaches main() if one of its frames is main itself: not
# __libc_start_main, not a symbol that merely contains the name.
#
# Prints "SAMPLES COMPLETE".  The one
# counter of the demo and bench guests (devtools/demo/record-guest.sh,
# devtools/demo/fp-defer-guest.sh, devtools/bpf/bench-guest.sh); the
# checkers of exact chains are devtools/bpf/deep-check.sh,
# devtools/tests/deep/fp-defer-guest.sh, devtools/libc-walk/check.sh and
# devtools/tests/agree.sh.
BEGIN { RS = ""; FS = "\n" }
{
	n++
	for (i = 1; i <= NF; i++) {
		split($i, f, " ")
		if (f[2] == "main" || f[2] ~ /^main\+/) {
			k++
			break
		}
	}
}
END { printf "%d %d\n", n, k }
