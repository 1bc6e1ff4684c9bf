// SPDX-License-Identifier: GPL-2.0
/*
 * Dump the SFrame rules of an ELF file as decoded by the kernel reader:
 * for every FDE, and every PC inside its function, one line
 *
 *	PC cfa=... ra=... fp=...[ flags] fre=START
 *
 * or "PC error ERR (reason)".  The section and the text are mapped into the
 * simulated user address space at their ELF addresses.
 *
 * Usage: sframe_dump [-q] FILE...	(-q: only the summary lines)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "elfsec.h"
#include "sframe_kunit_builder.h"
#include "sframe_walk.h"

static int dump(const char *path, int quiet)
{
	unsigned long npcs = 0, nerr = 0, start, pc;
	enum sframe_reason why;
	struct sframe_section sec;
	char err[256], txt[SFB_RULE_LEN];
	struct elfsec e;
	unsigned int i, size;
	int ret;

	if (elfsec_load(path, &e, &sec, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	ret = sframe_section_init(&sec, &why);
	printf("# %s: sframe %#lx+%#zx text %#lx-%#lx init %d (%s)\n", path,
	       e.sframe_addr, e.sframe_size, e.text_start, e.text_end, ret,
	       sframe_reason_str(why));
	if (ret) {
		elfsec_close(&e);
		return 1;
	}
	printf("# version %u abi %u flags %#x fdes %u fres %u\n", sec.version,
	       sec.abi, sec.flags, sec.num_fdes, sec.num_fres);
	ret = sframe_validate(&sec, &why);
	printf("# validate %d (%s)\n", ret, sframe_reason_str(why));

	for (i = 0; i < sec.num_fdes; i++) {
		if (elfsec_fde(&e, &sec, i, &start, &size)) {
			printf("fde %u unreadable\n", i);
			nerr++;
			continue;
		}
		if (!quiet)
			printf("fde %u func %#lx size %#x\n", i, start, size);
		for (pc = start; pc - start < size; pc++) {
			struct sframe_rule r;

			npcs++;
			ret = sframe_find(&sec, pc, &r, &why);
			if (ret) {
				nerr++;
				if (!quiet)
					printf("%#lx error %d (%s)\n", pc, ret,
					       sframe_reason_str(why));
				continue;
			}
			if (!quiet)
				printf("%#lx %s fre=%#x\n", pc,
				       sfb_rulefmt(&r, txt, sizeof(txt)),
				       r.fre_start);
		}
	}
	printf("# %s: %u functions, %lu PCs, %lu errors\n", path,
	       sec.num_fdes, npcs, nerr);
	elfsec_close(&e);
	return nerr ? 1 : 0;
}

int main(int argc, char **argv)
{
	int i, quiet = 0, ret = 0;

	if (argc > 1 && !strcmp(argv[1], "-q")) {
		quiet = 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: sframe_dump [-q] ELF-FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		ret |= dump(argv[i], quiet);
	return ret;
}
