// SPDX-License-Identifier: GPL-2.0
/*
 * Runner of the KUnit shim (include/kunit/test.h): runs every case of the
 * registered suites, printing one TAP line "ok N suite.case" per case and
 * then "N passed, N failed".  Exits non-zero if a case failed.
 *
 *	sframe_test [CASE...]	only the cases named (case or suite.case)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include "uspace.h"

#define MAX_SUITES	8
#define MAX_ALLOCS	64
/* Where kunit_vm_mmap() places mappings, a guard page apart */
#define VM_MMAP_BASE	0x10000000UL

static struct kunit_suite *suites[MAX_SUITES];
static unsigned int nr_suites;
static void *allocs[MAX_ALLOCS];
static unsigned int nr_allocs;
static unsigned long vm_next;

void kunit_shim_register(struct kunit_suite *suite)
{
	if (nr_suites == MAX_SUITES) {
		fprintf(stderr, "kunit shim: too many suites\n");
		exit(2);
	}
	suites[nr_suites++] = suite;
}

void kunit_shim_fail(struct kunit *test, const char *file, int line,
		     const char *fmt, ...)
{
	va_list ap;

	printf("    # %s: EXPECTATION FAILED at %s:%d\n    # ", test->name,
	       file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	test->failed = true;
}

void kunit_shim_msg(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (buf[0])
		printf("    # %s\n", buf);
}

void kunit_shim_abort(struct kunit *test)
{
	longjmp(test->abort, 1);
}

void kunit_shim_info(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	printf("    # %s: ", test->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void *track(void *p)
{
	if (!p)
		return NULL;
	if (nr_allocs == MAX_ALLOCS) {
		free(p);
		return NULL;
	}
	allocs[nr_allocs++] = p;
	return p;
}

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size, gfp_t gfp)
{
	(void)test;
	(void)gfp;
	return track(calloc(n ? n : 1, size ? size : 1));
}

unsigned long kunit_vm_mmap(struct kunit *test, struct file *file,
			    unsigned long addr, unsigned long len,
			    unsigned long prot, unsigned long flag,
			    unsigned long offset)
{
	unsigned long start = vm_next;
	void *data;

	(void)test;
	(void)prot;
	(void)flag;
	if (file || addr || offset || !len)
		return 0;
	len = PAGE_ALIGN(len);
	data = track(calloc(1, len));
	if (!data)
		return 0;
	uspace_map_anon(start, data, len);
	vm_next += len + PAGE_SIZE;
	return start;
}

int vm_munmap(unsigned long start, size_t len)
{
	if (start % PAGE_SIZE)
		return -EINVAL;
	uspace_unmap(start, PAGE_ALIGN(len));
	return 0;
}

static bool run_case(struct kunit_suite *suite, struct kunit_case *c)
{
	struct kunit test = { .name = c->name };
	unsigned int i;

	uspace_reset();
	vm_next = VM_MMAP_BASE;
	if (!setjmp(test.abort)) {
		if (!suite->init || !suite->init(&test))
			c->run_case(&test);
		else
			kunit_shim_fail(&test, __FILE__, __LINE__, "init failed");
	}
	if (suite->exit)
		suite->exit(&test);
	if (sim_pagefault_depth) {
		kunit_shim_fail(&test, __FILE__, __LINE__,
				"pagefault_disable() not balanced");
		sim_pagefault_depth = 0;
	}
	for (i = 0; i < nr_allocs; i++)
		free(allocs[i]);
	nr_allocs = 0;
	uspace_reset();
	return !test.failed;
}

/* Run @c? All cases without arguments, else those named (case or suite.case) */
static bool selected(const struct kunit_suite *suite, const struct kunit_case *c,
		     int argc, char **argv)
{
	size_t len = strlen(suite->name);
	int i;

	if (argc < 2)
		return true;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, suite->name, len) && a[len] == '.')
			a += len + 1;
		if (!strcmp(a, c->name))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	unsigned int s, n = 0, passed = 0, failed = 0;
	struct kunit_case *c;

	/* A sanitizer abort comes after the lines of the cases before it */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (s = 0; s < nr_suites; s++)
		for (c = suites[s]->test_cases; c->run_case; c++)
			n += selected(suites[s], c, argc, argv);
	printf("TAP version 13\n1..%u\n", n);
	n = 0;
	for (s = 0; s < nr_suites; s++) {
		for (c = suites[s]->test_cases; c->run_case; c++) {
			bool ok;

			if (!selected(suites[s], c, argc, argv))
				continue;
			ok = run_case(suites[s], c);
			printf("%sok %u %s.%s\n", ok ? "" : "not ", ++n,
			       suites[s]->name, c->name);
			if (ok)
				passed++;
			else
				failed++;
		}
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
