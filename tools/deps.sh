#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages the build, the VM test bed and the tests
# need.  Idempotent: does nothing when they are all installed.
#   deps.sh                the build and the tests (make check)
#   deps.sh debug-kernel   also what building the debug kernel needs
#                          (tools/vm/build-debug-kernel.sh: make debug-kernel)
set -eu

pkgs="make gcc libc6-dev pkg-config kmod cpio bc flex bison libelf-dev
libjson-c-dev libblkid-dev uuid-dev libmount-dev libudev-dev
linux-image-amd64 linux-headers-amd64 linux-image-6.12-amd64
linux-headers-6.12-amd64
qemu-system-x86 qemu-utils busybox-static
fio xfsprogs e2fsprogs util-linux fdisk dmsetup mdadm udev python3
nvme-cli nftables iproute2
dkms dh-dkms debhelper dpkg-dev lintian openssl xz-utils man-db groff-base
bsdextrautils gnuplot-nox linux-perf debootstrap"
case ${1:-} in
'') ;;
debug-kernel) pkgs="$pkgs linux-source-6.12 libssl-dev" ;;
*) echo "usage: deps.sh [debug-kernel]" >&2; exit 2 ;;
esac

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing; run as root or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # word list
apt-get install -y -qq --no-install-recommends $missing >/dev/null
