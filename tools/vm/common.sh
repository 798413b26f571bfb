# shellcheck shell=bash
# Helpers shared by tools/vm/mkinitramfs.sh and tools/vm/run-vm.sh (sourced, bash).

# Repository root (tools/vm/../..) and default locations.
MQS_VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MQS_REPO=$(cd "$MQS_VM_DIR/../.." && pwd)

mqs_die() {
	printf '%s: %s\n' "${MQS_PROG:-run-vm}" "$*" >&2
	exit 2
}

mqs_warn() {
	printf '%s: %s\n' "${MQS_PROG:-run-vm}" "$*" >&2
}

# Directory of the debug kernel (bzImage, modules/, build/): $MQS_DEBUG_KERNEL
# when set, else the shared one (<repo>/../shared/debug-kernel) when it has a
# bzImage, else the one tools/vm/build-debug-kernel.sh builds
# (<repo>/build/debug-kernel).
mqs_debug_kernel_dir() {
	if [ -n "${MQS_DEBUG_KERNEL:-}" ]; then
		printf '%s\n' "$MQS_DEBUG_KERNEL"
	elif [ -r "$MQS_REPO/../shared/debug-kernel/bzImage" ]; then
		(cd "$MQS_REPO/../shared/debug-kernel" && pwd)
	else
		printf '%s\n' "$MQS_REPO/build/debug-kernel"
	fi
}

# Cache directory for initramfs images.
mqs_cache_dir() {
	printf '%s\n' "${MQS_VM_CACHE:-$MQS_REPO/build/vm}"
}

# Print the host's TSC rate in kHz (tsc_khz.c, built into the cache on
# first use); fail when the host's TSC rate is not constant.  Under
# multi-threaded TCG the guest's TSC is the host's (QEMU's
# cpu_get_ticks()): the guests are given this rate (tsc_early_khz)
# instead of calibrating it against the emulated PIT (run-vm.sh).
mqs_host_tsc_khz() {
	local bin
	bin=$(mqs_cache_dir)/tsc_khz
	grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo || return 1
	if [ ! -x "$bin" ] || [ "$MQS_VM_DIR/tsc_khz.c" -nt "$bin" ]; then
		mkdir -p "${bin%/*}"
		if ! "${CC:-cc}" -O2 -o "$bin.$$" "$MQS_VM_DIR/tsc_khz.c" 2>/dev/null; then
			rm -f "$bin.$$"
			return 1
		fi
		mv "$bin.$$" "$bin"
	fi
	"$bin"
}

# Print the release string ("uname -r") stored in an x86 bzImage header.
# The 16-bit little-endian field at 0x20e points (relative to 0x200) at the
# version string, which starts with the release followed by a space.
mqs_image_release() {
	local img=$1 off
	[ -r "$img" ] || return 1
	off=$(od -An -tu2 -j $((0x20e)) -N2 "$img" | tr -d ' ')
	[ -n "$off" ] && [ "$off" -gt 0 ] || return 1
	dd if="$img" bs=1 skip=$((off + 0x200)) count=128 2>/dev/null |
		tr '\0' '\n' | head -n1 | cut -d' ' -f1
}

# Modules directory for a kernel release: /lib/modules/REL on the host, or the
# debug kernel's modules/ when its bzImage carries that release.
mqs_modules_dir_for() {
	local rel=$1 dbg
	if [ -d "/lib/modules/$rel/kernel" ]; then
		printf '%s\n' "/lib/modules/$rel"
		return 0
	fi
	dbg=$(mqs_debug_kernel_dir)
	if [ -d "$dbg/modules" ] && [ "$(mqs_image_release "$dbg/bzImage" || true)" = "$rel" ]; then
		(cd "$dbg/modules" && pwd)
		return 0
	fi
	return 1
}
