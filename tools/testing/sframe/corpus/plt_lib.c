// SPDX-License-Identifier: GPL-2.0
/* Corpus shared library for sframe_diff: its callers go through the PLT. */
#include <stdio.h>

int corpus_counter;

__attribute__((noinline)) int corpus_add(int a, int b)
{
	return a + b + corpus_counter++;
}

int corpus_print(const char *s)
{
	return printf("%s %d\n", s, corpus_add(1, 2));
}

int corpus_twice(int (*fn)(int, int), int x)
{
	return fn(x, x) + corpus_print("twice");
}
