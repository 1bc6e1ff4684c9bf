// SPDX-License-Identifier: GPL-2.0
/* Corpus shared library for sframe_diff: its callers go through the PLT. */
#include <stdio.h>

#include "../include/linux/compiler_attributes.h"
#include "plt_lib.h"

int corpus_counter;

noinline int corpus_add(int a, int b)
{
	return a + b + corpus_counter++;
}

int corpus_print(const char *s)
{
	return printf("%s %d\n", s, corpus_add(1, 2));
}

int corpus_twice(int (*fn)(int a, int b), int arg)
{
	return fn(arg, arg) + corpus_print("twice");
}
