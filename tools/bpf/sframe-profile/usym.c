// SPDX-License-Identifier: GPL-2.0
/*
 * The symbol of a user address, as dwfl_module_addrinfo() names it, for
 * the cost of a binary search.  libdwfl scans a module's whole symbol
 * table at every call: thousands of symbols in libc with its debug file,
 * where printing spent most of its time.  A module's table is sorted
 * once, at its first lookup, and kept in the module's user data (which
 * the libdwfl callbacks that sframe-profile uses leave alone), with
 * libdwfl's answers for the last addresses it had to be asked about.
 *
 * libdwfl's choice, which this follows: the symbols considered are the
 * named, defined ones that are not of a section, a file or TLS; of
 * those whose range holds the address (start <= addr < start + size),
 * the global ones (those from the table's first global on) first, the
 * local ones only if no global one holds it; among them the one that
 * starts last, then the strongest binding (global, weak, local), then the
 * smallest, then the first in the table.  Where libdwfl may choose otherwise, the
 * address goes to dwfl_module_addrinfo() itself: when a symbol that
 * starts earlier holds it too (nested symbols, where libdwfl prefers a
 * stronger binding), when no sized symbol holds it (libdwfl then takes
 * the closest label), and when a global label starts at it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"
#include "usym.h"

/* A considered symbol: where it starts and ends, its name and binding */
struct usym {
	GElf_Addr start;
	GElf_Addr end;		/* start + size; start for a label */
	const char *name;
	int bind;		/* libdwfl's order: global 3, weak 2, local 1 */
	int ndx;		/* its place in the table */
};

/* The symbols of one part (global, local), sorted by start, then order */
struct usym_part {
	struct usym *s;
	size_t n;
	GElf_Addr *before;	/* before[i]: the furthest end of s[0..i-1] */
};

/* libdwfl's answers for the addresses it was asked about, the last few */
#define USYM_ASKED	512

struct usym_asked {
	GElf_Addr addr;
	const char *name;
	GElf_Off off;
	bool used;
};

struct usym_table {
	struct usym_part part[2];	/* global, local */
	GElf_Addr *labels;		/* the starts of global labels, sorted */
	size_t nlabels;
	struct usym_asked asked[USYM_ASKED];	/* by address */
	bool ask_all;			/* every lookup is libdwfl's */
};

enum { USYM_NONE, USYM_FOUND, USYM_ASK };

unsigned long usym_asked;

static int bind_value(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

static int cmp_usym(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->ndx > y->ndx) - (x->ndx < y->ndx);
}

static int cmp_addr(const void *a, const void *b)
{
	const GElf_Addr *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static bool part_add(struct usym_part *p, size_t *cap, const struct usym *s)
{
	if (p->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 256;
		struct usym *ns = realloc(p->s, ncap * sizeof(*ns));

		if (!ns)
			return false;
		p->s = ns;
		*cap = ncap;
	}
	p->s[p->n++] = *s;
	return true;
}

static void table_free(struct usym_table *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		free(t->part[i].s);
		free(t->part[i].before);
	}
	free(t->labels);
	free(t);
}

/* @mod's table, NULL if it has no symbols or there is no memory */
static struct usym_table *table_build(Dwfl_Module *mod)
{
	int nsyms = dwfl_module_getsymtab(mod);
	int first_global = dwfl_module_getsymtab_first_global(mod);
	size_t cap[2] = { 0, 0 }, lcap = 0, i;
	struct usym_table *t;
	int ndx, k;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	/* Which symbols are global is not known: libdwfl's own lookup */
	if (nsyms <= 0 || first_global < 0) {
		t->ask_all = true;
		return t;
	}
	for (ndx = 0; ndx < nsyms; ndx++) {
		struct usym s = { .ndx = ndx };
		GElf_Word shndx;
		GElf_Sym sym;
		const char *name;
		int type;

		name = dwfl_module_getsym_info(mod, ndx, &sym, &s.start, &shndx,
					       NULL, NULL);
		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		s.name = name;
		s.bind = bind_value(&sym);
		s.end = s.start + sym.st_size;
		if (s.end < s.start)
			s.end = ~(GElf_Addr)0;
		k = ndx >= first_global ? 0 : 1;
		if (!sym.st_size) {
			GElf_Addr *nl;

			if (k)
				continue;
			if (t->nlabels == lcap) {
				lcap = lcap ? 2 * lcap : 64;
				nl = realloc(t->labels, lcap * sizeof(*nl));
				if (!nl)
					goto fail;
				t->labels = nl;
			}
			t->labels[t->nlabels++] = s.start;
			continue;
		}
		if (!part_add(&t->part[k], &cap[k], &s))
			goto fail;
	}
	qsort(t->labels, t->nlabels, sizeof(*t->labels), cmp_addr);
	for (k = 0; k < 2; k++) {
		struct usym_part *p = &t->part[k];
		GElf_Addr end = 0;

		if (!p->n)
			continue;
		qsort(p->s, p->n, sizeof(*p->s), cmp_usym);
		p->before = malloc(p->n * sizeof(*p->before));
		if (!p->before)
			goto fail;
		for (i = 0; i < p->n; i++) {
			p->before[i] = end;
			if (p->s[i].end > end)
				end = p->s[i].end;
		}
	}
	return t;
fail:
	table_free(t);
	return NULL;
}

/*
 * The symbol of @p that holds @addr, in *@found: USYM_NONE if none does,
 * USYM_ASK if libdwfl may choose another
 */
static int part_lookup(const struct usym_part *p, GElf_Addr addr,
		       const struct usym **found)
{
	size_t lo = count_le(p->s, p->n, start, addr), first, i;
	const struct usym *best = NULL;

	if (!lo)
		return USYM_NONE;
	/* The symbols that start last, at or below @addr */
	first = lo - 1;
	while (first && p->s[first - 1].start == p->s[lo - 1].start)
		first--;
	/* One that starts earlier reaches @addr: nested symbols */
	if (p->before[first] > addr)
		return USYM_ASK;
	for (i = first; i < lo; i++) {
		const struct usym *c = &p->s[i];

		if (addr < c->end && (!best || c->bind > best->bind ||
				      (c->bind == best->bind &&
				       c->end < best->end)))
			best = c;
	}
	if (!best)
		return USYM_NONE;
	*found = best;
	return USYM_FOUND;
}

/* usym_lookup(), in libdwfl's types */
static const char *usym_find(Dwfl_Module *mod, GElf_Addr addr, GElf_Off *off)
{
	const struct usym *s = NULL;
	struct usym_table *t;
	struct usym_asked *a;
	const char *name;
	GElf_Sym sym;
	void **ud;
	int ret;

	if (!dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		return NULL;
	t = *ud;
	if (!t) {
		t = table_build(mod);
		if (!t)
			goto ask;
		*ud = t;
	}
	ret = t->ask_all ? USYM_ASK :
	      t->part[0].n ? part_lookup(&t->part[0], addr, &s) : USYM_NONE;
	if (ret == USYM_NONE &&
	    !bsearch(&addr, t->labels, t->nlabels, sizeof(addr), cmp_addr))
		ret = t->part[1].n ? part_lookup(&t->part[1], addr, &s) :
				     USYM_NONE;
	else if (ret == USYM_NONE)
		ret = USYM_ASK;
	if (ret == USYM_FOUND) {
		*off = addr - s->start;
		return s->name;
	}
	/* Nested symbols, a label, no symbol at all: libdwfl's own choice */
	a = &t->asked[(addr ^ addr >> 9) % USYM_ASKED];
	if (a->used && a->addr == addr) {
		*off = a->off;
		return a->name;
	}
	usym_asked++;
	name = dwfl_module_addrinfo(mod, addr, off, &sym, NULL, NULL, NULL);
	*a = (struct usym_asked){ addr, name, name ? *off : 0, true };
	return name;
ask:
	usym_asked++;
	return dwfl_module_addrinfo(mod, addr, off, &sym, NULL, NULL, NULL);
}

/**
 * usym_lookup() - the symbol of a user address in a module
 * @mod: the module that holds @addr (dwfl_addrmodule())
 * @addr: the address
 * @off: set to @addr's offset in the symbol
 *
 * Return: the symbol's name, as dwfl_module_addrinfo() gives it, or NULL
 * if no symbol holds @addr.
 */
const char *usym_lookup(struct Dwfl_Module *mod, __u64 addr, __u64 *off)
{
	GElf_Off o = 0;
	const char *name = usym_find(mod, addr, &o);

	*off = o;
	return name;
}

static int forget_module(Dwfl_Module *mod, void **ud, const char *name,
			 Dwarf_Addr start, void *arg)
{
	if (*ud) {
		table_free(*ud);
		*ud = NULL;
	}
	return DWARF_CB_OK;
}

/**
 * usym_forget() - free the tables of @dwfl's modules, before dwfl_end()
 * @dwfl: the modules' Dwfl
 */
void usym_forget(struct Dwfl *dwfl)
{
	dwfl_getmodules(dwfl, forget_module, NULL, 0);
}
