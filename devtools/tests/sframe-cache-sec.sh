#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframe-cache-sec.sh [-n N] B: attacks on the cache of sframe-gen and
# sframe-audit.so (tools/sframe), built in B; one TAP line per case,
# numbered from N (default 1).  Run as root, natively (on the host or in
# the VM; devtools/sframe-gen-check.sh runs it in the sid root), with gcc:
# the victims and the attackers are root and nobody (setpriv), in a
# temporary directory under /tmp, on a program built here without .sframe
# and with a build ID of its own, so that no system cache has its file.
#
#   - sframe-gen: a symbolic link planted under the name of its temporary
#     file in a cache directory another user can write does not get its
#     target overwritten.
#
# Exits non-zero if a case fails.
set -uo pipefail

n=1
if [ "${1:-}" = -n ]; then n=$2; shift 2; fi
B=${1:?usage: sframe-cache-sec.sh [-n N] BUILD_DIR}
B=$(cd "$B" && pwd) || exit 1
[ "$(id -u)" = 0 ] || { echo "sframe-cache-sec.sh: run as root" >&2; exit 1; }

fail=0
tap() { # tap OK|FAIL description
	if [ "$1" = OK ]; then echo "ok $n $2"
	else echo "not ok $n $2"; fail=$((fail + 1)); fi
	n=$((n + 1))
}

T=$(mktemp -d /tmp/sframe-cache-sec.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir "$T/bin"
obj=$T/bin/prog
id=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
echo 'int main(void) { return 0; }' |
	gcc -O2 -Wl,--build-id=0x"$id" -o "$obj" -x c - || { tap FAIL "gcc $obj"; exit 1; }
name=$("$B/sframe-gen" --name "$obj") || { tap FAIL "sframe-gen --name $obj"; exit 1; }

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

# --- sframe-gen ---

# The attacker, nobody, owns the cache directory the victim, root, writes
# to, and links a temporary name a writer could pick, NAME.PID.tmp with
# the PID of sframe-gen (1: the first process of a PID namespace), to a
# file of root's.
d=$T/gen
mkdir "$d" && chown nobody:nogroup "$d"
echo precious >"$T/victim"
cp "$T/victim" "$T/victim.orig"
as_nobody ln -s "$T/victim" "$d/$name.1.tmp"
unshare --pid --fork "$B/sframe-gen" -q --cache "$d" "$obj" 2>"$T/gen.err"
if cmp -s "$T/victim" "$T/victim.orig" && [ -f "$d/$name" ] && ! [ -L "$d/$name" ]; then
	tap OK "sframe-gen: a symbolic link planted at $name.1.tmp in the cache directory is not followed"
else
	tap FAIL "sframe-gen: the symbolic link planted in its cache directory was followed: its target now begins with $(head -c 8 "$T/victim" | tr -c '[:print:]' .)"
fi

[ $fail = 0 ]
