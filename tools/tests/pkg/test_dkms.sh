#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-install / dkms-uninstall on the host, for every kernel with
# headers installed (Debian's 6.1 and 6.12): the source in
# /usr/src/mqstripe-<version> is exactly the module source, dkms status says
# installed, the .ko land in /lib/modules/<release>/updates/dkms/ with the
# right vermagic and version, signed with the DKMS MOK key.  While they are
# installed, a QEMU guest per kernel loads the DKMS module with modprobe
# (not the build tree's), creates an array, makes XFS and mounts it
# (guest_dkms.sh; PKG_VM=0 skips the guests).  dkms-uninstall, then the
# host's file list must be what it was.  The build log DKMS kept of each
# kernel has no message of a missing file or program, no error and no
# warning.  Needs root and dkms.
set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

mapfile -t KERNELS < <(header_kernels)
[ "$(id -u)" = 0 ] || skip_all "needs root" "make dkms-install"
command -v dkms >/dev/null || skip_all "dkms not installed (apt-get install dkms)" "make dkms-install"
[ ${#KERNELS[@]} -gt 0 ] || skip_all "no kernel headers installed" "make dkms-install"
mqstripe_present && skip_all "mqstripe is already installed (DKMS or package): not touching it" "make dkms-install"

TMP=$(mktemp -d) || exit 1
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [ -n "$(dkms status -m mqstripe 2>/dev/null)" ] || [ -e "/usr/src/mqstripe-$VERSION" ]; then
		make -s dkms-uninstall >/dev/null 2>&1
	fi
	restore_mok
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

snapshot "$TMP/before"
echo "# kernels: ${KERNELS[*]}"

start=$SECONDS
check "make dkms-install KVERS=\"${KERNELS[*]}\"" make dkms-install KVERS="${KERNELS[*]}"
echo "# dkms-install took $((SECONDS - start)) s"

# The source DKMS builds from: exactly the module source, no build products
# and nothing from tools/.
src=/usr/src/mqstripe-$VERSION
{
	printf '%s\n' Kbuild Makefile dkms.conf module/probe.sh
	(ls module/*.c module/*.h module/uapi/*.h module/probes/*.c) |
		grep -vE '^module/mqstripe_probed\.h$|\.mod\.c$'
} | LC_ALL=C sort >"$TMP/want-src"
(cd "$src" 2>/dev/null && find . -type f -o -type l | sed 's|^\./||' | LC_ALL=C sort) >"$TMP/got-src"
if diff -u "$TMP/want-src" "$TMP/got-src" >"$TMP/d"; then
	ok "$src holds exactly the module source"
else
	not_ok "$src holds exactly the module source"
	diag <"$TMP/d"
fi

check_dkms_installed "${KERNELS[@]}"

# What DKMS ran in that source ("make module KDIR=..."), as its build log
# kept it: the top Makefile alone builds the module there, without a
# message from a missing file or program (the developers' targets, which
# need tools/, are not in the DKMS tree) and without a compiler warning.
for k in "${KERNELS[@]}"; do
	mlog=/var/lib/dkms/mqstripe/$VERSION/$k/x86_64/log/make.log
	if [ ! -r "$mlog" ]; then
		not_ok "$k: DKMS build log $mlog is there"
	elif grep -E 'No such file|command not found|[Ww]arning:|[Ee]rror' "$mlog" >"$TMP/d"; then
		not_ok "$k: DKMS build log without errors or warnings"
		diag <"$TMP/d"
	else
		ok "$k: DKMS build log without errors or warnings"
	fi
done

# In the guests: the DKMS module loads.
for k in "${KERNELS[@]}"; do
	guest_dkms "$k guest: modprobe loads the DKMS module; create, mkfs.xfs, mount" "$k"
done

check "make dkms-uninstall" make dkms-uninstall
expect "dkms status after dkms-uninstall" "" "$(dkms status -m mqstripe 2>/dev/null)"
check_modules_gone "${KERNELS[@]}"
restore_mok
snapshot "$TMP/after"
compare_snapshots "host files as before dkms-install" "$TMP/before" "$TMP/after"
finish
