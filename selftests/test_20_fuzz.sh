#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The control ABI's boundaries with mqs_ioctl (who may call, output bytes,
# 256 and 257 members, structs running into unmapped or read-only pages),
# then fuzzing with mqs_fuzz (both built on the host by
# selftests/Makefile): at least 100,000 random and mutated ioctls on
# /dev/mqstripe-control from one process per CPU for MQS_FUZZ_SECS seconds
# (default 30; more calls if the budget ends first, at most 3 x the
# budget).  Members: the 4 NVMe disks, and 257 partitions of 128 KiB on
# the virtio disks for creates with up to and beyond 256 members.  See
# mqs_ioctl.c and mqs_fuzz.c for the cases; the seed is printed
# (MQS_FUZZ_SEED repeats a run).
# Catches: a crash, hang or leak on malformed input (run_guest.sh scans the
# kernel log and kmemleak), an undocumented errno or a positive return,
# unknown commands not ENOTTY, a caller without CAP_SYS_ADMIN getting
# anything but EPERM, a non-root open of the control device, output bytes
# the kernel did not write (0xAA prefill), a create that fails after
# leaving an array behind (EFAULT on copy-out), an array that cannot be
# removed or a member that stays claimed after the run.  Then a
# 256-member array's mqstripe/members and mqstripe/errors: 256 whole lines
# in slot order (a text attribute stops at a page, mid-line).

. "$(dirname "$0")/lib.sh"
mqs_init

FUZZ=$MQS_DIR/mqs_fuzz
IOCTL=$MQS_DIR/mqs_ioctl
for p in "$FUZZ" "$IOCTL"; do
	[ -x "$p" ] || mqs_die "${p##*/} built (make -C selftests)" "missing: $p"
done
mapfile -t NV < <(nvme_disks)
mapfile -t VD < <(virtio_disks)
[ ${#NV[@]} -ge 2 ] || mqs_skip "needs 2 NVMe namespaces, found ${#NV[@]}"
secs=${MQS_FUZZ_SECS:-30}
calls=${MQS_FUZZ_CALLS:-100000}
seed=${MQS_FUZZ_SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}
check_eq "no array exists before fuzzing" "" "$(mqs_arrays)"

# 257 partitions of 128 KiB on the two virtio disks (GPT, one partition
# scan each: cheap even on the debug kernel): members for 256-member
# creates and the 257-member refusal
WIDE=()
list=$MQS_TMP/wide.list
wipe_parts() {
	local a d
	# arrays a failed run left on the partitions hold them
	for a in $(mqs_arrays); do
		timeout 60 "$STRIPECTL" stop "/dev/$a" >/dev/null 2>&1
	done
	for d in "${VD[@]:0:2}"; do
		wipefs -a -q "$d" 2>/dev/null
		blockdev --rereadpt "$d" 2>/dev/null
	done
}
# mkparts DEV COUNT: COUNT partitions of 256 sectors from sector 2048
mkparts() {
	local i
	{
		echo "label: gpt"
		echo "table-length: 256"
		for ((i = 0; i < $2; i++)); do
			echo "start=$((2048 + i * 256)), size=256"
		done
	} | sfdisk -q --no-reread "$1" >"$MQS_TMP/sfdisk.out" 2>&1 &&
		blockdev --rereadpt "$1"
}
t0=$SECONDS
if [ ${#VD[@]} -ge 2 ] && command -v sfdisk >/dev/null; then
	trap 'wipe_parts; mqs_cleanup' EXIT
	if mkparts "${VD[0]}" 129 && mkparts "${VD[1]}" 128; then
		for _ in $(seq 50); do
			[ -b "${VD[1]}128" ] && break
			sleep 0.1
		done
		for i in $(seq 1 129); do echo "${VD[0]}$i"; done >"$list"
		for i in $(seq 1 128); do echo "${VD[1]}$i"; done >>"$list"
		mapfile -t WIDE < <(while read -r d; do [ -b "$d" ] && echo "$d"; done <"$list")
	else
		diag "sfdisk failed: $(tail -n 3 "$MQS_TMP/sfdisk.out")"
	fi
fi
check_num -eq "257 partitions for the 256-member cases" 257 ${#WIDE[@]}
diag "partitions made in $((SECONDS - t0)) s"
wide=()
[ ${#WIDE[@]} -eq 257 ] && wide=(-w "$list")

mark=$(klog_mark "test_20 fuzz seed $seed")
# first the deterministic checks: access, output bytes, edges
import_checks "ioctl: " "$IOCTL" boundaries -s "$seed" "${wide[@]}" "${NV[@]}"
start=$SECONDS
import_checks "fuzz: " "$FUZZ" -s "$seed" -t "$secs" -n "$calls" \
	${MQS_FUZZ_WORKERS:+-j "$MQS_FUZZ_WORKERS"} "${wide[@]}" "${NV[@]}"
diag "mqs_fuzz took $((SECONDS - start)) s (seed $seed)"
check_klog "no kernel warning during fuzzing" "$mark"
check_eq "no array left after fuzzing" "" "$(mqs_arrays)"
# no fork per member: 261 of them are slow on the debug kernel
holders=()
shopt -s nullglob
for m in "${NV[@]}" "${WIDE[@]}"; do
	h=(/sys/class/block/"${m#/dev/}"/holders/*)
	[ ${#h[@]} -gt 0 ] && holders+=("$m: ${h[*]##*/}")
done
shopt -u nullglob
check_eq "no holder links left on the members" "" "${holders[*]}"

# sysfs of a 256-member array: mqstripe/members and mqstripe/errors hold
# one whole line per slot, more than the page a text attribute may fill
wide_sysfs() {
	local dev sys n bad
	dev=$("$STRIPECTL" create --force --chunk 4K --data-offset 12K \
		"${WIDE[@]:0:256}" 2>"$MQS_TMP/err") ||
		{ fail "256-member create" "$(cat "$MQS_TMP/err")"; return; }
	MQS_ARRAYS+=("$dev")
	sys=$(blk_sys "$dev")/mqstripe
	cat "$sys/members" >"$MQS_TMP/members"
	cat "$sys/errors" >"$MQS_TMP/errors"
	check_num -gt "256-member array: mqstripe/members is longer than a page" \
		4096 "$(wc -c <"$MQS_TMP/members")"
	n=$(wc -l <"$MQS_TMP/members")
	bad=$(awk '!($0 ~ /^[0-9]+ [0-9]+:[0-9]+ [^ ]+ ok$/ && $1 == NR - 1)' \
		"$MQS_TMP/members" | head -n 3)
	check_eq "256-member array: mqstripe/members has 256 whole lines, slots 0..255 in order" \
		"256 lines; bad: " "$n lines; bad: $bad"
	n=$(wc -l <"$MQS_TMP/errors")
	bad=$(awk '!($0 ~ /^[0-9]+ 0 0 0$/ && $1 == NR - 1)' "$MQS_TMP/errors" |
		head -n 3)
	check_eq "256-member array: mqstripe/errors has 256 whole lines, slots 0..255 in order" \
		"256 lines; bad: " "$n lines; bad: $bad"
	check_stop "$dev"
}
if [ ${#WIDE[@]} -eq 257 ]; then
	wide_sysfs
else
	fail "256-member sysfs check" "no 257 partitions"
fi
t0=$SECONDS
wipe_parts
diag "partitions wiped in $((SECONDS - t0)) s"
left=$(for d in "${VD[@]:0:2}"; do ls -d "$(blk_sys "$d")/${d#/dev/}"[0-9]* 2>/dev/null; done)
check_eq "partitions removed" "" "$left"
mqs_finish
