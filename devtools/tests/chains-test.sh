#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the chain counters on made-up perf script output, none of
# which needs a VM: devtools/chains-main.awk (samples that reach main),
# devtools/perf-fold.awk (folded stacks for make demo's flame graphs),
# devtools/tests/deep/chains.awk (the deep program's exact chains),
# devtools/libc-walk/check.sh's reading of bpftrace's map and of a
# static program's chains, and
# the pairing of devtools/tests/agree.sh (a DWARF sample and an
# SFrame sample per fault, some lost by the ring buffer). TAP output.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/chains-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$src/devtools/tests/tap-lib.sh"

# chains-main.awk: main and main+0x.. reach main, __libc_start_main not
got=$(printf '%s\n' '	11 leaf' '	12 main' '	13 __libc_start_main' '' \
	'	21 leaf' '	22 __libc_start_main' '' \
	'	31 leaf' '	32 main+0x1f (/x/demo)' '' '	41 domain' |
	awk -f "$src/devtools/chains-main.awk")
if [ "$got" = "4 2" ]; then
	tap OK "chains: chains-main.awk counts 4 samples, 2 of them reaching main"
else
	tap FAIL "chains: chains-main.awk counts 4 samples, 2 reaching main (got '$got')"
fi

# perf-fold.awk: perf script -F comm,ip,sym as folded stacks, kernel
# frames left out, offsets dropped, the same stack counted once
got=$(printf '%s\n' 'demo ' '	11 leaf+0x4' '	12 work' '	13 main' '' \
	'demo' '	ffff1 irq_exit ([kernel.kallsyms])' '	21 leaf+0x9' '	22 work' '	23 main' '' \
	'Web;Content ' '	31 [unknown]' '	32 operator new(unsigned long)' '	33 Ljava/lang/String;' '' \
	'demo ' '	41 work' '	42 main' |
	awk -f "$src/devtools/perf-fold.awk" | tr '\n' '|')
want='Web_Content;Ljava/lang/String:;operator new(unsigned long);[unknown] 1|demo;main;work 1|demo;main;work;leaf 2|'
if [ "$got" = "$want" ]; then
	tap OK "chains: perf-fold.awk folds 4 samples into 3 stacks"
else
	tap FAIL "chains: perf-fold.awk folds 4 samples into 3 stacks (got '$got')"
fi

# libc-walk/check.sh, bpftrace's map of ustack(perf), by count as bpftrace
# prints it: each stack counted as often as the map says; a stack that
# stops inside libc is lost, even printed first; one of libc's start-up
# down to the loader's _dl_start (and its _start, which bpftrace does not
# name) is not
libc=/usr/lib/x86_64-linux-gnu/libc.so.6 w=/x/libc_walk
ld=/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
printf '%s\n' 'Attached 1 probe' '' '@[' "	7f01 msort_with_tmp.part.0+0x41 ($libc)" ']: 2' \
	'@[' "	7f03 __ctype_init+0x2b ($libc)" "	7f04 __libc_early_init+0x1c ($libc)" \
	"	7f81 dl_main+0x1a3 ($ld)" "	7f82 _dl_sysdep_start+0x7f ($ld)" \
	"	7f83 _dl_start+0x5b1 ($ld)" "	7f84 0x7f84 ([unknown])" ']: 16' \
	'@[' "	5501 cmp_recs+0x3 ($w)" "	7f02 qsort_r+0x9 ($libc)" \
	"	5501 sort_phase+0x12 ($w)" "	5502 level3+0x8 ($w)" \
	"	5503 level2+0x8 ($w)" "	5504 level1+0x8 ($w)" "	5505 main+0x30 ($w)" \
	']: 5' '@[' \
	"	7f01 msort_with_tmp.part.0+0x41 ($libc)" "	7f02 qsort_r+0x9 ($libc)" \
	"	5501 sort_phase+0x12 ($w)" "	5502 level3+0x8 ($w)" \
	"	5503 level2+0x8 ($w)" "	5504 level1+0x8 ($w)" "	5505 main+0x30 ($w)" \
	']: 250' >"$tmp/bpftrace.txt"
got=$("$src/devtools/libc-walk/check.sh" "$tmp/bpftrace.txt" bpftrace | tail -n1)
want="255 of 257 samples in qsort or its callback with the exact chain to main (99.22%)"
if [ "$got" = "$want" ]; then
	tap OK "chains: libc-walk/check.sh reads bpftrace's map: $want"
else
	tap FAIL "chains: libc-walk/check.sh reads bpftrace's map: got '$got', want '$want'"
fi

# libc-walk/check.sh static: libc's frames are libc_walk_static's of no
# libc_walk.c function; a stack stopped in a stub is lost, a deferred
# sample's unresolved cookie ([unknown] dso) is not libc's
s=/x/libc_walk_static
{
	for i in 1 2 3; do
		printf '%s\n' ' 296 ' "	41b020 __memcpy_avx_unaligned_erms ($s)" \
			"	404ea1 msort_with_tmp.part.0 ($s)" "	40547f __qsort_r ($s)" \
			"	4019f7 sort_phase ($s)" "	401be9 level3 ($s)" "	401c09 level2 ($s)" \
			"	401c29 level1 ($s)" "	4016aa main ($s)" \
			"	4021c6 __libc_start_call_main ($s)" ''
	done
	printf '%s\n' ' 296 ' "	401030 [unknown] ($s)" '' \
		' 296 ' '	ffffffff81000c4b asm_sysvec_apic_timer_interrupt ([kernel.kallsyms])' \
		'	5ad00000001 [unknown] ([unknown])' '' \
		' 296 ' "	401b00 copy_phase ($s)" "	401be9 level3 ($s)" "	401c09 level2 ($s)" \
		"	401c29 level1 ($s)" "	4016aa main ($s)" ''
} >"$tmp/static.script"
got=$("$src/devtools/libc-walk/check.sh" "$tmp/static.script" static | tail -n1)
want="3 of 4 samples in qsort or its callback with the exact chain to main (75.00%)"
if [ "$got" = "$want" ]; then
	tap OK "chains: libc-walk/check.sh reads a static program's chains: $want"
else
	tap FAIL "chains: libc-walk/check.sh reads a static program's chains: got '$got', want '$want'"
fi

# libc-walk/check.sh --switch-in (s390x, in the event): a sample taken
# while the task was switched in (finish_task_switch in its kernel chain)
# and not exact is left out and counted; without the option it is lost;
# an exact one counts either way
exact() {
	printf '%s\n' ' 376 ' "	7f01 msort_with_tmp.part.0+0x41 ($libc)" \
		"	7f02 qsort_r+0x9 ($libc)" "	5501 sort_phase+0x12 ($w)" \
		"	5502 level3+0x8 ($w)" "	5503 level2+0x8 ($w)" \
		"	5504 level1+0x8 ($w)" "	5505 main+0x30 ($w)" ''
}
{
	exact
	printf '%s\n' ' 376 ' '	3ffe0199430 finish_task_switch.isra.0 ([kernel.kallsyms])' \
		'	3ffe073750e schedule ([kernel.kallsyms])' "	7f10 memcpy+0x10 ($libc)" \
		"	7f01 msort_with_tmp.part.0+0x41 ($libc)" ''
	printf '%s\n' ' 376 ' '	3ffe0199430 finish_task_switch.isra.0 ([kernel.kallsyms])' \
		"	7f01 msort_with_tmp.part.0+0x41 ($libc)" \
		"	7f02 qsort_r+0x9 ($libc)" "	5501 sort_phase+0x12 ($w)" \
		"	5502 level3+0x8 ($w)" "	5503 level2+0x8 ($w)" \
		"	5504 level1+0x8 ($w)" "	5505 main+0x30 ($w)" ''
	exact
} >"$tmp/switch.script"
got=$("$src/devtools/libc-walk/check.sh" "$tmp/switch.script" script --switch-in | tail -n2 | tr '\n' ' ')
want="samples not exact taken while the task was switched in, left out: 1 3 of 3 samples in qsort or its callback with the exact chain to main (100.00%) "
got2=$("$src/devtools/libc-walk/check.sh" "$tmp/switch.script" | tail -n1)
want2="3 of 4 samples in qsort or its callback with the exact chain to main (75.00%)"
if [ "$got" = "$want" ] && [ "$got2" = "$want2" ]; then
	tap OK "chains: libc-walk/check.sh --switch-in leaves out a sample taken while the task was switched in"
else
	tap FAIL "chains: libc-walk/check.sh --switch-in: got '$got' and '$got2', want '$want' and '$want2'"
fi

# libc-walk/check.sh: Debian perf on arm64 repeats the leaf's caller one
# below its return address; dropped, the chain is exact
printf '%s\n' ' 301 ' "	7f02 qsort_r+0x9 ($libc)" "	5500 sort_phase+0x11 ($w)" \
	"	5501 sort_phase+0x12 ($w)" "	5502 level3+0x8 ($w)" "	5503 level2+0x8 ($w)" \
	"	5504 level1+0x8 ($w)" "	5505 main+0x30 ($w)" '' \
	' 301 ' "	7f02 qsort_r+0x9 ($libc)" "	5500 sort_phase+0x11 ($w)" \
	"	5508 sort_phase+0x18 ($w)" "	5502 level3+0x8 ($w)" "	5503 level2+0x8 ($w)" \
	"	5504 level1+0x8 ($w)" "	5505 main+0x30 ($w)" '' >"$tmp/arm64.script"
got=$("$src/devtools/libc-walk/check.sh" "$tmp/arm64.script" | tail -n1)
want="1 of 2 samples in qsort or its callback with the exact chain to main (50.00%)"
if [ "$got" = "$want" ]; then
	tap OK "chains: libc-walk/check.sh drops the frame Debian perf repeats on arm64, only that: $want"
else
	tap FAIL "chains: libc-walk/check.sh drops the frame Debian perf repeats on arm64: got '$got', want '$want'"
fi

# agree.sh: 150 faults of one thread, a DWARF sample (its tracepoint)
# then an SFrame sample each; the DWARF chain's caller is its return
# address - 1. Each fault at its own leaf address, so that a slipped
# pairing compares two faults. LOST drops the DWARF samples of these
# faults.
fake_script() {
	local lost=" $1 " i
	for ((i = 1; i <= 150; i++)); do
		if [[ $lost != *" $i "* ]]; then
			printf '    507 exceptions:page_fault_user: \n'
			printf '\tffffffff81000ac7 asm_exc_page_fault ([kernel.kallsyms])\n'
			printf '\t    %x leaf (/x/prog)\n\t    2000 main (/x/prog)\n\n' $((4096 + i))
		fi
		printf '    507     page-faults/period=1/u: \n'
		printf '\t    %x leaf (/x/prog)\n\t    2001 main (/x/prog)\n\n' $((4096 + i))
	done
}
cat >"$tmp/perf" <<'PERF'
#!/bin/sh
# perf script -i DATA ...: the made-up output kept beside DATA
while [ $# -gt 0 ]; do [ "$1" = -i ] && cat "$2.text"; shift; done
PERF
chmod +x "$tmp/perf"
agree() {
	fake_script "$1" >"$tmp/data.text"
	"$src/devtools/tests/agree.sh" analyze "$tmp/perf" "$tmp/data" /x/prog \
		>"$tmp/out" 2>&1
}
if agree "" && grep -q "compared: 150, agree exactly down to main: 150" "$tmp/out"; then
	tap OK "chains: agree.sh pairs 150 faults, all agree"
else
	tap FAIL "chains: agree.sh pairs 150 faults: $(tail -n1 "$tmp/out")"
fi
if agree "50 51 90" &&
	grep -q "compared: 147, agree exactly down to main: 147" "$tmp/out" &&
	grep -q "samples without their pair (lost by the ring buffer): 3" "$tmp/out"; then
	tap OK "chains: agree.sh leaves out the 3 faults whose DWARF sample was lost, the other 147 agree"
else
	tap FAIL "chains: agree.sh with 3 DWARF samples lost: $(tail -n1 "$tmp/out")"
fi
if ! agree "$(seq -s ' ' 1 2 30)" &&
	grep -q "samples without their pair (lost by the ring buffer): 15" "$tmp/out"; then
	tap OK "chains: agree.sh fails when over 5 % of the faults lost a sample (15 of 135)"
else
	tap FAIL "chains: agree.sh fails when over 5 % of the faults lost a sample: $(tail -n1 "$tmp/out")"
fi

# deep/chains.awk (fp-defer-guest.sh): samples of the deep program, in
# order: one before the section's discovery (spin only), an exact one,
# one with arm64 perf's duplicate caller, one in the program's start-up
# code, one in libc, one in a context switch that stops at d8, one exact,
# one that stops at d4.
deep_frames() {
	local f a=2304
	for f in "$@"; do
		printf '\t%x %s (/x/deep)\n' $a "$f"
		a=$((a + 72))
	done
}
deep_script() {
	deep_frames spin; echo
	deep_frames spin d8 d7 d6 d5 d4 d3 d2 d1 main
	printf '\t3ff12345 __libc_start_call_main (/lib/libc.so.6)\n\n'
	printf '\t8a0 spin (/x/deep)\n\t92f d8 (/x/deep)\n\t930 d8 (/x/deep)\n'
	deep_frames d7 d6 d5 d4 d3 d2 d1 main; echo
	deep_frames _start; echo
	printf '\t3ff12345 memcpy (/lib/libc.so.6)\n\n'
	printf '\t3ffe0199430 finish_task_switch.isra.0 ([kernel.kallsyms])\n'
	printf '\t3ffe0731474 __schedule ([kernel.kallsyms])\n'
	deep_frames spin d8; echo
	deep_frames d2 d1 main; echo
	deep_frames spin d8 d7 d6 d5 d4; echo
}
deep_chains() {
	deep_script | awk -v prog="(/x/deep)" -v s390x="$1" \
		-f "$src/devtools/tests/deep/chains.awk"
}
got=$(deep_chains 1)
if [ "$got" = "3 6 2 1 1" ]; then
	tap OK "chains: deep/chains.awk on s390x: 3 of 6 exact, 2 elsewhere, 1 before discovery, 1 in a context switch"
else
	tap FAIL "chains: deep/chains.awk on s390x: want '3 6 2 1 1', got '$got'"
fi
got=$(deep_chains "")
if [ "$got" = "3 6 2 1 0" ]; then
	tap OK "chains: deep/chains.awk elsewhere: a sample in a context switch is a miss"
else
	tap FAIL "chains: deep/chains.awk elsewhere: want '3 6 2 1 0', got '$got'"
fi

echo "1..$((n - 1))"
[ $fail = 0 ]
