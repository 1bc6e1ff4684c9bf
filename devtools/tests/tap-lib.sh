# SPDX-License-Identifier: GPL-2.0
# Sourced by the TAP test scripts of devtools/tests: "tap OK|FAIL
# DESCRIPTION" prints the next case's line, numbered from $n (1 unless the
# script set it), and counts the failed ones in $fail.
: "${n:=1}"
fail=0
tap() {
	if [ "$1" = OK ]; then echo "ok $n $2"
	else echo "not ok $n $2"; fail=$((fail + 1)); fi
	n=$((n + 1))
}
