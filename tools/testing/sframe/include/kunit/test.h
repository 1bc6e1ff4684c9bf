/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of the KUnit API, enough for kernel/unwind/sframe_kunit.c:
 * suites register themselves from a constructor and kunit.c runs them,
 * printing one TAP line per case.  A failed KUNIT_ASSERT_*() ends the case
 * with longjmp().  User memory from kunit_vm_mmap() lives in the simulated
 * address space of uspace.c.
 */
#ifndef _SFRAME_SHIM_KUNIT_TEST_H
#define _SFRAME_SHIM_KUNIT_TEST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <linux/compiler_attributes.h>
#include <linux/types.h>

struct file;

struct kunit {
	const char	*name;
	void		*priv;
	bool		failed;
	jmp_buf		abort;
};

struct kunit_case {
	void		(*run_case)(struct kunit *test);
	const char	*name;
};

struct kunit_suite {
	const char		*name;
	int			(*init)(struct kunit *test);
	void			(*exit)(struct kunit *test);
	struct kunit_case	*test_cases;
};

#define KUNIT_CASE(fn)		{ .run_case = fn, .name = #fn }

void kunit_shim_register(struct kunit_suite *suite);

#define kunit_test_suites(...)						\
	static struct kunit_suite *__kunit_shim_suites[] = { __VA_ARGS__ }; \
	__attribute__((constructor)) static void __kunit_shim_init(void) \
	{								\
		size_t i;						\
									\
		for (i = 0; i < sizeof(__kunit_shim_suites) /		\
				sizeof(__kunit_shim_suites[0]); i++)	\
			kunit_shim_register(__kunit_shim_suites[i]);	\
	}
#define kunit_test_suite(suite)	kunit_test_suites(&(suite))

/* Report a failed expectation at @file:@line */
void kunit_shim_fail(struct kunit *test, const char *file, int line,
		     const char *fmt, ...) __printf(4, 5);
/* The optional message of a _MSG expectation, printed if not empty */
void kunit_shim_msg(const char *fmt, ...) __printf(1, 2);
void __noreturn kunit_shim_abort(struct kunit *test);

#define __KSHIM_END(test, assert, ...)					\
	do {								\
		kunit_shim_msg(__VA_ARGS__);				\
		if (assert)						\
			kunit_shim_abort(test);				\
	} while (0)

/*
 * Like KUnit, compare in the types of the operands, converted to their
 * common type as C does, but explicitly: the kernel does not build with
 * -Wsign-compare (an enum against its constants trips it).
 */
#define __KSHIM_BINARY(test, assert, l, op, r, ...)			\
	do {								\
		struct kunit *__test = (test);				\
		__typeof__(l) __l = (l);				\
		__typeof__(r) __r = (r);				\
		__typeof__(__l + __r) __cl = __l, __cr = __r;		\
									\
		if (!(__cl op __cr)) {					\
			kunit_shim_fail(__test, __FILE__, __LINE__,	\
				"Expected %s %s %s, but %s == %lld (%#llx), %s == %lld (%#llx)", \
				#l, #op, #r, #l, (long long)__l,	\
				(unsigned long long)__l, #r,		\
				(long long)__r, (unsigned long long)__r); \
			__KSHIM_END(__test, assert, __VA_ARGS__);	\
		}							\
	} while (0)

#define __KSHIM_PTR(test, assert, l, op, r, ...)			\
	do {								\
		struct kunit *__test = (test);				\
		const void *__l = (l), *__r = (r);			\
									\
		if (!(__l op __r)) {					\
			kunit_shim_fail(__test, __FILE__, __LINE__,	\
				"Expected %s %s %s, but %s == %p, %s == %p", \
				#l, #op, #r, #l, __l, #r, __r);		\
			__KSHIM_END(__test, assert, __VA_ARGS__);	\
		}							\
	} while (0)

#define __KSHIM_STR(test, assert, l, op, r, ...)			\
	do {								\
		struct kunit *__test = (test);				\
		const char *__l = (l), *__r = (r);			\
									\
		if (!(strcmp(__l, __r) op 0)) {				\
			kunit_shim_fail(__test, __FILE__, __LINE__,	\
				"Expected %s %s %s, but %s == \"%s\", %s == \"%s\"", \
				#l, #op, #r, #l, __l, #r, __r);		\
			__KSHIM_END(__test, assert, __VA_ARGS__);	\
		}							\
	} while (0)

#define __KSHIM_BOOL(test, assert, cond, want, ...)			\
	do {								\
		struct kunit *__test = (test);				\
		bool __want = (want);					\
									\
		if (!(cond) != !__want) {				\
			kunit_shim_fail(__test, __FILE__, __LINE__,	\
				"Expected %s to be %s", #cond,		\
				__want ? "true" : "false");		\
			__KSHIM_END(__test, assert, __VA_ARGS__);	\
		}							\
	} while (0)

#define __KSHIM_NOT_ERR_OR_NULL(test, assert, p, ...)			\
	do {								\
		struct kunit *__test = (test);				\
		const void *__p = (p);					\
									\
		if (!__p || (unsigned long)__p >= (unsigned long)-4095) { \
			kunit_shim_fail(__test, __FILE__, __LINE__,	\
				"Expected %s is not error or NULL, but is %p", \
				#p, __p);				\
			__KSHIM_END(__test, assert, __VA_ARGS__);	\
		}							\
	} while (0)

#define KUNIT_FAIL(test, fmt, ...)					\
	kunit_shim_fail(test, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

#define KUNIT_EXPECT_TRUE(t, c)		__KSHIM_BOOL(t, 0, c, 1, "%s", "")
#define KUNIT_EXPECT_FALSE(t, c)	__KSHIM_BOOL(t, 0, c, 0, "%s", "")
#define KUNIT_ASSERT_TRUE(t, c)		__KSHIM_BOOL(t, 1, c, 1, "%s", "")
#define KUNIT_ASSERT_FALSE(t, c)	__KSHIM_BOOL(t, 1, c, 0, "%s", "")
#define KUNIT_EXPECT_TRUE_MSG(t, c, ...)	__KSHIM_BOOL(t, 0, c, 1, __VA_ARGS__)
#define KUNIT_EXPECT_FALSE_MSG(t, c, ...)	__KSHIM_BOOL(t, 0, c, 0, __VA_ARGS__)
#define KUNIT_ASSERT_TRUE_MSG(t, c, ...)	__KSHIM_BOOL(t, 1, c, 1, __VA_ARGS__)
#define KUNIT_ASSERT_FALSE_MSG(t, c, ...)	__KSHIM_BOOL(t, 1, c, 0, __VA_ARGS__)

#define KUNIT_EXPECT_EQ(t, l, r)	__KSHIM_BINARY(t, 0, l, ==, r, "%s", "")
#define KUNIT_EXPECT_NE(t, l, r)	__KSHIM_BINARY(t, 0, l, !=, r, "%s", "")
#define KUNIT_EXPECT_LT(t, l, r)	__KSHIM_BINARY(t, 0, l, <, r, "%s", "")
#define KUNIT_EXPECT_LE(t, l, r)	__KSHIM_BINARY(t, 0, l, <=, r, "%s", "")
#define KUNIT_EXPECT_GT(t, l, r)	__KSHIM_BINARY(t, 0, l, >, r, "%s", "")
#define KUNIT_EXPECT_GE(t, l, r)	__KSHIM_BINARY(t, 0, l, >=, r, "%s", "")
#define KUNIT_ASSERT_EQ(t, l, r)	__KSHIM_BINARY(t, 1, l, ==, r, "%s", "")
#define KUNIT_ASSERT_NE(t, l, r)	__KSHIM_BINARY(t, 1, l, !=, r, "%s", "")
#define KUNIT_ASSERT_LT(t, l, r)	__KSHIM_BINARY(t, 1, l, <, r, "%s", "")
#define KUNIT_ASSERT_LE(t, l, r)	__KSHIM_BINARY(t, 1, l, <=, r, "%s", "")
#define KUNIT_ASSERT_GT(t, l, r)	__KSHIM_BINARY(t, 1, l, >, r, "%s", "")
#define KUNIT_ASSERT_GE(t, l, r)	__KSHIM_BINARY(t, 1, l, >=, r, "%s", "")

#define KUNIT_EXPECT_EQ_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 0, l, ==, r, __VA_ARGS__)
#define KUNIT_EXPECT_NE_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 0, l, !=, r, __VA_ARGS__)
#define KUNIT_EXPECT_LT_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 0, l, <, r, __VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 0, l, <=, r, __VA_ARGS__)
#define KUNIT_EXPECT_GT_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 0, l, >, r, __VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 0, l, >=, r, __VA_ARGS__)
#define KUNIT_ASSERT_EQ_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 1, l, ==, r, __VA_ARGS__)
#define KUNIT_ASSERT_NE_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 1, l, !=, r, __VA_ARGS__)
#define KUNIT_ASSERT_LT_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 1, l, <, r, __VA_ARGS__)
#define KUNIT_ASSERT_LE_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 1, l, <=, r, __VA_ARGS__)
#define KUNIT_ASSERT_GT_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 1, l, >, r, __VA_ARGS__)
#define KUNIT_ASSERT_GE_MSG(t, l, r, ...)	__KSHIM_BINARY(t, 1, l, >=, r, __VA_ARGS__)

#define KUNIT_EXPECT_PTR_EQ(t, l, r)	__KSHIM_PTR(t, 0, l, ==, r, "%s", "")
#define KUNIT_EXPECT_PTR_NE(t, l, r)	__KSHIM_PTR(t, 0, l, !=, r, "%s", "")
#define KUNIT_ASSERT_PTR_EQ(t, l, r)	__KSHIM_PTR(t, 1, l, ==, r, "%s", "")
#define KUNIT_ASSERT_PTR_NE(t, l, r)	__KSHIM_PTR(t, 1, l, !=, r, "%s", "")
#define KUNIT_EXPECT_NULL(t, p)		__KSHIM_PTR(t, 0, p, ==, NULL, "%s", "")
#define KUNIT_EXPECT_NOT_NULL(t, p)	__KSHIM_PTR(t, 0, p, !=, NULL, "%s", "")
#define KUNIT_ASSERT_NULL(t, p)		__KSHIM_PTR(t, 1, p, ==, NULL, "%s", "")
#define KUNIT_ASSERT_NOT_NULL(t, p)	__KSHIM_PTR(t, 1, p, !=, NULL, "%s", "")
#define KUNIT_EXPECT_NOT_ERR_OR_NULL(t, p)	__KSHIM_NOT_ERR_OR_NULL(t, 0, p, "%s", "")
#define KUNIT_ASSERT_NOT_ERR_OR_NULL(t, p)	__KSHIM_NOT_ERR_OR_NULL(t, 1, p, "%s", "")

#define KUNIT_EXPECT_STREQ(t, l, r)	__KSHIM_STR(t, 0, l, ==, r, "%s", "")
#define KUNIT_EXPECT_STRNEQ(t, l, r)	__KSHIM_STR(t, 0, l, !=, r, "%s", "")
#define KUNIT_ASSERT_STREQ(t, l, r)	__KSHIM_STR(t, 1, l, ==, r, "%s", "")
#define KUNIT_ASSERT_STRNEQ(t, l, r)	__KSHIM_STR(t, 1, l, !=, r, "%s", "")
#define KUNIT_EXPECT_STREQ_MSG(t, l, r, ...)	__KSHIM_STR(t, 0, l, ==, r, __VA_ARGS__)
#define KUNIT_EXPECT_STRNEQ_MSG(t, l, r, ...)	__KSHIM_STR(t, 0, l, !=, r, __VA_ARGS__)

void kunit_shim_info(struct kunit *test, const char *fmt, ...) __printf(2, 3);
#define kunit_info(test, fmt, ...)	kunit_shim_info(test, fmt, ##__VA_ARGS__)

/* End the case early; the runner reports it as passed, with the message */
#define kunit_skip(test, fmt, ...)					\
	do {								\
		struct kunit *__test = (test);				\
									\
		kunit_shim_info(__test, "skipped: " fmt, ##__VA_ARGS__); \
		kunit_shim_abort(__test);				\
	} while (0)

/* Test-managed memory, freed when the case ends */
#define GFP_KERNEL	0U

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size, gfp_t gfp);

static inline void *kunit_kmalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	return kunit_kmalloc_array(test, 1, size, gfp);
}

static inline void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	return kunit_kmalloc_array(test, 1, size, gfp);
}

static inline void *kunit_kcalloc(struct kunit *test, size_t n, size_t size,
				  gfp_t gfp)
{
	return kunit_kmalloc_array(test, n, size, gfp);
}

/*
 * Anonymous user memory in the simulated address space: zero-filled, its
 * pages not present until written by copy_to_user() or read with page
 * faults enabled.  Return: the user address, 0 on failure.
 */
unsigned long kunit_vm_mmap(struct kunit *test, struct file *file,
			    unsigned long addr, unsigned long len,
			    unsigned long prot, unsigned long flag,
			    unsigned long offset);

#endif
