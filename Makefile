# SPDX-License-Identifier: GPL-2.0
#
# Driver of the SFrame user-unwinding patch set. Every target sets up what
# it needs (toolchain roots, kernel source, builds) and runs inside the
# Debian sid toolchain root. `make help` lists the targets.

SHELL := /bin/bash
DEV := devtools
# ARCH=arm64 (or aarch64) or s390 (s390x) on the command line, else
# SFRAME_ARCH from the environment, else x86_64: the architecture of vm,
# perf and bench
SFRAME_ARCH_ := $(patsubst s390,s390x,$(patsubst aarch64,arm64,$(patsubst x86,x86_64,$(or $(ARCH),$(SFRAME_ARCH)))))
export SFRAME_CACHE ?= /var/cache/sframe-unwind

# The arguments are checked before anything is built: a typo must not wait
# for the toolchain roots
ifneq ($(filter vm bench perf,$(MAKECMDGOALS)),)
ifeq ($(filter $(or $(SFRAME_ARCH_),x86_64),x86_64 arm64 s390x),)
$(error unsupported ARCH '$(or $(ARCH),$(SFRAME_ARCH))': x86_64, arm64 (or aarch64), s390 (or s390x))
endif
endif
ifneq ($(filter vm,$(MAKECMDGOALS)),)
ifeq ($(strip $(CMD)),)
$(error usage: make vm [ARCH=arm64|s390] CMD='command')
endif
endif

.PHONY: help root root-sid tree patches patches-bisect kernel kernel-perf kunit \
	kunit-arm64 kunit-s390 kunit-x86 kunit-cross vm test test-vm-arm64 test-vm-s390 harness sframe-diff sframe-tools sframe-gen-check bpf fuzz selftests \
	bench-walker test-vm demo-defer bench-mmap perf demo bench results mutants stress stress-kcsan clean distclean

help:
	@echo "make demo            perf --call-graph=sframe vs fp vs dwarf on a demo workload (VM)"
	@echo "make test            run every test level; ends with 'N passed, N failed'"
	@echo "make vm CMD='...'    run CMD in the debug VM kernel (exit status = CMD's;"
	@echo "                     ARCH=arm64: the arm64 VM, ARCH=s390: the s390x VM)"
	@echo "make harness         the userspace harness level (unit tests, fuzz smoke, sframe-diff)"
	@echo "make sframe-diff [FILES='ELF...']  our rule vs libsframe's at every PC (default: the corpus)"
	@echo "make sframe-tools    build build/sframe/: sframe-gen, sframe-audit.so, sframe-run"
	@echo "make bpf             build build/bpf/sframe-profile (BPF profiler, deferred or in-event user stacks)"
	@echo "make sframe-gen-check [FILES='ELF...']  sframe-gen's output vs libdw's CFI and libsframe at every PC"
	@echo "make fuzz [SECONDS=N]  libFuzzer on the SFrame reader (default 60 s)"
	@echo "make mutants [MUTANTS='NN ...']  plant each bug of devtools/mutants/, check that a test level kills it"
	@echo "make bench           SFrame vs fp vs dwarf: unwind cost, lookup scaling, perf record (VM)"
	@echo "                     (ARCH=arm64, ARCH=s390: unwind cost and lookup scaling in that VM)"
	@echo "make bench-walker    ns and instructions per lookup, 10/1000/100000 functions"
	@echo "make results         save make bench's results to docs/results/ and remake README's table"
	@echo "make bench-mmap      what SFrame support costs mmap(): perf kernel vs one without the feature"
	@echo "make demo-defer      Debian's perf --call-graph fp,defer on a no-frame-pointer program"
	@echo "make kunit           KUnit on UML"
	@echo "make kunit-x86       KUnit in an x86_64 kernel under QEMU, with the unwinder's own cases"
	@echo "make kunit-cross     KUnit on arm64 and s390 under QEMU (slow, not in 'make test')"
	@echo "make kernel          build the debug VM kernel  (kernel-perf: the perf flavour)"
	@echo "make perf            build perf from the patched tree into build/perf/perf"
	@echo "                     (ARCH=arm64, ARCH=s390: cross-built into build/perf-ARCH/perf)"
	@echo "make selftests       build the kselftests into build/selftests (run by the vm level)"
	@echo "make test-vm         the vm level only: kselftests in the debug VM"
	@echo "make test-vm-arm64   the vm-arm64 level only: KUnit, perf, kselftests in the arm64 VM"
	@echo "make test-vm-s390    the vm-s390x level only: KUnit, perf in the s390x VM"
	@echo "make stress [MINUTES=N]  the soak: perf sframe, -g and fp,defer on every CPU while"
	@echo "                     sframe_stress maps, registers, corrupts, forks... (debug VM, default 10)"
	@echo "make stress-kcsan [MINUTES=N]  the same soak on the KCSAN kernel: a data race in"
	@echo "                     the series' code fails it (x86_64, default 10)"
	@echo "make patches         export the series to build/patches, checkpatch --strict"
	@echo "make patches-bisect  also build the tree after every patch (slow)"
	@echo "make tree            create/update build/linux (pristine 7.2 + the series)"
	@echo "make root            create/update the toolchain roots"
	@echo "make clean           remove build/ (keeps the cache in \$$SFRAME_CACHE)"
	@echo "make distclean       also remove the cache: $(SFRAME_CACHE)"

# Every target needs the sid root, where everything is built; the scripts
# that need another root make it (the trixie root for the V2 corpus, an
# arm64 or s390x guest root for that architecture's VM), so that a target
# makes only the roots it uses.  make test uses all four: test.sh makes
# the guest roots in the background while the first levels run.
root-sid:
	$(DEV)/root.sh sid

# All four: the sid root first (it may install debootstrap on the host,
# and the guest roots' maintainer scripts run under its qemu-user); then
# the other three side by side: mostly downloads and dpkg.
root:
	$(DEV)/root.sh sid
	$(DEV)/root.sh trixie & t=$$!; $(DEV)/root.sh s390x & s=$$!; \
		$(DEV)/root.sh arm64; a=$$?; \
		wait $$t && wait $$s && exit $$a

tree: root-sid
	$(DEV)/tree.sh apply

patches: tree
	$(DEV)/patches.sh

patches-bisect: tree
	$(DEV)/patches.sh --bisect

kernel: root-sid
	$(DEV)/kbuild.sh debug

kernel-perf: root-sid
	$(DEV)/kbuild.sh perf

kunit: root-sid
	$(DEV)/test.sh kunit

kunit-arm64: root-sid
	$(DEV)/test.sh kunit-arm64

kunit-s390: root-sid
	$(DEV)/test.sh kunit-s390

kunit-x86: root-sid
	$(DEV)/test.sh kunit-x86

kunit-cross: root-sid
	$(DEV)/test.sh kunit-arm64 kunit-s390

vm: root-sid
	SFRAME_VM_KEEP=1 SFRAME_ARCH=$(SFRAME_ARCH_) $(DEV)/vm.sh "$$CMD"

test: root-sid
	$(DEV)/test.sh

test-vm: root-sid
	$(DEV)/test.sh vm

test-vm-arm64: root-sid
	$(DEV)/test.sh vm-arm64

test-vm-s390: root-sid
	$(DEV)/test.sh vm-s390x

selftests: root-sid
	$(DEV)/selftests.sh

demo: root-sid
	$(DEV)/demo.sh

bench: root-sid
	SFRAME_ARCH=$(SFRAME_ARCH_) $(DEV)/bench.sh

perf: root-sid
	SFRAME_ARCH=$(SFRAME_ARCH_) $(DEV)/perf.sh

demo-defer: root-sid
	$(DEV)/demo-defer.sh

bench-mmap: root-sid
	$(DEV)/bench-mmap.sh

harness: root-sid
	$(DEV)/test.sh harness

sframe-diff: root-sid
	$(DEV)/sframe-diff.sh $(FILES)

sframe-tools: root-sid
	$(DEV)/sframe-gen-check.sh --build

bpf: root-sid
	$(DEV)/bpf/build.sh

sframe-gen-check: root-sid
	$(DEV)/sframe-gen-check.sh $(FILES)

fuzz: root-sid
	$(DEV)/fuzz.sh $(SECONDS)

stress: root-sid
	$(DEV)/stress.sh $$(( $(or $(MINUTES),10) * 60 ))

stress-kcsan: root-sid
	$(DEV)/stress.sh --kcsan $$(( $(or $(MINUTES),10) * 60 ))

bench-walker: root-sid
	$(DEV)/bench-walker.sh

results:
	$(DEV)/results.sh

mutants: tree
	$(DEV)/mutants.sh $(MUTANTS)

clean:
	rm -rf build

distclean: clean
	rm -rf "$(SFRAME_CACHE)"
