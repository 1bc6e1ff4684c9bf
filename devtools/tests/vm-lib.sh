# SPDX-License-Identifier: GPL-2.0
# Sourced by the host-side checks of a VM run (vm-check.sh,
# vm-cross-check.sh): TAP output and the checks every booted kernel gets.

n=0 fail=0
tap() { # tap OK|FAIL description
	n=$((n + 1))
	if [ "$1" = OK ]; then echo "ok $n $2"
	else echo "not ok $n $2"; fail=$((fail + 1)); fi
}

# check_store FILE FORMAT WHAT [OPTION]: libc_walk's chains in $out/FILE
# through the store (devtools/libc-walk/check.sh FILE FORMAT [OPTION])
check_store() {
	local log=$out/${1%.*}-check.log
	if "$REPO/devtools/libc-walk/check.sh" "$out/$1" "$2" ${4:+"$4"} >"$log" 2>&1; then
		tap OK "libc_walk through the store, $3: $(tail -n1 "$log")"
	else
		tap FAIL "libc_walk through the store, $3: $(tail -n1 "$log") (build/vm/${log##*/})"
	fi
}

# check_store_run DESC [OPTION]: the files of
# devtools/libc-walk/store-guest.sh's run in $out: libc_walk's libc none
# before sframe-store add --running and from the store after, and its
# chains with Debian's perf -a, deferred and in the event (check.sh
# OPTION: --switch-in on s390x). Non-zero if there was no recording.
check_store_run() {
	if ! [ -s "$out/store-defer.script" ]; then
		tap FAIL "$1: no recording (build/vm/store.log)"
		return 1
	fi
	if grep -qE ' none +elf .*/libc\.so\.6$' "$out/store-before.txt" &&
	   grep -qE ' ok +store .*/libc\.so\.6$' "$out/store-proc.txt"; then
		tap OK "$1: libc none before the store, then from the store ($(grep -c . "$out/store-list.txt") lines in sframe-store list; added in $(cat "$out/store-add.cost"))"
	else
		tap FAIL "$1: libc not served by the store (build/vm/store-before.txt, store-proc.txt)"
	fi
	check_store store-defer.script script "Debian's perf -a, defer"
	check_store store-event.script script "Debian's perf -a, event" "${2:-}"
}

# check_boot OUT FRAGMENT...: the kernel that ran (OUT/release,
# OUT/config, OUT/console-kernel.log) is the patched 7.2, has every
# option the configuration FRAGMENTs set, and ran the KUnit suites
# sframe and sframe_registry at boot: one line per case, from the KTAP
# in the console log.
check_boot() {
	local out=$1 rel opt klog suite c
	shift
	rel=$(cat "$out/release" 2>/dev/null)
	case $rel in
	7.2*-sframe) tap OK "kernel release is the patched 7.2 ($rel)" ;;
	*) tap FAIL "kernel release '$rel' is not the patched 7.2 (7.2*-sframe)" ;;
	esac

	if ! [ -s "$out/config" ]; then
		tap FAIL "no /proc/config.gz in the guest"
	else
		for opt in $(grep -hE '^CONFIG_[A-Z0-9_]+=' "$@"); do
			if grep -qxF "$opt" "$out/config"; then
				tap OK "running kernel has $opt"
			else
				tap FAIL "running kernel lacks $opt"
			fi
		done
	fi

	klog=$(tr -d '\r' <"$out/console-kernel.log" 2>/dev/null | sed -n 's/^\[[^]]*\] //p')
	for suite in sframe sframe_registry; do
		grep -qE "^(not )?ok [0-9]+ $suite\$" <<<"$klog" ||
			tap FAIL "KUnit suite $suite did not run at boot"
	done
	while IFS= read -r c; do
		c=${c#    }
		case $c in
		"not ok "*) tap FAIL "kunit: $(cut -d' ' -f4- <<<"$c")" ;;
		*) tap OK "kunit: $(cut -d' ' -f3- <<<"$c")" ;;
		esac
	done < <(grep -E '^    (not )?ok [0-9]+ ' <<<"$klog")
}
