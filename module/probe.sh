#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Feature probes: compile each module/probes/<name>.c against the target
# kernel's build tree and write "#define HAVE_<NAME> 1" for those that
# build.  One kbuild run with -k compiles every probe independently.
#
# usage: probe.sh KDIR OUT_HEADER
set -eu

kdir=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
stamp="/* mqstripe feature probes for $(readlink -f "$kdir") $(cat "$here"/probes/*.c | cksum | cut -d' ' -f1) */"

if [ -f "$out" ] && [ "$(head -n 1 "$out")" = "$stamp" ]; then
	exit 0
fi
if [ ! -f "$kdir/Makefile" ]; then
	echo "probe.sh: $kdir is not a kernel build tree (install linux-headers-<release> or set KDIR)" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objs=
for p in "$here"/probes/*.c; do
	cp "$p" "$tmp/"
	objs="$objs $(basename "$p" .c).o"
done
# shellcheck disable=SC2086 # objs is a word list
printf 'obj-m :=%s\nccflags-y := -Werror\n' "$objs" >"$tmp/Kbuild"
# shellcheck disable=SC2086
make -k -C "$kdir" M="$tmp" $objs >"$tmp/probe.log" 2>&1 || true

{
	echo "$stamp"
	echo "#ifndef MQSTRIPE_PROBED_H"
	echo "#define MQSTRIPE_PROBED_H"
	for p in "$here"/probes/*.c; do
		n=$(basename "$p" .c)
		def=$(echo "$n" | tr '[:lower:]' '[:upper:]')
		if [ -f "$tmp/$n.o" ]; then
			echo "#define $def 1"
		else
			echo "/* #undef $def */"
		fi
	done
	echo "#endif"
} >"$out.tmp"
mv "$out.tmp" "$out"
