#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install / uninstall into a DESTDIR: exactly stripectl (0755), the
# gzipped man page and the bash completion (0644) under PREFIX (default
# /usr), the udev rules and systemd units of tools/udev and tools/systemd
# (0644, in /lib/udev/rules.d and /lib/systemd/system), the
# system-shutdown hook (0755, in /lib/systemd/system-shutdown) and the
# initramfs-tools hook and local-block script (0755, in
# /usr/share/initramfs-tools), all naming stripectl by its installed path,
# and uninstall removes exactly those.  No root needed.
set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

files() { (cd "$1" && find . \( -type f -o -type l \) -printf '%P %m\n' | LC_ALL=C sort); }

# The rules and units of persistent arrays, as installed
extras() {
	local f
	for f in tools/udev/*.rules; do [ -f "$f" ] && echo "lib/udev/rules.d/${f##*/} 644"; done
	for f in tools/systemd/*.service; do [ -f "$f" ] && echo "lib/systemd/system/${f##*/} 644"; done
	echo "lib/systemd/system-shutdown/mqstripe.shutdown 755"
	echo "lib/systemd/system-generators/mqstripe-generator 755"
	echo "usr/share/initramfs-tools/hooks/mqstripe 755"
	echo "usr/share/initramfs-tools/scripts/local-block/mqstripe 755"
}

# install_case DESC SBINDIR WANT MAKEARGS...
install_case() {
	local desc=$1 sbindir=$2 want dest=$TMP/dest$n f bad
	want=$({ echo "$3" | xargs -n 2; extras; } | LC_ALL=C sort | xargs)
	shift 3
	mkdir -p "$dest"
	check "$desc: make install" make -s install DESTDIR="$dest" "$@" || return
	expect "$desc: installed files" "$want" "$(files "$dest" | xargs)"
	bad=
	for f in "$dest"/lib/udev/rules.d/* "$dest"/lib/systemd/system/* \
		"$dest"/lib/systemd/system-shutdown/* \
		"$dest"/usr/share/initramfs-tools/hooks/* \
		"$dest"/usr/share/initramfs-tools/scripts/local-block/*; do
		[ -f "$f" ] || continue
		grep -q "$sbindir/stripectl" "$f" || bad="$bad ${f#"$dest"/}"
		if [ "$sbindir" != /usr/sbin ] && grep -q /usr/sbin/stripectl "$f"; then
			bad="$bad ${f#"$dest"/}"
		fi
	done
	if [ -n "$(extras)" ]; then
		expect "$desc: rules and units run $sbindir/stripectl" "" "$bad"
	fi
	if [ -f "$dest/usr/share/man/man8/stripectl.8.gz" ] &&
		zcat "$dest/usr/share/man/man8/stripectl.8.gz" | cmp -s - tools/stripectl/stripectl.8; then
		ok "$desc: stripectl.8.gz is the man page"
	elif [ "$desc" = default ]; then
		not_ok "$desc: stripectl.8.gz is the man page"
	fi
	check "$desc: make uninstall" make -s uninstall DESTDIR="$dest" "$@"
	expect "$desc: nothing left after uninstall" "" "$(files "$dest" | xargs)"
}

install_case default /usr/sbin "usr/sbin/stripectl 755 usr/share/bash-completion/completions/stripectl 644 usr/share/man/man8/stripectl.8.gz 644 usr/share/man/man5/mqstripe.conf.5.gz 644"
install_case "PREFIX=/usr/local" /usr/local/sbin "usr/local/sbin/stripectl 755 usr/local/share/bash-completion/completions/stripectl 644 usr/local/share/man/man8/stripectl.8.gz 644 usr/local/share/man/man5/mqstripe.conf.5.gz 644" PREFIX=/usr/local
finish
