/* SPDX-License-Identifier: GPL-2.0 */
/* sframe-profile's objects: the files that processes map, kept open. */
#ifndef SFRAME_PROFILE_OBJECTS_H
#define SFRAME_PROFILE_OBJECTS_H

#include <linux/types.h>
#include <sys/types.h>

int object_open(pid_t pid, __u64 start, __u64 end);
int object_fd(int obj);
void objects_raise_limit(void);

#endif
