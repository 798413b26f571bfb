#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/build-debug-kernel.sh without the 40-minute build: a stand-in
# source tarball whose Makefile and scripts only record the recipe's steps
# and produce placeholder files.  Checks the order of the steps, the layout
# of the result (bzImage, modules/ without links into the work tree,
# build/, config, debug.config, README), that a complete cache is reused,
# that an incomplete or stale one is rebuilt, and that the work tree is
# removed, and that the fragment has every option the fabric test's skip
# reason names.  The real configuration steps are checked against
# ../shared/debug-kernel/config by hand (tools/vm/README.md).  Prints KTAP.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
SCRIPT=$TOP/tools/vm/build-debug-kernel.sh
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=SCRIPTDIR/check_lib.sh
. "$TOP/tools/tests/check_lib.sh"

# the stand-in source: every step appends its name to $STEPS
src=$TMP/src/linux-source-6.12
mkdir -p "$src/scripts/kconfig" "$src/scripts/package"
cat >"$src/Makefile" <<'EOF'
x86_64_defconfig:
	@echo defconfig >>$(STEPS); echo CONFIG_X86_64=y >.config
kvm_guest.config:
	@echo kvm_guest >>$(STEPS); echo CONFIG_KVM_GUEST=y >>.config
olddefconfig:
	@echo olddefconfig >>$(STEPS)
kernelrelease:
	@echo 6.12.117
bzImage:
	@echo bzImage >>$(STEPS); mkdir -p arch/x86/boot; echo kernel >arch/x86/boot/bzImage
modules:
	@echo modules >>$(STEPS)
modules_install:
	@echo "modules_install $(INSTALL_MOD_PATH) $(INSTALL_MOD_STRIP)" >>$(STEPS)
	@d=$(INSTALL_MOD_PATH)/lib/modules/6.12.117; mkdir -p $$d/kernel; \
	echo "kernel/x.ko:" >$$d/modules.dep; ln -s $(CURDIR) $$d/build
EOF
cat >"$src/scripts/kconfig/merge_config.sh" <<'EOF'
#!/bin/sh
echo "merge $*" >>"$STEPS"
[ "$1" = -m ] && cat "$3" >>"$2"
EOF
cat >"$src/scripts/package/install-extmod-build" <<'EOF'
#!/bin/sh
echo "extmod $1 srctree=$srctree SRCARCH=$SRCARCH" >>"$STEPS"
mkdir -p "$1/include/config"
echo "# kbuild" >"$1/Makefile"
echo "sym" >"$1/Module.symvers"
echo 6.12.117 >"$1/include/config/kernel.release"
EOF
chmod +x "$src/scripts/kconfig/merge_config.sh" "$src/scripts/package/install-extmod-build"
tar -cJf "$TMP/src.tar.xz" -C "$TMP/src" linux-source-6.12

export MQS_KSRC_TARBALL=$TMP/src.tar.xz
export STEPS=$TMP/steps
export MQS_NO_DEPS_CHECK=1	# the stand-in needs no compiler or headers
out=$TMP/out
unset MQS_DEBUG_KERNEL MQS_DEBUG_KERNEL_WORK

"$SCRIPT" -j 1 "$out" >"$TMP/log1" 2>&1	# -j 1: the steps in a fixed order
rc=$?
check "first build exits 0" [ $rc = 0 ]
sed 's/^/# /' "$TMP/log1" | tail -n 3
expected="defconfig
kvm_guest
merge -m .config debug.config
olddefconfig
bzImage
modules
modules_install $out.work/stage 1
extmod $out.work/build srctree=. SRCARCH=x86"
check "the recipe's steps, in order" [ "$(cat "$STEPS")" = "$expected" ] || diff <(echo "$expected") "$STEPS" | sed "s/^/# /"
for f in bzImage config debug.config README modules/modules.dep build/Makefile \
	build/.config build/Module.symvers; do
	check "result has $f" [ -s "$out/$f" ]
done
check "config = the merged .config" grep -qx CONFIG_KVM_GUEST=y "$out/config"
check "config has the fragment" grep -qx CONFIG_KASAN=y "$out/config"
check "build/.config = config" cmp -s "$out/config" "$out/build/.config"
check "debug.config = tools/vm/debug.config" cmp -s "$out/debug.config" "$TOP/tools/vm/debug.config"
check "no build link into the work tree in modules/" [ ! -L "$out/modules/build" ]
check "README names the release" grep -q 'uname -r: 6.12.117' "$out/README"
check "work tree removed" [ ! -e "$out.work" ]

: >"$STEPS"
"$SCRIPT" "$out" >"$TMP/log2" 2>&1
check "second run: up to date, exit 0" [ $? = 0 ]
check "second run says so" grep -q 'is up to date (6.12.117)' "$TMP/log2"
check "second run does nothing" [ ! -s "$STEPS" ]

"$SCRIPT" --dry-run "$out" >"$TMP/log3" 2>&1
check "--dry-run on a valid cache: up to date" grep -q 'is up to date' "$TMP/log3"

echo "CONFIG_OTHER=y" >>"$out/debug.config"
: >"$STEPS"
"$SCRIPT" "$out" >"$TMP/log4" 2>&1
check "another fragment in the cache: rebuilt" grep -q bzImage "$STEPS"
check "rebuilt cache has our fragment" cmp -s "$out/debug.config" "$TOP/tools/vm/debug.config"

rm "$out/modules/modules.dep"
: >"$STEPS"
"$SCRIPT" "$out" >"$TMP/log5" 2>&1
check "incomplete cache (no modules.dep): rebuilt" grep -q bzImage "$STEPS"

: >"$STEPS"
"$SCRIPT" --dry-run --force "$out" >"$TMP/log6" 2>&1
check "--dry-run --force prints the steps" grep -q '^+ make .* -j[0-9]* bzImage modules' "$TMP/log6"
check "--dry-run runs nothing" [ ! -s "$STEPS" ]

"$SCRIPT" --config-only "$TMP/cfg" >"$TMP/log7" 2>&1
check "--config-only stops after olddefconfig" [ "$(tail -n 1 "$STEPS")" = olddefconfig ]
check "--config-only leaves the .config" grep -qx CONFIG_KASAN=y "$TMP/cfg/linux-source-6.12/.config"
check "--config-only reports fragment lines olddefconfig dropped" \
	grep -q 'note: fragment line CONFIG_.* is not in the configuration' "$TMP/log7"

# the options fabric_lib.sh names in its skip reason: a kernel built from
# the fragment runs the fabric test instead of skipping it
while read -r o; do
	check "debug.config has $o (the fabric test)" \
		grep -Eqx "$o=[ym]" "$TOP/tools/vm/debug.config"
done < <(grep -o 'CONFIG_[A-Z0-9_]*' "$TOP/selftests/fabric_lib.sh" | sort -u)

MQS_KSRC_TARBALL=$TMP/none.tar.xz "$SCRIPT" --force "$TMP/out2" >"$TMP/log8" 2>&1
check "missing source tarball: exit 1" [ $? = 1 ]
check "missing source tarball: says how to get it" grep -q 'apt-get install linux-source-6.12' "$TMP/log8"

ktap_done
