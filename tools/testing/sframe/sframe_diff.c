// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the kernel SFrame reader against the system
 * libsframe: for every FDE of the .sframe section of each ELF file, and
 * every PC inside its function, compare the rule of both (normalized text
 * form, FRE start, function start).  The reader also reads each PC from a
 * copy of the section in the harness's own memory, as it reads a section
 * that the kernel holds (the store): it must give the same as from the
 * simulated user memory, and read no user memory.  The last line
 * is
 *
 *	checked N PCs in M functions, K mismatches
 *
 * and the exit status is non-zero if K > 0.
 *
 * Usage: sframe_diff [-v] ELF-FILE...	(-v: print every mismatch)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diff_lib.h"
#include "elfsec.h"
#include "sframe_kunit_builder.h"
#include "sframe_walk.h"
#include "uspace.h"

#define MAX_REPORTS	20

static unsigned long checked, functions, mismatches;
static int verbose;

static void mismatch(const char *path, unsigned long pc, const char *what,
		     const char *ours, const char *theirs)
{
	if (verbose || mismatches < MAX_REPORTS)
		printf("MISMATCH %s %#lx %s:\n  kernel:    %s\n  libsframe: %s\n",
		       path, pc, what, ours, theirs);
	mismatches++;
}

/*
 * Look @pc up in the section's copy in memory of our own (@ksec->kdata)
 * and compare with @user, what the lookup in user memory gave
 */
static void kernel_copy(const char *path, const struct sframe_section *ksec,
			unsigned long pc, const char *user)
{
	char k[SFB_RULE_LEN + 64], rk[SFB_RULE_LEN];
	unsigned long gets = uspace_stats.gets;
	struct sframe_rule r;
	enum sframe_reason why;
	int ret;

	ret = sframe_find(ksec, pc, &r, &why);
	if (ret)
		snprintf(k, sizeof(k), "error %d (%s)", ret,
			 sframe_reason_str(why));
	else
		snprintf(k, sizeof(k), "%s fre=%#x func=%#lx",
			 sfb_rulefmt(&r, rk, sizeof(rk)), r.fre_start,
			 r.func_start);
	if (strcmp(k, user))
		mismatch(path, pc, "rule in kernel memory", k, user);
	else if (uspace_stats.gets != gets)
		mismatch(path, pc, "user memory read for kernel memory",
			 "read", "none");
}

static void diff(const char *path)
{
	char err[256], a[SFB_RULE_LEN + 64], b[SFB_RULE_LEN + 64];
	char ra[SFB_RULE_LEN], rb[SFB_RULE_LEN];
	unsigned long start, pc;
	struct sframe_section sec, ksec;
	enum sframe_reason why;
	struct lib_ctx *lib;
	unsigned int i, size, lsize;
	struct elfsec e;
	long long lstart;
	int ret;

	if (elfsec_load(path, &e, &sec, err, sizeof(err))) {
		printf("ERROR %s\n", err);
		mismatches++;
		return;
	}
	ret = sframe_section_init(&sec, &why);
	lib = lib_open(e.data + e.sframe_off, e.sframe_size, err, sizeof(err));
	if (ret || !lib) {
		if (ret || lib)
			mismatch(path, e.sframe_addr, "section",
				 ret ? sframe_reason_str(why) : "accepted",
				 lib ? "accepted" : err);
		lib_close(lib);
		elfsec_close(&e);
		return;
	}
	ret = sframe_validate(&sec, &why);
	if (ret)
		mismatch(path, e.sframe_addr, "validate", sframe_reason_str(why),
			 "accepted");
	/* Looked up through the FDE index, as the kernel does */
	if (!ret && sframe_index_attach(&sec, &why))
		mismatch(path, e.sframe_addr, "FDE index", sframe_reason_str(why),
			 "accepted");
	ksec = sec;
	ksec.kdata = (const u8 *)e.data + e.sframe_off;
	if (lib_num_fdes(lib) != sec.num_fdes) {
		snprintf(a, sizeof(a), "%u", sec.num_fdes);
		snprintf(b, sizeof(b), "%u", lib_num_fdes(lib));
		mismatch(path, e.sframe_addr, "FDE count", a, b);
	}

	for (i = 0; i < sec.num_fdes; i++) {
		if (elfsec_fde(&e, &sec, i, &start, &size) ||
		    lib_fde(lib, i, &lstart, &lsize)) {
			mismatch(path, 0, "FDE unreadable", "", "");
			continue;
		}
		functions++;
		if (start != e.sframe_addr + lstart || size != lsize) {
			snprintf(a, sizeof(a), "%#lx+%#x", start, size);
			snprintf(b, sizeof(b), "%#llx+%#x",
				 (unsigned long long)(e.sframe_addr + lstart),
				 lsize);
			mismatch(path, start, "FDE", a, b);
			continue;
		}
		for (pc = start; pc - start < size; pc++) {
			struct sframe_rule ours, theirs;
			int r1, r2;

			checked++;
			r1 = sframe_find(&sec, pc, &ours, &why);
			r2 = lib_rule(lib, i, pc - e.sframe_addr, start, &theirs);
			if (r1)
				snprintf(a, sizeof(a), "error %d (%s)", r1,
					 sframe_reason_str(why));
			else
				snprintf(a, sizeof(a), "%s fre=%#x func=%#lx",
					 sfb_rulefmt(&ours, ra, sizeof(ra)),
					 ours.fre_start, ours.func_start);
			kernel_copy(path, &ksec, pc, a);
			if (r2)
				snprintf(b, sizeof(b), "error %d", r2);
			else
				snprintf(b, sizeof(b), "%s fre=%#x func=%#lx",
					 sfb_rulefmt(&theirs, rb, sizeof(rb)),
					 theirs.fre_start, theirs.func_start);
			if (r1 == -ENOENT && r2 == -ENOENT)
				continue;
			if (r1 || r2 || strcmp(a, b))
				mismatch(path, pc, "rule", a, b);
		}
	}
	sframe_index_put(sec.fde_index);
	lib_close(lib);
	elfsec_close(&e);
}

int main(int argc, char **argv)
{
	int i;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: sframe_diff [-v] ELF-FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		diff(argv[i]);
	printf("checked %lu PCs in %lu functions, %lu mismatches\n", checked,
	       functions, mismatches);
	return mismatches ? 1 : 0;
}
