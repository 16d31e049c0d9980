#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vma-size.sh BUILD_DIR...: sizeof(struct vm_area_struct) in each kernel
# build directory (build/image-ARCH-FLAVOUR), compiled with exactly the flags
# that directory compiled mm/mmap.o with (its .mmap.o.cmd): what
# patches/0012's two words cost every VMA (the vm_area_struct cache is
# KMEM_CACHE(vm_area_struct, ...): objects of that size, aligned to the
# struct's alignment).
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: vma-size.sh BUILD_DIR..." >&2; exit 2; }
for dir in "$@"; do
	cmd="$dir/mm/.mmap.o.cmd"
	[ -f "$cmd" ] || { echo "vma-size: no $cmd (build that kernel first)" >&2; exit 1; }
	t=$(mktemp -d)
	printf '#include <linux/mm_types.h>\nconst unsigned long mmrs_vma_size = sizeof(struct vm_area_struct);\n' > "$t/vma.c"
	line=$(sed -n 's/^savedcmd_mm\/mmap\.o := //p' "$cmd")
	# the compiler and its flags, without the output, the dependency file and
	# the source: ours instead
	line=$(sed -E 's/[[:space:]]+$//; s/ -Wp,-MMD,[^ ]+//; s/ -c -o [^ ]+ [^ ]+$//' <<<"$line")
	(cd "$dir" && eval "$line -S -o $t/vma.s $t/vma.c") || { rm -rf "$t"; exit 1; }
	size=$(grep -A3 '^mmrs_vma_size:' "$t/vma.s" | sed -n 's/.*\.\(quad\|xword\)[[:space:]]*\([0-9]*\).*/\2/p' | head -n 1)
	rm -rf "$t"
	echo "$(basename "$dir"): sizeof(struct vm_area_struct) = $size"
done
