#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (started by vm.sh): run CMD, then save dmesg and a
# kmemleak scan of what CMD left behind to OUTDIR for the splat check.
out=$1
shift
kml=/sys/kernel/debug/kmemleak
[ -d /sys/kernel/debug/kmemleak ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
# Forget what boot left behind: only CMD's leaks count.
[ -w $kml ] && echo clear >$kml
echo "vm-guest: running: $*"
sh -c "$*"
rc=$?
echo "vm-guest: exit status $rc"
if [ -w $kml ]; then
	echo scan >$kml
	cat $kml >"$out/kmemleak.txt"
fi
dmesg >"$out/dmesg.txt"
echo $rc >"$out/rc"
sync
# Without ACPI there is no power-off: reboot, which QEMU (-no-reboot)
# turns into its exit.
echo b >/proc/sysrq-trigger
exit $rc
