# SPDX-License-Identifier: GPL-2.0
#
# mm-rs: Linux memory-management decisions in Rust, on Debian's 6.12 tree.
# `make help` lists the targets. The kernel tree and all output live in build/.

ARCH ?= x86_64
FLAVOR ?= test
ARCHES := x86_64 arm64
SHELL := /bin/bash
arches = $(if $(filter all,$(ARCH)),$(ARCHES),$(ARCH))

.PHONY: help setup prepare kunit kunit-seeds kunit-debug kunit-off kunit-nosplit lint fmt mutate image initramfs run selftests stress bench bench-real fault-trace uffd-repeat selftests-repeat series series-check rootfs shell workload test check-full clean distclean

help:
	@echo 'mm-rs targets:'
	@echo '  make run [ARCH=A]      build the test kernel, boot it under QEMU and show the Rust mm'
	@echo '                         at work, Rust and C paths side by side (A: x86_64 or arm64)'
	@echo '  make test              everything CI checks, within 45 minutes on a new machine: lints;'
	@echo '                         the patch series (series, series-check); KUnit on x86_64 in the'
	@echo '                         prod-debug kernel (Debian'"'"'s mm configuration, KASAN, lockdep,'
	@echo '                         DEBUG_VM) and on arm64; 2 mutations on arm64 (a sample the commit'
	@echo '                         chooses); make stress, the stock tools and the verdict test on the'
	@echo '                         same x86_64 prod-debug kernel'
	@echo '  make check-full        the rest: KUnit on x86_64 (test build, a new seed), debug KUnit on'
	@echo '                         both, MM_RS=n on both, KUnit on both without split PTE locks;'
	@echo '                         the test kernels booted with the demo, and the full mm selftests'
	@echo '                         against the MM_RS=n baseline on both architectures'
	@echo '                         (the test kernel'"'"'s list, and every run_vmtests.sh category on'
	@echo '                         prod); make stress for 600 s on each'
	@echo '                         architecture; the series built at every patch (series-check BISECT=1);'
	@echo '                         every mutation on both architectures (make mutate ARCH=all)'
	@echo '  make setup             install and check the toolchain (Debian packages, bindgen)'
	@echo '  make prepare           extract the base tree into build/linux, link mm-rs in, apply patches/'
	@echo '  make kunit ARCH=A [SEED=N]   the KUnit suites under QEMU; A is x86_64, arm64 or all; SEED:'
	@echo '                         the randomised sweeps from seeds derived from N (mm_rs_kunit.seed)'
	@echo '                         (results: build/results/kunit-A.json)'
	@echo '  make kunit-seeds ARCH=A [SEEDS=N]   the suites N times (default 8), each from a new'
	@echo '                         seed, printed; names each seed that failed (in check-full)'
	@echo '  make kunit-debug ARCH=A   the same with PROVE_LOCKING, DEBUG_VM and KASAN'
	@echo '  make kunit-off ARCH=A  the kernel with CONFIG_MM_RS=n: builds, runs, has no mm-rs'
	@echo '  make kunit-nosplit ARCH=A   the suites without split PTE locks (NR_CPUS=2, lockdep):'
	@echo '                         PT reclaim with one lock for the PMD and its tables'
	@echo '  make image ARCH=A FLAVOR=F   build a test kernel (F: test, debug, off, or clang14: built'
	@echo '                         with clang 14, the compiler reference of make bench; prod, prod-off,'
	@echo '                         prod-debug: the distribution-shaped kernel) and print its path'
	@echo '  make selftests ARCH=A  the mm selftests on the test kernel and on MM_RS=n, compared'
	@echo '  make selftests ARCH=A SET=ksm   only KSM'"'"'s (userspace/selftests.ksm): Rust unmerge, then C'
	@echo '  make selftests ARCH=A FLAVOR=prod   every run_vmtests.sh category on the prod kernel'
	@echo '                         (memcg, zram swap, MGLRU, 2 NUMA nodes, -smp 4) against prod-off;'
	@echo '                         table: build/results/selftests-A-prod.txt, selftests-prod.md'
	@echo '  make stress ARCH=A [SECONDS=N] [FLAVOR=F]   userspace/stress.c for N seconds (default 60)'
	@echo '                         on the F kernel (default prod-debug; 4 vCPUs, two NUMA nodes): mTHP'
	@echo '                         faults, madvise, collapse, mremap, fork, GUP, UFFDIO_MOVE, migration,'
	@echo '                         memcg swap, exec, every page checked; any mismatch or kernel splat'
	@echo '                         fails (figures: build/results/stress-A.txt; A may be all)'
	@echo '  make bench ARCH=A      benchmarks under QEMU -icount shift=0, Rust vs C vs off in one boot'
	@echo '                         (one vCPU; four for the multithreaded one; clang 14 reference):'
	@echo '                         build/results/bench-A.json and docs/benchmarks.md (A may be all);'
	@echo '                         then make bench-real'
	@echo '  make bench-real ARCH=A [ROUNDS=N]  gcc compiling a slice of the kernel tree and a python3'
	@echo '                         program in the Debian userland, per order policy, rotated in'
	@echo '                         each of N rounds (default 3; -icount, instructions from the'
	@echo '                         mmrs-meter QEMU plugin), then one round with its TLB model'
	@echo '                         (W=bench-tlb): docs/bench/real.md and the raw runs'
	@echo '                         docs/bench/real-A.json, in docs/benchmarks.md'
	@echo '  make fault-trace ARCH=A   kernel instructions of one anonymous fault, by function, on the'
	@echo '                         C and the Rust paths at each folio size (gdb on QEMU, -singlestep):'
	@echo '                         build/results/fault-trace-A.txt (A may be all)'
	@echo '  make series            build/series/: mm-rs as a git format-patch series with a cover letter'
	@echo '                         against build/BASE, as series/series.conf splits it (Signed-off-by:'
	@echo '                         MM_RS_SIGNOFF="Name <email>", else git config user.name/email)'
	@echo '  make series-check [BISECT=1]   git am the series on a pristine base: applies with no fuzz,'
	@echo '                         gives build/linux'"'"'s sources, checkpatch --strict clean or explained;'
	@echo '                         BISECT=1: the x86_64 KUnit kernel builds at every patch, passes at the last'
	@echo '  make uffd-repeat ARCH=A  uffd-unit-tests repeated on prod and prod-off (its rare UFFDIO_COPY'
	@echo '                         -ENOENT, docs/testing.rst); results as make selftests FLAVOR=prod'
	@echo '  make selftests-repeat ARCH=A  the selftests that differed between prod and prod-off in a'
	@echo '                         full run, repeated on both (userspace/selftests-repeat/flaky.list)'
	@echo '  make rootfs ARCH=A     a Debian 12 userland (userspace/rootfs/packages.list: gcc, make,'
	@echo '                         stress-ng, trinity, python3, ...) built with mmdebstrap as an EROFS'
	@echo '                         image, build/debian-A/rootfs.erofs; rebuilt when the list changes'
	@echo '  make shell ARCH=A [FLAVOR=F]   boot the F kernel (default test) on that userland with a root'
	@echo '                         shell on the serial console; piped stdin is run as its input instead'
	@echo '  make workload ARCH=A [FLAVOR=F] W=NAME [SEED=N] [SECONDS_EACH=S] [SET="/sys/kernel/debug/mm_rs/anon_order=0 ..."]'
	@echo '                         run one workload there (smoke: stress-ng and trinity briefly; stress:'
	@echo '                         stress-ng'"'"'s memory stressors --verify, then trinity on the mm system'
	@echo '                         calls, S seconds each, 4 vCPUs; compile: gcc on a slice of the kernel'
	@echo '                         tree) and print its figures; console log: build/results/workload-A-F-NAME.log'
	@echo '  make lint              rustfmt --check, clippy (CLIPPY=1), checkpatch, compile-fail checks,'
	@echo '                         docutils on docs/*.rst, and host tests of the scripts (splat verdicts,'
	@echo '                         make mutate'"'"'s process)'
	@echo '  make fmt               rustfmt our Rust in place'
	@echo '  make mutate ARCH=A [FLAVOR=F] [MUTATIONS="name ..."]   break each rule of'
	@echo '                         scripts/mutations.txt (or those named) in turn, expect a KUnit failure'
	@echo '                         (slow: a kernel rebuild each); after a passing unmutated baseline;'
	@echo '                         records docs/mutations/mutate-A[-F].json and docs/mutations.md (A may be all);'
	@echo '                         STALE=1: only those without a current verdict (stale, reconstructed, none);'
	@echo '                         RESUME=1: the whole list in sittings, each verdict kept at once in'
	@echo '                         docs/mutations/progress-A[-F].json, going on only where no file outside'
	@echo '                         docs/ differs from the first sitting'"'"'s commit'
	@echo '  make clean             remove the build output, keep the extracted tree'
	@echo '  make distclean         remove build/ entirely'

setup:
	@scripts/setup.sh

prepare: setup
	@scripts/prepare-tree.sh

kunit: prepare
	@set -e; for a in $(arches); do scripts/kunit.sh $$a $(if $(SEED),--kernel_args mm_rs_kunit.seed=$(SEED)); done

kunit-seeds: prepare
	@rc=0; for a in $(arches); do scripts/kunit-seeds.sh $$a $(or $(SEEDS),8) || rc=1; done; exit $$rc

kunit-debug: prepare
	@set -e; for a in $(arches); do scripts/kunit.sh $$a debug; done

kunit-off: prepare
	@set -e; for a in $(arches); do scripts/kunit.sh $$a off; done

kunit-nosplit: prepare
	@set -e; for a in $(arches); do scripts/kunit.sh $$a nosplit; done

image: prepare
	@scripts/image.sh $(ARCH) $(FLAVOR)

initramfs: setup
	@scripts/initramfs.sh $(ARCH) >/dev/null

run: prepare
	@scripts/run.sh $(ARCH)

selftests: prepare
	@set -e; for a in $(arches); do \
		if [ "$(FLAVOR)" = prod ]; then scripts/selftests.sh $$a prod; \
		else scripts/selftests.sh $$a $(or $(SET),full) compare; fi; done

# FLAVOR defaults to prod-debug here, not test.
stress_flavor = $(if $(filter command line environment,$(origin FLAVOR)),$(FLAVOR),prod-debug)
stress: prepare
	@set -e; for a in $(arches); do scripts/stress.sh $$a $(or $(SECONDS),60) $(stress_flavor); done

bench: prepare
	@set -e; for a in $(arches); do scripts/bench.sh $$a; done
	@$(MAKE) --no-print-directory bench-real ARCH=$(ARCH)

# Real programs (W=bench: gcc and python3 in the Debian userland, -icount,
# under the mmrs-meter plugin); docs/bench/real.md from the logs of every
# architecture measured here (each must have passed its verdict), with the
# raw runs in docs/bench/real-ARCH.json, and seed 001's hugetlb table from
# every W=hugetlb log there is; what it has of an architecture (or a hugetlb
# table) with no log here stays as it is.
bench-real: prepare
	@set -e; for a in $(arches); do scripts/workload.sh $$a test bench ROUNDS=$(or $(ROUNDS),3); \
		scripts/workload.sh $$a test bench-tlb; done
	@python3 scripts/workload-report.py --out docs/bench/real.md --json-dir docs/bench \
		$$(for f in build/results/workload-*-test-bench-tlb.log; do [ -f "$$f" ] && printf -- '--tlb %s ' "$$f"; done) \
		$$(for f in build/results/workload-*-hugetlb.log; do [ -f "$$f" ] || continue; \
		   l=$${f#build/results/workload-}; printf -- '--hugetlb %s=%s ' "$${l%-hugetlb.log}" "$$f"; done) \
		$$(ls build/results/workload-*-test-bench.log)
	@python3 scripts/bench.py --markdown docs/benchmarks.md

fault-trace: prepare
	@set -e; for a in $(arches); do scripts/fault-trace.sh $$a; done

uffd-repeat: prepare
	@set -e; for a in $(arches); do scripts/uffd-repeat.sh $$a; done

selftests-repeat: prepare
	@set -e; for a in $(arches); do scripts/selftests-repeat.sh $$a; done

rootfs: setup
	@set -e; for a in $(arches); do scripts/rootfs.sh $$a >/dev/null; done

shell: prepare
	@$(if $(SET),MMRS_SET='$(SET)') scripts/shell.sh $(ARCH) $(FLAVOR)

workload: prepare
	@set -e; for a in $(arches); do $(if $(SET),MMRS_SET='$(SET)') \
		scripts/workload.sh $$a $(FLAVOR) $(or $(W),smoke) $(if $(SEED),SEED=$(SEED)) \
		$(if $(SECONDS_EACH),SECONDS_EACH=$(SECONDS_EACH)); done

lint: prepare
	@scripts/lint.sh

fmt: prepare
	@/usr/bin/rustfmt --edition 2021 --config-path build/linux/.rustfmt.toml \
		$$(git ls-files -co --exclude-standard -- '*.rs')

# FLAVOR: none unless given (the KUnit kernel of make kunit); MUTATIONS: names.
mutate_flavor = $(if $(filter command line environment,$(origin FLAVOR)),$(FLAVOR))
mutate: prepare
	@rc=0; for a in $(arches); do \
		scripts/mutate.sh $$a $(if $(mutate_flavor),--flavour $(mutate_flavor)) $(if $(STALE),--stale) $(if $(RESUME),--resume) $(MUTATIONS) || rc=1; \
	done; exit $$rc

series: prepare
	@scripts/series.py

series-check: prepare
	@BISECT=$(BISECT) scripts/series-check.sh

# make test's W=stress: every stressor must complete a bogo operation, and
# trinity must run its CALLS. On x86_64 prod-debug numa's first operation
# takes 150 to 220 s: make test leaves it to check-full (SKIP_STRESSORS), and
# gives the others 120 s (madvise did 2 operations in 120 s; vm at 64 MiB and
# mmap at 4 MiB had done none at 60 s). trinity ran 3000 calls in 62 s, and
# its mbind, migrate_pages and move_pages still meet the second node.
TEST_STRESS_TOOLS = SECONDS_EACH=120 VM_BYTES=16M MMAP_BYTES=1M SKIP_STRESSORS=numa \
	CALLS=3000 MIN_CALLS=3000 TRINITY_SECONDS=300

test: prepare
	@rm -f build/results/times.txt && mkdir -p build/results && touch build/results/test-start
	@# series and series-check build no kernel and are mostly one CPU: they
	@# run beside lint (whose crates compile one at a time), their report
	@# printed after lint's. series-check's checkpatch of the series covers
	@# lint's own of the C files and patches/, which make test skips.
	@scripts/beside.sh "series and series-check (run beside lint)" \
		'scripts/timed.sh series scripts/series.py && scripts/timed.sh series-check scripts/series-check.sh' \
		-- env MMRS_LINT_SERIES_CHECKPATCH=1 scripts/timed.sh lint scripts/lint.sh
	@scripts/timed.sh image-x86_64-prod-debug scripts/image.sh x86_64 prod-debug >/dev/null
	@# Its suites run in QEMU, which mostly keeps one CPU busy: the arm64 KUnit
	@# kernel is built beside them, at nice 19 so that it takes only what the
	@# guest leaves (the run builds nothing and takes no build lock).
	@scripts/beside.sh "the arm64 KUnit kernel (built beside the x86_64 run, nice 19)" \
		'scripts/timed.sh kunit-arm64-build env MMRS_KUNIT_BUILD_ONLY=1 nice -n 19 scripts/kunit.sh arm64' \
		-- env MMRS_KUNIT_PREBUILT=1 scripts/timed.sh kunit-x86_64-prod-debug scripts/kunit.sh x86_64 prod-debug
	@# The Debian rootfs of the stock tools (mmdebstrap: the download, then
	@# dpkg; no kernel) is made beside the arm64 suites' run, at nice 19.
	@scripts/beside.sh "the x86_64 rootfs (made beside kunit-arm64, nice 19)" 'nice -n 19 scripts/rootfs.sh x86_64' \
		-- scripts/timed.sh kunit-arm64 scripts/kunit.sh arm64
	@# The x86_64 boots: prod-debug was built by the image step above, and
	@# nothing has changed since (MMRS_IMAGE_BUILT: no make to find that out).
	@MMRS_IMAGE_BUILT=x86_64-prod-debug scripts/timed.sh stress-x86_64 scripts/stress.sh x86_64 60 prod-debug
	@MMRS_IMAGE_BUILT=x86_64-prod-debug scripts/timed.sh stress-tools-x86_64 scripts/workload.sh x86_64 prod-debug stress $(TEST_STRESS_TOOLS)
	@MMRS_IMAGE_BUILT=x86_64-prod-debug scripts/timed.sh verdict-x86_64 scripts/verdict-boot.sh x86_64 prod-debug
	@# No mutation sample: one mutant took 40 s, or some 200 s for one of
	@# rust/kernel/ (80 s and 246 s for two, 2026-11-29), which the 45 minutes
	@# cannot take; make mutate, in check-full, runs them all.
	@scripts/summary.sh

check-full: prepare
	@seed=$$(date +%s); echo "check-full: KUnit sweeps from mm_rs_kunit.seed=$$seed (make kunit SEED=$$seed replays them)"; \
		$(MAKE) --no-print-directory kunit ARCH=all SEED=$$seed
	@$(MAKE) --no-print-directory kunit-seeds ARCH=all SEEDS=8
	@$(MAKE) --no-print-directory kunit-debug ARCH=all
	@$(MAKE) --no-print-directory kunit-off ARCH=all
	@$(MAKE) --no-print-directory kunit-nosplit ARCH=all
	@$(MAKE) --no-print-directory selftests ARCH=all
	@$(MAKE) --no-print-directory selftests ARCH=all FLAVOR=prod
	@set -e; for a in x86_64 arm64; do scripts/verdict-boot.sh $$a prod-debug; done
	@# A nice-19 reader among nice -20 hogs, no RCU stall (userspace/
	@# readerstall.c; about 210 s on x86_64). Not in make test: under full
	@# preemption it stalled in one run of two (docs/testing.rst), so it is
	@# no guard of the preemption model; make lint's Debian comparison is.
	@set -e; for a in x86_64 arm64; do scripts/readerstall.sh $$a prod-debug; done
	@$(MAKE) --no-print-directory stress ARCH=all SECONDS=600 FLAVOR=prod-debug
	@$(MAKE) --no-print-directory workload ARCH=all FLAVOR=prod-debug W=stress SECONDS_EACH=600
	@$(MAKE) --no-print-directory workload ARCH=all FLAVOR=prod-debug-off W=stress SECONDS_EACH=600
	@$(MAKE) --no-print-directory series
	@$(MAKE) --no-print-directory series-check BISECT=1
	@$(MAKE) --no-print-directory mutate ARCH=all

clean:
	rm -rf build/kunit-* build/results build/lint build/mutate*

distclean:
	rm -rf build
