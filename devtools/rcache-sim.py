#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rcache-sim.py STREAM.txt.gz...: simulate rule cache geometries.

Replays the PC streams that devtools/bench-streams-guest.sh recorded
(perf record --call-graph sframe in the VM) through models of the
kernel's per-entry rule cache (kernel/unwind/sframe_rcache.c) and prints
a Markdown table of misses, to choose the cache's geometry from data.

The model follows the kernel: one cache per object (registry entry);
every frame of a sample is one lookup, the innermost at its IP and the
callers one byte into the call (IP - 1); the set of a PC is
hash_64(pc, log2(sets)), as hash_long() on 64-bit.  Objects without
.sframe (Debian's libc and ld.so, /usr) have no cache and are left out.
Each stream is replayed at TRIALS random load addresses per object (a
page-aligned shift, as ASLR gives), because the hash depends on the
address; figures are means over the trials.
"""
import gzip
import random
import sys

GOLDEN_RATIO_64 = 0x61C8864680B583EB
MASK64 = (1 << 64) - 1
TRIALS = 16

# (sets, ways, policy); policy is what a miss evicts in a full set
GEOMETRIES = [
    (32, 1, "-"), (64, 1, "-"), (128, 1, "-"),
    (16, 2, "fifo"), (32, 2, "fifo"),
    (8, 4, "fifo"), (16, 4, "fifo"), (16, 4, "lru"), (16, 4, "random"),
    (32, 4, "fifo"), (8, 8, "fifo"), (16, 8, "fifo"),
]


def hash64(val, bits):
    if bits == 0:
        return 0
    return ((val * GOLDEN_RATIO_64) & MASK64) >> (64 - bits)


def read_stream(path):
    """[[(pc, dso), ...], ...]: the lookups of each sample, in order."""
    samples, cur = [], []
    with gzip.open(path, "rt") as f:
        for line in f:
            w = line.split()
            if not w:
                if cur:
                    samples.append(cur)
                cur = []
                continue
            if len(w) < 2 or w[1].startswith("/usr/") or w[1].startswith("["):
                cur.append(None)	# a frame of an object without .sframe
                continue
            ip = int(w[0], 16)
            cur.append((ip if not cur else ip - 1, w[1]))
    if cur:
        samples.append(cur)
    return [[x for x in s if x] for s in samples]


class Cache:
    def __init__(self, sets, ways, policy, rng):
        self.bits = sets.bit_length() - 1
        self.ways, self.policy, self.rng = ways, policy, rng
        self.sets = [[] for _ in range(sets)]	# most recently used last
        self.next = [0] * sets			# FIFO victim per set

    def lookup(self, pc):
        i = hash64(pc, self.bits)
        s = self.sets[i]
        if pc in s:
            if self.policy == "lru":
                s.remove(pc)
                s.append(pc)
            return True
        if len(s) < self.ways:
            s.append(pc)
        elif self.policy == "lru":
            s.pop(0)
            s.append(pc)
        elif self.policy == "random":
            s[self.rng.randrange(self.ways)] = pc
        else:
            s[self.next[i]] = pc
            self.next[i] = (self.next[i] + 1) % self.ways
        return False


def simulate(samples, sets, ways, policy, seed):
    rng = random.Random(seed)
    shift, caches = {}, {}
    lookups = misses = 0
    for s in samples:
        for pc, dso in s:
            if dso not in shift:
                shift[dso] = rng.randrange(1 << 28) << 12
                caches[dso] = Cache(sets, ways, policy, rng)
            lookups += 1
            misses += not caches[dso].lookup(pc + shift[dso])
    return lookups, misses


def main():
    streams = [(p.split("stream-")[-1].split(".")[0], read_stream(p))
               for p in sys.argv[1:]]
    print("Rule cache simulation (devtools/rcache-sim.py, the PC streams of "
          "perf record --call-graph sframe in the VM, %d random load "
          "addresses each): misses per 100 lookups, and per sample\n" % TRIALS)
    head = "| sets x ways | slots | eviction |"
    rule = "|---|---:|---|"
    for name, samples in streams:
        n = sum(len(s) for s in samples)
        pcs = len({x for s in samples for x in s})
        head += f" {name} % | {name} / sample |"
        rule += "---:|---:|"
        print(f"- {name}: {len(samples)} samples, {n} lookups in objects "
              f"with .sframe, {pcs} distinct PCs (the misses of an "
              f"unbounded cache: {100 * pcs / max(n, 1):.1f} %)")
    print()
    print(head)
    print(rule)
    for sets, ways, policy in GEOMETRIES:
        row = f"| {sets} x {ways} | {sets * ways} | {policy} |"
        for name, samples in streams:
            tl = tm = 0
            for t in range(TRIALS):
                lk, ms = simulate(samples, sets, ways, policy, t)
                tl += lk
                tm += ms
            row += f" {100 * tm / max(tl, 1):.1f} | {tm / TRIALS / max(len(samples), 1):.2f} |"
        print(row)


if __name__ == "__main__":
    main()
