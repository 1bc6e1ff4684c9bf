#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# table.sh RUNS [json]: the medians of record-guest.sh's runs, per mode, as
# a markdown table (default) or as the "perf_record" JSON object of the
# benchmark's results.json.
set -euo pipefail
runs=${1:?usage: table.sh RUNS [json]}
awk -v want="${2:-md}" '
function median(mode, key,    n, i, j, t, v) {
	n = cnt[mode]
	for (i = 1; i <= n; i++) v[i] = val[mode, key, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j] < v[j - 1]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
$1 == "run" {
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	m = f["mode"]; c = ++cnt[m]
	for (k in f) val[m, k, c] = f[k]
	val[m, "pct", c] = f["samples"] ? 100 * f["complete"] / f["samples"] : 0
}
END {
	base = median("none", "wall_ms")
	nmodes = split("sframe fp dwarf", modes, " ")
	for (i = 1; i <= nmodes; i++) {
		m = modes[i]
		pct[m] = median(m, "pct")
		bytes[m] = median(m, "data_bytes")
		slow[m] = base ? 100 * (median(m, "wall_ms") - base) / base : 0
		pcpu[m] = median(m, "perf_cpu_ms")
		rep[m] = median(m, "report_ms")
		smp[m] = median(m, "samples")
	}
	if (want == "json") {
		printf "{"
		for (i = 1; i <= nmodes; i++) {
			m = modes[i]
			printf "%s\"%s\": {\"data_bytes\": %d, \"slowdown_pct\": %.1f, \"complete_chain_pct\": %.1f, \"samples\": %d, \"perf_record_cpu_ms\": %d, \"perf_report_ms\": %d}", \
				(i > 1 ? ", " : ""), m, bytes[m], slow[m], pct[m], smp[m], pcpu[m], rep[m]
		}
		printf "}\n"
		exit
	}
	printf "| --call-graph | samples | user chain reaches main | perf.data | workload slowdown | perf record CPU | perf report time |\n"
	printf "|---|---:|---:|---:|---:|---:|---:|\n"
	for (i = 1; i <= nmodes; i++) {
		m = modes[i]
		printf "| %s | %d | %.1f %% | %.2f MB | %+.1f %% | %d ms | %d ms |\n", \
			m, smp[m], pct[m], bytes[m] / 1e6, slow[m], pcpu[m], rep[m]
	}
	printf "\nmedians of %d runs per mode; workload without profiling: %.0f ms (VM under emulation: compare ratios only)\n", cnt["none"], base
	if (bytes["sframe"] > 0)
		printf "perf.data dwarf / sframe: %.1fx; slowdown sframe / dwarf (of the median slowdowns): %.2f\n", \
			bytes["dwarf"] / bytes["sframe"], slow["dwarf"] ? slow["sframe"] / slow["dwarf"] : 0
}' "$runs"
