/* SPDX-License-Identifier: GPL-2.0 */
/* sframe-profile's user symbols: libdwfl's, looked up in a sorted table. */
#ifndef SFRAME_PROFILE_USYM_H
#define SFRAME_PROFILE_USYM_H

#include <elfutils/libdwfl.h>
#include <linux/types.h>

const char *usym_lookup(struct Dwfl_Module *mod, __u64 addr, __u64 *off);
void usym_forget(struct Dwfl *dwfl);

/* The lookups that went to dwfl_module_addrinfo() */
extern unsigned long usym_asked;

#endif
