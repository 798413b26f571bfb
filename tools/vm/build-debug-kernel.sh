#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-debug-kernel.sh [--dry-run] [--config-only DIR] [-j N] [OUT]
#
# Rebuild the test bed's debug kernel (KASAN, lockdep, kmemleak, UBSAN,
# fault injection; see tools/vm/debug.config) from Debian's linux-source-6.12
# package, for machines without ../shared/debug-kernel.  The recipe is the
# one in that kernel's README, step by step:
#
#   tar -xf /usr/src/linux-source-6.12.tar.xz && cd linux-source-6.12
#   make x86_64_defconfig && make kvm_guest.config
#   scripts/kconfig/merge_config.sh -m .config debug.config && make olddefconfig
#   make -j3 bzImage modules
#   make modules_install INSTALL_MOD_PATH=STAGE INSTALL_MOD_STRIP=1
#   srctree=. SRCARCH=x86 CC=gcc HOSTCC=gcc sh scripts/package/install-extmod-build BUILD_DIR
#   cp .config BUILD_DIR/.config
#
# and the result has the same layout: OUT/bzImage, OUT/modules/ (what goes
# to /lib/modules/RELEASE), OUT/build/ (the tree to build external modules
# against), OUT/config, OUT/debug.config, OUT/README.  tools/vm/run-vm.sh
# --kernel debug boots it (it looks in $MQS_DEBUG_KERNEL, then
# ../shared/debug-kernel, then build/debug-kernel).
#
# debug.config is the shared kernel's fragment plus the options of the
# fabric test (selftests/test_35_fabric.sh): the nvme-tcp host with native
# multipath, nvmet and nvmet-tcp, nf_tables with the inet family, and veth,
# as modules; and the dm-multipath target (selftests/test_36_nvme_paths).  The fabric test runs on a kernel built here; on a debug
# kernel without them (../shared/debug-kernel) it skips, naming the module
# and option it lacks.
#
# About 40 minutes on 2 cores, several GiB in the work tree (removed after a
# successful build).  The result is cached: when OUT is complete and was
# built from the same debug.config, the same linux-source-6.12 version and
# the same recipe, nothing is done.
#
#   OUT              default $MQS_DEBUG_KERNEL, else <repo>/build/debug-kernel
#   -j N             parallel jobs (default: number of CPUs + 1)
#   --dry-run        print what would be done (or that the cache is valid)
#   --config-only DIR  extract the source into DIR and run the configuration
#                    steps only (up to make olddefconfig): DIR/linux-source-6.12/.config
#                    is the configuration the full build would use
#   --force          rebuild even when the cache is valid
#
# Env: MQS_KSRC_TARBALL (default /usr/src/linux-source-6.12.tar.xz),
#      MQS_DEBUG_KERNEL_WORK (work directory, default OUT.work),
#      MQS_NO_DEPS_CHECK=1 (do not check the build dependencies first).
# Needs: linux-source-6.12 and the kernel build dependencies
# (sh tools/deps.sh debug-kernel installs them).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
FRAGMENT=$HERE/debug.config
TARBALL=${MQS_KSRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
SRCNAME=linux-source-6.12
# Bump when the recipe below changes in a way that changes the result.
RECIPE=1

die() {
	echo "build-debug-kernel: $*" >&2
	exit 1
}
usage() {
	sed -n '4,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
	exit "$1"
}

dry=0
force=0
config_only=
jobs=$(($(nproc) + 1))
out=
while [ $# -gt 0 ]; do
	case $1 in
	--dry-run) dry=1; shift ;;
	--force) force=1; shift ;;
	--config-only) [ $# -ge 2 ] || usage 2; config_only=$2; shift 2 ;;
	-j) [ $# -ge 2 ] || usage 2; jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	-h | --help) usage 0 ;;
	-*) echo "build-debug-kernel: unknown option $1" >&2; usage 2 ;;
	*) [ -z "$out" ] || usage 2; out=$1; shift ;;
	esac
done
case $jobs in '' | *[!0-9]*) die "-j: not a number: $jobs" ;; esac
out=${out:-${MQS_DEBUG_KERNEL:-$REPO/build/debug-kernel}}
case $out in /*) ;; *) out=$PWD/$out ;; esac
work=${MQS_DEBUG_KERNEL_WORK:-$out.work}

[ -r "$FRAGMENT" ] || die "$FRAGMENT not found"

# The key of a build: recipe, fragment, source package (version and size of
# the tarball), compiler.  A cache with the same key is the same kernel.
src_version() {
	dpkg-query -W -f='${Version}' "$SRCNAME" 2>/dev/null ||
		stat -c '%s %Y' "$TARBALL" 2>/dev/null || echo unknown
}
build_key() {
	printf 'recipe %s\nfragment %s\nsource %s %s\ncompiler %s\n' "$RECIPE" \
		"$(sha256sum <"$FRAGMENT" | cut -d' ' -f1)" "$SRCNAME" "$(src_version)" \
		"$(gcc --version 2>/dev/null | head -n 1)"
}
key=$(build_key)
keyfile=.mqs-build-key

# complete DIR: every part of the layout is there and the key matches
complete() {
	local d=$1 f
	for f in bzImage config debug.config README modules/modules.dep build/Makefile \
		build/.config build/Module.symvers; do
		[ -s "$d/$f" ] || return 1
	done
	cmp -s "$d/debug.config" "$FRAGMENT" || return 1
	[ "$(cat "$d/$keyfile" 2>/dev/null)" = "$key" ]
}

if [ -z "$config_only" ] && [ "$force" = 0 ] && complete "$out"; then
	echo "build-debug-kernel: $out is up to date ($(cat "$out/build/include/config/kernel.release" 2>/dev/null || echo '?'))"
	exit 0
fi

run() {
	echo "+ $*"
	[ "$dry" = 1 ] || "$@"
}

if [ "$dry" = 0 ]; then
	[ -r "$TARBALL" ] || die "$TARBALL not found: apt-get install $SRCNAME (or: sh tools/deps.sh debug-kernel)"
fi
# (MQS_NO_DEPS_CHECK=1: tools/tests/test_build_debug_kernel.sh, whose
# stand-in source builds nothing)
if [ "$dry" = 0 ] && [ "${MQS_NO_DEPS_CHECK:-0}" != 1 ]; then
	for c in make gcc flex bison bc xz tar; do
		command -v "$c" >/dev/null || die "$c not found (sh tools/deps.sh debug-kernel)"
	done
	[ -r /usr/include/openssl/bio.h ] || die "OpenSSL headers not found (apt-get install libssl-dev)"
	[ -r /usr/include/libelf.h ] || die "libelf headers not found (apt-get install libelf-dev)"
fi

# 1. the source, and the configuration
dir=${config_only:-$work}
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
src=$dir/$SRCNAME
if [ "$dry" = 0 ]; then
	rm -rf "$src" "$dir/stage" "$dir/build"
	mkdir -p "$dir"
fi
run tar -xf "$TARBALL" -C "$dir"
run cp "$FRAGMENT" "$src/debug.config"
run make -C "$src" -s x86_64_defconfig
run make -C "$src" -s kvm_guest.config
# merge_config.sh runs make in the current directory
echo "+ cd $src"
if [ "$dry" = 0 ]; then
	(cd "$src" && scripts/kconfig/merge_config.sh -m .config debug.config >/dev/null)
else
	echo "+ scripts/kconfig/merge_config.sh -m .config debug.config"
fi
run make -C "$src" -s olddefconfig
# Every fragment line should survive olddefconfig; one that does not lacks a
# dependency.  Said, not fatal: the reference kernel is built the same way
# (CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION needs FAULT_INJECTION_CONFIGFS,
# which the fragment does not set, so neither kernel has it).
if [ "$dry" = 0 ]; then
	while IFS= read -r l; do
		case $l in
		CONFIG_*=n) grep -q "^${l%=n}=" "$src/.config" || continue ;;
		CONFIG_*) ! grep -qxF "$l" "$src/.config" || continue ;;
		*) continue ;;
		esac
		echo "build-debug-kernel: note: fragment line $l is not in the configuration (a dependency is not enabled)"
	done <"$FRAGMENT"
fi
if [ -n "$config_only" ]; then
	[ "$dry" = 1 ] || echo "build-debug-kernel: configured $src (release $(make -C "$src" -s kernelrelease))"
	exit 0
fi

# 2. the kernel and its modules
stage=$dir/stage
bdir=$dir/build
run make -C "$src" -j"$jobs" bzImage modules
run make -C "$src" -s modules_install INSTALL_MOD_PATH="$stage" INSTALL_MOD_STRIP=1
echo "+ (cd $src && srctree=. SRCARCH=x86 CC=gcc HOSTCC=gcc sh scripts/package/install-extmod-build $bdir)"
if [ "$dry" = 0 ]; then
	(cd "$src" && srctree=. SRCARCH=x86 CC=gcc HOSTCC=gcc MAKE=make \
		sh scripts/package/install-extmod-build "$bdir")
fi
run cp "$src/.config" "$bdir/.config"

# 3. the layout, moved into place in one rename
if [ "$dry" = 1 ]; then
	echo "+ assemble $out: bzImage modules/ build/ config debug.config README"
	exit 0
fi
rel=$(make -C "$src" -s kernelrelease)
new=$out.new
rm -rf "$new"
mkdir -p "$new"
cp "$src/arch/x86/boot/bzImage" "$new/bzImage"
mv "$stage/lib/modules/$rel" "$new/modules"
# links into the work tree, which is deleted below
rm -f "$new/modules/build" "$new/modules/source"
mv "$bdir" "$new/build"
cp "$src/.config" "$new/config"
cp "$FRAGMENT" "$new/debug.config"
cat >"$new/README" <<EOF
Debug kernel for the test bed (made by tools/vm/build-debug-kernel.sh)
=============================

What: Linux $rel from Debian's $SRCNAME package ($(src_version)), configured
x86_64_defconfig + kvm_guest.config + debug.config (KASAN, lockdep, kmemleak,
DEBUG_ATOMIC_SLEEP, UBSAN, fault injection; the drivers of the test bed built
in; nvme-tcp, nvmet, nvmet-tcp, nf_tables and dm-multipath for the fabric
tests as modules),
built on $(date -u +%Y-%m-%d) with $(gcc --version | head -n 1).

Files
  bzImage       the kernel (uname -r: $rel)
  modules/      its modules; install as /lib/modules/$rel (modules.dep included)
  build/        the tree to build external modules against: make -C build M=\$PWD modules
  config        the full .config
  debug.config  the fragment merged over it

How it was made: the recipe of ../shared/debug-kernel/README, see the
header of tools/vm/build-debug-kernel.sh.
EOF
printf '%s\n' "$key" >"$new/$keyfile"
rm -rf "$out.old"
[ ! -e "$out" ] || mv "$out" "$out.old"
mv "$new" "$out"
rm -rf "$out.old" "$src" "$stage"
rmdir "$dir" 2>/dev/null || true
echo "build-debug-kernel: $out ready (release $rel)"
