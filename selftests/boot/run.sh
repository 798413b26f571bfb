#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--kernel K] [TEST...]: the boot tests: a Debian 12 root image
# booted with systemd as PID 1 (tools/vm/mkrootimg.sh, cached outside the
# clone; tools/vm/boot-image.sh), the project's stripectl package
# installed in it, NVMe drives that keep their identity from boot to boot
# while their order changes.  Each test_NN_*.sh here is sourced and its
# boot_test function run: it makes drives and boots the image several
# times, one guest step per boot (step), and the guest's "ok"/"not ok"
# lines are the test's checks; the kernel log of every boot is scanned
# (selftests/kmsg.py) and any report fails the test.  The project is
# installed once, in a first boot of its own (install.sh here: dpkg -i of
# the package, whose trigger rebuilds the initramfs, and the module where
# DKMS puts it; KTAP test 1, "install"): every test's root disk is a qcow2
# over that boot's, and its first boot takes that boot's initramfs.
#
# Prints KTAP: "ok N K: test_NN.sh # S s", then "N passed, N failed, N
# skipped".  Env: MQS_IMG_CACHE (the image cache, default
# /var/cache/mqstripe), MQS_BOOT_OUT (logs, default
# selftests/boot/output/K).
set -u

self=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$self/../.." && pwd)
kernel=6.12
if [ "${1:-}" = --kernel ]; then
	kernel=$2
	shift 2
fi
cd "$top" || exit 1
tests=("$@")
if [ ${#tests[@]} = 0 ]; then
	for t in "$self"/test_*.sh; do tests+=("$(basename "$t")"); done
fi
out=${MQS_BOOT_OUT:-$self/output/$kernel}
rm -rf "$out"
mkdir -p "$out"
pass=0 fail=0 skip=0
t_all=$(date +%s)
echo "TAP version 13"

# --- what the guests need: the image, the package, the module ---
prep_fail() {
	echo "1..${#tests[@]}"
	for t in "${tests[@]}"; do echo "not ok - $kernel: $t # $1"; done
	echo "0 passed, ${#tests[@]} failed, 0 skipped"
	exit 1
}
img=$(bash tools/vm/mkrootimg.sh "$kernel" 2>"$out/mkrootimg.log") ||
	prep_fail "no root image: $(tail -3 "$out/mkrootimg.log" | tr '\n' ' ')"
base_initrd=${img%.img}.initrd
kver=$(basename "$(ls /boot/vmlinuz-"$kernel".*-amd64 | head -n1)")
kver=${kver#vmlinuz-}
make -s vm-modules >"$out/build.log" 2>&1 ||
	prep_fail "make vm-modules failed (see $out/build.log)"
ko=$top/build/$kver/mqstripe.ko
deb=$(ls build/deb/stripectl_*.deb 2>/dev/null | head -n1)
if [ -z "$deb" ] || [ -n "$(find tools/stripectl tools/udev tools/systemd \
	tools/debian tools/initramfs -newer "$deb" -type f 2>/dev/null | head -n1)" ]; then
	make -s deb >>"$out/build.log" 2>&1 ||
		prep_fail "make deb failed (see $out/build.log)"
	deb=$(ls build/deb/stripectl_*.deb | head -n1)
fi
[ -r "$ko" ] || prep_fail "no $ko"

# --- the API of the tests (a test may also set skipped=REASON) ---
# drives N SIZE: N fresh NVMe images, D[0..N-1]
drives() {
	local i
	D=()
	for ((i = 0; i < $1; i++)); do
		rm -f "$tdir/nvme$i.img"
		truncate -s "$2" "$tdir/nvme$i.img"
		D+=("$tdir/nvme$i.img")
	done
}
# step: the next boot's guest script, from stdin (bash; guest_lib.sh is
# sourced first: check, check_eq, diag; the package and the module are
# installed: the install boot's root disk is under every test's)
step() {
	{
		echo "set -u"
		echo "KVER=$kver"
		echo ". /mnt/share/guest_lib.sh"
		cat
	} >"$share/step"
}
# boot DRIVES DESC [KERNEL-ARGS]: boot with these drives (comma-separated,
# in this order) and extra kernel arguments, run the step; its checks
# count; returns non-zero when the boot or the step failed outright
boot() {
	local drives=$1 desc=$2 args=${3:-} rc
	nboot=$((nboot + 1))
	rm -f "$share/step.log" "$share/journal.log" "$share/kernel.log"
	bash tools/vm/boot-image.sh --kernel "$kernel" --root "$tdir/root.qcow2" \
		--initrd "$initrd" --nvme "$drives" --share "$share" \
		--append "$args" --console "$tdir/console-$nboot.log" --timeout 900 &&
		rc=0 || rc=$?
	cp "$share/step.log" "$tdir/step-$nboot.log" 2>/dev/null
	cp "$share/journal.log" "$tdir/journal-$nboot.log" 2>/dev/null
	# the image's initramfs as the step left it: the next boot's
	[ -s "$share/initrd" ] && mv "$share/initrd" "$tdir/initrd" && initrd=$tdir/initrd
	while IFS= read -r line; do
		case $line in
		"ok "*) checks_ok=$((checks_ok + 1)); echo "# boot $nboot ($desc): $line" ;;
		"not ok "*) checks_bad=$((checks_bad + 1)); echo "# boot $nboot ($desc): $line" ;;
		"# "*) echo "# boot $nboot ($desc): ${line#\# }" ;;
		esac
	done <"$tdir/step-$nboot.log"
	if [ -s "$share/kernel.log" ]; then
		cp "$share/kernel.log" "$tdir/kernel-$nboot.log"
		if ! python3 selftests/kmsg.py scan-file "$tdir/kernel-$nboot.log" >"$tdir/kbad-$nboot.log"; then
			checks_bad=$((checks_bad + 1))
			echo "# boot $nboot ($desc): not ok - the kernel log has a report:"
			sed 's/^/#   /' "$tdir/kbad-$nboot.log" | head -60
			# what the report is and where: again at the end, which
			# is what a shortened log (CI's) keeps
			grep -m 4 -E 'general protection|BUG:|Oops|WARNING:|RIP:|Comm:' \
				"$tdir/kbad-$nboot.log" | sed 's/^/#   (again) /'
		fi
	fi
	case $rc in
	0) return 0 ;;
	124) why="boot $nboot ($desc): the guest did not power off in time" ;;
	125) why="boot $nboot ($desc): no step status (the boot did not reach the step)" ;;
	*) why="boot $nboot ($desc): the step ended with status $rc" ;;
	esac
	checks_bad=$((checks_bad + 1))
	echo "# $why; console: $tdir/console-$nboot.log"
	echo "# the step's last lines:"
	tail -n 10 "$tdir/step-$nboot.log" 2>/dev/null | sed 's/^/#   /'
	echo "# the console's last lines:"
	tail -n 15 "$tdir/console-$nboot.log" | sed 's/^/#   /'
	return 1
}

echo "1..$((${#tests[@]} + 1))"
n=0
# run_test FILE: source FILE, run its boot_test in $out/NAME and print its
# KTAP line; the root disk is a qcow2 over $base_root ($base_fmt)
run_test() {
	local t=$1 name s
	n=$((n + 1))
	name=${t%.sh}
	tdir=$out/$name
	share=$tdir/share
	mkdir -p "$share"
	cp "$self/guest_lib.sh" "$share/"
	qemu-img create -q -f qcow2 -b "$base_root" -F "$base_fmt" "$tdir/root.qcow2"
	initrd=$base_initrd
	nboot=0 checks_ok=0 checks_bad=0 skipped=
	t0=$(date +%s)
	unset -f boot_test
	# shellcheck source=/dev/null
	. "$self/$t"
	boot_test
	rm -f "$tdir"/nvme*.img
	s=$(($(date +%s) - t0))
	if [ -n "$skipped" ]; then
		echo "ok $n $kernel: $t # SKIP $skipped"
		skip=$((skip + 1))
	elif [ "$checks_bad" = 0 ] && [ "$checks_ok" -gt 0 ]; then
		echo "ok $n $kernel: $t # ${s}s ($checks_ok checks in $nboot boots)"
		pass=$((pass + 1))
		return 0
	else
		echo "not ok $n $kernel: $t # ${s}s ($checks_bad of $((checks_ok + checks_bad)) checks failed in $nboot boots; logs in $tdir)"
		fail=$((fail + 1))
	fi
	return 1
}

# The install, once: the tests' root disks are qcow2 over its root disk.
base_root=$img base_fmt=raw
mkdir -p "$out/install/share"
cp "$deb" "$out/install/share/stripectl.deb"
cp "$ko" "$out/install/share/mqstripe.ko"
if run_test install.sh; then
	base_root=$out/install/root.qcow2 base_fmt=qcow2
	base_initrd=$initrd
	for t in "${tests[@]}"; do
		run_test "$t"
		rm -f "$tdir/root.qcow2"
	done
else
	for t in "${tests[@]}"; do
		n=$((n + 1))
		echo "not ok $n $kernel: $t # the install failed (test 1)"
		fail=$((fail + 1))
	done
fi
rm -f "$out/install/root.qcow2"
echo "# total time $(($(date +%s) - t_all)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
