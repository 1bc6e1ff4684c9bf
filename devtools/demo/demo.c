// SPDX-License-Identifier: GPL-2.0
/*
 * The demo workload: a word-frequency indexer over generated text. Built
 * -O2 -fomit-frame-pointer -Wa,--gsframe (no frame pointers, with SFrame),
 * linked with libdemo.so built the same way. Call chains are several
 * frames deep, cross into the library and back (the sort's comparison
 * callback), and recurse.
 *
 * Usage: demo [ROUNDS]. Prints the work's own wall time and CPU time:
 *   demo: rounds=N wall_ms=W cpu_ms=C checksum=X
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>
#include "libdemo.h"

#define NOINLINE __attribute__((__noinline__))
#define TEXT_BYTES (256 * 1024)
#define TABLE_BITS 14
#define TABLE_SIZE (1u << TABLE_BITS)

/* A slot is in use when its generation is the current one: no clearing. */
struct index {
	struct demo_word slot[TABLE_SIZE];
	unsigned int gen[TABLE_SIZE];
	unsigned int cur;
	size_t used;
};

static char text[TEXT_BYTES + 1];
static struct index idx;
static struct demo_word sorted[TABLE_SIZE];
static uint64_t rng = 0x2545f4914f6cdd1dULL;

static NOINLINE uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Words with a Zipf-like distribution: few frequent ones, many rare ones. */
static NOINLINE size_t make_word(char *out, size_t room)
{
	static const char letters[] = "etaoinshrdlucmfwypvbgkjqxz";
	uint64_t r = next_random();
	size_t len = 2 + (r & 7), i;
	unsigned int rank = (unsigned int)((r >> 8) % 4096);

	rank = rank * rank / 4096;
	if (len > room)
		len = room;
	for (i = 0; i < len; i++)
		out[i] = letters[(rank >> (i * 2) ^ i * 5) % 26];
	return len;
}

static NOINLINE void generate_text(void)
{
	size_t pos = 0;

	while (pos + 12 < TEXT_BYTES) {
		pos += make_word(text + pos, TEXT_BYTES - pos - 1);
		text[pos++] = (next_random() & 15) ? ' ' : '\n';
	}
	text[pos] = '\0';
}

/* Our own loops, not libc's (which has no .sframe in Debian) */
static int same(const char *a, const char *b, size_t len)
{
	while (len--)
		if (*a++ != *b++)
			return 1;
	return 0;
}

static NOINLINE struct demo_word *lookup(const char *s, size_t len, uint64_t h)
{
	size_t i = h & (TABLE_SIZE - 1), probes;

	for (probes = 0; probes < TABLE_SIZE; probes++) {
		struct demo_word *w = &idx.slot[i];

		if (idx.gen[i] != idx.cur) {
			idx.gen[i] = idx.cur;
			w->count = 0;
			w->text = s;
			w->len = len;
			w->hash = h;
			idx.used++;
			return w;
		}
		if (w->hash == h && w->len == len && !same(w->text, s, len))
			return w;
		i = (i + 1) & (TABLE_SIZE - 1);
	}
	return NULL;
}

static NOINLINE void index_word(const char *s, size_t len)
{
	struct demo_word *w = lookup(s, len, demo_hash(s, len));

	if (w)
		w->count++;
}

static NOINLINE void tokenize(const char *p)
{
	while (*p) {
		const char *start;

		while (*p == ' ' || *p == '\n')
			p++;
		start = p;
		while (*p && *p != ' ' && *p != '\n')
			p++;
		if (p > start)
			index_word(start, p - start);
	}
}

static NOINLINE int by_count(const struct demo_word *a, const struct demo_word *b)
{
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return same(a->text, b->text, a->len);
}

static NOINLINE size_t collect(void)
{
	size_t i, n = 0;

	for (i = 0; i < TABLE_SIZE; i++)
		if (idx.gen[i] == idx.cur)
			sorted[n++] = idx.slot[i];
	return n;
}

static NOINLINE uint32_t rank_words(void)
{
	size_t n = collect(), i;
	uint32_t crc = 0;

	demo_sort(sorted, n, by_count);
	for (i = 0; i < n && i < 64; i++)
		crc = demo_crc32(sorted[i].text, sorted[i].len, crc);
	return crc;
}

static NOINLINE uint32_t checksum_text(void)
{
	return demo_crc32(text, TEXT_BYTES / 16, 0);
}

static NOINLINE uint32_t run_round(void)
{
	uint32_t crc;

	idx.cur++;
	idx.used = 0;
	generate_text();
	tokenize(text);
	crc = rank_words();
	return crc ^ checksum_text();
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20, i;
	struct timespec t0;
	struct rusage ru;
	uint32_t sum = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < rounds; i++)
		sum ^= run_round();
	getrusage(RUSAGE_SELF, &ru);
	printf("demo: rounds=%d wall_ms=%.3f cpu_ms=%.3f checksum=%08x\n", rounds,
	       ms_since(&t0),
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3, sum);
	return 0;
}
