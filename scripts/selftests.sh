#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests.sh ARCH quick|full [compare]
# selftests.sh ARCH prod
#
# Builds the base tree's mm selftests statically for ARCH (the programs the
# list userspace/selftests.quick or .full names) and boots the test kernel
# (all mm-rs paths on) with them and the demo. Results go to
# build/results/selftests-ARCH-test.tap; any failed test fails.
#
# With "compare", the same kernel with CONFIG_MM_RS=n (the baseline, FLAVOUR
# off) runs them too, and the result is the comparison: a test that passes on
# the baseline and fails or skips on ours is a failure; a summary table is
# printed.
#
# "prod" is the upstream way instead: every mm selftest the base tree builds,
# run by its own run_vmtests.sh, one category at a time (each category its
# usage text lists, under a time limit), on FLAVOUR prod (memcg, zram swap,
# MGLRU, two NUMA nodes, 4 vCPUs) and on its MM_RS=n twin prod-off; the guest
# has bash and busybox for the script. Results: build/results/
# selftests-ARCH-prod{,-off}.tap (one line a test, "CATEGORY: test") and the
# table build/results/selftests-ARCH-prod.txt; a test that passes on
# prod-off and fails or skips on prod fails the run.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
arch=${1:?usage: selftests.sh x86_64|arm64 [quick|full]}
set_=${2:-full}
compare=${3:-}
T="$REPO/build/linux"
case "$arch" in
x86_64) karch=x86; cross=; darch=amd64 ;;
arm64) karch=arm64; cross=aarch64-linux-gnu-; darch=arm64 ;;
*) echo "selftests.sh: ARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
[ "$set_" = prod ] && exec "$REPO/scripts/selftests-prod.sh" "$arch"
list="$REPO/userspace/selftests.$set_"
[ -f "$list" ] || { echo "selftests.sh: no $list" >&2; exit 2; }
progs=$(grep -v '^#' "$list" | awk '$3 ~ /^\.\// { sub("^\\./", "", $3); print $3 }' | sort -u)

"$REPO/scripts/prepare-tree.sh" >&2
hdr="$REPO/build/headers-$arch"
out="$REPO/build/selftests-$arch"
if [ ! -f "$hdr/include/linux/mman.h" ]; then
	make -s -C "$T" O="$REPO/build/headers-obj-$arch" ARCH="$karch" INSTALL_HDR_PATH="$hdr" headers_install
fi
mkdir -p "$out"
targets=()
for p in $progs; do targets+=("$out/$p"); done
# ksm_tests links libnuma: Debian's, installed for the host's architecture,
# unpacked for the other (as selftests-prod.sh does).
libs=(libnuma-dev)
[ "$darch" = arm64 ] && libs+=(libnuma1)
sysroot=$(mm_rs_guest_debs "$darch" "${libs[@]}")
xcflags=() xldflags=()
if [ -n "$sysroot" ]; then
	xcflags=(-I"$sysroot/usr/include")
	xldflags=(-L"$sysroot/usr/lib/aarch64-linux-gnu")
fi
echo "selftests: building ${progs//$'\n'/ } for $arch" >&2
make -s -C "$T/tools/testing/selftests/mm" OUTPUT="$out" ARCH="$karch" \
	${cross:+CROSS_COMPILE=$cross} KHDR_INCLUDES="-I$hdr/include" \
	EXTRA_CFLAGS="${xcflags[*]}" LDFLAGS="-static ${xldflags[*]}" \
	-j"$(nproc)" "${targets[@]}" >&2

extra="$REPO/build/rootfs-$arch-extra"
rm -rf "$extra"
mkdir -p "$extra/selftests" "$extra/etc"
for p in $progs; do cp "$out/$p" "$extra/selftests/"; done
grep -v '^#' "$list" > "$extra/etc/selftests.list"
"$REPO/scripts/initramfs.sh" "$arch" >/dev/null

rc=0
flavours=(test)
[ "$compare" = compare ] && flavours+=(off)
for flavour in "${flavours[@]}"; do
	"$REPO/scripts/image.sh" "$arch" "$flavour" >/dev/null
	echo "selftests: booting $arch $flavour" >&2
	progs=selftests
	[ "$flavour" = test ] && progs=demo,ptreclaim,exectext,selftests
	start=$(date +%s)
	# the whole list, compared, whatever splats come first
	MMRS_SPLAT_GRACE=0 "$REPO/scripts/boot.sh" "$arch" "$flavour" "$progs" 3600 || rc=1
	echo "selftests: $arch $flavour boot took $(( $(date +%s) - start ))s" >&2
	sed -n 's/^selftest: //p' "$REPO/build/results/boot-$arch-$flavour.log" \
		> "$REPO/build/results/selftests-$arch-$flavour.tap"
done
rm -rf "$extra"
"$REPO/scripts/initramfs.sh" "$arch" >/dev/null
if [ "$compare" = compare ]; then
	python3 "$REPO/scripts/selftests-compare.py" \
		"$REPO/build/results/selftests-$arch-off.tap" \
		"$REPO/build/results/selftests-$arch-test.tap" | tee "$REPO/build/results/selftests-$arch.txt" || rc=1
else
	tap="$REPO/build/results/selftests-$arch-test.tap"
	if grep -q '^not ok' "$tap" || ! grep -q '^done' "$tap"; then
		grep '^not ok' "$tap" >&2 || echo "selftests: the run did not finish" >&2
		rc=1
	fi
	echo "selftests: $arch: $(grep -c '^ok' "$tap") ok, $(grep -c '^not ok' "$tap") not ok"
fi
exit $rc
