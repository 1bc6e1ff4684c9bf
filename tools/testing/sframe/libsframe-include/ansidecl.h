/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system <sframe.h> includes binutils' "ansidecl.h", which libsframe-dev
 * does not ship.  Only these two attribute macros are needed.
 */
#ifndef _SFRAME_TEST_ANSIDECL_H
#define _SFRAME_TEST_ANSIDECL_H

#ifndef ATTRIBUTE_PACKED
#define ATTRIBUTE_PACKED	__attribute__((__packed__))
#endif
#ifndef ATTRIBUTE_UNUSED
#define ATTRIBUTE_UNUSED	__attribute__((__unused__))
#endif

#endif
