# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the guest-side runner, run_guest.sh (after lib.sh): what is
# done after each test.  The runner keeps its
# counters npass, nfail, nskip and, per test, the array reasons (why the
# test fails although it exited 0 or 4); these functions update them.

# leftover_mounts_arrays DEV_ERE: unmount what a test left mounted (a
# device matching DEV_ERE, or a mount point under /tmp/mqs-; deepest
# first) and stop every mqstripe array; prints "mount M; array A; ..."
leftover_mounts_arrays() {
	local what="" d m
	while read -r m; do
		[ -n "$m" ] || continue
		what+="mount $m; "
		umount "$m" 2>/dev/null || umount -l "$m"
	done < <(awk -v re="$1" '$1 ~ re || $2 ~ /^\/tmp\/mqs-/ { print $2 }' /proc/mounts | sort -r)
	for d in /sys/block/mqstripe*; do
		[ -e "$d" ] || continue
		what+="array ${d##*/}; "
		timeout 60 "$STRIPECTL" stop "/dev/${d##*/}" >/dev/null 2>&1
	done
	printf '%s' "$what"
}

# klog_reason MARK: scan the kernel log written since MARK (klog_mark);
# on a hit show it and add the reason "kernel log has warnings".
klog_reason() {
	local klog
	if ! klog=$(klog_scan "$1"); then
		diag "kernel log since the test started:"
		diag "$klog"
		reasons+=("kernel log has warnings")
	fi
}

# test_result I NAME RC TOOK LOG WHY: the KTAP line of test I by its exit
# code RC: 0 ok ("# TOOKs"), 4 skipped (the reason of the first "# SKIP"
# line in LOG, the test's output), else not ok ("# TOOKs; WHY").  Counts
# it and removes LOG.
test_result() {
	local i=$1 name=$2 rc=$3 took=$4 log=$5 why=$6 skipwhy
	skipwhy=$(sed -n 's/^ok [0-9]* .* # SKIP //p' "$log" | head -n 1)
	rm -f "$log"
	case $rc in
	0)
		ktap_ok "$i" "$name # ${took}s"
		npass=$((npass + 1))
		;;
	4)
		ktap_skip "$i" "$name" "${skipwhy:-no reason given}"
		nskip=$((nskip + 1))
		;;
	*)
		ktap_not_ok "$i" "$name # ${took}s; $why"
		nfail=$((nfail + 1))
		;;
	esac
}
