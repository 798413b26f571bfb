# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The project installed as an admin installs it, once for every boot test
# (run.sh: each test's root disk is a qcow2 over this boot's): the
# stripectl package (tool, udev rule, initramfs hook, the boot unit its
# postinst enables; its trigger rebuilds the initramfs) and the module
# where DKMS puts it (/lib/modules/RELEASE/updates/dkms; built on the
# host from the same tree: the image has no compiler).
# Catches: a package that does not install, does not enable its unit, or
# leaves the tool, the udev rule, the boot script or the module out of the
# rebuilt initramfs (an array holding / could not assemble).

boot_test() {
	step <<'GUEST'
install -D -m 0644 /mnt/share/mqstripe.ko "/lib/modules/$KVER/updates/dkms/mqstripe.ko"
depmod -a "$KVER"
check "dpkg -i stripectl.deb" dpkg -i /mnt/share/stripectl.deb
check "the package enabled mqstripe-assemble.service" systemctl is-enabled mqstripe-assemble.service
check_eq "modprobe finds the module where DKMS puts it" \
	"/lib/modules/$KVER/updates/dkms/mqstripe.ko" "$(modinfo -n mqstripe)"
lsinitramfs "/boot/initrd.img-$KVER" >/tmp/initramfs.list
for f in usr/sbin/stripectl lib/udev/rules.d/64-mqstripe.rules \
	scripts/local-block/mqstripe; do
	check "the rebuilt initramfs has $f" grep -qE "^(usr/)?$f\$" /tmp/initramfs.list
done
check "the rebuilt initramfs has the module" grep -q "updates/dkms/mqstripe.ko" /tmp/initramfs.list
GUEST
	boot "" "dpkg -i stripectl.deb, the module in updates/dkms"
}
