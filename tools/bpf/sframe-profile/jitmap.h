/* SPDX-License-Identifier: GPL-2.0 */
/* sframe-profile's JIT symbols: the perf map that a process writes. */
#ifndef SFRAME_PROFILE_JITMAP_H
#define SFRAME_PROFILE_JITMAP_H

#include <linux/types.h>
#include <sys/types.h>

struct jitmap;

int jitmap_open(pid_t pid);
struct jitmap *jitmap_read(int fd, pid_t pid);
const char *jitmap_lookup(const struct jitmap *m, __u64 addr,
			  __u64 *off, const char **object);
void jitmap_free(struct jitmap *m);

#endif
