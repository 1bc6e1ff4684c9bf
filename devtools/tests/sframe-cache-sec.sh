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
#   - sframe-audit.so: a relative $SFRAME_GEN_CACHE or $XDG_CACHE_HOME is
#     ignored, for the look-up and for the generation.
#   - sframe-audit.so: a cache file that another user owns or can write,
#     in a directory that another user owns or can write (sticky or not),
#     or that is a symbolic link, is refused; nothing is generated into
#     such a directory.
#   - sframe-audit.so: a cache file whose header puts the section far into
#     the file (over a hole), or whose sizes do not add up to the file's,
#     is refused.
#   - sframe-audit.so: under a seccomp filter that kills the process when
#     it creates another (sframe-nofork.c), sframe-gen is not run, when the
#     Seccomp line of /proc/self/status is past its first 4 KiB (1000
#     supplementary groups), or past 64 KiB (12000 groups), or missing (a
#     copy of the file without it mounted over it).
#   - sframe-audit.so: an sframe-gen that hangs is killed after
#     $SFRAME_GEN_TIMEOUT seconds, and the program goes on.
#   - sframe-audit.so: sframe-gen, failing on a read-only cache, is not run
#     again for the same objects until the marks of the failure are an hour
#     old; marks in a directory of another user's do not count.
#
# The program must exit normally in every case; a case whose cache file
# must be refused looks for "registered" or "prctl(PR_SFRAME)" (the
# file was accepted, and the kernel may refuse the registration) at the
# start of one of the module's debug lines of the program.  Each group of
# cases starts with a control, the same run with a file that must be
# accepted.
#
# Exits non-zero if a case fails.  KEEP=1 keeps the temporary directory.
set -uo pipefail

n=1
if [ "${1:-}" = -n ]; then n=$2; shift 2; fi
B=${1:?usage: sframe-cache-sec.sh [-n N] BUILD_DIR}
B=$(cd "$B" && pwd) || exit 1
[ "$(id -u)" = 0 ] || { echo "sframe-cache-sec.sh: run as root" >&2; exit 1; }

. "$(dirname "$0")/tap-lib.sh"

T=$(mktemp -d /tmp/sframe-cache-sec.XXXXXX) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir "$T/bin"
obj=$T/bin/prog
id=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
echo 'int main(void) { return 0; }' |
	gcc -O2 -Wl,--build-id=0x"$id" -o "$obj" -x c - || { tap FAIL "gcc $obj"; exit 1; }
name=$("$B/sframe-gen" --name "$obj") || { tap FAIL "sframe-gen --name $obj"; exit 1; }

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

# The tools where every user can run them
cp "$B/sframe-gen" "$B/sframe-audit.so" "$T/bin/"
gcc -O2 -Wall -o "$T/bin/sframe-nofork" "$(dirname "$0")/sframe-nofork.c" ||
	{ tap FAIL "gcc sframe-nofork.c"; exit 1; }
# A cache file of $obj, root's, that the module accepts
"$B/sframe-gen" -q -o "$T/good" "$obj" || { tap FAIL "sframe-gen -o $obj"; exit 1; }

# The marks of failed generations of root and nobody: here, not in /tmp
mkdir -m 700 "$T/run-root" "$T/run-nobody" "$T/run-hang"
chown nobody "$T/run-nobody"

# audit_run [nobody] VAR=VALUE...: run $obj with the module, its debug
# lines in $T/audit.err, with VAR=VALUE... for its whole environment
# (and XDG_RUNTIME_DIR); as nobody if asked.  Sets rc, the exit status,
# and main, the module's lines of the program (main_lines).
audit_run() {
	local as=() user=root
	if [ "$1" = nobody ]; then
		as=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
		user=nobody
		shift
	fi
	"${as[@]}" env -i PATH=/usr/bin:/bin LD_AUDIT="$T/bin/sframe-audit.so" \
		SFRAME_AUDIT_DEBUG=1 XDG_RUNTIME_DIR="$T/run-$user" "$@" "$obj" \
		>/dev/null 2>"$T/audit.err"
	rc=$?
	main=$(main_lines)
}
# main_lines: the module's debug lines of the program in $T/audit.err,
# without their prefix, joined with " | "
main_lines() {
	sed -n 's/^sframe-audit: (main): //p' "$T/audit.err" | sed ':a;N;$!ba;s/\n/ | /g'
}
accepted() { [[ $main =~ (^|' | ')(registered|prctl\(PR_SFRAME\)) ]]; }

# check_run OK|REFUSED DESCRIPTION: a TAP line for the last audit_run
check_run() {
	local want=$1 desc=$2 got=REFUSED
	accepted && got=OK
	if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
		tap OK "sframe-audit.so: $desc ($main)"
	else
		tap FAIL "sframe-audit.so: $desc: exit status $rc, ${main:-no line of the program}"
		sed 's/^/# /' "$T/audit.err"
	fi
}

# putfile FILE: FILE, a copy of $T/good, and its directories, root's
putfile() { mkdir -p "$(dirname "$1")" && cp "$T/good" "$1"; }

# forge FILE HDR_SIZE AT EXTRA: FILE, a copy of $T/good whose header says
# HDR_SIZE and whose section starts at AT (after a hole), followed by EXTRA
# zero bytes
forge() {
	python3 - "$T/good" "$@" <<-'EOF'
		import struct, sys
		src, dst = sys.argv[1], sys.argv[2]
		hdr, at, extra = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
		d = open(src, 'rb').read()
		old = struct.unpack_from('=I', d, 12)[0]
		h = bytearray(d[:old])
		struct.pack_into('=I', h, 12, hdr)
		f = open(dst, 'wb')
		f.write(h)
		f.seek(at)
		f.write(d[old:] + bytes(extra))
		f.close()
	EOF
}

# cache_case DIR DIR-OWNER DIR-MODE FILE-OWNER FILE-MODE: DIR holding
# $name, a copy of $T/good
cache_case() {
	putfile "$1/$name" && chown "$2" "$1" && chmod "$3" "$1" &&
		chown "$4" "$1/$name" && chmod "$5" "$1/$name"
}

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

# --- relative cache directories ---

mkdir -p "$T/home" "$T/rel"
putfile "$T/abs/$name"
audit_run HOME="$T/home" SFRAME_GEN_CACHE="$T/abs"
check_run OK "an absolute SFRAME_GEN_CACHE: its file is used (control)"
# The same files, relative to the working directory
putfile "$T/rel/cache/$name"
putfile "$T/rel/xdg/sframe-gen/$name"
cd "$T/rel" || exit 1
audit_run HOME="$T/home" SFRAME_GEN_CACHE=cache
check_run REFUSED "a relative SFRAME_GEN_CACHE (cache) is ignored"
audit_run HOME="$T/home" XDG_CACHE_HOME=xdg
check_run REFUSED "a relative XDG_CACHE_HOME (xdg) is ignored"
# Generation: into $HOME's cache, not one relative to the working directory
audit_run HOME="$T/home" SFRAME_GEN="$T/bin/sframe-gen" SFRAME_GEN_CACHE=gen
if [ "$rc" = 0 ] && ! [ -e gen ] && [ -f "$T/home/.cache/sframe-gen/$name" ]; then
	tap OK "sframe-audit.so: with a relative SFRAME_GEN_CACHE (gen), sframe-gen writes to \$HOME/.cache/sframe-gen"
else
	tap FAIL "sframe-audit.so: with a relative SFRAME_GEN_CACHE (gen), sframe-gen wrote: $(find gen "$T/home" -type f 2>/dev/null | tr '\n' ' ')"
fi
cd / || exit 1

# --- who owns and who can write the cache ---

# Root runs the program
cache_case "$T/c0" root 755 root 644
audit_run SFRAME_GEN_CACHE="$T/c0"
check_run OK "root's file in root's directory (control)"
cache_case "$T/c1" root 755 nobody 644
audit_run SFRAME_GEN_CACHE="$T/c1"
check_run REFUSED "a file owned by another user (nobody) is refused"
cache_case "$T/c2" nobody 755 root 644
audit_run SFRAME_GEN_CACHE="$T/c2"
check_run REFUSED "a directory owned by another user (nobody) is refused"
cache_case "$T/c3" root 775 root 644
audit_run SFRAME_GEN_CACHE="$T/c3"
check_run REFUSED "a group-writable directory (0775) is refused"
cache_case "$T/c4" root 1777 root 644
audit_run SFRAME_GEN_CACHE="$T/c4"
check_run REFUSED "a sticky world-writable directory (1777) is refused"
cache_case "$T/c5" root 755 root 664
audit_run SFRAME_GEN_CACHE="$T/c5"
check_run REFUSED "a group-writable file (0664) is refused"
cache_case "$T/c6" root 755 root 646
audit_run SFRAME_GEN_CACHE="$T/c6"
check_run REFUSED "a world-writable file (0646) is refused"
mkdir "$T/c7" && ln -s "$T/good" "$T/c7/$name"
audit_run SFRAME_GEN_CACHE="$T/c7"
check_run REFUSED "a symbolic link to a good file is refused"
# A world-writable cache directory gets nothing generated
mkdir -m 777 "$T/c8"
audit_run HOME="$T/home" SFRAME_GEN="$T/bin/sframe-gen" SFRAME_GEN_CACHE="$T/c8"
if [ "$rc" = 0 ] && [ -z "$(ls -A "$T/c8")" ] && ! accepted; then
	tap OK "sframe-audit.so: nothing is generated into a world-writable cache directory"
else
	tap FAIL "sframe-audit.so: generated into a world-writable cache directory: exit status $rc, $main"
fi

# Nobody runs the program: its own files and root's are good
cache_case "$T/n0" nobody 755 nobody 644
audit_run nobody SFRAME_GEN_CACHE="$T/n0"
check_run OK "nobody's file in nobody's directory, for nobody (control)"
cache_case "$T/n1" nobody 755 root 644
audit_run nobody SFRAME_GEN_CACHE="$T/n1"
check_run OK "root's file in nobody's directory, for nobody (control)"
cache_case "$T/n2" nobody 755 4242 644
audit_run nobody SFRAME_GEN_CACHE="$T/n2"
check_run REFUSED "a file of user 4242 in nobody's directory, for nobody, is refused"
# What sframe-gen generates for nobody passes the rules
mkdir "$T/n3" && chown nobody "$T/n3"
audit_run nobody HOME="$T/n3" SFRAME_GEN="$T/bin/sframe-gen"
check_run OK "the file sframe-gen generates for nobody in \$HOME/.cache/sframe-gen (control)"

# --- forged headers ---

mkdir "$T/f0" "$T/f1" "$T/f2" "$T/f3"
forge "$T/f0/$name" 120 120 0
audit_run SFRAME_GEN_CACHE="$T/f0"
check_run OK "a copy of a good file made by the forger (control)"
# What every process would populate, as private writable pages: 16 MiB
# here, where up to 4 GiB would do
forge "$T/f1/$name" $((16 << 20)) $((16 << 20)) 0
audit_run SFRAME_GEN_CACHE="$T/f1"
check_run REFUSED "a header putting the section at 16 MiB, over a hole, is refused"
forge "$T/f2/$name" 120 120 4096
audit_run SFRAME_GEN_CACHE="$T/f2"
check_run REFUSED "a file longer than its header's sizes is refused"
forge "$T/f3/$name" $((0xfffff000)) 120 0
audit_run SFRAME_GEN_CACHE="$T/f3"
check_run REFUSED "a header putting the section at 4 GiB - 4 KiB, past the end of the file, is refused"

# --- seccomp ---

# nofork_run DIR OPTION...: audit_run, as root, through sframe-nofork with
# OPTION..., with sframe-gen to generate into DIR.  LD_AUDIT is set for the
# program only, not for sframe-nofork, which runs before the filter.
nofork_run() {
	local d=$1
	shift
	# (the braces' redirection: no "Bad system call" from bash)
	{
		env -i PATH=/usr/bin:/bin SFRAME_AUDIT_DEBUG=1 \
			SFRAME_GEN="$T/bin/sframe-gen" SFRAME_GEN_CACHE="$d" \
			XDG_RUNTIME_DIR="$T/run-root" "$T/bin/sframe-nofork" "$@" \
			env LD_AUDIT="$T/bin/sframe-audit.so" "$obj" \
			>/dev/null 2>"$T/audit.err"
	} 2>/dev/null
	rc=$?
	main=$(main_lines)
}

# check_nofork DESCRIPTION DIR: a TAP line for the last nofork_run, in
# which nothing was to be generated into DIR
check_nofork() {
	if [ "$rc" = 0 ] && [ -n "$main" ] && ! [ -e "$2/$name" ]; then
		tap OK "sframe-audit.so: $1: sframe-gen is not run ($main)"
	else
		tap FAIL "sframe-audit.so: $1: exit status $rc$( ((rc > 128)) && echo " (signal $((rc - 128)))"), ${main:-no line of the program}"
		sed 's/^/# /' "$T/audit.err"
	fi
}

nofork_run "$T/s0" -n -g 1000
if [ "$rc" = 0 ] && [ -f "$T/s0/$name" ] && accepted; then
	tap OK "sframe-audit.so: without a filter, with 1000 groups: sframe-gen runs (control; $main)"
else
	tap FAIL "sframe-audit.so: without a filter, with 1000 groups: exit status $rc, ${main:-no line of the program}"
	sed 's/^/# /' "$T/audit.err"
fi
nofork_run "$T/s1" -g 1000
check_nofork "under a kill-on-clone filter, with 1000 groups (Seccomp line past 4 KiB)" "$T/s1"
nofork_run "$T/s2" -g 12000
check_nofork "under a kill-on-clone filter, with 12000 groups (Seccomp line past 64 KiB)" "$T/s2"
grep -v '^Seccomp' /proc/self/status >"$T/status"
nofork_run "$T/s3" -s "$T/status"
check_nofork "under a kill-on-clone filter, with no Seccomp line in /proc/self/status" "$T/s3"

# --- time limit ---

# A generator that never ends (for 30 s), and says its PIDs
cat >"$T/bin/hang" <<EOF
#!/bin/sh
echo \$\$ >>"$T/hang.pids"
exec sleep 30
EOF
chmod 755 "$T/bin/hang"
start=$(date +%s)
{
	timeout 15 env -i PATH=/usr/bin:/bin LD_AUDIT="$T/bin/sframe-audit.so" \
		SFRAME_AUDIT_DEBUG=1 SFRAME_GEN="$T/bin/hang" SFRAME_GEN_TIMEOUT=1 \
		SFRAME_GEN_CACHE="$T/h" XDG_RUNTIME_DIR="$T/run-hang" "$obj" \
		>/dev/null 2>"$T/audit.err"
} 2>/dev/null
rc=$? secs=$(($(date +%s) - start)) left=
while read -r p; do
	kill -0 "$p" 2>/dev/null && left+=" $p"
done <"$T/hang.pids"
if [ "$rc" = 0 ] && [ "$secs" -le 10 ] && [ -s "$T/hang.pids" ] && [ -z "$left" ]; then
	tap OK "sframe-audit.so: a hanging sframe-gen is killed after SFRAME_GEN_TIMEOUT=1 s ($(wc -l <"$T/hang.pids") runs, $secs s)"
else
	tap FAIL "sframe-audit.so: a hanging sframe-gen: exit status $rc after $secs s, still running:${left:- none}"
fi
# Ours, if still there
for p in $left; do kill "$p" 2>/dev/null; done

# --- marks of failed generations ---

# nobody's read-only cache, and an sframe-gen that counts its runs
mkdir -m 555 "$T/ro" && chown nobody "$T/ro"
touch "$T/calls" && chown nobody "$T/calls"
cat >"$T/bin/countgen" <<EOF
#!/bin/sh
echo "\$@" >>"$T/calls"
exec "$T/bin/sframe-gen" "\$@"
EOF
chmod 755 "$T/bin/countgen"
calls=()
for i in 1 2 3; do
	# The third run: with the marks two hours old
	[ $i = 3 ] && touch -d '-2 hours' "$T/run-nobody/sframe-gen/"* 2>/dev/null
	audit_run nobody SFRAME_GEN="$T/bin/countgen" SFRAME_GEN_CACHE="$T/ro"
	calls+=("$(wc -l <"$T/calls")")
done
c=${calls[0]}
if [ "$c" -gt 0 ] && [ "${calls[1]}" = "$c" ] && [ "${calls[2]}" = $((2 * c)) ] &&
   [ "$rc" = 0 ]; then
	tap OK "sframe-audit.so: sframe-gen on a read-only cache: $c runs, then none, then $c again with the marks 2 hours old"
else
	tap FAIL "sframe-audit.so: sframe-gen on a read-only cache: runs after each of 3 starts: ${calls[*]}, not $c $c $((2 * c)); exit status $rc"
fi
# Marks in a directory of another user's (nobody's), fresh, for root
mkdir -p "$T/run-evil/sframe-gen" && chown -R nobody "$T/run-evil"
touch "$T/run-evil/sframe-gen/$name"
audit_run SFRAME_GEN="$T/bin/sframe-gen" SFRAME_GEN_CACHE="$T/m1" XDG_RUNTIME_DIR="$T/run-evil"
if [ "$rc" = 0 ] && [ -f "$T/m1/$name" ] && accepted; then
	tap OK "sframe-audit.so: marks of failure in another user's directory are ignored (control; $main)"
else
	tap FAIL "sframe-audit.so: marks of failure in another user's directory: exit status $rc, ${main:-no line of the program}"
fi

[ $fail = 0 ]
