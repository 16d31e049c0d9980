# SPDX-License-Identifier: GPL-2.0
# W=compile, sourced by /mmrs/workload.sh: gcc -O2 compiles a fixed slice of
# the kernel tree, /mmrs/kslice (a dozen lib/ and mm/ files with exactly the
# headers they include, the configured headers of the booted kernel's build,
# and a Makefile with the kernel's C flags: scripts/workload.sh prepares it),
# with make -j$(nproc): once right after boot (gcc's text read from the EROFS
# image: exec readahead at work) and once more with everything cached.
rc=0
if [ ! -f /mmrs/kslice/Makefile ]; then
	echo "mmrs-workload: no /mmrs/kslice (scripts/workload.sh prepares it for W=compile)"
	return 1
fi
cp -a /mmrs/kslice /tmp/kslice
echo "  $(grep -c '\.c$' /tmp/kslice/files.list) files: $(grep '\.c$' /tmp/kslice/files.list | xargs), $(find /tmp/kslice -name '*.h' | wc -l) headers"
measure compile-cold make -s -C /tmp/kslice -j"$(nproc)" || rc=1
make -s -C /tmp/kslice clean
measure compile-warm make -s -C /tmp/kslice -j"$(nproc)" || rc=1
[ $rc = 0 ] && echo "  $(find /tmp/kslice/out -name '*.o' | wc -l) objects, $(du -sk /tmp/kslice/out | cut -f1) kB"
return $rc
