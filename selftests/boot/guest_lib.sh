# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by every guest step of the boot tests (selftests/boot/run.sh):
# one line per check, "ok - DESC" or "not ok - DESC", and "# " lines of
# diagnostics, which the host counts and prints.

# shellcheck disable=SC2034	# for the steps
STRIPECTL=/usr/sbin/stripectl

diag() { printf '# %s\n' "$*"; }

# check DESC COMMAND...: passes if COMMAND succeeds
check() {
	local desc=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		echo "ok - $desc"
	else
		echo "not ok - $desc"
		sed 's/^/#   /' /tmp/check.out | head -20
	fi
}

# check_eq DESC WANT GOT
check_eq() {
	if [ "$2" = "$3" ]; then
		echo "ok - $1"
	else
		echo "not ok - $1"
		printf '#   want: %s\n#   got:  %s\n' "$2" "$3"
	fi
}

# wait_for SECONDS COMMAND...: until COMMAND succeeds; 1 if it never did
wait_for() {
	local s=$1
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$s" -gt 0 ] || return 1
		sleep 1
		s=$((s - 1))
	done
}

# slot_serials NAME: the NVMe serials of array NAME's members, one per
# line in slot order (QEMU's serial follows the drive's image, the
# guest's nvmeXnY names follow the order of probing)
slot_serials() {
	local d
	for d in $($STRIPECTL list | awk -v n="$1" '$2 == n { print $NF }' | tr , ' '); do
		cat "/sys/class/block/$d/device/serial"
	done
}
