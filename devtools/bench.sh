#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: the benchmark of issue 5 (not a test). In the perf (non-debug)
# VM kernel, in one run:
#   - unwind cost per frame, SFrame vs frame pointers, on the same stacks
#     (unwind_bench, built with both), depths 8/32/128, .sframe resident
#     (warm) and its page table entries dropped before every unwind (cold);
#   - lookup scaling: programs of 10, 1000 and 100000 functions;
#   - perf record of the demo workload with sframe, fp and dwarf at the same
#     sampling period: perf.data bytes, slowdown, complete chains;
# plus the walker's native cost outside emulation (bench-walker.sh: ns and
# callgrind instructions per lookup). Writes build/bench/results.json and
# build/bench/results.md. Under TCG only ratios from one run mean something.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_root "the benchmark (toolchain root, VM)"

out=$REPO/build/bench
mkdir -p "$out"
# bench.sh --report: only remake results.json/.md from the last run's files
if [ "${1:-}" != --report ]; then
[ "${SFRAME_DIRTY:-0}" = 1 ] || "$REPO/devtools/tree.sh" apply
"$REPO/devtools/kbuild.sh" perf >/dev/null
"$REPO/devtools/perf.sh" >/dev/null
"$REPO/devtools/selftests.sh"
"$REPO/devtools/demo/build.sh" "$REPO/build/demo"

msg "benchmark in the VM (perf kernel)"
vm_bench perf "$out/vm.log" "$REPO/devtools/bench-guest.sh $REPO $REPO/build/vm" ||
	{ cat "$out/vm.log" >&2; die "the benchmark failed in the VM"; }
rm -f "$out"/*-nocache.txt
for f in kernel.txt unwind.txt lookup.txt runs.txt unwind-nocache.txt lookup-nocache.txt; do
	[ -f "$REPO/build/vm/$f" ] && cp "$REPO/build/vm/$f" "$out/"
done
kvm=false
grep -q '==> VM: KVM' "$out/vm.log" && kvm=true

msg "walker outside emulation (bench-walker.sh)"
"$REPO/devtools/bench-walker.sh" >"$out/walker.md" 2>"$out/walker.log" ||
	{ cat "$out/walker.log" >&2; die "bench-walker failed"; }
echo "$kvm" >"$out/kvm.txt"
fi
kvm=$(cat "$out/kvm.txt")

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
perf_json=$("$REPO/devtools/demo/table.sh" "$out/runs.txt" json)
perf_md=$("$REPO/devtools/demo/table.sh" "$out/runs.txt")
python3 - "$out" "$(cat "$out/kernel.txt")" "$cpu" "$kvm" "$perf_json" <<'PY' >"$out/results.json"
import json, sys
out, kernel, cpu, kvm, perf_json = sys.argv[1:6]

def parse(path):
    rows = []
    try:
        f = open(path)
    except FileNotFoundError:
        return rows
    for line in f:
        w = line.split()
        if not w or w[0] not in ("unwind", "lookup", "fit"):
            continue
        r = {"kind": w[0]}
        for kv in w[1:]:
            k, _, v = kv.partition("=")
            r[k] = v
        rows.append(r)
    return rows

res = {"kernel": kernel, "cpu": cpu, "kvm": kvm == "true"}
# Default configuration (with the rule cache), then without it
for sfx, key in (("", ""), ("-nocache", "_no_rule_cache")):
    unwind = parse(f"{out}/unwind{sfx}.txt")
    lookup = parse(f"{out}/lookup{sfx}.txt")
    if not unwind:
        continue
    u = res["unwind_ns_per_frame" + key] = \
        {s: {m: {} for m in ("fp", "sframe")} for s in ("warm", "cold")}
    fit = res["unwind_fit_ns_per_frame" + key] = {s: {} for s in ("warm", "cold")}
    lk = res["lookup_ns" + key] = {}
    lkfp = res["lookup_fp_ns" + key] = {}
    for r in unwind:
        if r["kind"] == "unwind" and r["mode"] != "none":
            u[r["state"]][r["mode"]][r["depth"]] = float(r["ns_per_frame"])
        elif r["kind"] == "fit":
            fit[r["state"]][r["mode"]] = float(r["ns_per_frame"])
    for r in lookup:
        if r["kind"] == "lookup" and r["mode"] == "sframe":
            lk[r["funcs"]] = float(r["ns_per_frame"])
        elif r["kind"] == "lookup" and r["mode"] == "fp":
            lkfp[r["funcs"]] = float(r["ns_per_frame"])
res["perf_record"] = json.loads(perf_json)
print(json.dumps(res, indent=1))
PY

python3 - "$out/results.json" <<'PY' >"$out/results.md"
import json, sys
r = json.load(open(sys.argv[1]))
print(f"kernel {r['kernel']}, host CPU {r['cpu']}, KVM: {r['kvm']} "
      "(under TCG emulation only the ratios mean something)\n")
nc = "_no_rule_cache" if "unwind_ns_per_frame_no_rule_cache" in r else None

def cell(d, k):
    return f"{d[k]:.0f}" if d.get(k) else "-"

print("Unwind cost per frame at return to user (unwind_bench, same stacks, ns/frame); "
      "sframe = the default (rule cache on), full lookup = rule cache off:\n")
print("| .sframe pages | depth | fp | sframe | sframe / fp | full lookup | full / fp |")
print("|---|---:|---:|---:|---:|---:|---:|")
u, un = r["unwind_ns_per_frame"], r.get("unwind_ns_per_frame" + (nc or ""), {})
f, fn = r["unwind_fit_ns_per_frame"], r.get("unwind_fit_ns_per_frame" + (nc or ""), {})
rows = [(s, d, u[s]["fp"].get(d), u[s]["sframe"].get(d),
         un.get(s, {}).get("sframe", {}).get(d) if nc else None)
        for s in ("warm", "cold") for d in ("8", "32", "128")]
rows += [(s, "slope over depths", f[s].get("fp"), f[s].get("sframe"),
          fn.get(s, {}).get("sframe") if nc else None) for s in ("warm", "cold")]
for s, d, fp, sf, full in rows:
    if not (fp and sf):
        continue
    fr = f"{full:.0f} | {full / fp:.2f}" if full else "- | -"
    print(f"| {s} | {d} | {fp:.0f} | {sf:.0f} | {sf / fp:.2f} | {fr} |")
print("\nLookup scaling (a chain of 16 functions spread over N, warm, ns/frame):\n")
print("| functions | fp | sframe | sframe / fp | full lookup | full / fp |")
print("|---:|---:|---:|---:|---:|---:|")
for n in ("10", "1000", "100000"):
    fp, sf = r["lookup_fp_ns"].get(n), r["lookup_ns"].get(n)
    full = r.get("lookup_ns" + nc, {}).get(n) if nc else None
    if fp and sf:
        fr = f"{full:.0f} | {full / fp:.2f}" if full else "- | -"
        print(f"| {n} | {fp:.0f} | {sf:.0f} | {sf / fp:.2f} | {fr} |")
PY
{
	echo
	echo "perf record of the demo workload at the same sampling period:"
	echo
	echo "$perf_md"
	echo
	echo "The walker outside emulation (make bench-walker):"
	echo
	grep -v '^==>' "$out/walker.md"
} >>"$out/results.md"
cat "$out/results.md"
msg "wrote build/bench/results.json and build/bench/results.md"
