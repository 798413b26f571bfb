#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkrootimg.sh KERNEL: print the path of a small Debian 12 root image that
# boots with systemd as PID 1 (tools/vm/boot-image.sh), building it first
# when the cache does not have it.
#
# The image: debootstrap (minbase) from the Debian archive the host's apt
# uses, with systemd, udev, initramfs-tools, xfsprogs, dmsetup,
# cryptsetup-bin (systemd-cryptsetup, in the systemd package, opens
# /etc/crypttab's lines with it), nvme-cli (its nvmf-autoconnect.service
# connects /etc/nvme/discovery.conf's targets at boot) and PostgreSQL 15
# (server and client: pg_amcheck; no cluster: a test makes its own where
# it wants it), and
# Debian's kernel package of release KERNEL (6.1, 6.12 or a
# full release; the host has it installed: the same .deb, from the host's
# apt), so that the image's initramfs is made by its own initramfs-tools
# as on a server.  One unit, mqs-step.service, runs a test step at every
# boot: it mounts the 9p share "mqsshare" (boot-image.sh --share) at
# /mnt/share, runs /mnt/share/step with bash, writes its output to
# step.log and its exit status to step.rc there, copies the image's
# current initramfs (a package may have rebuilt it), the journal and the
# kernel log to the share, and powers the guest off.  The root file system is ext4 labelled mqsroot.
#
# Output, beside each other in $MQS_IMG_CACHE (default
# /var/cache/mqstripe: outside the clone, so that a fresh clone on the
# same machine reuses it): rootimg-KEY.img (raw, sparse) and
# rootimg-KEY.initrd, KEY a hash of this script, the package list, the
# kernel package's version and the archive.  Built under a lock; a new
# machine builds it once (a few minutes: about 120 MB from the archive).
set -euo pipefail

# shellcheck disable=SC2034 # used by common.sh
MQS_PROG=mkrootimg
# shellcheck source=SCRIPTDIR/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# = 1 ] || mqs_die "usage: mkrootimg.sh KERNEL (6.1, 6.12 or a release)"
case $1 in
6.1) kver=$(mqs_image_release /boot/vmlinuz-6.1.*-amd64 2>/dev/null || true) ;;
6.12) kver=$(mqs_image_release /boot/vmlinuz-6.12.*-amd64 2>/dev/null || true) ;;
*) kver=$1 ;;
esac
if [ -z "$kver" ] || [ ! -r "/boot/vmlinuz-$kver" ]; then
	mqs_die "no Debian kernel $1 in /boot (tools/deps.sh installs them)"
fi
kpkg=linux-image-$kver
kversion=$(dpkg-query -W -f='${Version}' "$kpkg" 2>/dev/null) ||
	mqs_die "$kpkg is not installed on the host (tools/deps.sh)"

# The archive: the first bookworm source of the host's apt, else Debian's.
mirror=${MQS_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
	# shellcheck disable=SC2016	# apt's own $(...) fields
	mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
		awk '$2 == "bookworm" { print $1; exit }')
	mirror=${mirror:-http://deb.debian.org/debian/}
fi
# debootstrap takes Depends only, as apt-get --no-install-recommends
# would; of postgresql-15's "locales | locales-all" the small one
pkgs="systemd-sysv udev kmod linux-base initramfs-tools zstd xfsprogs
e2fsprogs util-linux procps dmsetup cryptsetup-bin libjson-c5 libblkid1
nvme-cli postgresql-15 postgresql-client-15 locales"
cache=${MQS_IMG_CACHE:-/var/cache/mqstripe}
key=$( { cat "$0"; echo "$pkgs" "$kpkg=$kversion" "$mirror"; } | sha256sum | cut -c1-16)
img=$cache/rootimg-$key.img
if [ -s "$img" ] && [ -s "${img%.img}.initrd" ]; then
	echo "$img"
	exit 0
fi

command -v debootstrap >/dev/null || mqs_die "debootstrap is missing (tools/deps.sh)"
mkdir -p "$cache"
exec 9>"$cache/.rootimg.lock"
flock 9
if [ -s "$img" ] && [ -s "${img%.img}.initrd" ]; then
	echo "$img"
	exit 0
fi
tmp=$(mktemp -d "$cache/build.XXXXXX")
chmod 755 "$tmp"	# apt-get download runs as _apt
root=$tmp/root
cleanup() {
	local m
	for m in dev/pts dev proc sys; do
		mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
mqs_warn "building the root image ($kpkg, from $mirror) in $tmp: a few minutes, once"

read -r -a plist <<<"$(echo "$pkgs" | tr '\n' ' ')"
debootstrap --variant=minbase --include="$(IFS=,; echo "${plist[*]}")" \
	bookworm "$root" "$mirror" >"$tmp/debootstrap.log" 2>&1 ||
	{ tail -20 "$tmp/debootstrap.log" >&2; mqs_die "debootstrap failed (log above)"; }
(cd "$tmp" && apt-get download -q "$kpkg=$kversion" >/dev/null) ||
	mqs_die "apt-get download $kpkg=$kversion failed"
mv "$tmp"/linux-image-*.deb "$root/tmp/"
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
chroot "$root" sh -c 'dpkg -i /tmp/linux-image-*.deb' >"$tmp/kernel.log" 2>&1 ||
	{ tail -20 "$tmp/kernel.log" >&2; mqs_die "installing $kpkg in the image failed"; }
rm -f "$root"/tmp/*.deb
# No PostgreSQL cluster in the image (the package made "15 main" at its
# installation): a boot of any test would start it.
# shellcheck disable=SC2016	# the chroot's shell expands them
chroot "$root" sh -c 'pg_lsclusters -h | while read -r v c _; do
	pg_dropcluster --stop "$v" "$c"; done' >"$tmp/pg.log" 2>&1 ||
	{ cat "$tmp/pg.log" >&2; mqs_die "dropping the image's PostgreSQL cluster failed"; }
[ -z "$(ls -A "$root/var/lib/postgresql/15" 2>/dev/null)" ] ||
	mqs_die "the image's PostgreSQL cluster is still there"
# The guest rebuilds its initramfs (a package's trigger) under TCG:
# MODULES=dep takes seconds where Debian's default, most, takes minutes.
# dep looks at this boot's root (virtio); a root moved onto NVMe members
# needs the NVMe driver too, as an admin lists it for such a move.
echo MODULES=dep >"$root/etc/initramfs-tools/conf.d/mqs-boot-test"
echo nvme >>"$root/etc/initramfs-tools/modules"

echo mqs-guest >"$root/etc/hostname"
echo 'LABEL=mqsroot / ext4 defaults 0 1' >"$root/etc/fstab"
mkdir -p "$root/mnt/share"
cat >"$root/usr/local/sbin/mqs-step" <<'EOF'
#!/bin/bash
# One test step per boot (tools/vm/mkrootimg.sh): /mnt/share/step.
# udev may still be loading 9pnet_virtio for the share's device when this
# mount loads it too; the mount then finds the module but not yet its
# channel ("9pnet_virtio: no channels available for device mqsshare",
# seen on a loaded host): wait for udev, then try for up to 30 s.
udevadm settle --timeout=30 >/dev/null 2>&1
for _ in $(seq 30); do
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 mqsshare /mnt/share &&
		break
	sleep 1
done
mountpoint -q /mnt/share || {
	echo "mqs-step: cannot mount the share" >/dev/console
	systemctl poweroff
	exit 1
}
cd /mnt/share || exit 1
bash ./step >step.log 2>&1
echo $? >step.rc.tmp
cp /boot/initrd.img-"$(uname -r)" initrd.tmp 2>/dev/null && mv initrd.tmp initrd
journalctl -b -o short-monotonic --no-pager >journal.log 2>&1
journalctl -k -b -o cat --no-pager >kernel.log 2>&1
mv step.rc.tmp step.rc
sync
systemctl poweroff
EOF
chmod 755 "$root/usr/local/sbin/mqs-step"
cat >"$root/etc/systemd/system/mqs-step.service" <<'EOF'
[Unit]
Description=mqstripe boot test step (/mnt/share/step)
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/mqs-step
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
EOF
chroot "$root" systemctl enable mqs-step.service >/dev/null 2>&1
# nothing in the background but what a test starts
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
	fstrim.timer systemd-tmpfiles-clean.timer; do
	chroot "$root" systemctl mask "$u" >/dev/null 2>&1 || true
done
chroot "$root" passwd -d root >/dev/null
cp "$root/boot/initrd.img-$kver" "$tmp/initrd"
cleanup_mounts() {
	local m
	for m in dev/pts dev proc sys; do umount -l "$root/$m"; done
}
cleanup_mounts
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
truncate -s 2G "$tmp/img"
mkfs.ext4 -q -F -L mqsroot -d "$root" "$tmp/img" ||
	mqs_die "mkfs.ext4 -d of the root image failed"
mv "$tmp/initrd" "${img%.img}.initrd"
mv "$tmp/img" "$img"
echo "$img"
