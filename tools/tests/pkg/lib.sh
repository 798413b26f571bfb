# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared by the packaging tests (tools/tests/pkg/test_*.sh): KTAP output
# (../check_lib.sh, with a check of its own here), the repository's
# version, module checks, the DKMS guest and host snapshots.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck disable=SC2034 # used by the tests
STRIPECTL=$TOP/tools/stripectl/stripectl
VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")
# shellcheck source=SCRIPTDIR/../check_lib.sh
. "$TOP/tools/tests/check_lib.sh"

echo "KTAP version 1"
echo "# $(basename "$0"): mqstripe $VERSION"

diag() { sed 's/^/# /'; }

# check DESC CMD...: one test point, the command's output as diagnostics
# when it fails (instead of check_lib.sh's check), and its exit status.
check() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "$desc"
	else
		not_ok "$desc (exit $rc)"
		printf '%s\n' "$out" | tail -n 40 | diag
	fi
	return "$rc"
}

# expect DESC WANT GOT
expect() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1: want '$2', got '$3'"
	fi
}

finish() {
	echo "# $(basename "$0") took $SECONDS s"
	ktap_done
	exit
}

# skip_all WHY DESC...: the test cannot run here
skip_all() {
	local why=$1 d
	shift
	for d in "$@"; do
		skip "$why" "$d"
	done
	finish
}

# Kernels whose build tree is installed (what make dkms-install and the
# package build for).
header_kernels() {
	local m
	for m in /lib/modules/*/build/Makefile; do
		[ -f "$m" ] || continue
		m=${m%/build/Makefile}
		echo "${m##*/}"
	done
}

# The DKMS-installed module of kernel $1 (mqstripe.ko or .ko.xz, ...).
dkms_module() {
	local f
	for f in /lib/modules/"$1"/updates/dkms/mqstripe.ko*; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# check_module_file KERNEL FILE: modinfo of an installed module
check_module_file() {
	local k=$1 f=$2 vm
	vm=$(modinfo -F vermagic "$f" 2>/dev/null)
	expect "$k: vermagic of ${f#/lib/modules/"$k"/}" "$k" "${vm%% *}"
	expect "$k: module version" "$VERSION" "$(modinfo -F version "$f")"
	expect "$k: module license" "GPL" "$(modinfo -F license "$f")"
	if modinfo -k "$k" -n mqstripe 2>/dev/null | grep -qx "$f"; then
		ok "$k: depmod resolves mqstripe to $f"
	else
		not_ok "$k: depmod resolves mqstripe to $(modinfo -k "$k" -n mqstripe 2>&1)"
	fi
	# dkms signs with its MOK key when it can (Secure Boot, README)
	if [ -f /var/lib/dkms/mok.pub ]; then
		local serial key
		serial=$(openssl x509 -inform DER -in /var/lib/dkms/mok.pub -noout -serial 2>/dev/null)
		serial=${serial#serial=}
		key=$(modinfo -F sig_key "$f" | tr -d ':\n')
		if [ -n "$serial" ] && [ "${key^^}" = "${serial^^}" ]; then
			ok "$k: module signed with /var/lib/dkms/mok.pub ($(modinfo -F signer "$f"))"
		else
			not_ok "$k: module signature key '$key' is not /var/lib/dkms/mok.pub ($serial)"
		fi
	else
		skip "no /var/lib/dkms/mok.pub" "$k: module signed with the DKMS MOK key"
	fi
}

# check_dkms_installed KERNEL...: dkms status says installed for each
# KERNEL, and its module is in updates/dkms/ with the right modinfo.
check_dkms_installed() {
	local st k f
	st=$(dkms status -m mqstripe -v "$VERSION" 2>/dev/null)
	echo "$st" | diag
	for k in "$@"; do
		if echo "$st" | grep -q "^mqstripe/$VERSION, $k, [^:]*: installed"; then
			ok "$k: dkms status: installed"
		else
			not_ok "$k: dkms status: installed"
		fi
		if f=$(dkms_module "$k"); then
			ok "$k: module in /lib/modules/$k/updates/dkms/"
			check_module_file "$k" "$f"
		else
			not_ok "$k: module in /lib/modules/$k/updates/dkms/"
		fi
	done
}

# check_modules_gone KERNEL...: no DKMS module and no modules.dep entry
# of mqstripe is left for any KERNEL.
check_modules_gone() {
	local k
	for k in "$@"; do
		if dkms_module "$k" >/dev/null || grep -q mqstripe "/lib/modules/$k/modules.dep"; then
			not_ok "$k: module and its modules.dep entry gone"
		else
			ok "$k: module and its modules.dep entry gone"
		fi
	done
}

# guest_dkms DESC KERNEL [STRIPECTL]: one test point DESC: a QEMU guest of
# KERNEL (the host root is its root: it sees the installed module and the
# host's modules.dep) runs guest_dkms.sh, with STRIPECTL if given, else
# with the build tree's (skipped when it is not built).  Writes $TMP/guest.
guest_dkms() {
	local desc=$1 k=$2 start rc
	local runvm=$TOP/tools/vm/run-vm.sh
	shift 2
	if [ "${PKG_VM:-1}" = 0 ]; then
		skip "PKG_VM=0" "$desc"
		return
	fi
	if [ ! -x "$runvm" ] || ! command -v qemu-system-x86_64 >/dev/null; then
		skip "no QEMU test bed" "$desc"
		return
	fi
	if [ $# -eq 0 ] && [ ! -x "$STRIPECTL" ]; then
		skip "stripectl not built" "$desc"
		return
	fi
	start=$SECONDS
	"$runvm" --kernel "$k" --nvme 4 --nvme-size 256M --timeout 300 --append oops=panic -- \
		bash tools/tests/pkg/guest_dkms.sh "$VERSION" "$@" >"$TMP/guest" 2>&1
	rc=$?
	grep '^GUEST ' "$TMP/guest" | sed 's/^GUEST /# /'
	if [ "$rc" -eq 0 ] && grep -q '^GUEST done' "$TMP/guest"; then
		ok "$desc ($((SECONDS - start)) s)"
	else
		not_ok "$desc (exit $rc)"
		grep -v '^GUEST ' "$TMP/guest" | tail -n 30 | diag
	fi
}

# snapshot FILE: the files (not directories) a package or DKMS could leave
# behind, sorted, in FILE; the installed packages in FILE.pkgs.  Skips what
# changes on its own (dpkg and apt state, caches, logs; the depmod indexes
# are rebuilt but keep their names).
snapshot() {
	find /usr /etc /var/lib /opt /boot -xdev \( -type f -o -type l \) \
		-not -path '/var/lib/dpkg/*' -not -path '/var/lib/apt/*' \
		-not -path '/var/lib/systemd/*' -not -path '/var/lib/ucf/*' \
		-not -path '/var/lib/man-db/*' -not -path '/etc/ld.so.cache' \
		-not -path '/usr/share/info/dir' -not -path '/var/lib/dhcp/*' \
		-not -path '/var/lib/private/*' -not -path '/var/lib/lintian/*' \
		2>/dev/null | LC_ALL=C sort >"$1"
	dpkg-query -W -f='${Package}:${Architecture} ${Version} ${db:Status-Abbrev}\n' |
		LC_ALL=C sort >"$1.pkgs"
}

# compare_snapshots DESC BEFORE AFTER: the same files before and after.
# Files of other packages that were installed, upgraded or removed in the
# meantime (someone else running apt on a shared machine) are left out of
# the comparison, and named.
compare_snapshots() {
	local d others
	others=$(comm -3 "$2.pkgs" "$3.pkgs" | awk '{ print $1 }' |
		sed 's/:.*//' | grep -vxE 'mqstripe-dkms|stripectl' | sort -u)
	if [ -n "$others" ]; then
		echo "# packages changed meantime by someone else, their files ignored: ${others//$'\n'/ }"
		# shellcheck disable=SC2086 # a word list
		dpkg-query -L $others 2>/dev/null | LC_ALL=C sort -u >"$3.ignore"
		{ cat "$2"; cat "$3"; } | LC_ALL=C sort -u | comm -12 - "$3.ignore" >"$3.ignore.hit"
		LC_ALL=C comm -23 "$2" "$3.ignore.hit" >"$2.cmp"
		LC_ALL=C comm -23 "$3" "$3.ignore.hit" >"$3.cmp"
	else
		cp "$2" "$2.cmp"
		cp "$3" "$3.cmp"
	fi
	d=$(diff "$2.cmp" "$3.cmp")
	if [ -z "$d" ]; then
		ok "$1"
	else
		not_ok "$1: files differ (< before, > after)"
		printf '%s\n' "$d" | head -n 40 | diag
	fi
}

# DKMS creates its signing key pair on the first build: remove it again
# if this test made it (it was never enrolled).
MOK_EXISTED=0
[ -e /var/lib/dkms/mok.key ] && MOK_EXISTED=1
restore_mok() {
	if [ "$MOK_EXISTED" = 0 ]; then
		rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	fi
}

# True when DKMS or dpkg already knows mqstripe: the tests would disturb
# an installation they did not make, so they skip.
mqstripe_present() {
	[ -n "$(dkms status -m mqstripe 2>/dev/null)" ] && return 0
	compgen -G '/usr/src/mqstripe-*' >/dev/null && return 0
	dpkg-query -W -f='${Status}\n' mqstripe-dkms stripectl 2>/dev/null |
		grep -qv 'not-installed$'
}
