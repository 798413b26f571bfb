# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A member missing at boot: the array of the fstab line (nofail) cannot
# start, the boot still completes (no emergency shell: the step runs),
# the file system is not mounted, the array does not run, and the
# boot-time unit's journal names the missing drive's slot; with the drive
# back, the next boot mounts it.
# Remote members, beside it: two storage hosts (nvmet-tcp on loopback
# ports, set up at boot by a unit of the test's own ordered before the
# network is online and before nvme-cli's nvmf-autoconnect.service), two
# namespaces each, an array "fab" over the four with XFS in fstab by UUID
# with _netdev,nofail.  At the next boot nvmf-autoconnect connects them
# from /etc/nvme/discovery.conf, udev's assemble --incremental starts the
# array when the last namespace appears (the boot-time unit ended before
# the connect), systemd mounts it, the data is intact; that boot powers
# off with "fab" running and mounted, and the shutdown unmounts it and
# stops the array while the network is up (mqstripe-netdev.service): at
# the boot after, its members' superblocks say clean.  At that boot,
# with the second host's unit masked, the boot completes, "fab" is not
# started, its mount unit is not active and assemble names the missing
# slots.
# Catches: a boot that waits for or fails on an incomplete array (local
# or remote), an array started without a member, a refusal that does not
# say what is missing, remote members that never start their array at
# boot (assembly only before the network), fstab options that hang the
# boot when a storage host is away; a shutdown that leaves an array of
# remote members running.

boot_test() {
	drives 4 256M
	step <<'GUEST'
modprobe mqstripe
new_xfs_array data /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1 /dev/nvme3n1
mkdir -p /srv/data
echo "UUID=$U /srv/data xfs defaults,nofail 0 0" >>/etc/fstab
echo "data" >/srv/marker
save_slots data
$STRIPECTL stop data
check "array created and stopped" test -n "$U"

# the storage hosts: host T exports /srv/fab-targets/tT-ns1 and -ns2 on
# nvme-tcp port 4420 + T of 127.0.0.1
mkdir -p /srv/fab-targets
for f in t1-ns1 t1-ns2 t2-ns1 t2-ns2; do truncate -s 128M "/srv/fab-targets/$f"; done
cat >/usr/local/sbin/mqs-fab-target <<'EOF'
#!/bin/sh
set -e
t=$1
modprobe nvmet-tcp
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
c=/sys/kernel/config/nvmet
s=$c/subsystems/nqn.2014-08.org.mqstripe:boot-t$t
mkdir "$s"
echo 1 >"$s/attr_allow_any_host"
for n in 1 2; do
	mkdir "$s/namespaces/$n"
	echo "/srv/fab-targets/t$t-ns$n" >"$s/namespaces/$n/device_path"
	echo 1 >"$s/namespaces/$n/enable"
done
p=$c/ports/$t
mkdir "$p"
echo tcp >"$p/addr_trtype"
echo ipv4 >"$p/addr_adrfam"
echo 127.0.0.1 >"$p/addr_traddr"
echo $((4420 + t)) >"$p/addr_trsvcid"
ln -s "$s" "$p/subsystems/"
EOF
chmod 755 /usr/local/sbin/mqs-fab-target
cat >/etc/systemd/system/mqs-fab-target@.service <<'EOF'
[Unit]
Description=Test storage host %i (nvmet-tcp on 127.0.0.1)
After=local-fs.target sys-kernel-config.mount
Before=network-online.target nvmf-autoconnect.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/mqs-fab-target %i

[Install]
WantedBy=multi-user.target
EOF
systemctl daemon-reload
check "the storage hosts' units start" systemctl enable --now mqs-fab-target@1.service mqs-fab-target@2.service
# the initiator: what nvmf-autoconnect.service connects at boot
printf -- '--transport=tcp --traddr=127.0.0.1 --trsvcid=%s\n' 4421 4422 >>/etc/nvme/discovery.conf
check "nvme-cli enabled nvmf-autoconnect.service" systemctl is-enabled nvmf-autoconnect.service
nvme connect-all >/dev/null
wait_for 60 test "$( (fab_namespaces 1; fab_namespaces 2) | wc -l)" = 4
mapfile -t M < <(fab_namespaces 1; fab_namespaces 2)
check_eq "4 remote namespaces" 4 "${#M[@]}"
diag "remote namespaces: ${M[*]}"
new_xfs_array fab "${M[@]}"
fstab_data /srv/fab _netdev,nofail
$STRIPECTL stop fab
nvme disconnect-all
GUEST
	boot "${D[0]},${D[1]},${D[2]},${D[3]}" "create, fstab" || return
	step <<'GUEST'
check "the boot completed (multi-user.target)" systemctl is-active multi-user.target
check "array 'data' does not run" test -z "$($STRIPECTL list 2>/dev/null | awk '$2 == "data"')"
check "/srv/data not mounted" test -z "$(findmnt -n /srv/data)"
journalctl -b -u mqstripe-assemble.service -o cat --no-pager >/tmp/unit.log
# the slot of the drive left out: the one whose serial no disk has now
cat /sys/class/block/nvme*n1/device/serial >/tmp/serials
S=$(awk 'NR == FNR { here[$1] = 1; next } !($1 in here) { print FNR - 1 }' /tmp/serials /root/slots.data)
check_eq "one slot's drive is absent" 1 "$(wc -w <<<"$S")"
check "the boot-time unit says slot $S is missing" \
	grep -qE "slot $S \(member UUID [0-9a-f-]{36}\) is missing: found 3 of 4" /tmp/unit.log
sed 's/^/#   /' /tmp/unit.log | head -5

# remote members: connected at boot, the array started by udev, mounted
wait_for 120 findmnt -n /srv/fab
check_eq "remote: nvmf-autoconnect.service connected both hosts' namespaces" "2 2" \
	"$(fab_namespaces 1 | wc -l) $(fab_namespaces 2 | wc -l)"
check_eq "remote: nvmf-autoconnect.service succeeded" success \
	"$(systemctl show -p Result --value nvmf-autoconnect.service)"
# no namespace before the connect: the array is udev's (the boot-time
# unit had ended before it)
a=$(systemctl show -p ExecMainExitTimestampMonotonic --value mqstripe-assemble.service)
c=$(systemctl show -p ExecMainStartTimestampMonotonic --value nvmf-autoconnect.service)
check "remote: mqstripe-assemble.service ended ($a us) before nvmf-autoconnect started ($c us)" \
	test "$a" -gt 0 -a "$a" -lt "$c"
check "remote: array 'fab' runs with its 4 members" \
	test "$($STRIPECTL list | awk '$2 == "fab" { print $NF }' | tr , '\n' | wc -l)" = 4
check "srv-fab.mount active" systemctl is-active srv-fab.mount
check_eq "/srv/fab is fab's XFS" "xfs $(readlink -f /dev/stripe/fab)" \
	"$(findmnt -n -o FSTYPE,SOURCE /srv/fab | awk '{print $1, $2}')"
check "remote: the data is intact" sha256sum -c /root/fab.sha256
# the next boot without the second storage host
systemctl mask mqs-fab-target@2.service
GUEST
	# the third drive left out
	boot "${D[0]},${D[1]},${D[3]}" "one drive missing; remote members" || return
	step <<'GUEST'
wait_for 120 findmnt -n /srv/data
check "with every drive back: /srv/data mounted" systemctl is-active srv-data.mount

# remote: the second storage host not set up
check "the boot completed (multi-user.target)" systemctl is-active multi-user.target
# multi-user.target is after nvmf-autoconnect.service (its WantedBy)
udevadm settle
check_eq "remote: the first host's namespaces connected, none of the second's" "2 0" \
	"$(fab_namespaces 1 | wc -l) $(fab_namespaces 2 | wc -l)"
check "remote: array 'fab' not started" test -z "$($STRIPECTL list 2>/dev/null | awk '$2 == "fab"')"
check_eq "remote: the last shutdown stopped 'fab' (the first host's members say clean)" "clean clean" \
	"$(for d in $(fab_namespaces 1); do $STRIPECTL examine --export "$d" | sed -n 's/^MQSTRIPE_STATE=//p'; done | xargs)"
check "srv-fab.mount not active" test "$(systemctl is-active srv-fab.mount)" != active
$STRIPECTL assemble --scan --name fab >/tmp/asm.out 2>&1
check "remote: assemble fails, naming the second host's slots (2 and 1 more) missing" \
	grep -qE "slot 2 \(member UUID [0-9a-f-]{36}\) and 1 more are missing: found 2 of 4" /tmp/asm.out
sed 's/^/#   /' /tmp/asm.out | head -3
check "remote: ... and starts nothing" test -z "$($STRIPECTL list 2>/dev/null | awk '$2 == "fab"')"
GUEST
	boot "${D[3]},${D[2]},${D[1]},${D[0]}" "every drive back; one storage host away"
}
