#!/bin/sh
# /init of the mqstripe test-bed initramfs. Runs inside the QEMU guest only,
# under busybox sh, as PID 1. Built into the initramfs by mkinitramfs.sh.
#
# Stage 1 (in the initramfs): load the 9p/virtio/overlay modules, mount the
# host root read-only over 9p (tag mqsroot), put a tmpfs overlay on top, mount
# the per-run job share (tag mqsjob), move /proc /sys /dev into the new root
# and switch_root to stage 2.
# Stage 2 (in the new root, still PID 1): pseudo filesystems, /dev links,
# debug-kernel modules, --share mounts, block drivers, optional udev, then
# run the job script and report its exit status with a console marker
# (MQS-EXIT-STATUS=<n>@<nonce>) and a status file in the job share, then
# power off.

P9OPTS=trans=virtio,version=9p2000.L,msize=512000

say() { echo "mqs-init: $*"; }

# --append mqs.trace: timestamps of the init steps on the console.
TRACE=0
trace() {
	[ "$TRACE" = 1 ] || return 0
	read -r up _ </proc/uptime
	echo "mqs-init: [$up] $*"
}

BB=/bin/busybox

die() {
	say "FATAL: $*"
	# No exit marker: the host reports a guest that died without a status.
	"$BB" sync
	"$BB" poweroff -f
	"$BB" reboot -f
	"$BB" sleep 1000000
}

stage1() {
	PATH=/bin:/sbin
	export PATH
	mount -t proc -o nosuid,nodev,noexec proc /proc
	mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
	mount -t devtmpfs -o mode=0755,nosuid devtmpfs /dev 2>/dev/null
	exec </dev/console >/dev/console 2>&1
	grep -qw mqs.trace /proc/cmdline && TRACE=1
	trace "stage 1"
	# run-vm.sh MQS_ACCEL=auto: a boot that only proves the accelerator works.
	if grep -qw mqs.probe /proc/cmdline; then
		echo "MQS-PROBE-OK"
		"$BB" poweroff -f
		"$BB" reboot -f
	fi

	if [ -s /etc/mqs-modules ]; then
		while read -r m; do
			modprobe "$m" || say "warning: modprobe $m failed"
		done </etc/mqs-modules
	fi

	trace "modules loaded"
	mkdir -p /host /rw /job /newroot
	mount -t 9p -o "ro,$P9OPTS,cache=loose" mqsroot /host ||
		die "cannot mount the host root (9p tag mqsroot)"
	mount -t 9p -o "$P9OPTS,cache=none" mqsjob /job ||
		die "cannot mount the job share (9p tag mqsjob)"
	[ -r /job/config ] || die "no /job/config"

	mount -t tmpfs -o mode=0755 tmpfs /rw || die "cannot mount tmpfs"
	mkdir -p /rw/upper /rw/work
	mount -t overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
		die "cannot mount the overlay root"

	# A fresh /run (the host's would confuse mdadm, udev, ...).
	mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /newroot/run || die "cannot mount /run"
	mkdir -p /newroot/run/mqs/bin /newroot/run/mqs/host /newroot/run/mqs/rw /newroot/run/mqs/job
	cp /bin/busybox /newroot/run/mqs/bin/busybox
	# Busybox applets for stage 2 itself: host binaries load slowly over 9p.
	for a in cat chmod env grep hostname ip ln mkdir mount sleep sync; do
		ln -s busybox "/newroot/run/mqs/bin/$a"
	done
	cp /init /newroot/run/mqs/init
	trace "switch_root"
	mount --move /job /newroot/run/mqs/job
	mount --move /host /newroot/run/mqs/host
	mount --move /rw /newroot/run/mqs/rw
	mount --move /dev /newroot/dev
	mount --move /sys /newroot/sys
	mount --move /proc /newroot/proc
	# shellcheck disable=SC2093 # die only if switch_root fails
	exec switch_root /newroot /run/mqs/bin/busybox sh /run/mqs/init stage2
	die "switch_root failed"
}

# Mount TYPE on DIR if the kernel knows TYPE (quietly skip otherwise).
try_mount() {
	fstype=$1 dir=$2 opts=$3
	grep -qw "$fstype" /proc/filesystems || return 0
	[ -d "$dir" ] || return 0
	grep -q "^[^ ]* $dir " /proc/mounts && return 0
	mount -t "$fstype" -o "$opts" "$fstype" "$dir" || say "warning: cannot mount $fstype on $dir"
}

# The host's modprobe (kmod): the host's modules may be compressed.
kmodprobe() {
	for mp in /sbin/modprobe /usr/sbin/modprobe /bin/modprobe /usr/bin/modprobe; do
		[ -x "$mp" ] && { "$mp" "$@"; return; }
	done
	"$BB" modprobe "$@"
}

count_disks() {
	# $1: glob prefix (nvme or vd). NVMe: whole namespaces (nvmeXnY), no
	# hidden multipath paths (nvmeXcYnZ), no partitions.
	n=0
	for d in /sys/block/"$1"*; do
		[ -e "$d" ] || continue
		b=${d##*/}
		case $1:$b in
		nvme:nvme*c*) continue ;;
		esac
		n=$((n + 1))
	done
	echo "$n"
}

stage2() {
	# Busybox applets first (see stage 1), then the host's tools.
	PATH=/run/mqs/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export PATH
	BB=/run/mqs/bin/busybox
	grep -qw mqs.trace /proc/cmdline && TRACE=1
	trace "stage 2"
	MQS_NVME=0 MQS_VBLK=0 MQS_UDEV=0 MQS_SHARES=0 MQS_MODDIR='' MQS_NONCE=x
	MQS_RELEASE=''
	# shellcheck disable=SC1091
	. /run/mqs/job/config

	# Pseudo filesystems and /dev links.
	mkdir -p /dev/pts /dev/shm /dev/mqueue
	try_mount devpts /dev/pts gid=5,mode=0620,ptmxmode=0666,nosuid,noexec
	[ -e /dev/ptmx ] || ln -s pts/ptmx /dev/ptmx
	try_mount tmpfs /dev/shm mode=1777,nosuid,nodev
	try_mount mqueue /dev/mqueue nosuid,nodev,noexec
	ln -sfn /proc/self/fd /dev/fd
	ln -sfn /proc/self/fd/0 /dev/stdin
	ln -sfn /proc/self/fd/1 /dev/stdout
	ln -sfn /proc/self/fd/2 /dev/stderr
	ln -sfn /proc/kcore /dev/core 2>/dev/null
	# configfs is a module on Debian kernels (loaded in stage 1 when present).
	grep -qw configfs /proc/filesystems || kmodprobe -q configfs 2>/dev/null
	try_mount debugfs /sys/kernel/debug nosuid,nodev,noexec
	try_mount tracefs /sys/kernel/tracing nosuid,nodev,noexec
	try_mount configfs /sys/kernel/config nosuid,nodev,noexec
	try_mount securityfs /sys/kernel/security nosuid,nodev,noexec
	try_mount cgroup2 /sys/fs/cgroup nosuid,nodev,noexec
	try_mount bpf /sys/fs/bpf mode=0700

	# Writable /tmp (overlay upper) and the usual /run layout.
	chmod 1777 /tmp 2>/dev/null || { mkdir -p /tmp && chmod 1777 /tmp; }
	mkdir -p /run/lock /run/user /run/shm
	chmod 1777 /run/lock
	: >/run/utmp
	"$BB" hostname mqs-vm
	"$BB" ip link set lo up 2>/dev/null
	trace "pseudo filesystems mounted"

	# Debug kernel: its modules are not on the host under /lib/modules;
	# overlay them there (writable, so depmod/modules_install work).
	if [ -n "$MQS_MODDIR" ] && [ -n "$MQS_RELEASE" ]; then
		md=/lib/modules/$MQS_RELEASE
		mkdir -p "$md" /run/mqs/rw/mods/upper /run/mqs/rw/mods/work
		mount -t overlay -o "lowerdir=/run/mqs/host$MQS_MODDIR,upperdir=/run/mqs/rw/mods/upper,workdir=/run/mqs/rw/mods/work" \
			mqsmods "$md" || say "warning: cannot overlay $MQS_MODDIR on $md"
		if [ -n "${MQS_MODBUILD:-}" ] && [ ! -e "$md/build" ]; then
			ln -s "$MQS_MODBUILD" "$md/build"
		fi
	fi

	# --share DIR: read-write 9p mounts at the same path.
	i=0
	sp=''
	while [ "$i" -lt "$MQS_SHARES" ]; do
		eval "sp=\$MQS_SHARE_$i"
		mkdir -p "$sp"
		mount -t 9p -o "$P9OPTS,cache=mmap" "mqsshare$i" "$sp" ||
			say "warning: cannot mount share $sp"
		i=$((i + 1))
	done

	trace "mounts done"
	# Block drivers (no udev coldplug by default) and wait for the disks.
	[ "$MQS_NVME" -gt 0 ] && { kmodprobe nvme || say "warning: modprobe nvme failed"; }
	[ "$MQS_VBLK" -gt 0 ] && { kmodprobe virtio_blk || say "warning: modprobe virtio_blk failed"; }
	t=0
	while [ "$(count_disks nvme)" -lt "$MQS_NVME" ] || [ "$(count_disks vd)" -lt "$MQS_VBLK" ]; do
		if [ "$t" -ge 600 ]; then
			say "warning: expected $MQS_NVME nvme and $MQS_VBLK virtio-blk disks, have $(count_disks nvme) and $(count_disks vd)"
			break
		fi
		sleep 0.1
		t=$((t + 1))
	done

	trace "disks present"
	if [ "$MQS_UDEV" = 1 ]; then
		udevd=''
		for f in /lib/systemd/systemd-udevd /usr/lib/systemd/systemd-udevd /sbin/udevd; do
			[ -x "$f" ] && { udevd=$f; break; }
		done
		if [ -n "$udevd" ]; then
			mkdir -p /run/udev
			"$udevd" --daemon
			udevadm trigger --type=subsystems --action=add
			udevadm trigger --type=devices --action=add
			udevadm settle --timeout=120 || say "warning: udevadm settle timed out"
		else
			say "warning: --udev: systemd-udevd not found"
		fi
	fi

	# The debug kernel: a report during boot (under TCG, about one boot in
	# three prints a KASAN report from identify_cpu, before userspace; see
	# the debug kernel's README) taints the kernel and turns lockdep off for
	# the rest of the boot.  The host asks for another boot then
	# (lockdep-retry in the job share) rather than test without lockdep.
	if [ -r /proc/lockdep_stats ] && grep -Eq '^ *debug_locks: *0$' /proc/lockdep_stats; then
		if [ -e /run/mqs/job/lockdep-retry ]; then
			say "lockdep was turned off during boot (taint $(cat /proc/sys/kernel/tainted)): booting again"
			: >/run/mqs/job/lockdep-off
			"$BB" sync
			"$BB" poweroff -f
			"$BB" reboot -f
			"$BB" sleep 1000000
		fi
		say "warning: lockdep was turned off during boot (taint $(cat /proc/sys/kernel/tainted)): this boot runs without lock checking"
	fi

	trace "running the job"
	: >/run/mqs/job/started
	# Run the job with a clean environment; job.sh sets PATH and the rest.
	env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb \
		LANG=C.UTF-8 PAGER=cat SYSTEMD_PAGER=cat \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash /run/mqs/job/job.sh </dev/null
	rc=$?

	trace "job exited with $rc"
	echo "$rc" >/run/mqs/job/status
	# Flush dirty data (kept images, shares), but do not hang on a wedged device.
	sync &
	spid=$!
	t=0
	while kill -0 "$spid" 2>/dev/null && [ "$t" -lt 600 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	kill -0 "$spid" 2>/dev/null && say "warning: sync did not finish in 60 s"
	trace "synced"
	echo "MQS-EXIT-STATUS=$rc@$MQS_NONCE"
	"$BB" poweroff -f
	"$BB" reboot -f
	"$BB" sleep 1000000
}

case ${1:-} in
stage2) stage2 ;;
*) stage1 ;;
esac
