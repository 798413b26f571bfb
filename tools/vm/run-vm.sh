#!/bin/bash
# run-vm.sh [options] -- COMMAND [ARGS...]
#
# Boot one QEMU guest (Debian 6.1 / 6.12 kernel or the debug kernel) whose
# root is the host root shared read-only over 9p with a tmpfs overlay, attach
# fresh NVMe (and optional virtio-blk) disks, run COMMAND as root in the
# host's current directory, stream the console, and exit with COMMAND's exit
# status. See tools/vm/README.md.
set -euo pipefail

# shellcheck disable=SC2034 # used by common.sh
MQS_PROG=run-vm
# shellcheck source=SCRIPTDIR/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() {
	cat <<'EOF'
usage: run-vm.sh [options] -- COMMAND [ARGS...]

COMMAND runs as root in the guest via bash -c, in the host's current directory.
One argument is a shell script ("uname -r; lsblk"); several are an argv whose
words are kept as given.

  --kernel K          6.1 | 6.12 | debug | <full release>  (default: $KVER or 6.12)
  --cpus N            vCPUs (default 4)
  --mem MiB           guest memory (default 4096)
  --nvme COUNT        fresh NVMe disks (default 4)
  --nvme-size SIZE    their size, sparse raw images (default 1G)
  --nvme-lbs BYTES    logical_block_size of the NVMe namespaces
  --nvme-pbs BYTES    physical_block_size of the NVMe namespaces
  --nvme-opts STR     extra -device nvme properties, e.g. mdts=5,max_ioqpairs=2
  --nvme-ns-opts L    per-disk nvme-ns properties, ';'-separated, entry i for
                      disk i, e.g. 'ms=8,mset=0,pi=1;;' (PI on disk 0 only);
                      a disk with an entry gets its namespace as -device nvme-ns
  --nvme-images F,F.. attach these existing images, in this order (instead of fresh)
  --keep-images DIR   create the fresh images in DIR and keep them
  --virtio-blk C:S[:LBS[:PBS]]  C extra virtio-blk disks of size S (repeatable)
  --share DIR         mount host DIR read-write at the same path (repeatable)
  --env NAME=VALUE    export NAME in the guest (repeatable)
  --append ARGS       extra kernel command line
  --timeout SEC       kill the guest after SEC s, exit 124 (default 900)
  --udev              start systemd-udevd and trigger/settle before COMMAND
  --accel A           tcg | kvm | auto (default: $MQS_ACCEL or tcg)
  --icount            deterministic guest time: single-threaded TCG with
                      -icount shift=0,sleep=off (one guest ns per guest
                      instruction, all vCPUs counted; idle time skipped);
                      TCG only
  --console-log FILE  also save the raw console output to FILE
  -v, --verbose       print the qemu command line
  -h, --help          this text

Exit status: COMMAND's; 124 guest timed out; 125 guest died without an exit
status (panic/crash) or qemu failed; 2 usage error; 130 interrupted.
Environment: KVER, MQS_ACCEL, MQS_VM_CACHE (default <repo>/build/vm), MQS_BOOT_RETRIES, MQS_BOOT_WAIT,
MQS_LOCKDEP_RETRIES, MQS_DEBUG_KERNEL (default <repo>/../shared/debug-kernel, else
<repo>/build/debug-kernel), MQS_QEMU, MQS_CPU.
EOF
	exit "${1:-0}"
}

kernel=${KVER:-6.12}
cpus=4
mem=4096
nvme_count=4
nvme_size=1G
nvme_lbs=''
nvme_pbs=''
nvme_opts=''
nvme_ns_opts=''
nvme_images=''
keep_dir=''
vblk_specs=()
shares=()
envs=()
append=''
timeout_s=900
udev=0
icount=0
accel=${MQS_ACCEL:-tcg}
console_log=''
verbose=0

is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; *) return 0 ;; esac; }

while [ $# -gt 0 ]; do
	opt=$1
	val=''
	has_val=0
	case $opt in
	--*=*) val=${opt#*=}; opt=${opt%%=*}; has_val=1 ;;
	esac
	case $opt in
	--) shift; break ;;
	-h | --help) usage 0 ;;
	-v | --verbose) verbose=1; shift; continue ;;
	--udev) udev=1; shift; continue ;;
	--icount) icount=1; shift; continue ;;
	--kernel | --cpus | --mem | --nvme | --nvme-size | --nvme-lbs | --nvme-pbs | --nvme-opts | \
		--nvme-ns-opts | --nvme-images | --keep-images | --virtio-blk | --share | --env | --append | --timeout | \
		--accel | --console-log) ;;
	*) mqs_warn "unknown option: $opt"; usage 2 ;;
	esac
	if [ "$has_val" = 0 ]; then
		[ $# -ge 2 ] || mqs_die "$opt needs an argument"
		val=$2
		shift 2
	else
		shift
	fi
	case $opt in
	--kernel) kernel=$val ;;
	--cpus) cpus=$val ;;
	--mem) mem=$val ;;
	--nvme) nvme_count=$val ;;
	--nvme-size) nvme_size=$val ;;
	--nvme-lbs) nvme_lbs=$val ;;
	--nvme-pbs) nvme_pbs=$val ;;
	--nvme-opts) nvme_opts=$val ;;
	--nvme-ns-opts) nvme_ns_opts=$val ;;
	--nvme-images) nvme_images=$val ;;
	--keep-images) keep_dir=$val ;;
	--virtio-blk) vblk_specs+=("$val") ;;
	--share) shares+=("$val") ;;
	--env) envs+=("$val") ;;
	--append) append="$append $val" ;;
	--timeout) timeout_s=$val ;;
	--accel) accel=$val ;;
	--console-log) console_log=$val ;;
	esac
done
[ $# -ge 1 ] || { mqs_warn "no COMMAND given"; usage 2; }

if ! is_uint "$cpus" || [ "$cpus" -lt 1 ]; then mqs_die "--cpus: not a positive number: $cpus"; fi
if ! is_uint "$mem" || [ "$mem" -lt 256 ]; then mqs_die "--mem: need at least 256 (MiB): $mem"; fi
is_uint "$nvme_count" || mqs_die "--nvme: not a number: $nvme_count"
if ! is_uint "$timeout_s" || [ "$timeout_s" -lt 1 ]; then mqs_die "--timeout: not a positive number: $timeout_s"; fi
for v in "$nvme_lbs" "$nvme_pbs"; do
	[ -z "$v" ] || is_uint "$v" || mqs_die "--nvme-lbs/--nvme-pbs: not a number: $v"
done
for e in "${envs[@]}"; do
	case $e in
	[A-Za-z_]*=*) n=${e%%=*}; case $n in *[!A-Za-z0-9_]*) mqs_die "--env: bad name: $n" ;; esac ;;
	*) mqs_die "--env: expected NAME=VALUE: $e" ;;
	esac
done

# --- kernel ---
# Sets kimage, krel, and for the debug kernel kmoddir/kbuild (host paths).
kimage=''
krel=''
kmoddir=''
kbuild=''
use_debug() {
	local dbg
	dbg=$(mqs_debug_kernel_dir)
	[ -r "$dbg/bzImage" ] || mqs_die "debug kernel not found: $dbg/bzImage (set MQS_DEBUG_KERNEL)"
	[ -d "$dbg/modules" ] || mqs_die "debug kernel modules not found: $dbg/modules"
	dbg=$(cd "$dbg" && pwd -P)
	kimage=$dbg/bzImage
	krel=$(mqs_image_release "$kimage") || mqs_die "cannot read the release of $kimage"
	kmoddir=$dbg/modules
	[ -d "$dbg/build" ] && kbuild=$dbg/build
	return 0
}
resolve_kernel() {
	local k=$1 dbg drel c
	if [ "$k" = debug ]; then
		use_debug
		return
	fi
	if [ -e "/boot/vmlinuz-$k" ]; then
		kimage=/boot/vmlinuz-$k
		krel=$k
		return
	fi
	dbg=$(mqs_debug_kernel_dir)
	drel=$(mqs_image_release "$dbg/bzImage" 2>/dev/null || true)
	if [ -n "$drel" ] && [ "$drel" = "$k" ]; then
		use_debug
		return
	fi
	# Prefix: 6.1 -> newest /boot/vmlinuz-6.1.*, 6.12 -> /boot/vmlinuz-6.12.*
	c=$(find /boot -maxdepth 1 \( -name "vmlinuz-$k.*" -o -name "vmlinuz-$k-*" -o -name "vmlinuz-$k+*" \) \
		-printf '%f\n' 2>/dev/null | sed 's/^vmlinuz-//' | sort -V | tail -n1)
	[ -n "$c" ] || mqs_die "no kernel matches '$k' (see /boot/vmlinuz-*, or 'debug')"
	kimage=/boot/vmlinuz-$c
	krel=$c
}
resolve_kernel "$kernel"
[ -r "$kimage" ] || mqs_die "cannot read $kimage"
if [ -z "$kmoddir" ] && [ ! -d "/lib/modules/$krel/kernel" ]; then
	mqs_die "/lib/modules/$krel not found on the host (install the kernel's package)"
fi

qemu_bin=${MQS_QEMU:-qemu-system-x86_64}
command -v "$qemu_bin" >/dev/null || mqs_die "$qemu_bin not found (apt-get install qemu-system-x86)"

# --- initramfs (cached per release) ---
cache=$(mqs_cache_dir)
mkdir -p "$cache"
initrd=$cache/initramfs-$krel.cpio.gz
"$MQS_VM_DIR/mkinitramfs.sh" "$krel" "$initrd" ${kmoddir:+"$kmoddir"} ||
	mqs_die "building the initramfs failed"

# --- per-run state; cleaned up on exit ---
tmp=''
qpid=''
fpid=''
wpid=''
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
	set +e
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null
		for _ in $(seq 1 50); do
			kill -0 "$qpid" 2>/dev/null || break
			sleep 0.2
		done
		pkill -KILL -P "$qpid" 2>/dev/null
		kill -KILL "$qpid" 2>/dev/null
	fi
	[ -n "$qpid" ] && wait "$qpid" 2>/dev/null
	[ -n "$fpid" ] && wait "$fpid" 2>/dev/null
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null
	if [ -n "$console_log" ] && [ -n "$tmp" ] && [ -f "$tmp/console.0.log" ]; then
		cat "$tmp"/console.[0-9]*.log >"$console_log" 2>/dev/null || mqs_warn "cannot write $console_log"
	fi
	[ -n "$tmp" ] && rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'mqs_warn interrupted; exit 130' INT
trap 'mqs_warn terminated; exit 143' TERM

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mqs-vm.XXXXXX")
mkdir "$tmp/job"

# Single quotes for the busybox-sh config file.
sq() {
	local s=${1//\'/\'\\\'\'}
	printf "'%s'" "$s"
}
# Escape commas for qemu option values.
qe() { printf '%s' "${1//,/,,}"; }

serial_for() {
	printf 'mqs%s' "$(printf '%s' "$1" | sha256sum | cut -c1-12)"
}

qargs=()

# --- NVMe disks ---
nvme_files=()
if [ -n "$nvme_images" ]; then
	IFS=, read -r -a given <<<"$nvme_images"
	for f in "${given[@]}"; do
		[ -f "$f" ] || mqs_die "--nvme-images: no such file: $f"
		nvme_files+=("$(realpath "$f")")
	done
else
	imgdir=$tmp
	if [ -n "$keep_dir" ]; then
		mkdir -p "$keep_dir"
		imgdir=$(cd "$keep_dir" && pwd -P)
	fi
	for ((i = 0; i < nvme_count; i++)); do
		f=$imgdir/nvme$i.img
		rm -f "$f"
		truncate -s "$nvme_size" "$f" || mqs_die "--nvme-size: cannot create $f of size $nvme_size"
		nvme_files+=("$f")
	done
fi
# qemu refuses logical > physical; default the physical size to the logical.
[ -n "$nvme_lbs" ] && [ -z "$nvme_pbs" ] && nvme_pbs=$nvme_lbs
bprops=''
[ -n "$nvme_lbs" ] && bprops+=",logical_block_size=$nvme_lbs"
[ -n "$nvme_pbs" ] && bprops+=",physical_block_size=$nvme_pbs"
cprops=''
[ -n "$nvme_opts" ] && cprops+=",${nvme_opts#,}"
ns_opts=()
[ -n "$nvme_ns_opts" ] && IFS=';' read -r -a ns_opts <<<"$nvme_ns_opts"
i=0
for f in "${nvme_files[@]}"; do
	qargs+=(-drive "file=$(qe "$f"),if=none,id=nvm$i,format=raw,cache=unsafe")
	ns=${ns_opts[i]:-}
	if [ -n "$ns" ]; then
		# the namespace's own properties (ms, pi, ...) need nvme-ns
		qargs+=(-device "nvme,id=nvmc$i,serial=$(serial_for "$f")$cprops"
			-device "nvme-ns,drive=nvm$i,bus=nvmc$i,nsid=1$bprops,${ns#,}")
	else
		qargs+=(-device "nvme,serial=$(serial_for "$f"),drive=nvm$i$bprops$cprops")
	fi
	i=$((i + 1))
done
nvme_total=${#nvme_files[@]}

# --- virtio-blk disks ---
vblk_total=0
for spec in "${vblk_specs[@]}"; do
	IFS=: read -r vc vs vl vp extra <<<"$spec"
	if [ -n "${extra:-}" ] || ! is_uint "${vc:-}" || [ -z "${vs:-}" ]; then
		mqs_die "--virtio-blk: expected COUNT:SIZE[:LBS[:PBS]]: $spec"
	fi
	vl=${vl:-512}
	vp=${vp:-$vl}
	if ! is_uint "$vl" || ! is_uint "$vp"; then mqs_die "--virtio-blk: bad block sizes: $spec"; fi
	for ((k = 0; k < vc; k++)); do
		f=${keep_dir:+$(cd "$keep_dir" && pwd -P)}
		f=${f:-$tmp}/vblk$vblk_total.img
		rm -f "$f"
		truncate -s "$vs" "$f" || mqs_die "--virtio-blk: cannot create $f of size $vs"
		qargs+=(-drive "file=$(qe "$f"),if=none,id=vbk$vblk_total,format=raw,cache=unsafe"
			-device "virtio-blk-pci,drive=vbk$vblk_total,serial=mqsvblk$vblk_total,logical_block_size=$vl,physical_block_size=$vp")
		vblk_total=$((vblk_total + 1))
	done
done

# --- 9p shares: host root (ro), job dir, --share dirs ---
qargs+=(-fsdev "local,id=fsroot,path=/,security_model=none,readonly=on,multidevs=remap"
	-device "virtio-9p-pci,fsdev=fsroot,mount_tag=mqsroot"
	-fsdev "local,id=fsjob,path=$(qe "$tmp/job"),security_model=none,multidevs=remap"
	-device "virtio-9p-pci,fsdev=fsjob,mount_tag=mqsjob")
share_cfg=''
i=0
for d in "${shares[@]}"; do
	mkdir -p "$d"
	d=$(cd "$d" && pwd -P)
	qargs+=(-fsdev "local,id=fsshare$i,path=$(qe "$d"),security_model=none,multidevs=remap"
		-device "virtio-9p-pci,fsdev=fsshare$i,mount_tag=mqsshare$i")
	share_cfg+="MQS_SHARE_$i=$(sq "$d")"$'\n'
	i=$((i + 1))
done

# --- job description for the guest ---
nonce=$(od -An -tx4 -N8 /dev/urandom | tr -d ' \n')
{
	echo "MQS_NVME=$nvme_total"
	echo "MQS_VBLK=$vblk_total"
	echo "MQS_UDEV=$udev"
	echo "MQS_SHARES=${#shares[@]}"
	printf '%s' "$share_cfg"
	echo "MQS_RELEASE=$(sq "$krel")"
	echo "MQS_MODDIR=$(sq "$kmoddir")"
	echo "MQS_MODBUILD=$(sq "$kbuild")"
	echo "MQS_NONCE=$nonce"
} >"$tmp/job/config"

guest_path=$PATH
for d in /usr/local/sbin /usr/sbin /sbin; do
	case ":$guest_path:" in *":$d:"*) ;; *) guest_path=$guest_path:$d ;; esac
done
if [ $# -eq 1 ]; then
	script=$1
else
	script=$(printf '%q ' "$@")
fi
{
	echo "# generated by run-vm.sh"
	printf 'export PATH=%q\n' "$guest_path"
	echo 'export MQS_GUEST=1'
	# shellcheck disable=SC2016
	echo 'MQS_KVER=$(uname -r); export MQS_KVER'
	for e in "${envs[@]}"; do
		printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
	done
	printf 'cd -- %q || { echo "run-vm: cannot cd to %q in the guest" >&2; exit 1; }\n' "$PWD" "$PWD"
	printf 'exec bash -c %q\n' "$script"
} >"$tmp/job/job.sh"

# --- kernel command line ---
cmdline="console=ttyS0,115200 loglevel=5 panic=-1 watchdog_thresh=60"
cmdline+=" rcupdate.rcu_cpu_stall_timeout=300 mitigations=off random.trust_cpu=on"
cmdline+=" 8250.nr_uarts=1 i8042.noaux i8042.nomux i8042.nopnp tsc=reliable no_timer_check"

# --- accelerator ---
accel_args() {
	case $1 in
	# la57=off: with "max", QEMU 7.2's TCG gives the guest 5-level paging,
	# and guests crashed at random under it: a double fault in
	# kmem_cache_alloc (RSP ff8640a9..., EFLAGS 0x40364a02 with VM and
	# VIP set, impossible in long mode) in a step where no array
	# existed, and one debug-kernel boot in CI that died in test_08.
	# 4-level paging, as most real servers boot.
	# --icount: one thread runs the vCPUs in turn and the guest clock
	# advances one nanosecond per instruction executed by any of them
	# (QEMU adds every vCPU's instructions to one counter); with
	# sleep=off, when every vCPU is idle the clock jumps to the next
	# timer instead of waiting for it.  Guest time is then the guest's
	# own work, whatever else the host runs.
	tcg)
		if [ "$icount" = 1 ]; then
			printf '%s\n' -accel tcg,thread=single -icount shift=0,sleep=off
		else
			printf '%s\n' -accel tcg,thread=multi
		fi
		printf '%s\n' -cpu "${MQS_CPU:-max,la57=off}"
		;;
	kvm) printf '%s\n' -accel kvm -cpu "${MQS_CPU:-host}" ;;
	esac
}
kvm_probe() {
	# One short boot under KVM; the result is cached per host and kernel.
	local f r plog
	f=$cache/kvm-probe-$(hostname 2>/dev/null || echo host)-$krel
	if [ -r "$f" ]; then
		r=$(cat "$f")
	else
		r=fail
		plog=$tmp/probe.log
		if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
			(timeout -k 5 30 "$qemu_bin" -nodefaults -no-user-config -machine q35 -accel kvm -cpu host \
				-m 256 -display none -chardev "file,id=con0,path=$(qe "$plog")" -serial chardev:con0 \
				-no-reboot -kernel "$kimage" -initrd "$initrd" \
				-append "console=ttyS0 panic=-1 loglevel=1 mqs.probe=1" </dev/null; :) >/dev/null 2>&1
			grep -q MQS-PROBE-OK "$plog" 2>/dev/null && r=ok
		fi
		echo "$r" >"$f"
	fi
	[ "$r" = ok ]
}
case $accel in
tcg | kvm) ;;
auto) if [ "$icount" = 1 ] || ! kvm_probe; then accel=tcg; else accel=kvm; fi ;;
*) mqs_die "--accel: expected tcg, kvm or auto: $accel" ;;
esac
if [ "$icount" = 1 ] && [ "$accel" != tcg ]; then mqs_die "--icount needs TCG, not --accel $accel"; fi
mapfile -t aargs < <(accel_args "$accel")

# --- the guest's clock ---
# Left to itself, a guest on a loaded host calibrates the TSC against the
# emulated PIT and gets it wrong ("tsc: PIT calibration deviates from
# HPET: 42858 2593993 ... Using PIT calibration value"): its clock then
# ran 2-20x fast, "sleep 20" took 107 guest seconds and the guest-side test
# timeouts fired early.  Under multi-threaded TCG the guest's TSC is the
# host's (QEMU's cpu_get_ticks()), so the guest is told its rate, measured
# on the host (tools/vm/tsc_khz.c): tsc_early_khz skips the calibration,
# and the later refinement keeps it (it drops a result more than 1 % off;
# arch/x86/kernel/tsc.c).  A clock read is then one instruction; the HPET,
# an emulated device, costs a trip through QEMU's device model and its
# lock on every read: test_05 (fio verify) took 290 s with the HPET and
# 230 s with the TSC, side by side on one host.  The HPET stays where the
# TSC is not the host's (--icount: guest time is counted instructions, and
# the bench's CPU-cost figures are made that way) or is not constant.
if [ "$accel" = tcg ] && [ "$icount" = 0 ] && khz=$(mqs_host_tsc_khz) && [ -n "$khz" ]; then
	cmdline+=" clocksource=tsc tsc_early_khz=$khz"
else
	cmdline+=" clocksource=hpet"
fi
cmdline+=" rdinit=/init$append"

qcmd=("$qemu_bin" -nodefaults -no-user-config -machine q35 "${aargs[@]}"
	-smp "$cpus" -m "$mem" -display none
	-chardev CONSOLE -serial chardev:con0
	-no-reboot -kernel "$kimage" -initrd "$initrd" -append "$cmdline"
	"${qargs[@]}")
for console_idx in "${!qcmd[@]}"; do
	[ "${qcmd[console_idx]}" = CONSOLE ] && break
done
[ "$verbose" = 1 ] && mqs_warn "kernel $krel ($kimage), accel $accel"

awk_opts=()
if awk -W version 2>&1 | grep -qi mawk; then awk_opts=(-W interactive); fi

# One boot; sets qrc (qemu's exit status, 124 on timeout).
boot_once() {
	local log=$1
	: >"$log"
	qcmd[console_idx]="file,id=con0,path=$(qe "$log"),append=on"
	[ "$verbose" = 1 ] && mqs_warn "$(printf '%q ' "${qcmd[@]}")"
	timeout -k 10 "$timeout_s" "${qcmd[@]}" </dev/null &
	qpid=$!
	# Stream the console, without the exit marker, which goes to a file.
	tail -n +1 -s 0.2 -f --pid="$qpid" "$log" |
		awk "${awk_opts[@]}" -v nonce="$nonce" -v sfile="$tmp/marker" '
		{
			sub(/\r+$/, "")
			gsub(/\r/, "")
			i = index($0, "MQS-EXIT-STATUS=")
			if (i > 0) {
				rest = substr($0, i + 16)
				j = index(rest, "@" nonce)
				st = substr(rest, 1, j - 1)
				if (j > 1 && st ~ /^[0-9]+$/) {
					print st > sfile
					close(sfile)
					if (i > 1) print substr($0, 1, i - 1)
					fflush()
					next
				}
			}
			print
			fflush()
		}' &
	fpid=$!
	# A boot that hangs before COMMAND starts (seen under TCG: a guest
	# stuck in early boot) would hold the whole timeout: stop it after
	# boot_wait s without the "started" file, and let the caller boot
	# again.  Likewise a guest that printed COMMAND's exit status but does
	# not power off (a device wedged by a failed test blocks the
	# shutdown): stop it 60 s after the status.
	(
		for ((s = 0; s < boot_wait; s++)); do
			sleep 1
			[ -e "$tmp/job/started" ] && break
			kill -0 "$qpid" 2>/dev/null || exit 0
		done
		if [ ! -e "$tmp/job/started" ]; then
			: >"$tmp/boot-hung"
			kill "$qpid" 2>/dev/null
			exit 0
		fi
		while [ ! -s "$tmp/marker" ]; do
			sleep 1
			kill -0 "$qpid" 2>/dev/null || exit 0
		done
		sleep 60
		kill "$qpid" 2>/dev/null
	) &
	wpid=$!
	qrc=0
	wait "$qpid" || qrc=$?
	qpid=''
	kill "$wpid" 2>/dev/null || true
	wait "$wpid" 2>/dev/null || true
	wpid=''
	wait "$fpid" || true
	fpid=''
}

# A guest that dies before COMMAND starts (no "started" file in the job share)
# is a boot failure, not a test result: boot again, MQS_BOOT_RETRIES times.
# A debug-kernel boot whose lockdep was turned off before COMMAND (an
# early-boot report tainted the kernel; guest-init.sh says so and powers
# off) is booted again up to MQS_LOCKDEP_RETRIES times (default 3); the
# last one runs COMMAND anyway, with a warning on the console.
# Default 3: a TCG boot of Debian's 6.12 panics in early code patching
# ("Oops: int3" in sched_clock_cpu, 2 s in) now and then; two in a row
# lose a bench setup (likely what a CI smoke run lost setup b to).
retries=${MQS_BOOT_RETRIES:-3}
is_uint "$retries" || retries=3
ld_retries=${MQS_LOCKDEP_RETRIES:-3}
is_uint "$ld_retries" || ld_retries=3
# How long a boot may take to start COMMAND (MQS_BOOT_WAIT s): a stock
# kernel starts it about 10 s after qemu does under TCG, the debug kernel
# in about a minute.
if [ -n "$kmoddir" ]; then boot_wait=${MQS_BOOT_WAIT:-600}; else boot_wait=${MQS_BOOT_WAIT:-240}; fi
is_uint "$boot_wait" || boot_wait=240
[ "$boot_wait" -lt "$timeout_s" ] || boot_wait=$timeout_s
start=$(date +%s)
attempt=0
ld_attempt=0
while :; do
	rm -f "$tmp/marker" "$tmp/job/status" "$tmp/job/started" "$tmp/job/lockdep-off" "$tmp/boot-hung"
	if [ "$ld_attempt" -lt "$ld_retries" ]; then
		: >"$tmp/job/lockdep-retry"
	else
		rm -f "$tmp/job/lockdep-retry"
	fi
	boot_once "$tmp/console.$((attempt + ld_attempt)).log"
	if [ -e "$tmp/job/lockdep-off" ] && [ ! -e "$tmp/job/started" ]; then
		ld_attempt=$((ld_attempt + 1))
		mqs_warn "lockdep was turned off during boot (see the console: an early report); booting again ($ld_attempt/$ld_retries)"
		continue
	fi
	if [ -e "$tmp/boot-hung" ] && [ "$attempt" -lt "$retries" ]; then
		attempt=$((attempt + 1))
		mqs_warn "guest did not start COMMAND within $boot_wait s (boot hang, see the console above); booting again ($attempt/$retries)"
		continue
	fi
	if [ "$qrc" = 0 ] && [ ! -s "$tmp/marker" ] && [ ! -e "$tmp/job/status" ] &&
		[ ! -e "$tmp/job/started" ] && [ "$attempt" -lt "$retries" ]; then
		attempt=$((attempt + 1))
		mqs_warn "guest died before COMMAND started (boot failure); booting again ($attempt/$retries)"
		continue
	fi
	break
done
elapsed=$(($(date +%s) - start))

rc=''
if [ -s "$tmp/marker" ]; then
	rc=$(head -n1 "$tmp/marker")
elif [ -s "$tmp/job/status" ]; then
	rc=$(head -n1 "$tmp/job/status")
	mqs_warn "exit marker not seen on the console; using the guest's status file"
fi
if [ "$qrc" = 143 ] && [ -n "$rc" ]; then
	mqs_warn "guest did not power off within 60 s after the command finished: stopped"
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	if [ -n "$rc" ]; then
		mqs_warn "guest did not power off within ${timeout_s} s after the command finished"
	else
		echo "run-vm: guest timed out after $timeout_s s" >&2
		exit 124
	fi
fi
if [ -z "$rc" ] && [ -e "$tmp/boot-hung" ]; then
	echo "run-vm: guest did not start COMMAND within $boot_wait s (boot hang, $((attempt + 1)) boots), see console above" >&2
	exit 125
fi
if [ -z "$rc" ]; then
	if [ "$qrc" != 0 ]; then
		echo "run-vm: qemu exited with status $qrc" >&2
	fi
	echo "run-vm: guest died without an exit status (kernel panic or crash), see console above" >&2
	exit 125
fi
[ "$verbose" = 1 ] && mqs_warn "guest exited with status $rc after $elapsed s"
exit "$rc"
