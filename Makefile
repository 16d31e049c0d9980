# SPDX-License-Identifier: GPL-2.0
#
# mm-rs: Linux memory-management decisions in Rust, on Debian's 6.12 tree.
# `make help` lists the targets. The kernel tree and all output live in build/.

ARCH ?= x86_64
ARCHES := x86_64 arm64
SHELL := /bin/bash

.PHONY: help setup prepare kunit kunit-debug lint rustfmt clippy checkpatch test clean distclean

help:
	@echo 'mm-rs targets:'
	@echo '  make test              everything CI checks: lints, then KUnit on x86_64 and arm64'
	@echo '  make setup             install and check the toolchain (Debian packages, bindgen)'
	@echo '  make prepare           extract the base tree into build/linux, link mm-rs in, apply patches/'
	@echo '  make kunit ARCH=A      KUnit suites under QEMU; A is x86_64, arm64 or all'
	@echo '                         (results: build/results/kunit-A.json)'
	@echo '  make lint              rustfmt --check, clippy (CLIPPY=1) and checkpatch'
	@echo '  make clean             remove the build output, keep the extracted tree'
	@echo '  make distclean         remove build/ entirely'

setup:
	@scripts/setup.sh

prepare: setup
	@scripts/prepare-tree.sh

kunit: prepare
	@set -e; for a in $(if $(filter all,$(ARCH)),$(ARCHES),$(ARCH)); do \
		scripts/kunit.sh $$a; \
	done

lint: prepare
	@scripts/lint.sh

test: lint
	@$(MAKE) --no-print-directory kunit ARCH=all

clean:
	rm -rf build/kunit-* build/results build/lint

distclean:
	rm -rf build
