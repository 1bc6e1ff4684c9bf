/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The libsframe side of sframe_diff: build a struct sframe_rule from what
 * the system libsframe (binutils) decodes, as the oracle for the kernel
 * reader.  Kept in its own translation unit: <sframe.h> and the kernel's
 * sframe_format.h define the same names.
 */
#ifndef _SFRAME_TEST_DIFF_LIB_H
#define _SFRAME_TEST_DIFF_LIB_H

#include <stddef.h>

struct lib_ctx;
struct sframe_rule;

/* Decode the section in @buf; NULL with a message in @err on error. */
struct lib_ctx *lib_open(const void *buf, size_t size, char *err,
			 size_t errlen);
void lib_close(struct lib_ctx *ctx);
unsigned int lib_num_fdes(struct lib_ctx *ctx);

/* Function of FDE @idx: start relative to the section start, and size */
int lib_fde(struct lib_ctx *ctx, unsigned int idx, long long *start,
	    unsigned int *size);

/*
 * Rule for @pc (relative to the section start), which is in the function of
 * FDE @idx.  @func_start is stored in @rule as is.  Return 0 or -ENOENT.
 */
int lib_rule(struct lib_ctx *ctx, unsigned int idx, long long pc,
	     unsigned long func_start, struct sframe_rule *rule);

#endif
