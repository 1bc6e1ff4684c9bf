// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-profile's flame graph: one HTML page that needs nothing else,
 * drawn by d3-flame-graph (and d3) in the browser.  Their files are not
 * part of sframe-profile: the build fetches them from their npm packages
 * (devtools/bpf/build.sh), and the page takes them in, with their
 * licenses, from the assets directory:
 *   d3.min.js, d3-flamegraph.umd.min.js, d3-flamegraph.css, LICENSES
 * The stacks go in as d3-flame-graph's tree: {"name", "value", "children"},
 * each node's value its samples and those of the frames it called.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define FG_ASSET_MAX	(4 << 20)

/* A frame of the tree, its children in a list, found by a hash */
struct fg_node {
	const char *name;	/* into a folded stack */
	size_t len;
	unsigned long value;
	size_t first, last;	/* children; 0 for none (0 is the root) */
	size_t next;		/* sibling */
	size_t parent;
};

struct fg_tree {
	struct fg_node *node;
	size_t n, cap;
	size_t *hash;		/* node index + 1, by (parent, name) */
	size_t hcap;
};

static size_t fg_hash(size_t parent, const char *name, size_t len)
{
	size_t h = parent * 0x9e3779b97f4a7c15ULL;

	while (len--)
		h = (h ^ (unsigned char)*name++) * 0x100000001b3ULL;
	return h;
}

static bool fg_rehash(struct fg_tree *t)
{
	size_t cap = t->hcap ? 2 * t->hcap : 1024, i, h;
	size_t *nh = calloc(cap, sizeof(*nh));

	if (!nh)
		return false;
	for (i = 1; i < t->n; i++) {
		const struct fg_node *d = &t->node[i];

		h = fg_hash(d->parent, d->name, d->len) & (cap - 1);
		while (nh[h])
			h = (h + 1) & (cap - 1);
		nh[h] = i + 1;
	}
	free(t->hash);
	t->hash = nh;
	t->hcap = cap;
	return true;
}

/* The child @name of @parent, added if new: its index, 0 without memory */
static size_t fg_child(struct fg_tree *t, size_t parent, const char *name,
		       size_t len)
{
	struct fg_node *d;
	size_t h;

	if (2 * t->n >= t->hcap && !fg_rehash(t))
		return 0;
	h = fg_hash(parent, name, len) & (t->hcap - 1);
	for (; t->hash[h]; h = (h + 1) & (t->hcap - 1)) {
		d = &t->node[t->hash[h] - 1];
		if (d->parent == parent && d->len == len &&
		    !memcmp(d->name, name, len))
			return t->hash[h] - 1;
	}
	if (t->n == t->cap) {
		size_t cap = 2 * t->cap;
		struct fg_node *nn = realloc(t->node, cap * sizeof(*nn));

		if (!nn)
			return 0;
		t->node = nn;
		t->cap = cap;
	}
	d = &t->node[t->n];
	memset(d, 0, sizeof(*d));
	d->name = name;
	d->len = len;
	d->parent = parent;
	if (t->node[parent].last)
		t->node[t->node[parent].last].next = t->n;
	else
		t->node[parent].first = t->n;
	t->node[parent].last = t->n;
	t->hash[h] = t->n + 1;
	return t->n++;
}

/* A JSON string of @len bytes of @s */
static void fg_string(FILE *out, const char *s, size_t len)
{
	fputc('"', out);
	for (; len; s++, len--) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(out, "\\u%04x", c);	/* nor a </script> */
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* The tree from @root down, in JSON; depth first, without recursion */
static void fg_json(FILE *out, const struct fg_tree *t)
{
	size_t i = 0;

	for (;;) {
		const struct fg_node *d = &t->node[i];

		fputs("{\"name\":", out);
		if (i)
			fg_string(out, d->name, d->len);
		else
			fputs("\"all\"", out);
		fprintf(out, ",\"value\":%lu,\"children\":[", d->value);
		if (d->first) {
			i = d->first;
			continue;
		}
		/* Close this node and the parents whose last child it is */
		for (;;) {
			fputs("]}", out);
			if (!i)
				return;
			if (t->node[i].next) {
				fputc(',', out);
				i = t->node[i].next;
				break;
			}
			i = t->node[i].parent;
		}
	}
}

/*
 * The file @name of @assets, copied to @out inside the element that
 * @end closes (or the comment, "-->"): 0, or -errno; -EINVAL if the file
 * holds @end, which would end it early, or is larger than
 * FG_ASSET_MAX.  The build's files are known (their hashes); another
 * SFRAME_PROFILE_ASSETS is checked.
 */
static int fg_asset(FILE *out, const char *assets, const char *name,
		    const char *end)
{
	char path[4096], *buf;
	size_t len = 0, n;
	int err = 0;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", assets, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	buf = malloc(FG_ASSET_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	while (len <= FG_ASSET_MAX &&
	       (n = fread(buf + len, 1, FG_ASSET_MAX + 1 - len, f)) > 0)
		len += n;
	if (ferror(f))
		err = -EIO;
	else if (len > FG_ASSET_MAX || memchr(buf, 0, len))
		err = -EINVAL;
	buf[len] = 0;
	if (!err && strcasestr(buf, end))
		err = -EINVAL;
	if (!err)
		fwrite(buf, 1, len, out);
	free(buf);
	fclose(f);
	return err;
}

/**
 * flamegraph_write() - a flame graph page of folded stacks
 * @out: where the page goes
 * @f: the folded stacks
 * @n: how many
 * @title: the graph's title (plain text)
 * @assets: the directory of d3's and d3-flame-graph's files
 *
 * Return: 0, or -errno: -ENOMEM, -EIO, or that of reading an asset
 * (-ENOENT when the build did not fetch them, -EINVAL for one that
 * would end its element early).
 */
int flamegraph_write(FILE *out, const struct folded *f, size_t n,
		     const char *title, const char *assets)
{
	static const char *const scripts[] = {
		"d3.min.js", "d3-flamegraph.umd.min.js",
	};
	struct fg_tree t = { .cap = 1024 };
	size_t i, k;
	int err = -ENOMEM;

	t.node = calloc(t.cap, sizeof(*t.node));
	if (!t.node)
		return -ENOMEM;
	t.n = 1;
	for (i = 0; i < n; i++) {
		const char *s = f[i].stack, *e;
		size_t at = 0;

		t.node[0].value += f[i].count;
		for (; *s; s = *e ? e + 1 : e) {
			e = strchrnul(s, ';');
			at = fg_child(&t, at, s, e - s);
			if (!at)
				goto out;
			t.node[at].value += f[i].count;
		}
	}

	fputs("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>",
	      out);
	for (k = 0; title[k]; k++)
		if (title[k] == '<')
			fputs("&lt;", out);
		else if (title[k] == '&')
			fputs("&amp;", out);
		else
			fputc(title[k], out);
	fputs("</title>\n<!-- Drawn by d3 and d3-flame-graph; their licenses:\n",
	      out);
	err = fg_asset(out, assets, "LICENSES", "-->");
	if (err)
		goto out;
	fputs("-->\n<style>\n", out);
	err = fg_asset(out, assets, "d3-flamegraph.css", "</style");
	if (err)
		goto out;
	fputs("</style>\n", out);
	for (k = 0; k < ARRAY_SIZE(scripts); k++) {
		fputs("<script>\n", out);
		err = fg_asset(out, assets, scripts[k], "</script");
		if (err)
			goto out;
		fputs("\n</script>\n", out);
	}
	fputs("</head>\n<body>\n<div id=\"chart\"></div>\n<script>\nvar stacks = ",
	      out);
	fg_json(out, &t);
	fputs(";\nvar chart = flamegraph.default()\n"
	      "\t.width(Math.max(960, window.innerWidth - 40)).title(", out);
	fg_string(out, title, strlen(title));
	fputs(").transitionDuration(0);\n"
	      "d3.select(\"#chart\").datum(stacks).call(chart);\n"
	      "</script>\n</body>\n</html>\n", out);
	err = ferror(out) ? -EIO : 0;
out:
	free(t.node);
	free(t.hash);
	return err;
}
