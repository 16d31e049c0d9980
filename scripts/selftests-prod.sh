#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests-prod.sh ARCH: the upstream mm selftests, as run_vmtests.sh runs
# them, on the prod kernel (FLAVOUR prod) against its CONFIG_MM_RS=n twin
# (prod-off). `make selftests ARCH=A FLAVOR=prod` runs it.
#
# Every program tools/testing/selftests/mm builds is built statically (with
# libnuma and libcap from Debian; for arm64 from the arm64 packages, unpacked
# into build/sysroot-arm64) and goes into /selftests of the initramfs with
# the test scripts, bash and busybox. The guest's /init sets up zram swap,
# cgroup v2, hugetlbfs and ext2 for khugepaged's file mode; selftests runs
# `run_vmtests.sh -t CATEGORY` for each category of run_vmtests.sh's usage
# text, each under a time limit. The guest has 4 vCPUs and two NUMA nodes.
#
# Environment: MMRS_PROD_FLAVOURS (default "prod-off prod"; "prod" alone
# skips the baseline; "prod-pristine" the prod flavour built from the pristine
# Debian tree, image.sh MMRS_PRISTINE=1), MMRS_PROD_CATEGORIES (default: all) to run a subset,
# MMRS_PROD_MEM (default 4G), MMRS_PROD_PARALLEL=1 boots the kernels at
# once instead of one after the other, MMRS_PROD_LIST a list file to run instead of
# the categories (userspace/selftests.c's format), MMRS_PROD_EXTRA a
# directory whose files go into /selftests too.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
arch=${1:?usage: selftests-prod.sh x86_64|arm64}
T="$REPO/build/linux"
R="$REPO/build/results"
case "$arch" in
x86_64) karch=x86; cross=; darch=amd64 ;;
arm64) karch=arm64; cross=aarch64-linux-gnu-; darch=arm64 ;;
*) echo "selftests-prod.sh: ARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
flavours=(${MMRS_PROD_FLAVOURS:-prod-off prod})
mem=${MMRS_PROD_MEM:-4G}
mkdir -p "$R"

# Guest tools and the libraries of the selftests: Debian packages. For the
# host architecture they are installed; for the other they are unpacked.
if [ "$darch" = amd64 ]; then
	pkgs=(busybox-static bash-static libnuma-dev libcap-dev)
else
	pkgs=(busybox-static bash-static libnuma-dev libcap-dev libnuma1 libcap2)
fi
sysroot=$(mm_rs_guest_debs "$darch" "${pkgs[@]}")
busybox="$sysroot/bin/busybox"
bash="$sysroot/bin/bash-static"
[ -x "$busybox" ] && [ -x "$bash" ] || { echo "selftests: no $busybox or $bash" >&2; exit 1; }

# Both kernels, under the machine's build lock (released before booting).
(
	mm_rs_build_lock
	"$REPO/scripts/prepare-tree.sh" >&2
	for f in "${flavours[@]}"; do
		start=$(date +%s)
		case "$f" in
		# the same flavour from the pristine Debian tree (image.sh)
		*-pristine) MMRS_PRISTINE=1 "$REPO/scripts/image.sh" "$arch" "${f%-pristine}" >/dev/null ;;
		*) "$REPO/scripts/image.sh" "$arch" "$f" >/dev/null ;;
		esac
		echo "time: image-$arch-$f $(( $(date +%s) - start ))s" | tee -a "$R/selftests-$arch-prod.times" >&2
	done
)

hdr="$REPO/build/headers-$arch"
if [ ! -f "$hdr/include/linux/mman.h" ]; then
	make -s -C "$T" O="$REPO/build/headers-obj-$arch" ARCH="$karch" INSTALL_HDR_PATH="$hdr" headers_install
fi
out="$REPO/build/selftests-prod-$arch"
mkdir -p "$out"
xcflags=() xldflags=()
if [ -n "$sysroot" ]; then
	xcflags=(-I"$sysroot/usr/include")
	xldflags=(-L"$sysroot/usr/lib/aarch64-linux-gnu")
fi
echo "selftests: building the mm selftests for $arch" >&2
# -k: a program that does not build here is left out (and its run_vmtests.sh
# entry then fails on both kernels, which the table shows). -static in the
# CFLAGS too: the protection_keys rules do not use LDFLAGS.
make -s -k -C "$T/tools/testing/selftests/mm" OUTPUT="$out" ARCH="$arch" \
	${cross:+CROSS_COMPILE=$cross} KHDR_INCLUDES="-I$hdr/include" \
	EXTRA_CFLAGS="-static ${xcflags[*]}" LDFLAGS="-static ${xldflags[*]}" \
	-j"$(nproc)" all >"$R/selftests-$arch-prod-build.log" 2>&1 ||
	echo "selftests: some selftests did not build: $R/selftests-$arch-prod-build.log" >&2

# Its own initramfs (build/initramfs-ARCH-prod.cpio.gz): other scripts may
# boot this architecture meanwhile.
export MMRS_INITRAMFS_TAG=prod MMRS_INITRD="$REPO/build/initramfs-$arch-prod.cpio.gz"
extra="$REPO/build/rootfs-$arch-prod-extra"
rm -rf "$extra"
mkdir -p "$extra/selftests" "$extra/etc" "$extra/bin"
find "$out" -maxdepth 1 -type f -perm -u+x -exec cp {} "$extra/selftests/" \;
cp "$T"/tools/testing/selftests/mm/*.sh "$extra/selftests/"
cp "$busybox" "$extra/bin/busybox"
cp "$bash" "$extra/bin/bash"
for a in $(/bin/busybox --list); do
	[ -e "$extra/bin/$a" ] || [ -e "$REPO/userspace/$a.c" ] || ln -s busybox "$extra/bin/$a"
done
# Debian's busybox has no pgrep; the hugetlb cgroup tests use pgrep -f.
cat > "$extra/bin/pgrep" <<'EOF2'
#!/bin/bash
[ "$1" = -f ] && shift
for d in /proc/[0-9]*; do
	[ "${d#/proc/}" = $$ ] && continue
	args=$(tr '\0' ' ' 2>/dev/null < "$d/cmdline") || continue
	# not killall below (nor its subshells), whose command line names it
	if [ -n "${MMRS_PGREP_EXCLUDE:-}" ]; then
		[ "${d#/proc/}" = "$MMRS_PGREP_EXCLUDE" ] && continue
		read -r _ _ _ pp _ 2>/dev/null < "$d/stat" && [ "$pp" = "$MMRS_PGREP_EXCLUDE" ] && continue
	fi
	case "$args" in *"$1"*) echo "${d#/proc/}" ;; esac
done
EOF2
# Nor a killall that knows --wait, which they use to stop write_to_hugetlbfs.
rm -f "$extra/bin/killall"
cat > "$extra/bin/killall" <<'EOF2'
#!/bin/bash
export MMRS_PGREP_EXCLUDE=$$
sig=-TERM wait= name=
for a; do case "$a" in --wait) wait=1 ;; -*) sig=$a ;; *) name=$a ;; esac; done
pids=$(pgrep -f "$name")
[ -n "$pids" ] && kill "$sig" $pids
while [ -n "$wait" ] && [ -n "$(pgrep -f "$name")" ]; do sleep 0.2; done
exit 0
EOF2
chmod +x "$extra/bin/pgrep" "$extra/bin/killall"
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$extra/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$extra/etc/group"
[ -n "${MMRS_PROD_EXTRA:-}" ] && cp -a "$MMRS_PROD_EXTRA/." "$extra/selftests/"
# run_vmtests.sh runs from a copy of /selftests on tmpfs: some tests make
# their files in the working directory and need fallocate(), which the
# initramfs (ramfs) lacks.
cat > "$extra/selftests/rvt.sh" <<'EOF2'
#!/bin/bash
d=/run/selftests
if [ ! -d $d ]; then
	mkdir -p $d && mount -t tmpfs -o mode=1777 tmpfs $d && cp -a /selftests/. $d/ || exit 1
fi
cd $d && exec ./run_vmtests.sh "$@"
EOF2
chmod +x "$extra/selftests/rvt.sh"
# One run_vmtests.sh run a category, every category of its usage text. 128
# huge pages are reserved first, as on a test machine: run_vmtests.sh puts
# nr_hugepages back to the boot value after the userfaultfd tests, and the
# later hugetlb users (migration's hugetlb cases) need some.
cats=${MMRS_PROD_CATEGORIES:-$(sed -n '/^usage()/,/^EOF/s/^- \([a-z_]*\)$/\1/p' "$T/tools/testing/selftests/mm/run_vmtests.sh")}
{
echo "10 hugepages /bin/writefile /proc/sys/vm/nr_hugepages 128"
for c in $cats; do
	case "$c" in
	cow|thp|userfaultfd) secs=1800 ;;
	*) secs=900 ;;
	esac
	echo "$secs $c /bin/bash ./rvt.sh -t $c"
done
} > "$extra/etc/selftests.list"
[ -n "${MMRS_PROD_LIST:-}" ] && grep -v '^#' "$MMRS_PROD_LIST" > "$extra/etc/selftests.list"
"$REPO/scripts/initramfs.sh" "$arch" >/dev/null

# Two NUMA nodes of half the memory each, two vCPUs each.
. "$REPO/scripts/numa.sh"
mm_rs_numa 4 "$mem"
numa=("${MMRS_NUMA_ARGS[@]}")
# x86_64 registers its 1 GiB huge page size at run time only with
# CONFIG_CONTIG_ALLOC, which prod does not have (no CMA, no memory hotplug),
# and thuge-gen fails without that size ("No GB pages available on x86-64;
# please boot with hugepagesz=1G"). Registered here with no page reserved:
# thuge-gen skips the size and tests 2 MiB. arm64 registers it always.
append=${MMRS_APPEND:-}
[ "$arch" = x86_64 ] && append="${append}hugepagesz=1G "
boot_one() {
	local f=$1 start log brc=0
	echo "selftests: booting $arch $f (4 vCPUs, $mem, two NUMA nodes)" >&2
	start=$(date +%s)
	log="$R/selftests-boot-$arch-$f.log"
	# MMRS_SPLAT_GRACE=0: the whole list, compared, whatever splats come first
	MMRS_APPEND=$append MMRS_LOG=$log MMRS_SMP=4 MMRS_MEM=$mem MMRS_SPLAT_GRACE=0 \
		"$REPO/scripts/boot.sh" "$arch" "$f" selftests 21600 "${numa[@]}" |
		sed -u "s/^/$f: /" || brc=1
	echo "time: boot-$arch-$f $(( $(date +%s) - start ))s" | tee -a "$R/selftests-$arch-prod.times" >&2
	return $brc
}
rc=0
if [ -n "${MMRS_PROD_PARALLEL:-}" ]; then
	# Both kernels at once: a guest mostly runs one test thread, so two
	# guests share the machine's two cores with little loss, and each
	# kernel sees the same load as its twin.
	pids=()
	for f in "${flavours[@]}"; do boot_one "$f" & pids+=($!); done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
else
	for f in "${flavours[@]}"; do boot_one "$f" || rc=1; done
fi
for f in "${flavours[@]}"; do
	python3 "$REPO/scripts/selftests-compare.py" extract "$R/selftests-boot-$arch-$f.log" > "$R/selftests-$arch-$f.tap"
done
rm -rf "$extra"
if [ "${#flavours[@]}" = 2 ]; then
	python3 "$REPO/scripts/selftests-compare.py" compare \
		"$R/selftests-$arch-prod-off.tap" "$R/selftests-$arch-prod.tap" |
		tee "$R/selftests-$arch-prod.txt" || rc=1
	python3 "$REPO/scripts/selftests-compare.py" table "$R/selftests-prod.md" "$R"/selftests-*-prod{,-off}.tap || true
fi
exit $rc
