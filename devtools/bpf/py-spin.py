# SPDX-License-Identifier: GPL-2.0
#
# py-spin.py SECONDS: Python code three calls deep that spins for SECONDS,
# for sframe-profile's Python test (devtools/bpf/guest.sh): run as
# `python3 -X perf`, each Python function has a trampoline, named in the
# perf map, py::NAME:FILE, between the interpreter's frames.
import sys
import time


def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def middle(n):
    return leaf(n) + 1


def outer(secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        middle(20000)


outer(float(sys.argv[1]))
