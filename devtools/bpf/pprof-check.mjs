// SPDX-License-Identifier: GPL-2.0
//
// node pprof-check.mjs PPROF_FORMAT_DIR PROFILE HZ: sframe-profile's pprof
// profile, read by an independent reader (the npm package pprof-format),
// printed back as folded stacks, "comm;outermost;...;innermost COUNT",
// sorted, for pprof-check.sh to compare with the folded output.  Exits 1
// with a message on stderr if the profile is not what sframe-profile
// writes: sample types samples/count and cpu/nanoseconds, the period
// 1e9/HZ ns of cpu/nanoseconds, each sample's CPU time its count times
// the period, a pid and a comm label, a function for each location; the
// string table's first string empty, ids nonzero and each once, each
// location's mapping there.
// Names are folded as sframe-profile folds them.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { pathToFileURL } from "node:url";

const [dir, file, hz] = process.argv.slice(2);
const { Profile } = await import(pathToFileURL(`${dir}/dist/esm/index.js`).href);
const p = Profile.decode(gunzipSync(readFileSync(file)));
const str = (i) => p.stringTable.strings[Number(i)];
const fail = (m) => { console.error(`pprof-check: ${m}`); process.exit(1); };
if (p.stringTable.strings[0] !== "") fail("string_table[0] is not empty");
// Ids: nonzero, each once; what a location names exists
const ids = (what, list) => {
	const m = new Map();
	for (const x of list) {
		const id = BigInt(x.id);
		if (id === 0n || m.has(id)) fail(`${what} id ${id}`);
		m.set(id, x);
	}
	return m;
};
const maps = ids("mapping", p.mapping);
ids("function", p.function);
for (const l of p.location)
	if (!maps.has(BigInt(l.mappingId))) fail(`location ${l.id}: mapping ${l.mappingId}`);
if (!p.periodType) fail("no period type");
const types = p.sampleType.map((t) => `${str(t.type)}/${str(t.unit)}`).join(",");
if (types !== "samples/count,cpu/nanoseconds") fail(`sample types ${types}`);
const period = BigInt(Math.trunc(1e9 / Number(hz)));
if (BigInt(p.period) !== period ||
    `${str(p.periodType.type)}/${str(p.periodType.unit)}` !== "cpu/nanoseconds")
	fail(`period ${p.period}`);
// As sframe-profile folds a name: ';' as ':', control characters as '_',
// and a kernel function (its file [kernel.kallsyms]) with "_[k]" after it
const fold = (s) => s.replace(/;/g, ":").replace(/[\x00-\x1f\x7f]/g, "_");
const fn = new Map(p.function.map((f) => [BigInt(f.id),
	fold(str(f.name)) + (str(f.filename) === "[kernel.kallsyms]" ? "_[k]" : "")]));
const loc = ids("location", p.location);
const out = new Map();
for (const s of p.sample) {
	const v = s.value.map(BigInt);
	if (v.length !== 2 || v[1] !== v[0] * period) fail(`values ${v}`);
	const lab = Object.fromEntries(s.label.map((l) => [str(l.key), l]));
	if (!lab.pid || !lab.comm) fail("a sample without its pid and comm labels");
	const names = s.locationId.map((id) => {
		const l = loc.get(BigInt(id));
		if (!l || l.line.length !== 1 || !fn.has(BigInt(l.line[0].functionId)))
			fail(`location ${id}`);
		return fn.get(BigInt(l.line[0].functionId));
	}).reverse();
	const key = [fold(str(lab.comm.str)), ...names].join(";");
	out.set(key, (out.get(key) ?? 0n) + v[0]);
}
for (const k of [...out.keys()].sort())
	console.log(`${k} ${out.get(k)}`);
