// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-profile's pprof output: the stacks as a profile.proto message
 * (profile.proto here declares what it writes), packed by protobuf-c and
 * gzipped by zlib, as Go's pprof, Pyroscope and Parca read it.  Each
 * stack is one Sample whose values are its samples and their CPU time
 * (samples times the period, 1/HZ), labelled with its process's pid and
 * comm.  Strings, functions (a name in a file), mappings (a file) and
 * locations (an address of a function in a mapping) are each written
 * once, found again by a hash of what identifies them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "pprof.h"
#include "profile.pb-c.h"
#include "utf8.h"

/* The ids of keys (byte strings), by open addressing: id 0 is none */
struct pp_ids {
	struct pp_key {
		char *key;
		size_t len;
		__u64 id;
	} *k;
	size_t n, cap;
};

static __u64 pp_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	__u64 h = 0xcbf29ce484222325ULL;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

/*
 * The id of @key in @ids: *@added says whether it was new, and got the
 * next id, @ids->n; 0 without memory
 */
static __u64 pp_id(struct pp_ids *ids, const void *key, size_t len,
		   bool *added)
{
	size_t i, h;

	*added = false;
	if (2 * (ids->n + 1) > ids->cap) {
		size_t cap = ids->cap ? 2 * ids->cap : 1024;
		struct pp_key *k = calloc(cap, sizeof(*k));

		if (!k)
			return 0;
		for (i = 0; i < ids->cap; i++) {
			if (!ids->k[i].key)
				continue;
			h = pp_hash(ids->k[i].key, ids->k[i].len) & (cap - 1);
			while (k[h].key)
				h = (h + 1) & (cap - 1);
			k[h] = ids->k[i];
		}
		free(ids->k);
		ids->k = k;
		ids->cap = cap;
	}
	h = pp_hash(key, len) & (ids->cap - 1);
	for (; ids->k[h].key; h = (h + 1) & (ids->cap - 1))
		if (ids->k[h].len == len && !memcmp(ids->k[h].key, key, len))
			return ids->k[h].id;
	ids->k[h].key = malloc(len ? len : 1);
	if (!ids->k[h].key)
		return 0;
	memcpy(ids->k[h].key, key, len);
	ids->k[h].len = len;
	ids->k[h].id = ++ids->n;
	*added = true;
	return ids->n;
}

static void pp_ids_free(struct pp_ids *ids)
{
	size_t i;

	for (i = 0; i < ids->cap; i++)
		free(ids->k[i].key);
	free(ids->k);
}

/* Room for one more in the array *@arrp of @n of @size: false without memory */
static bool pp_grow(void *arrp, size_t n, size_t *cap, size_t size)
{
	void **arr = arrp, *p;
	size_t c;

	if (n < *cap)
		return true;
	c = *cap ? 2 * *cap : 64;
	p = realloc(*arr, c * size);
	if (!p)
		return false;
	*arr = p;
	*cap = c;
	return true;
}

struct pp {
	Pprof__Profile prof;
	struct pp_ids str, fun, map, loc;
	char **strs;			/* the string table, by id - 1 */
	size_t nstrs, strs_cap;
	/* The room in prof's arrays */
	size_t fns_cap, maps_cap, locs_cap, samples_cap;
};

/*
 * The string table index of @s, its bytes that are not UTF-8 as '?'
 * (utf8.h), as sframe-profile prints names: -1 without memory
 */
static __s64 pp_str(struct pp *pp, const char *s)
{
	size_t len = strlen(s), i, n;
	bool added;
	__u64 id;
	char *c;

	if (!len)
		return 0;
	for (i = 0; i < len; i += n ? n : 1) {
		n = utf8_char((const unsigned char *)s + i);
		if (!n)
			break;
	}
	if (i < len) {
		c = strdup(s);
		if (!c)
			return -1;
		for (i = 0; i < len; i += n ? n : 1) {
			n = utf8_char((unsigned char *)c + i);
			if (!n)
				c[i] = '?';
		}
		id = pp_str(pp, c);
		free(c);
		return id;
	}
	id = pp_id(&pp->str, s, len, &added);
	if (!id)
		return -1;
	if (added) {
		c = strdup(s);
		if (!c || !pp_grow(&pp->strs, pp->nstrs, &pp->strs_cap,
				   sizeof(*pp->strs))) {
			free(c);
			return -1;
		}
		pp->strs[pp->nstrs++] = c;
	}
	return id;	/* [0] is "" */
}

/* The id of the mapping of the file @object: 0 without memory */
static __u64 pp_mapping(struct pp *pp, const char *object)
{
	Pprof__Mapping *m;
	bool added;
	__u64 id;
	__s64 name;

	id = pp_id(&pp->map, object, strlen(object), &added);
	if (!id || !added)
		return id;
	name = pp_str(pp, object);
	m = calloc(1, sizeof(*m));
	if (name < 0 || !m)
		goto fail;
	pprof__mapping__init(m);
	m->id = id;
	m->filename = name;
	m->has_functions = true;
	if (!pp_grow(&pp->prof.mapping, pp->prof.n_mapping, &pp->maps_cap,
		     sizeof(m)))
		goto fail;
	pp->prof.mapping[pp->prof.n_mapping++] = m;
	return id;
fail:
	free(m);
	return 0;
}

/* The id of the function @name in the file @object: 0 without memory */
static __u64 pp_function(struct pp *pp, const char *name, const char *object)
{
	size_t nl = strlen(name) + 1, ol = strlen(object);
	char *key = malloc(nl + ol);
	Pprof__Function *f = NULL;
	__s64 sname, sfile;
	bool added;
	__u64 id;

	if (!key)
		return 0;
	memcpy(key, name, nl);
	memcpy(key + nl, object, ol);
	id = pp_id(&pp->fun, key, nl + ol, &added);
	free(key);
	if (!id || !added)
		return id;
	sname = pp_str(pp, name);
	sfile = pp_str(pp, object);
	f = calloc(1, sizeof(*f));
	if (sname < 0 || sfile < 0 || !f)
		goto fail;
	pprof__function__init(f);
	f->id = id;
	f->name = sname;
	f->system_name = sname;
	f->filename = sfile;
	if (!pp_grow(&pp->prof.function, pp->prof.n_function, &pp->fns_cap,
		     sizeof(f)))
		goto fail;
	pp->prof.function[pp->prof.n_function++] = f;
	return id;
fail:
	free(f);
	return 0;
}

/* The id of the location of @fr: 0 without memory */
static __u64 pp_location(struct pp *pp, const struct pp_frame *fr)
{
	Pprof__Location *l = NULL;
	__u64 key[3], fid, mid, id;
	bool added;

	mid = pp_mapping(pp, fr->object);
	fid = pp_function(pp, fr->name, fr->object);
	if (!mid || !fid)
		return 0;
	key[0] = mid;
	key[1] = fid;
	key[2] = fr->addr;
	id = pp_id(&pp->loc, key, sizeof(key), &added);
	if (!id || !added)
		return id;
	l = calloc(1, sizeof(*l) + sizeof(Pprof__Line *) + sizeof(Pprof__Line));
	if (!l)
		return 0;
	pprof__location__init(l);
	l->id = id;
	l->mapping_id = mid;
	l->address = fr->addr;
	l->n_line = 1;
	l->line = (Pprof__Line **)(l + 1);
	l->line[0] = (Pprof__Line *)(l->line + 1);
	pprof__line__init(l->line[0]);
	l->line[0]->function_id = fid;
	if (!pp_grow(&pp->prof.location, pp->prof.n_location, &pp->locs_cap,
		     sizeof(l))) {
		free(l);
		return 0;
	}
	pp->prof.location[pp->prof.n_location++] = l;
	return id;
}

/* A Sample of @st, its values and labels in one allocation */
static Pprof__Sample *pp_sample(struct pp *pp, const struct pp_stack *st,
				__s64 period)
{
	Pprof__Sample *s;
	Pprof__Label *lab;
	__s64 kpid, kcomm, comm;
	size_t i;

	kpid = pp_str(pp, "pid");
	kcomm = pp_str(pp, "comm");
	comm = pp_str(pp, st->comm);
	if (kpid < 0 || kcomm < 0 || comm < 0)
		return NULL;
	s = calloc(1, sizeof(*s) + st->nframes * sizeof(*s->location_id) +
		   2 * sizeof(*s->value) + 2 * sizeof(Pprof__Label *) +
		   2 * sizeof(Pprof__Label));
	if (!s)
		return NULL;
	pprof__sample__init(s);
	s->location_id = (uint64_t *)(s + 1);
	s->value = (int64_t *)(s->location_id + st->nframes);
	s->label = (Pprof__Label **)(s->value + 2);
	lab = (Pprof__Label *)(s->label + 2);
	for (i = 0; i < st->nframes; i++) {
		s->location_id[i] = pp_location(pp, &st->frames[i]);
		if (!s->location_id[i]) {
			free(s);
			return NULL;
		}
	}
	s->n_location_id = st->nframes;
	s->n_value = 2;
	s->value[0] = st->count;
	s->value[1] = st->count * period;
	s->n_label = 2;
	for (i = 0; i < 2; i++) {
		pprof__label__init(&lab[i]);
		s->label[i] = &lab[i];
	}
	lab[0].key = kpid;
	lab[0].num = st->pid;
	lab[1].key = kcomm;
	lab[1].str = comm;
	return s;
}

static void pp_free(struct pp *pp)
{
	size_t i;

	for (i = 0; i < pp->nstrs; i++)
		free(pp->strs[i]);
	free(pp->strs);
	for (i = 0; i < pp->prof.n_function; i++)
		free(pp->prof.function[i]);
	free(pp->prof.function);
	for (i = 0; i < pp->prof.n_mapping; i++)
		free(pp->prof.mapping[i]);
	free(pp->prof.mapping);
	for (i = 0; i < pp->prof.n_location; i++)
		free(pp->prof.location[i]);
	free(pp->prof.location);
	for (i = 0; i < pp->prof.n_sample; i++)
		free(pp->prof.sample[i]);
	free(pp->prof.sample);
	free(pp->prof.sample_type);
	free(pp->prof.string_table);
	pp_ids_free(&pp->str);
	pp_ids_free(&pp->fun);
	pp_ids_free(&pp->map);
	pp_ids_free(&pp->loc);
}

/**
 * pprof_write() - stacks as a gzipped pprof profile
 * @fd: where it goes (not closed)
 * @st: the stacks
 * @n: how many
 * @hz: the sampling rate: a sample stands for 1/@hz s of CPU time
 * @time_ns: when sampling began (CLOCK_REALTIME)
 * @duration_ns: how long it lasted
 *
 * Return: 0, or -errno (-ENOMEM, -EIO).
 */
int pprof_write(int fd, const struct pp_stack *st, size_t n, int hz,
		__s64 time_ns, __s64 duration_ns)
{
	static const char *const vt[3][2] = {
		{ "samples", "count" }, { "cpu", "nanoseconds" },
		{ "cpu", "nanoseconds" },
	};
	Pprof__ValueType types[3];
	struct pp pp = { 0 };
	__s64 period = hz > 0 ? 1000000000LL / hz : 0;
	Pprof__Sample *s;
	size_t i, len, chunk;
	int err = -ENOMEM;
	__u8 *buf = NULL;
	gzFile gz;
	int gfd;

	pprof__profile__init(&pp.prof);
	for (i = 0; i < 3; i++) {
		__s64 t = pp_str(&pp, vt[i][0]), u = pp_str(&pp, vt[i][1]);

		if (t < 0 || u < 0)
			goto out;
		pprof__value_type__init(&types[i]);
		types[i].type = t;
		types[i].unit = u;
	}
	pp.prof.sample_type = calloc(2, sizeof(*pp.prof.sample_type));
	if (!pp.prof.sample_type)
		goto out;
	pp.prof.sample_type[0] = &types[0];
	pp.prof.sample_type[1] = &types[1];
	pp.prof.n_sample_type = 2;
	pp.prof.period_type = &types[2];
	pp.prof.period = period;
	pp.prof.time_nanos = time_ns;
	pp.prof.duration_nanos = duration_ns;
	for (i = 0; i < n; i++) {
		s = pp_sample(&pp, &st[i], period);
		if (!s || !pp_grow(&pp.prof.sample, pp.prof.n_sample,
				   &pp.samples_cap, sizeof(s))) {
			free(s);
			goto out;
		}
		pp.prof.sample[pp.prof.n_sample++] = s;
	}
	/* The string table: "" first, then in the order of the ids */
	pp.prof.string_table = calloc(pp.nstrs + 1, sizeof(char *));
	if (!pp.prof.string_table)
		goto out;
	pp.prof.string_table[0] = "";
	for (i = 0; i < pp.nstrs; i++)
		pp.prof.string_table[i + 1] = pp.strs[i];
	pp.prof.n_string_table = pp.nstrs + 1;

	len = pprof__profile__get_packed_size(&pp.prof);
	buf = malloc(len ? len : 1);
	if (!buf)
		goto out;
	pprof__profile__pack(&pp.prof, buf);
	err = -EIO;
	gfd = dup(fd);
	if (gfd < 0)
		goto out;
	gz = gzdopen(gfd, "wb9");
	if (!gz) {
		close(gfd);
		goto out;
	}
	for (i = 0; i < len; i += chunk) {
		chunk = len - i < (1U << 30) ? len - i : (1U << 30);
		if (gzwrite(gz, buf + i, chunk) != (int)chunk) {
			gzclose(gz);
			goto out;
		}
	}
	if (gzclose(gz) == Z_OK)
		err = 0;
out:
	free(buf);
	pp_free(&pp);
	return err;
}
