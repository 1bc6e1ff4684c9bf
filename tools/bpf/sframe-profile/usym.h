/* SPDX-License-Identifier: GPL-2.0 */
/* sframe-profile's user symbols: libdwfl's, looked up in a sorted table. */
#ifndef SFRAME_PROFILE_USYM_H
#define SFRAME_PROFILE_USYM_H

#include <elfutils/libdwfl.h>

const char *usym_lookup(Dwfl_Module *mod, GElf_Addr addr, GElf_Off *off);
void usym_forget(Dwfl *dwfl);

/* The lookups that went to dwfl_module_addrinfo() */
extern unsigned long usym_asked;

#endif
