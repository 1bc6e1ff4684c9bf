// SPDX-License-Identifier: GPL-2.0
/*
 * usym-check FILE...: usym_lookup() against dwfl_module_addrinfo() on
 * each ELF object FILE (its debug file found as sframe-profile finds it),
 * in its code (addresses(): at most USYM_CHECK_MAX), each twice (the
 * second answer may be one that usym.c kept).  Prints a line per FILE:
 *   FILE: N addresses, M asked libdwfl, D differ (usym T1 ms, libdwfl T2 ms)
 * with the first differences before it, and exits 1 if any differ or a
 * FILE has no symbols.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "usym.h"

#define USYM_CHECK_MAX	20000

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static double ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Whether @a is in one of @mod's executable segments */
static bool in_text(Dwfl_Module *mod, GElf_Addr a)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t i, n;

	if (!elf || elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && a >= ph.p_vaddr + bias &&
		    a - (ph.p_vaddr + bias) < ph.p_memsz)
			return true;
	}
	return false;
}

/*
 * The addresses to check in @mod, in *@addrs: how many.  Those that a
 * profiler symbolizes, in code: half at the edges and the middles of the
 * symbols that start there, half spread over the executable segments.
 */
static size_t addresses(Dwfl_Module *mod, GElf_Addr **addrs)
{
	int nsyms = dwfl_module_getsymtab(mod), i;
	size_t n = 0, cap = USYM_CHECK_MAX, stride;
	GElf_Addr low, high, a, *v, step;

	v = calloc(cap, sizeof(*v));
	if (!v || nsyms <= 0 ||
	    !dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL)) {
		free(v);
		return 0;
	}
	stride = (size_t)nsyms / (cap / 8) + 1;
	for (i = 0; i < nsyms && n + 4 <= cap / 2; i += stride) {
		GElf_Sym sym;
		GElf_Addr s;

		if (!dwfl_module_getsym_info(mod, i, &sym, &s, NULL, NULL,
					     NULL) || !in_text(mod, s))
			continue;
		v[n++] = s;
		v[n++] = s + sym.st_size / 2;
		v[n++] = s + sym.st_size - (sym.st_size > 0);
		v[n++] = s + sym.st_size;
	}
	step = (high - low) / (cap - n) + 1;
	for (a = low; a < high && n < cap; a += step)
		if (in_text(mod, a))
			v[n++] = a;
	*addrs = v;
	return n;
}

static int check(const char *path)
{
	GElf_Addr *addrs = NULL;
	const char **want, **got;
	GElf_Off *woff;
	__u64 *goff;
	size_t n, i, differ = 0;
	Dwfl_Module *mod;
	double t0, t1, t2;
	unsigned long asked;
	Dwfl *dwfl;

	dwfl = dwfl_begin(&callbacks);
	if (!dwfl)
		return 1;
	dwfl_report_begin(dwfl);
	mod = dwfl_report_offline(dwfl, path, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	n = mod ? addresses(mod, &addrs) : 0;
	if (!n) {
		printf("%s: no symbols\n", path);
		dwfl_end(dwfl);
		return 1;
	}
	want = calloc(n, sizeof(*want));
	got = calloc(n, sizeof(*got));
	woff = calloc(n, sizeof(*woff));
	goff = calloc(n, sizeof(*goff));
	if (!want || !got || !woff || !goff) {
		printf("%s: out of memory\n", path);
		return 1;
	}
	usym_asked = 0;
	t0 = ms();
	for (i = 0; i < n; i++)
		got[i] = usym_lookup(mod, addrs[i], &goff[i]);
	t1 = ms();
	asked = usym_asked;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;

		want[i] = dwfl_module_addrinfo(mod, addrs[i], &woff[i], &sym,
					       NULL, NULL, NULL);
	}
	t2 = ms();
	for (i = 0; i < 2 * n; i++) {
		size_t k = i % n;

		/* The second time, from what usym.c keeps */
		if (i >= n)
			got[k] = usym_lookup(mod, addrs[k], &goff[k]);
		if (!want[k] && !got[k])
			continue;
		if (want[k] && got[k] && !strcmp(want[k], got[k]) &&
		    woff[k] == goff[k])
			continue;
		if (differ++ < 5)
			printf("# %s: %#llx: usym %s+%#llx, libdwfl %s+%#llx\n",
			       path, (unsigned long long)addrs[k],
			       got[k] ?: "(none)", (unsigned long long)goff[k],
			       want[k] ?: "(none)", (unsigned long long)woff[k]);
	}
	usym_forget(dwfl);
	printf("%s: %zu addresses, %lu asked libdwfl, %zu differ (usym %.0f ms, libdwfl %.0f ms)\n",
	       path, n, asked, differ, t1 - t0, t2 - t1);
	free(addrs);
	free(want);
	free(got);
	free(woff);
	free(goff);
	dwfl_end(dwfl);
	return differ ? 1 : 0;
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: usym-check FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		rc |= check(argv[i]);
	return rc;
}
