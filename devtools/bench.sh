#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: the benchmark of issues 5 and 16 (not a test). In the perf
# (non-debug) VM kernel under QEMU -icount shift=0 (guest time counts
# instructions, so figures repeat from run to run), in one boot:
#   - unwind cost per frame, SFrame vs frame pointers, on the same stacks
#     (unwind_bench, built with both), depths 8/32/128, .sframe resident
#     (warm), its page table entries dropped before every unwind (cold),
#     and also evicted from the page cache (evict); BENCH_RUNS runs;
#   - lookup scaling: programs of 10, 1000 and 100000 functions;
#   - perf record of the demo workload with sframe, fp and dwarf at the same
#     sampling period: perf.data bytes, slowdown, complete chains;
#   - user stacks for BPF on the demo workload (devtools/bpf/bench-guest.sh):
#     cost per sample and complete chains of sframe-profile deferred and in
#     the event (SFrame, frame pointers) against perf --call-graph sframe;
#   - system-wide profiling at 99 and 999 Hz (devtools/bpf/overhead-guest.sh):
#     the demo workload's extra time under sframe-profile -a and perf
#     record -a --call-graph sframe, on one CPU;
#   - the PC streams of the rule cache simulation (devtools/rcache-sim.py);
# plus the walker's native cost outside emulation (bench-walker.sh: ns and
# callgrind instructions per lookup). Writes build/bench/results.json and
# build/bench/results.md. SFRAME_VM_QEMU_OPTS= (empty) measures wall time
# of the emulation instead; then only ratios from one run mean something.
#
# SFRAME_ARCH=arm64 or s390x (make bench ARCH=arm64, ARCH=s390): the
# unwinder's parts only (unwind cost per frame and lookup scaling, with
# and without the rule cache) in that VM's perf flavour
# (configs/ARCH-perf.config), same -icount, into build/bench/ARCH/.
# On s390x "fp" is the back chain, s390's frame-pointer walk.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_root "the benchmark (toolchain root, VM)"

arch=${SFRAME_ARCH:-x86_64}
case $arch in
x86_64) out=$REPO/build/bench ;;
arm64)	out=$REPO/build/bench/arm64 ;;
s390x)	out=$REPO/build/bench/s390x ;;
*)	die "no benchmark for $arch" ;;
esac
mkdir -p "$out"
# bench.sh --report: only remake results.json/.md from the last run's files
if [ "${1:-}" != --report ]; then
[ "${SFRAME_DIRTY:-0}" = 1 ] || "$REPO/devtools/tree.sh" apply
"$REPO/devtools/kbuild.sh" perf >/dev/null
"$REPO/devtools/selftests.sh"
if [ "$arch" = x86_64 ]; then
	"$REPO/devtools/perf.sh" >/dev/null
	"$REPO/devtools/demo/build.sh" "$REPO/build/demo"
	"$REPO/devtools/bpf/build.sh"
	# zstd for the PC streams of the rule cache simulation
	agree_zstd
fi

msg "benchmark in the $arch VM (perf kernel, QEMU -icount shift=0)"
# Guest time advances with the instructions executed: a guest "ns" is one
# instruction, and the figures repeat from run to run (see bench-mmap.sh)
SFRAME_VM_QEMU_OPTS=${SFRAME_VM_QEMU_OPTS--icount shift=0}
export SFRAME_VM_QEMU_OPTS
mkdir -p "$REPO/build/vm"
vm_bench perf "$out/vm.log" "BENCH_ARCH=$arch $REPO/devtools/bench-guest.sh $REPO $REPO/build/vm" ||
	{ cat "$out/vm.log" >&2; die "the benchmark failed in the VM"; }
rm -f "$out"/*-nocache.txt
rm -f "$out"/stream-*.txt.gz
rm -f "$out/bpf.txt" "$out/hostile.txt" "$out/cpus.txt" "$out/overhead.txt"
rm -f "$out"/lookup-store*.txt "$out/store-add.txt"
for f in kernel.txt hres.txt cpus.txt unwind.txt lookup.txt runs.txt unwind-nocache.txt lookup-nocache.txt bpf.txt hostile.txt overhead.txt \
	lookup-store.txt lookup-store-nocache.txt store-add.txt \
	stream-demo.txt.gz stream-zstd.txt.gz stream-lookup.txt.gz; do
	[ -f "$REPO/build/vm/$f" ] && cp "$REPO/build/vm/$f" "$out/"
done
kvm=false
grep -q '==> VM: KVM' "$out/vm.log" && kvm=true
# Why the VM ran as it did (under -icount: TCG, which counts instructions)
grep -m1 '==> VM: ' "$out/vm.log" >&2 || true

if [ "$arch" = x86_64 ]; then
	msg "walker outside emulation (bench-walker.sh)"
	"$REPO/devtools/bench-walker.sh" >"$out/walker.md" 2>"$out/walker.log" ||
		{ cat "$out/walker.log" >&2; die "bench-walker failed"; }
fi
echo "$kvm" >"$out/kvm.txt"
# The guest kernel's tick: cpu-clock samples at it without high-resolution
# timers (configs/perf.config asks for 1000 Hz)
sed -n 's/^CONFIG_HZ=//p' "$(kbuild_dir "$arch-perf")/.config" >"$out/hz.txt"
echo "${SFRAME_VM_QEMU_OPTS:-}" >"$out/qemu-opts.txt"
# The TSC rate the x86 guest was told (vm_bench): under -icount its TSC
# counts instructions, so a guest ns is that many GHz of instructions
if [ "$arch" = x86_64 ]; then vm_tsc_append >"$out/tsc.txt"; else rm -f "$out/tsc.txt"; fi
fi
kvm=$(cat "$out/kvm.txt")
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
perf_json=null perf_md=
if [ "$arch" = x86_64 ]; then
	python3 "$REPO/devtools/rcache-sim.py" "$out"/stream-demo.txt.gz \
		"$out"/stream-zstd.txt.gz "$out"/stream-lookup.txt.gz >"$out/rcache-sim.md"
	perf_json=$("$REPO/devtools/demo/table.sh" "$out/runs.txt" json)
	perf_md=$("$REPO/devtools/demo/table.sh" "$out/runs.txt")
fi
icount=false
grep -q icount "$out/qemu-opts.txt" 2>/dev/null && icount=true
tsc_khz=$(sed -n 's/.*tsc_early_khz=\([0-9]*\).*/\1/p' "$out/tsc.txt" 2>/dev/null || true)
python3 - "$out" "$(cat "$out/kernel.txt")" "$cpu" "$kvm" "$perf_json" "$icount" "$arch" "${tsc_khz:-0}" <<'PY' >"$out/results.json"
import json, statistics, sys
out, kernel, cpu, kvm, perf_json, icount, arch, tsc_khz = sys.argv[1:9]
tsc_khz = int(tsc_khz)

def parse(path):
    """Rows of unwind_bench's output, each with the run it belongs to."""
    rows, run = [], 1
    try:
        f = open(path)
    except FileNotFoundError:
        return rows
    for line in f:
        w = line.split()
        if len(w) == 2 and w[0] == "run":
            run = int(w[1])
        if not w or w[0] not in ("unwind", "lookup", "fit"):
            continue
        r = {"kind": w[0], "run": run}
        for kv in w[1:]:
            k, _, v = kv.partition("=")
            r[k] = v
        rows.append(r)
    return rows

def stat(values):
    """Median over the runs, and the spread: (max - min) / median."""
    m = statistics.median(values)
    return {"median": m, "runs": values,
            "spread": (max(values) - min(values)) / m if m else 0.0}

res = {"kernel": kernel, "cpu": cpu, "kvm": kvm == "true",
       "arch": arch,
       "unit": ("guest instructions (QEMU -icount shift=0)" if not tsc_khz else
                f"guest ns (QEMU -icount shift=0: the guest's TSC counts "
                f"instructions and its kernel takes it for {tsc_khz / 1000:.0f} MHz, "
                f"so a ns is {tsc_khz / 1e6:.2f} instructions)")
               if icount == "true" else "ns of emulated time"}
# Default configuration (with the rule cache), then without it
for sfx, key in (("", ""), ("-nocache", "_no_rule_cache")):
    unwind = parse(f"{out}/unwind{sfx}.txt")
    lookup = parse(f"{out}/lookup{sfx}.txt")
    if not unwind:
        continue
    u, fit, lk = {}, {}, {}
    for r in unwind:
        if r["kind"] == "unwind" and r["mode"] != "none":
            u.setdefault(r["state"], {}).setdefault(r["mode"], {}) \
             .setdefault(r["depth"], []).append(float(r["ns_per_frame"]))
        elif r["kind"] == "fit":
            fit.setdefault(r["state"], {}).setdefault(r["mode"], []) \
               .append(float(r["ns_per_frame"]))
    for r in lookup:
        if r["kind"] == "lookup" and r["mode"] != "none":
            lk.setdefault(r["mode"], {}).setdefault(r["funcs"], []) \
              .append(float(r["ns_per_frame"]))
    res["unwind_per_frame" + key] = {
        s: {m: {d: stat(v) for d, v in dm.items()} for m, dm in sm.items()}
        for s, sm in u.items()}
    res["unwind_fit_per_frame" + key] = {
        s: {m: stat(v) for m, v in sm.items()} for s, sm in fit.items()}
    res["lookup_per_frame" + key] = {
        m: {n: stat(v) for n, v in nm.items()} for m, nm in lk.items()}
    # The same lookups in a section of the kernel's store (a copy of the
    # program without PT_GNU_SFRAME): only rows that the store served
    lks = {}
    for r in parse(f"{out}/lookup-store{sfx}.txt"):
        if r["kind"] == "lookup" and r["mode"] != "none" and r.get("source") == "store":
            lks.setdefault(r["mode"], {}).setdefault(r["funcs"], []) \
               .append(float(r["ns_per_frame"]))
    if lks:
        res["lookup_store_per_frame" + key] = {
            m: {n: stat(v) for n, v in nm.items()} for m, nm in lks.items()}
res["perf_record"] = json.loads(perf_json)

# The slowdown sframe / dwarf of each run, against the run without
# profiling of the same repetition: from the workload's wall time (what
# recording costs in all, on the one CPU) and from its CPU time (what is
# done in its context)
try:
    res["perf_record_cpus"] = int(open(f"{out}/cpus.txt").read())
except (FileNotFoundError, ValueError):
    pass
runs = {}
try:
    for line in open(f"{out}/runs.txt"):
        w = line.split()
        if not w or w[0] != "run":
            continue
        d = dict(kv.split("=", 1) for kv in w[1:] if "=" in kv)
        if "rep" in d and "mode" in d:
            runs.setdefault(d["rep"], {})[d["mode"]] = d
except FileNotFoundError:
    pass
# and what unwinding adds over frame pointers, (sframe - fp) / (dwarf - fp)
for key, col, base in (("slowdown_sframe_over_dwarf", "wall_ms", "none"),
                       ("in_context_sframe_over_dwarf", "cpu_ms", "none"),
                       ("unwinding_sframe_over_dwarf", "wall_ms", "fp")):
    q = []
    for rep in sorted(runs, key=int):
        m = runs[rep]
        if not all(k in m for k in (base, "sframe", "dwarf")):
            continue
        b = float(m[base][col])
        d = float(m["dwarf"][col]) - b
        if d > 0:
            q.append((float(m["sframe"][col]) - b) / d)
    if q:
        res[key] = stat(q)

# User stacks for BPF (bpf.txt) and the in-event walks of the hostile
# workload (hostile.txt): the cost of a sample in the workload's own CPU
# time, against the run without profiling of the same repetition
def per_sample(fname, tag):
    runs = {}
    try:
        for line in open(f"{out}/{fname}"):
            w = line.split()
            if w and w[0] == tag:
                d = dict(kv.split("=", 1) for kv in w[1:])
                runs.setdefault(d["mode"], {})[d["rep"]] = d
    except FileNotFoundError:
        pass
    if not runs.get("none"):
        return None, None
    modes = {}
    for m, reps in runs.items():
        if m == "none":
            continue
        cost, pct, n = [], [], []
        for rep, d in reps.items():
            base, s = runs["none"].get(rep), int(d["samples"] or 0)
            if not base or not s:
                continue
            # cpu_ms to the unit (ns, or instructions under -icount)
            cost.append((float(d["cpu_ms"]) - float(base["cpu_ms"])) * 1e6 / s)
            pct.append(100.0 * int(d["complete"]) / s)
            n.append(s)
        if cost:
            modes[m] = {"cost_per_sample": stat(cost),
                        "complete_pct": stat(pct), "samples": stat(n)}
    def r(a, b):
        if a in modes and b in modes and modes[b]["cost_per_sample"]["median"]:
            return (modes[a]["cost_per_sample"]["median"] /
                    modes[b]["cost_per_sample"]["median"])
        return None
    return {"workload_cpu_ms": stat([float(d["cpu_ms"]) for d in runs["none"].values()]),
            "modes": modes}, r
b, r = per_sample("bpf.txt", "bpf")
if b:
    b.update({
        "deferred_over_perf_sframe": r("bpf-deferred", "perf-sframe"),
        "deferred_over_in_event_fp": r("bpf-deferred", "bpf-in-event-fp"),
        "in_event_over_in_event_fp": r("bpf-in-event", "bpf-in-event-fp"),
    })
    res["bpf"] = b
h, r = per_sample("hostile.txt", "hostile")
if h:
    h.update({
        "perf_g_over_fp": r("perf-g", "perf-g-fp"),
        "bpf_in_event_over_fp": r("bpf-in-event", "bpf-in-event-fp"),
    })
    res["hostile"] = h

# System-wide profiling (overhead.txt): the workload's wall and CPU time
# under each profiler, in % over its run alone of the same rate and
# repetition; median, min and max over the repetitions
def pstat(values):
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "runs": values}
ov = {}
try:
    for line in open(f"{out}/overhead.txt"):
        w = line.split()
        if w and w[0] == "overhead":
            d = dict(kv.split("=", 1) for kv in w[1:])
            ov.setdefault(d["hz"], {}).setdefault(d["mode"], {})[d["rep"]] = d
except FileNotFoundError:
    pass
over = {}
for hz, modes in ov.items():
    base = modes.get("none", {})
    for m, reps in modes.items():
        if m == "none":
            continue
        wall, cpu, n = [], [], []
        for rep, d in reps.items():
            b = base.get(rep)
            if not b or not d["wall_ms"] or not b["wall_ms"] or not d["cpu_ms"]:
                continue
            wall.append(100.0 * (float(d["wall_ms"]) / float(b["wall_ms"]) - 1))
            cpu.append(100.0 * (float(d["cpu_ms"]) / float(b["cpu_ms"]) - 1))
            n.append(int(d["samples"] or 0))
        if wall:
            over.setdefault(m, {})[hz] = {"wall_pct": pstat(wall), "cpu_pct": pstat(cpu),
                                         "samples": stat(n) if any(n) else None,
                                         "workload_wall_ms": stat([float(b["wall_ms"]) for b in base.values()])}
if over:
    res["overhead"] = over
print(json.dumps(res, indent=1))
PY

python3 - "$out/results.json" "$REPO/devtools" <<'PY' >"$out/results.md"
import json, sys
sys.path.insert(0, sys.argv[2])
from bench_lib import get, cell, ratio, pct
r = json.load(open(sys.argv[1]))
print(f"{r.get('arch') or 'x86_64'} kernel {r['kernel']}, host CPU {r['cpu']}, KVM: {r['kvm']}; "
      f"unit: {r['unit']}; figures are medians of the runs, with their "
      "spread ((max - min) / median) in brackets\n")
nc = "_no_rule_cache"

def modes_table(x, rows):
    """Cost per sample and complete chains of the modes of x (bpf, hostile)"""
    print("| mode | samples | cost per sample | complete |")
    print("|---|---:|---:|---:|")
    for m, what in rows:
        y = x["modes"].get(m)
        if y:
            print(f"| {what} | {y['samples']['median']:.0f} | {cell(y['cost_per_sample'])} "
                  f"| {y['complete_pct']['median']:.1f} % |")

print("Unwind cost per frame at the return to user space (unwind_bench, "
      "same stacks); sframe = the default (rule cache on), full lookup = "
      "rule cache off; cold = .sframe page table entries dropped before "
      "every unwind, evict = also evicted from the page cache:\n")
print("| .sframe pages | depth | fp | sframe | sframe / fp | full lookup | full / fp |")
print("|---|---:|---:|---:|---:|---:|---:|")
u, un = r.get("unwind_per_frame", {}), r.get("unwind_per_frame" + nc, {})
f, fn = r.get("unwind_fit_per_frame", {}), r.get("unwind_fit_per_frame" + nc, {})
for s in ("warm", "cold", "evict"):
    rows = [(d, get(u, s, "fp", d), get(u, s, "sframe", d), get(un, s, "sframe", d))
            for d in ("8", "32", "128")]
    rows.append(("slope over depths", get(f, s, "fp"), get(f, s, "sframe"),
                 get(fn, s, "sframe")))
    for d, fp, sf, full in rows:
        if fp and sf:
            print(f"| {s} | {d} | {cell(fp)} | {cell(sf)} | {ratio(sf, fp)} "
                  f"| {cell(full)} | {ratio(full, fp)} |")
print("\nLookup scaling (a chain of 16 functions spread over N, warm, per frame):\n")
print("| functions | fp | sframe | sframe / fp | full lookup | full / fp |")
print("|---:|---:|---:|---:|---:|---:|")
lk, lkn = r.get("lookup_per_frame", {}), r.get("lookup_per_frame" + nc, {})
for n in ("10", "1000", "100000"):
    fp, sf, full = get(lk, "fp", n), get(lk, "sframe", n), get(lkn, "sframe", n)
    if fp and sf:
        print(f"| {n} | {cell(fp)} | {cell(sf)} | {ratio(sf, fp)} | {cell(full)} "
              f"| {ratio(full, fp)} |")
ls, lsn = r.get("lookup_store_per_frame", {}), r.get("lookup_store_per_frame" + nc, {})
fp, sf, full = get(ls, "fp", "100000"), get(ls, "sframe", "100000"), get(lsn, "sframe", "100000")
if fp and sf:
    print(f"| 100000, from the store | {cell(fp)} | {cell(sf)} | {ratio(sf, fp)} "
          f"| {cell(full)} | {ratio(full, fp)} |")
sf10, sf100k = get(lk, "sframe", "10"), get(lk, "sframe", "100000")
fl10, fl100k = get(lkn, "sframe", "10"), get(lkn, "sframe", "100000")
if sf10 and sf100k:
    print(f"\nper frame at 100000 functions / at 10: {ratio(sf100k, sf10)} "
          f"with the rule cache, {ratio(fl100k, fl10)} without")
def section(x, intro, rows, prefix, ratios):
    """modes_table() of x after intro, then the ratios of x named"""
    print(intro)
    modes_table(x, rows)
    print(f"\n{prefix} " + ", ".join(
        f"{what} {x[k]:.2f}" if x.get(k) else f"{what} -" for k, what in ratios))
if r.get("bpf"):
    section(r["bpf"],
            "\nUser stacks for BPF on the demo workload (devtools/bpf/bench-guest.sh), "
            "cpu-clock at 4 kHz; cost = the workload's own CPU time over its run "
            "without profiling, per sample; complete = user chain reaches main():\n",
            (("perf-sframe", "perf record --call-graph sframe"),
             ("bpf-deferred", "sframe-profile --deferred"),
             ("bpf-in-event", "sframe-profile --in-event (SFrame)"),
             ("bpf-in-event-fp", "sframe-profile --in-event, frame pointers")),
            "cost per sample:",
            (("deferred_over_perf_sframe", "deferred BPF / perf sframe"),
             ("deferred_over_in_event_fp", "deferred BPF / in-event frame pointers"),
             ("in_event_over_in_event_fp", "in-event SFrame / in-event frame pointers")))
if r.get("hostile"):
    section(r["hostile"],
            "\nIn the event on the hostile workload (devtools/demo/hostile.c: a stack "
            "of 101 frames that returns into a function of 1003 FREs at every other "
            "frame), cpu-clock at 4 kHz, cost and complete as above:\n",
            (("perf-g", "perf record -g (SFrame on)"),
             ("perf-g-fp", "perf record -g, kernel.sframe_unwind=0"),
             ("bpf-in-event", "sframe-profile --in-event (SFrame)"),
             ("bpf-in-event-fp", "sframe-profile --in-event, frame pointers")),
            "cost per sample, SFrame on / off:",
            (("perf_g_over_fp", "perf record -g"),
             ("bpf_in_event_over_fp", "sframe-profile --in-event")))
if r.get("overhead"):
    print("\nSystem-wide profiling of a workload that the profiler did not start "
          "(devtools/bpf/overhead-guest.sh): the demo workload on one CPU, alone and "
          "while the profiler samples every CPU; extra = its wall time (all that the "
          "CPU did meanwhile: samples, unwinding, the profiler's user space) and its "
          "CPU time (what was done in its context) over its run alone, median of the "
          "runs (min to max):\n")
    print("| profiler | Hz | workload samples | extra wall time | extra CPU time |")
    print("|---|---:|---:|---:|---:|")
    for m, what in (("sframe-profile", "sframe-profile -a (deferred)"),
                    ("perf-sframe", "perf record -a --call-graph sframe")):
        for hz in ("99", "999"):
            x = get(r, "overhead", m, hz)
            if x:
                s = x["samples"]["median"] if x.get("samples") else 0
                print(f"| {what} | {hz} | {s:.0f} | {pct(x['wall_pct'])} | {pct(x['cpu_pct'])} |")
PY
hz=$(cat "$out/hz.txt" 2>/dev/null || echo 0)
[ "$arch" = x86_64 ] && [ "$(cat "$out/hres.txt" 2>/dev/null)" = 0 ] && {
	echo
	if [ "${hz:-0}" -ge 1000 ]; then
		echo "Note: the guest's hrtimers were not in high-resolution mode (its APIC timer failed verification under -icount): cpu-clock sampled at the ${hz} Hz tick, every millisecond, as the 1 kHz sampling period asks"
	else
		echo "WARNING: the guest's hrtimers were not in high-resolution mode (its APIC timer failed verification): cpu-clock sampled at the ${hz:-?} Hz tick, so the BPF figures above and the perf record figures below are not comparable with runs that had it"
	fi
} >>"$out/results.md"
[ "$arch" = x86_64 ] && {
	echo
	echo "perf record of the demo workload at the same sampling period:"
	echo
	echo "$perf_md"
	echo
	# The slowdown in each run (none and the modes of the same run)
	python3 - "$out/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if r.get("perf_record_cpus", 1) != 1:
    print(f"WARNING: the guest had {r['perf_record_cpus']} CPUs online, not 1: "
          "under -icount the workload's times then count the other CPUs' work too")
for key, what in (("slowdown_sframe_over_dwarf",
                   "slowdown sframe / dwarf (the workload's wall time on one CPU: its samples and perf record's work)"),
                  ("in_context_sframe_over_dwarf",
                   "in the workload's context only (its CPU time: the samples, the unwind, the stack copy)"),
                  ("unwinding_sframe_over_dwarf",
                   "what unwinding adds over frame pointers, (sframe - fp) / (dwarf - fp)")):
    s = r.get(key)
    if s:
        print(f"{what}, each run: {' '.join(f'{v:.2f}' for v in s['runs'])}; "
              f"median {s['median']:.2f}, spread {s['spread'] * 100:.0f} %")
PY
	echo
	echo "The walker outside emulation (make bench-walker):"
	echo
	grep -v '^==>' "$out/walker.md"
	echo
	cat "$out/rcache-sim.md"
} >>"$out/results.md"
cat "$out/results.md"
msg "wrote ${out#"$REPO"/}/results.json and ${out#"$REPO"/}/results.md"
