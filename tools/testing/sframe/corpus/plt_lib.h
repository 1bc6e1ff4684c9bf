/* SPDX-License-Identifier: GPL-2.0 */
/* Corpus shared library for sframe_diff: what plt_lib.c exports. */
#ifndef _SFRAME_CORPUS_PLT_LIB_H
#define _SFRAME_CORPUS_PLT_LIB_H

int corpus_add(int a, int b);
int corpus_print(const char *s);
int corpus_twice(int (*fn)(int a, int b), int arg);

#endif
