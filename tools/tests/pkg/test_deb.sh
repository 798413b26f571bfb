#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: mqstripe-dkms and stripectl build with Debian's tooling and
# lintian reports no errors; dpkg -i installs both on the host, the
# package's DKMS hook builds the module for every kernel with headers
# (dkms status: installed; the .ko in updates/dkms/ with the right
# vermagic), stripectl, its man page, completion, udev rule, systemd
# units (enabled), generator and initramfs-tools hook are in place, the newest
# kernel's initramfs rebuilt with them; the
# DKMS-built module loads in a guest (PKG_VM=0 skips it); apt-get purge
# removes all of it: the host's file list is what it was before.
# Needs root, dpkg-dev, debhelper, dh-dkms, dkms (and lintian).
set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

mapfile -t KERNELS < <(header_kernels)
[ "$(id -u)" = 0 ] || skip_all "needs root" "make deb"
for t in dpkg-buildpackage dh dh_dkms dkms; do
	command -v "$t" >/dev/null ||
		skip_all "$t not installed (apt-get install dpkg-dev debhelper dh-dkms dkms)" "make deb"
done
mqstripe_present && skip_all "mqstripe is already installed (DKMS or package): not touching it" "make deb"

TMP=$(mktemp -d) || exit 1
APT=(apt-get -y -q -o DPkg::Lock::Timeout=300)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if dpkg-query -W -f='${Status}\n' mqstripe-dkms stripectl 2>/dev/null |
		grep -qv 'not-installed$'; then
		DEBIAN_FRONTEND=noninteractive "${APT[@]}" purge mqstripe-dkms stripectl >/dev/null 2>&1
	fi
	restore_mok
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$SECONDS
check "make deb" make deb
echo "# make deb took $((SECONDS - start)) s"
dkms_deb=$(ls build/deb/mqstripe-dkms_"$VERSION"_all.deb 2>/dev/null)
tool_deb=$(ls build/deb/stripectl_"$VERSION"_*.deb 2>/dev/null)
if [ -z "$dkms_deb" ] || [ -z "$tool_deb" ]; then
	not_ok "build/deb/ has mqstripe-dkms_${VERSION}_all.deb and stripectl_${VERSION}_<arch>.deb"
	finish
fi
ok "build/deb/ has $(basename "$dkms_deb") and $(basename "$tool_deb")"

if command -v lintian >/dev/null; then
	lintian --fail-on error -I build/deb/*.changes >"$TMP/lintian" 2>&1
	rc=$?
	grep -v 'running with root privileges' "$TMP/lintian" | diag
	nerr=$(grep -c '^E: ' "$TMP/lintian")
	nwarn=$(grep -c '^W: ' "$TMP/lintian")
	if [ "$rc" -eq 0 ] && [ "$nerr" -eq 0 ]; then
		ok "lintian: no errors ($nwarn warnings)"
	else
		not_ok "lintian: $nerr errors (exit $rc)"
	fi
else
	skip "lintian not installed" "lintian: no errors"
fi

snapshot "$TMP/before"
start=$SECONDS
check "dpkg -i $(basename "$dkms_deb") $(basename "$tool_deb")" \
	env DEBIAN_FRONTEND=noninteractive dpkg -i "$dkms_deb" "$tool_deb"
echo "# dpkg -i took $((SECONDS - start)) s"
dpkg-query -L mqstripe-dkms stripectl 2>/dev/null | LC_ALL=C sort -u >"$TMP/pkgfiles"

check_dkms_installed "${KERNELS[@]}"

expect "/usr/sbin/stripectl --version" "stripectl $VERSION" \
	"$(/usr/sbin/stripectl --version 2>/dev/null | head -n 1)"
expect "man -w stripectl" /usr/share/man/man8/stripectl.8.gz "$(man -w stripectl 2>/dev/null)"
expect "man -w mqstripe.conf" /usr/share/man/man5/mqstripe.conf.5.gz "$(man -w 5 mqstripe.conf 2>/dev/null)"
if MANWIDTH=80 man --warnings stripectl 2>&1 >/dev/null | grep -q .; then
	not_ok "man stripectl (installed) renders without warnings"
else
	ok "man stripectl (installed) renders without warnings"
fi
if [ -f /usr/share/bash-completion/completions/stripectl ]; then
	ok "bash completion /usr/share/bash-completion/completions/stripectl"
else
	not_ok "bash completion /usr/share/bash-completion/completions/stripectl"
fi

# The udev rule and the boot-time unit of persistent arrays, enabled.
for f in tools/udev/*.rules; do
	[ -f "$f" ] || continue
	if [ -f "/lib/udev/rules.d/${f##*/}" ]; then
		ok "udev rule /lib/udev/rules.d/${f##*/}"
	else
		not_ok "udev rule /lib/udev/rules.d/${f##*/}"
	fi
done
for f in tools/systemd/*.service; do
	[ -f "$f" ] || continue
	u=${f##*/}
	if [ -f "/lib/systemd/system/$u" ]; then
		ok "systemd unit /lib/systemd/system/$u"
	else
		not_ok "systemd unit /lib/systemd/system/$u"
	fi
	wanted=$(sed -n 's/^WantedBy=//p' "$f")
	if [ -n "$wanted" ] && [ -L "/etc/systemd/system/$wanted.wants/$u" ]; then
		ok "$u enabled (/etc/systemd/system/$wanted.wants/)"
	else
		not_ok "$u enabled (/etc/systemd/system/$wanted.wants/)"
	fi
done

# The generator that orders the cryptsetup units of dm-crypt members
# before mqstripe-stop.service.
check "systemd generator /lib/systemd/system-generators/mqstripe-generator (executable)" \
	test -x /lib/systemd/system-generators/mqstripe-generator

# The initramfs-tools hook and local-block script, and the trigger that
# rebuilt the newest kernel's initramfs with them (root or /usr on an
# array): stripectl, the rule, the script and the DKMS-built module in it.
for f in /usr/share/initramfs-tools/hooks/mqstripe \
	/usr/share/initramfs-tools/scripts/local-block/mqstripe; do
	check "initramfs-tools: $f (executable)" test -x "$f"
done
newest=$(linux-version list 2>/dev/null | linux-version sort | tail -n 1)
if [ -n "$newest" ] && [ -r "/boot/initrd.img-$newest" ]; then
	lsinitramfs "/boot/initrd.img-$newest" >"$TMP/initrd.list" 2>/dev/null
	for f in usr/sbin/stripectl lib/udev/rules.d/64-mqstripe.rules \
		scripts/local-block/mqstripe; do
		check "the package's trigger rebuilt the initramfs of $newest: $f in it" \
			grep -qE "^(usr/)?$f\$" "$TMP/initrd.list"
	done
	if [ -d "/lib/modules/$newest/build" ]; then
		check "... and the DKMS-built module" grep -q "updates/dkms/mqstripe.ko" "$TMP/initrd.list"
	fi
else
	not_ok "an initramfs of the newest kernel ($newest) to look into"
fi

# One guest boot: the module the package's DKMS hook built loads.
k=${KERNELS[${#KERNELS[@]} - 1]}
guest_dkms "$k guest: modprobe loads the packaged DKMS module; create, mkfs.xfs, mount" \
	"$k" /usr/sbin/stripectl

start=$SECONDS
check "apt-get purge mqstripe-dkms stripectl" \
	env DEBIAN_FRONTEND=noninteractive "${APT[@]}" purge mqstripe-dkms stripectl
echo "# apt-get purge took $((SECONDS - start)) s"
expect "dpkg: both packages gone" "" \
	"$(dpkg-query -W -f='${Status}\n' mqstripe-dkms stripectl 2>/dev/null | grep -v 'not-installed$')"
expect "dkms status after purge" "" "$(dkms status -m mqstripe 2>/dev/null)"
left=$(while read -r f; do
	[ -d "$f" ] && continue # shared directories (and /lib -> usr/lib)
	{ [ -f "$f" ] || [ -L "$f" ]; } && echo "$f"
done <"$TMP/pkgfiles")
expect "no file of the packages left" "" "$left"
check_modules_gone "${KERNELS[@]}"
restore_mok
snapshot "$TMP/after"
compare_snapshots "host files as before dpkg -i" "$TMP/before" "$TMP/after"
finish
