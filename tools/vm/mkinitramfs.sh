#!/bin/bash
# mkinitramfs.sh KERNEL_RELEASE OUT.cpio.gz [MODULES_DIR]
#
# Build the tiny initramfs of the mqstripe QEMU test bed: busybox-static, the
# guest kernel's modules needed to mount the host root (virtio_pci, 9pnet,
# 9pnet_virtio, 9p, overlay, configfs and their dependencies, from
# modules.dep; built-in ones are skipped) and tools/vm/guest-init.sh as /init.
#
# MODULES_DIR defaults to $MQS_MODULES_DIR, else /lib/modules/KERNEL_RELEASE,
# else the debug kernel's modules/ ($MQS_DEBUG_KERNEL, default
# <repo>/../shared/debug-kernel) when its bzImage has that release.
#
# OUT is rebuilt only when an input changed (scripts, busybox, the module
# files); a key of the inputs is kept in OUT.key. Safe to run concurrently.
set -euo pipefail

# shellcheck disable=SC2034 # used by common.sh
MQS_PROG=mkinitramfs
# shellcheck source=SCRIPTDIR/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Modules wanted in the initramfs (dependencies are added from modules.dep).
REQUIRED_MODULES="virtio_pci 9pnet_virtio 9p overlay"
OPTIONAL_MODULES="configfs"

usage() {
	echo "usage: $0 KERNEL_RELEASE OUT.cpio.gz [MODULES_DIR]" >&2
	exit 2
}

if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
rel=$1
out=$2
moddir=${3:-${MQS_MODULES_DIR:-}}
if [ -z "$moddir" ]; then
	moddir=$(mqs_modules_dir_for "$rel") ||
		mqs_die "no modules for kernel $rel (not in /lib/modules, not the debug kernel in $(mqs_debug_kernel_dir))"
fi
[ -r "$moddir/modules.dep" ] || mqs_die "$moddir/modules.dep not found"

busybox=${MQS_BUSYBOX:-}
if [ -z "$busybox" ]; then
	for b in /bin/busybox /usr/bin/busybox /usr/lib/initramfs-tools/bin/busybox; do
		[ -x "$b" ] && { busybox=$b; break; }
	done
fi
if [ -z "$busybox" ] || [ ! -x "$busybox" ]; then
	mqs_die "busybox not found (apt-get install busybox-static)"
fi
if LC_ALL=C ldd "$busybox" 2>/dev/null | grep -q '=>'; then
	mqs_die "$busybox is dynamically linked (apt-get install busybox-static)"
fi
depmod=$(command -v depmod || true)
[ -n "$depmod" ] || for d in /sbin/depmod /usr/sbin/depmod; do [ -x "$d" ] && depmod=$d; done
[ -n "$depmod" ] || mqs_die "depmod not found (apt-get install kmod)"
command -v cpio >/dev/null || mqs_die "cpio not found (apt-get install cpio)"

# --- resolve modules: print "path" lines (relative to moddir), deps first ---
# modules.builtin lists built-in modules (skipped); names compare with - == _.
resolve_modules() {
	awk -v req="$REQUIRED_MODULES" -v opt="$OPTIONAL_MODULES" '
	function modname(p,   n) { n = p; sub(/.*\//, "", n); sub(/\.ko(\.(xz|gz|zst))?$/, "", n); gsub(/-/, "_", n); return n }
	FILENAME ~ /modules\.builtin$/ { builtin[modname($1)] = 1; next }
	{
		p = $1; sub(/:$/, "", p)
		n = modname(p); path[n] = p; deps[n] = ""
		for (i = 2; i <= NF; i++) deps[n] = deps[n] " " $i
	}
	function add(n,   k, d, c) {
		if (n in done) return
		done[n] = 1
		c = split(deps[n], d, " ")
		for (k = c; k >= 1; k--) add(modname(d[k]))
		print path[n]
	}
	END {
		nr = split(req, r, " "); no = split(opt, o, " ")
		for (i = 1; i <= nr + no; i++) {
			n = (i <= nr) ? r[i] : o[i - nr]
			gsub(/-/, "_", n)
			if (n in builtin) continue
			if (!(n in path)) {
				if (i <= nr) { print "MISSING " n; exit 1 }
				continue
			}
			add(n)
		}
	}' "$builtin_file" "$moddir/modules.dep"
}

builtin_file=$moddir/modules.builtin
[ -r "$builtin_file" ] || builtin_file=/dev/null
if ! mods=$(resolve_modules 2>&1); then
	mqs_die "cannot resolve modules for $rel in $moddir: $mods"
fi
if [ "$builtin_file" = /dev/null ]; then
	mqs_warn "warning: $moddir/modules.builtin missing"
fi

# --- input key ---
key=$(
	{
		echo "format 1"
		echo "rel $rel moddir $moddir"
		sha256sum "$MQS_VM_DIR/mkinitramfs.sh" "$MQS_VM_DIR/guest-init.sh" "$MQS_VM_DIR/common.sh"
		stat -L -c 'busybox %n %s %Y' "$busybox"
		stat -L -c 'dep %s %Y' "$moddir/modules.dep"
		for m in $mods; do stat -L -c '%n %s %Y' "$moddir/$m"; done
	} | sha256sum | cut -d' ' -f1
)

out_dir=$(dirname "$out")
mkdir -p "$out_dir"
exec 9>"$out.lock"
flock 9
if [ -s "$out" ] && [ -r "$out.key" ] && [ "$(cat "$out.key")" = "$key" ]; then
	exit 0
fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/mqs-initramfs.XXXXXX")
tmpout=$(mktemp "$out.tmp.XXXXXX")
trap 'rm -rf "$stage" "$tmpout"' EXIT

mkdir -p "$stage"/{bin,sbin,dev,proc,sys,etc,run,tmp,host,rw,job,newroot,"lib/modules/$rel"}
cp "$busybox" "$stage/bin/busybox"
for a in $("$busybox" --list); do
	[ "$a" = busybox ] || ln -sf busybox "$stage/bin/$a"
done
cp "$MQS_VM_DIR/guest-init.sh" "$stage/init"
chmod 0755 "$stage/init"
if [ "$(id -u)" = 0 ]; then
	mknod -m 0600 "$stage/dev/console" c 5 1
	mknod -m 0666 "$stage/dev/null" c 1 3
fi

# Modules, decompressed (busybox modprobe may lack xz/zstd support).
: >"$stage/etc/mqs-modules"
for m in $mods; do
	src=$moddir/$m
	dst=$stage/lib/modules/$rel/${m%.ko*}.ko
	mkdir -p "$(dirname "$dst")"
	case $m in
	*.ko.xz) xz -dc "$src" >"$dst" ;;
	*.ko.gz) gzip -dc "$src" >"$dst" ;;
	*.ko.zst) zstd -q -dc "$src" >"$dst" ;;
	*.ko) cp "$src" "$dst" ;;
	*) mqs_die "unexpected module file $m" ;;
	esac
	n=${dst##*/}
	echo "${n%.ko}" >>"$stage/etc/mqs-modules"
done
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -r "$moddir/$f" ] && cp "$moddir/$f" "$stage/lib/modules/$rel/"
done
"$depmod" -b "$stage" "$rel"

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) |
	gzip -n -6 >"$tmpout"
chmod 0644 "$tmpout"
mv -f "$tmpout" "$out"
printf '%s\n' "$key" >"$out.key"
