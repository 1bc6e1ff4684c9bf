/* SPDX-License-Identifier: GPL-2.0 */
/* sframe-gen: between the CFI reader and the encoder */
#ifndef _SFRAME_GEN_INT_H
#define _SFRAME_GEN_INT_H

#include "sframe_gen.h"

/* Whether the encoder can write @rule, and if not, why. */
enum sfg_why sfg_fit(const struct sfg_arch *a, const struct sframe_rule *rule);

#endif
