#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Make a writable copy of the debug kernel's module build tree
# (../shared/debug-kernel/build) that can build external modules: the
# shared copy carries no host programs (fixdep, modpost, ...), so they are
# taken from Debian's linux-kbuild-6.12 package, which builds from the same
# 6.12 source.
#
# usage: debug-kdir.sh SHARED_BUILD_DIR OUT_DIR
set -eu

src=$1
out=$2
stamp="$out/.mqs-debug-kdir"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(readlink -f "$src")" ]; then
	exit 0
fi
kbuild=$(ls -d /usr/lib/linux-kbuild-6.12* 2>/dev/null | sort -V | tail -n 1)
if [ -z "$kbuild" ]; then
	echo "debug-kdir: Debian's linux-kbuild-6.12 is not installed (apt-get install linux-headers-6.12-amd64)" >&2
	exit 1
fi
if [ ! -f "$src/Makefile" ]; then
	echo "debug-kdir: $src is not a kernel build tree" >&2
	exit 1
fi

rm -rf "$out"
mkdir -p "$(dirname "$out")"
cp -a "$src" "$out"
chmod -R u+w "$out"
for f in basic/fixdep mod/modpost mod/modpost.real-lsb-64 genksyms/genksyms \
	kallsyms sign-file; do
	if [ -e "$kbuild/scripts/$f" ] && [ ! -x "$out/scripts/$f" ]; then
		mkdir -p "$out/scripts/$(dirname "$f")"
		cp "$kbuild/scripts/$f" "$out/scripts/$f"
	fi
done
# the linker script of modules is generated at kernel build time and is
# not in the shared copy: preprocess it as scripts/Makefile.build does
if [ ! -f "$out/scripts/module.lds" ]; then
	(cd "$out" && gcc -E -P -nostdinc -I arch/x86/include \
		-I arch/x86/include/generated -I include \
		-I arch/x86/include/uapi -I arch/x86/include/generated/uapi \
		-I include/uapi -I include/generated/uapi \
		-include include/linux/kconfig.h -D__KERNEL__ \
		-Ux86 -D__ASSEMBLY__ -DLINKER_SCRIPT \
		-o scripts/module.lds scripts/module.lds.S)
fi
readlink -f "$src" >"$stamp"
