#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframe-audit-objects.sh [-n N] B: which cache file sframe-audit.so
# (tools/sframe, built in B) takes for an object, and what it registers
# from it; one TAP line per case, numbered from N (default 1).  Run as
# root, natively, with gcc, like sframe-cache-sec.sh
# (devtools/sframe-gen-check.sh runs both in the sid root), on programs
# built here with build IDs of their own, so that no system cache has
# their files.  The kernel may lack PR_SFRAME (prctl() then fails with
# EINVAL): what the module chose is read from its debug lines
# ($SFRAME_AUDIT_DEBUG), which name the cache file of each range it
# registers or tries to register.
#
#   - The cache: a file of the unstripped program (same build ID, other
#     size) in $SFRAME_GEN_CACHE does not hide the stripped program's
#     file in /var/cache/sframe-gen; nor does a file under the program's
#     own name that does not match it (another text span in its header);
#     sframe-gen, run by the module, replaces such a file in
#     $SFRAME_GEN_CACHE.
#   - Executable segments: a program with two, a function of its own
#     placed far after the others by the linker, gets one registration
#     per segment, each of the range the segment's mapping has in
#     /proc/self/maps (which the program prints).
#   - The object as mapped: a library that a program dlopen()s, then
#     replaces with a file of the same size and another build ID (renamed
#     over it), is found by the build ID of the library mapped, when the
#     program runs the module's la_objopen() on it (dlopen()ed as a
#     library: the loader would call it before the program could rename
#     anything), with the files of both in the cache.
#
# Files named after its own build IDs go to /var/cache/sframe-gen (made
# 0755 if missing, then removed), and are removed at the end.  Exits
# non-zero if a case fails.  KEEP=1 keeps the temporary directory.
set -uo pipefail

n=1
if [ "${1:-}" = -n ]; then n=$2; shift 2; fi
B=${1:?usage: sframe-audit-objects.sh [-n N] BUILD_DIR}
B=$(cd "$B" && pwd) || exit 1
[ "$(id -u)" = 0 ] || { echo "sframe-audit-objects.sh: run as root" >&2; exit 1; }

. "$(dirname "$0")/tap-lib.sh"

SYS=/var/cache/sframe-gen
made_sys=
ids=()
T=$(mktemp -d /tmp/sframe-audit-objects.XXXXXX) || exit 1
cleanup() {
	local id
	for id in "${ids[@]}"; do rm -f "$SYS/$id"*.sframe; done
	[ -n "$made_sys" ] && rmdir "$SYS" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
chmod 755 "$T"
mkdir -m 700 "$T/run"
if ! [ -e "$SYS" ]; then
	mkdir -p -m 755 "$SYS" || { tap FAIL "mkdir $SYS"; exit 1; }
	made_sys=1
fi

# newid: a build ID of our own, in $id
newid() {
	id=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	ids+=("$id")
}

# audit_run PROGRAM VAR=VALUE...: run PROGRAM with the module, with
# VAR=VALUE... for its whole environment.  Sets rc, its exit status, out,
# its standard output, and main, the module's lines of the program,
# without their prefix, in $T/main (and joined with " | ").
audit_run() {
	local prog=$1
	shift
	out=$(env -i PATH=/usr/bin:/bin LD_AUDIT="$B/sframe-audit.so" \
		SFRAME_AUDIT_DEBUG=1 XDG_RUNTIME_DIR="$T/run" "$@" "$prog" \
		2>"$T/audit.err")
	rc=$?
	sed -n 's/^sframe-audit: (main): //p' "$T/audit.err" >"$T/main"
	main=$(sed ':a;N;$!ba;s/\n/ | /g' "$T/main")
}

# took FILE: whether the module registered, or tried to register, a range
# of the program with the cache file FILE
took() {
	grep -E '^(registered |prctl\(PR_SFRAME\): )' "$T/main" | grep -qF -- "$1"
}

# check_took FILE DESCRIPTION: a TAP line for the last audit_run, which
# had to take FILE
check_took() {
	if [ "$rc" = 0 ] && took "$1"; then
		tap OK "sframe-audit.so: $2 ($main)"
	else
		tap FAIL "sframe-audit.so: $2: exit status $rc, ${main:-no line of the program}"
		sed 's/^/# /' "$T/audit.err"
	fi
}

# misfit SRC DST: DST, a copy of the cache file SRC whose header says
# another text span (its end a page further)
misfit() {
	python3 - "$1" "$2" <<-'EOF'
		import struct, sys
		d = bytearray(open(sys.argv[1], 'rb').read())
		end = struct.unpack_from('=Q', d, 32)[0]
		struct.pack_into('=Q', d, 32, end + 4096)
		open(sys.argv[2], 'wb').write(d)
	EOF
}

# --- the cache ---

# A program and its stripped copy: one build ID, two sizes
mkdir "$T/a" "$T/a1" "$T/a2" "$T/a3"
newid
full=$T/a/full prog=$T/a/prog
echo 'int main(void) { return 0; }' |
	gcc -O2 -g -Wl,--build-id=0x"$id" -o "$full" -x c - || { tap FAIL "gcc $full"; exit 1; }
cp "$full" "$prog" && strip "$prog" || { tap FAIL "strip $prog"; exit 1; }
"$B/sframe-gen" -q --cache "$T/a1" "$full" &&
	"$B/sframe-gen" -q --cache "$SYS" "$prog" || { tap FAIL "sframe-gen --cache"; exit 1; }
pname=$("$B/sframe-gen" --name "$prog") && fname=$("$B/sframe-gen" --name "$full") ||
	{ tap FAIL "sframe-gen --name"; exit 1; }

audit_run "$prog" SFRAME_GEN_CACHE="$T/a1"
check_took "$SYS/$pname" "the stripped program's file in $SYS, past one of the unstripped program in \$SFRAME_GEN_CACHE"

misfit "$SYS/$pname" "$T/a2/$pname" || { tap FAIL "misfit $T/a2/$pname"; exit 1; }
audit_run "$prog" SFRAME_GEN_CACHE="$T/a2"
check_took "$SYS/$pname" "the program's file in $SYS, past one of its name in \$SFRAME_GEN_CACHE that does not match it"

# Nothing in $SYS for the unstripped program: sframe-gen replaces the file
misfit "$T/a1/$fname" "$T/a3/$fname" || { tap FAIL "misfit $T/a3/$fname"; exit 1; }
audit_run "$full" SFRAME_GEN_CACHE="$T/a3" SFRAME_GEN="$B/sframe-gen"
check_took "$T/a3/$fname" "sframe-gen replaces the file in \$SFRAME_GEN_CACHE that does not match the program"

# --- executable segments ---

mkdir "$T/b" "$T/bc"
cat >"$T/b/two.c" <<'EOF'
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* In a section of its own, which the linker puts in a segment of its own */
__attribute__((noinline, section("farcode"))) int far(int x)
{
	return x * 3 + 1;
}

/* Print the executable mappings of the program */
int main(int argc, char **argv)
{
	char exe[PATH_MAX], line[PATH_MAX + 256], perm[8], path[PATH_MAX];
	unsigned long lo, hi;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");

	(void)argv;
	if (n <= 0 || !f)
		return 1;
	exe[n] = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095s", &lo, &hi,
			   perm, path) == 4 && perm[2] == 'x' && !strcmp(path, exe))
			printf("%#lx-%#lx\n", lo, hi);
	fclose(f);
	return far(argc) == 4 ? 0 : 1;
}
EOF
newid
two=$T/b/two
gcc -O2 -Wl,--build-id=0x"$id" -Wl,--section-start=farcode=0x200000 \
	-o "$two" "$T/b/two.c" || { tap FAIL "gcc $two"; exit 1; }
segs=$(readelf -lW "$two" | grep -cE '^ +LOAD .* R E ')
"$B/sframe-gen" -q --cache "$T/bc" "$two" || { tap FAIL "sframe-gen --cache $two"; exit 1; }
audit_run "$two" SFRAME_GEN_CACHE="$T/bc"
want=$(sort <<<"$out")
got=$(sed -nE 's/^registered (0x[0-9a-f]+-0x[0-9a-f]+) .*/\1/p
	s/^prctl\(PR_SFRAME\): .* \((0x[0-9a-f]+-0x[0-9a-f]+), .*/\1/p' "$T/main" | sort)
if [ "$rc" = 0 ] && [ "$segs" = 2 ] && [ "$(wc -l <<<"$want")" = 2 ] && [ "$got" = "$want" ]; then
	tap OK "sframe-audit.so: a program with 2 executable segments: one registration each, of its mapping ($main)"
else
	tap FAIL "sframe-audit.so: a program with $segs executable segments, mapped at $(echo $want): exit status $rc, ${main:-no line of the program}"
	sed 's/^/# /' "$T/audit.err"
fi

# --- the object as mapped ---

mkdir "$T/c" "$T/cc"
cat >"$T/c/replaced.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>

/*
 * replaced MODULE LIB NEW: dlopen() LIB, rename NEW over it, and run the
 * la_objopen() and la_objclose() of the audit module MODULE on LIB's
 * link map
 */
int main(int argc, char **argv)
{
	unsigned int (*objopen)(struct link_map *, Lmid_t, uintptr_t *);
	unsigned int (*objclose)(uintptr_t *);
	struct link_map *map;
	uintptr_t cookie = 0;
	void *lib, *mod;

	if (argc != 4)
		return 2;
	lib = dlopen(argv[2], RTLD_NOW);
	mod = dlopen(argv[1], RTLD_NOW);
	if (!lib || !mod || dlinfo(lib, RTLD_DI_LINKMAP, &map)) {
		fprintf(stderr, "replaced: %s\n", dlerror());
		return 1;
	}
	objopen = (unsigned int (*)(struct link_map *, Lmid_t, uintptr_t *))
		  dlsym(mod, "la_objopen");
	objclose = (unsigned int (*)(uintptr_t *))dlsym(mod, "la_objclose");
	if (!objopen || !objclose || rename(argv[3], argv[2])) {
		perror("replaced");
		return 1;
	}
	objopen(map, LM_ID_BASE, &cookie);
	objclose(&cookie);
	return 0;
}
EOF
gcc -O2 -Wall -o "$T/c/replaced" "$T/c/replaced.c" || { tap FAIL "gcc replaced.c"; exit 1; }
echo 'int f(int x) { return x + 1; }' >"$T/c/f.c"
newid
gcc -O2 -shared -fPIC -Wl,--build-id=0x"$id" -o "$T/c/lib.so" "$T/c/f.c" &&
	newid &&
	gcc -O2 -shared -fPIC -Wl,--build-id=0x"$id" -o "$T/c/new.so" "$T/c/f.c" ||
	{ tap FAIL "gcc f.c"; exit 1; }
"$B/sframe-gen" -q --cache "$T/cc" "$T/c/lib.so" "$T/c/new.so" ||
	{ tap FAIL "sframe-gen --cache lib.so new.so"; exit 1; }
lname=$("$B/sframe-gen" --name "$T/c/lib.so") && nname=$("$B/sframe-gen" --name "$T/c/new.so") ||
	{ tap FAIL "sframe-gen --name"; exit 1; }
# The same size: only the build ID, in memory or in the file, tells them apart
size=$(stat -c %s "$T/c/lib.so")
[ "$(stat -c %s "$T/c/new.so")" = "$size" ] || { tap FAIL "lib.so and new.so differ in size"; exit 1; }
env -i PATH=/usr/bin:/bin SFRAME_AUDIT_DEBUG=1 SFRAME_GEN_CACHE="$T/cc" \
	"$T/c/replaced" "$B/sframe-audit.so" "$T/c/lib.so" "$T/c/new.so" \
	>/dev/null 2>"$T/audit.err"
rc=$?
lib=$(sed -n "s|^sframe-audit: $T/c/lib.so: ||p" "$T/audit.err" | sed ':a;N;$!ba;s/\n/ | /g')
if [ "$rc" = 0 ] && grep -E "^sframe-audit: $T/c/lib.so: (registered |prctl\(PR_SFRAME\): )" "$T/audit.err" |
	grep -qF -- "$T/cc/$lname"; then
	tap OK "sframe-audit.so: a library replaced after dlopen() by one of another build ID: the cache file of the library mapped ($lib)"
else
	tap FAIL "sframe-audit.so: a library replaced after dlopen() by one of another build ID: exit status $rc, ${lib:-no line of the library}; wanted $lname, not $nname"
	sed 's/^/# /' "$T/audit.err"
fi

[ $fail = 0 ]
