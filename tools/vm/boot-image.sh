#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot-image.sh [options]: boot a root image of tools/vm/mkrootimg.sh with
# systemd as PID 1 (a server's boot: its own initramfs, udev, units,
# fstab), run one test step in it and wait until it powers off.
#
#   --kernel K        6.1 | 6.12 | a release: /boot/vmlinuz-K of the host
#                     (the image has the same kernel package)
#   --root FILE       the root disk (qcow2 over the cached image, written)
#   --initrd FILE     the initramfs to boot (the image's, or one a step
#                     copied out after a package rebuilt it)
#   --nvme F,F,...    NVMe drives, attached in this order (raw images)
#   --share DIR       the 9p share "mqsshare": DIR/step is the step (bash),
#                     run by the image's mqs-step.service, which leaves
#                     step.log, step.rc, journal.log and initrd there
#   --append ARGS     extra kernel command line
#   --cpus N --mem MiB --timeout SEC (defaults 2, 2048, 600)
#   --console FILE    the serial console (default DIR/console.log)
#
# Exit status: the step's (step.rc); 124 the guest did not power off in
# time; 125 it powered off without a step status (qemu failed, or the
# boot did not reach the step: see the console); 2 usage error.
set -euo pipefail

# shellcheck disable=SC2034 # used by common.sh
MQS_PROG=boot-image
# shellcheck source=SCRIPTDIR/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

kernel=6.12 root='' initrd='' nvme='' share='' append='' cpus=2 mem=2048
timeout_s=600 console=''
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || mqs_die "$1: needs a value"
	case $1 in
	--kernel) kernel=$2 ;;
	--root) root=$2 ;;
	--initrd) initrd=$2 ;;
	--nvme) nvme=$2 ;;
	--share) share=$2 ;;
	--append) append=$2 ;;
	--cpus) cpus=$2 ;;
	--mem) mem=$2 ;;
	--timeout) timeout_s=$2 ;;
	--console) console=$2 ;;
	*) mqs_die "unknown option $1" ;;
	esac
	shift 2
done
case $kernel in
6.1 | 6.12) kimage=$(ls /boot/vmlinuz-"$kernel".*-amd64 2>/dev/null | head -n1) ;;
*) kimage=/boot/vmlinuz-$kernel ;;
esac
[ -r "$kimage" ] || mqs_die "--kernel $kernel: no /boot/vmlinuz for it"
[ -r "$root" ] || mqs_die "--root: no such file: $root"
[ -r "$initrd" ] || mqs_die "--initrd: no such file: $initrd"
[ -r "$share/step" ] || mqs_die "--share: needs a directory with a step"
console=${console:-$share/console.log}
rm -f "$share/step.rc" "$share/step.log"

qargs=(-drive "file=$root,if=virtio,format=qcow2,cache=unsafe")
i=0
if [ -n "$nvme" ]; then
	IFS=, read -r -a files <<<"$nvme"
	for f in "${files[@]}"; do
		[ -f "$f" ] || mqs_die "--nvme: no such file: $f"
		# the serial follows the image, not its place: a drive moved
		# to another slot keeps its identity, as a real one does
		qargs+=(-drive "file=$f,if=none,id=nvm$i,format=raw,cache=unsafe"
			-device "nvme,serial=mqs$(basename "$f" | sha256sum | cut -c1-12),drive=nvm$i")
		i=$((i + 1))
	done
fi
qargs+=(-virtfs "local,path=$share,mount_tag=mqsshare,security_model=none,id=mqsshare")

# the guest's TSC rate, as run-vm.sh gives it: not calibrated against the
# emulated PIT, which on a loaded host goes wrong
tsc=
khz=$(mqs_host_tsc_khz) && tsc="tsc_early_khz=$khz"

# No drivers for what a storage test does not use: the PC speaker's sound
# stack, KVM (TCG's "max" CPU has SVM) and AMD's cpufreq driver, which
# udev loads (powernow_k8 once per CPU, each load refused) while a test
# step runs: work for the emulated CPU that tests nothing of ours.
noload="modprobe.blacklist=snd_pcsp,pcspkr,kvm_amd,kvm_intel,kvm,powernow_k8"

# Single-threaded TCG: the vCPUs take turns on one host thread.  Under
# multi-threaded TCG one of these guests (a whole Debian userland:
# systemd, dpkg, update-initramfs) died with a double fault in
# kmem_cache_alloc right after SLUB's cmpxchg16b, EFLAGS 0x34f7caf2 (an
# address's bytes, not flags), while update-initramfs ran.  Beside make
# check's other lane a second host thread gained little anyway.
# Another fault came under both: a general protection fault while
# alloc_pages_bulk zeroed a page (init_on_alloc) for the image of a
# module being loaded (100 pages: snd-pcm, for the PC speaker), on a
# valid direct-map address (struct page and address agree), where x86
# raises no #GP; seen twice, each time in a boot that assembled an
# array and mounted its file system while udev was loading drivers.

timeout -k 10 "$timeout_s" "${MQS_QEMU:-qemu-system-x86_64}" -nodefaults \
	-no-user-config -machine q35 -accel tcg,thread=single \
	-cpu "${MQS_CPU:-max,la57=off}" -smp "$cpus" -m "$mem" -display none \
	-chardev "file,id=con0,path=$console" -serial chardev:con0 \
	-no-reboot -kernel "$kimage" -initrd "$initrd" \
	-append "root=LABEL=mqsroot rw console=ttyS0 panic=-1 systemd.show_status=1 $tsc $noload $append" \
	"${qargs[@]}" </dev/null >/dev/null 2>&1 && qrc=0 || qrc=$?
[ "$qrc" = 124 ] && exit 124
[ -s "$share/step.rc" ] || exit 125
exit "$(cat "$share/step.rc")"
