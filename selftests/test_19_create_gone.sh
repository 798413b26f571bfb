#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A member removed while its array is being created.  Eight configfs
# null_blk devices are the members.  Each round starts "stripectl create
# --queue-depth 4096" (4096 requests to allocate: a wide window
# between the module's claim of member 0 and the array's disk being
# added) and, beside it, powers member 0 off (configfs "power" 0) a delay
# after stripectl wrote the last member's superblock (seen in its
# /sys/block/.../stat; CREATE follows), waits for the create and powers
# the member on again.  The delay follows the outcomes, with jitter: a
# create that failed before the module held member 0 moves it later, one
# that made the array first moves it earlier.  A round hits the window
# when the module's "array <uuid>: member 0 (...) is gone" line for its
# UUID came and the create failed: the removal came before the module
# linked member 0 to the array's disk (bd_link_disk_holder() refuses a
# dead disk), i.e. before or while the disk was added.  A removal after
# that link makes an array with member 0 gone ("is gone" before
# "created").  Rounds go on until MQS_GONE_HITS (default 2) hits or the
# cap (MQS_GONE_SECS, default 40 s, times MQS_TIMEOUT_SCALE;
# MQS_GONE_ROUNDS, default 100).  Every create must either fail with a
# message naming member 0, or make an array whose status shows member 0
# gone and the others ok; each array stops, no array, claim or null_blk
# device is left behind, and no kernel report (oops, KASAN, warning) is
# logged.  MQS_GONE_VERBOSE=1 prints one line per round.
# The "is gone" line comes from the holder's ->mark_dead, which exists on
# 6.8+ (MQS_HAVE_HOLDER_OPS); before, a removal is seen (and the line
# logged) only when IO or a look at the disk notices it, whenever that
# is, and the window cannot be observed: the outcomes
# are checked for half the time cap, the hit count is skipped with the
# reason.  Where it can be observed, no hit within the cap is a failure,
# not a pass.
# Catches: a member event (mark_dead, a failed member bio) whose work
# sends a uevent for a disk not yet allocated or added (NULL or ERR_PTR
# dereference), a create that hangs, fails without naming the member, or
# leaves a claim or a disk behind when a member goes away under it.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
mqs_init
trap fault_cleanup EXIT

nbwhy=$(nullb_ready) || mqs_skip "$nbwhy"

NM=8
DEPTH=4096
SCALE=${MQS_TIMEOUT_SCALE:-1}
WANT=${MQS_GONE_HITS:-2}
CAP_S=$((${MQS_GONE_SECS:-40} * SCALE))
CAP_R=${MQS_GONE_ROUNDS:-100}
# a create that has not ended by then hangs
ROUND_S=$((30 * SCALE))
# mark_dead (the "is gone" line) exists from 6.8 on
# (without it the rounds only check the outcomes: half the time)
OBSERVABLE=1
if [ "$(kver_num)" -lt 608 ]; then
	OBSERVABLE=0
	CAP_S=$((CAP_S / 2))
fi

M=()
for ((i = 0; i < NM; i++)); do
	nullb_create "mqs19_$i" size=16 blocksize=512 memory_backed=1 ||
		mqs_die "null_blk device $i"
	M+=("$NULLB_DEV")
done
CFG0=${NULLB_DIRS[0]}
NAME0=${CFG0##*/}
# stripectl writes the superblocks in slot order, then calls CREATE
STAT_LAST=$(blk_sys "${M[NM - 1]}")/stat

# sleep_s SECONDS: a fractional sleep without a fork (forks are slow
# under TCG): read with a timeout from a FIFO nobody writes to
mkfifo "$MQS_TMP/fifo" || mqs_die "mkfifo"
exec 7<>"$MQS_TMP/fifo"
sleep_s() { read -r -t "$1" -u 7 _; }

# member 0 on again; its node (6.1: /dev/nullbINDEX, a new index)
power_on0() {
	local i idx
	echo 1 >"$CFG0/power" || return 1
	for ((i = 0; i < 100; i++)); do
		read -r idx <"$CFG0/index"
		for NULLB_DEV in "/dev/$NAME0" "/dev/nullb$idx"; do
			if [ -b "$NULLB_DEV" ] &&
			   [ -e "/sys/class/block/${NULLB_DEV#/dev/}" ]; then
				M[0]=$NULLB_DEV
				return 0
			fi
		done
		sleep_s 0.05
	done
	return 1
}

# ms T0 T1: milliseconds between two EPOCHREALTIME values
ms() {
	local a=${1/[.,]/} b=${2/[.,]/}
	echo $(((10#$b - 10#$a) / 1000))
}

# the kernel log, as one file (a reader per round would cost forks)
cat /dev/kmsg >"$MQS_TMP/kmsg" &
MQS_BG+=("$!")
kmark=$(klog_mark "$MQS_TEST start")

# round_log R UUID: the positions, in round R's part of the kernel log,
# of the line "array UUID: member 0 (...) is gone" and of the array's
# "created" line (0: none); returns 1 when round R's end mark is not in
# the capture yet
round_log() {
	awk -v b="mqstripe-selftest: $MQS_TEST round $1 begin" \
		-v e="mqstripe-selftest: $MQS_TEST round $1 end" \
		-v u="array $2: member 0 " '
		index($0, b) { on = 1; n = 0; next }
		on && index($0, e) { done = 1; exit }
		on { n++ }
		on && !g && index($0, u) && / is gone$/ { g = n }
		on && !c && /: mqstripe[0-9]+: created: / { c = n }
		END { print g + 0, c + 0; exit !done }' "$MQS_TMP/kmsg"
}

# wait_create PID: its exit status, or 124 when it has not ended within
# ROUND_S (polled without forks)
wait_create() {
	local t=$((SECONDS + ROUND_S))
	while kill -0 "$1" 2>/dev/null; do
		[ "$SECONDS" -ge "$t" ] && return 124
		sleep_s 0.02
	done
	wait "$1"
}
# member states of an array made: member 0 gone, the others ok
EXP_ST=gone
for ((i = 1; i < NM; i++)); do EXP_ST+=" ok"; done

# delay of the power-off after the last superblock write, in ms
delay=0
step=20
rounds=0 hits=0 made_gone=0 early=0 late=0 hangs=0
bad_msg=() bad_state=() bad_stop=() bad_left=() seen_hit=() seen_made=()
t_end=$((SECONDS + CAP_S))
t0=$SECONDS
while [ "$rounds" -lt "$CAP_R" ] && [ "$SECONDS" -lt "$t_end" ] &&
      { [ "$OBSERVABLE" = 0 ] || [ "$hits" -lt "$WANT" ]; }; do
	rounds=$((rounds + 1))
	r=$rounds
	read -r uuid </proc/sys/kernel/random/uuid
	echo "mqstripe-selftest: $MQS_TEST round $r begin" >/dev/kmsg
	# writes completed on the last member (no fork: a tight loop below)
	read -r -a f <"$STAT_LAST"
	w0=${f[4]}
	ta=$EPOCHREALTIME
	"$STRIPECTL" create "${MQS_FORCE[@]}" --queue-depth "$DEPTH" \
		--uuid "$uuid" "${M[@]}" >"$MQS_TMP/out" 2>"$MQS_TMP/err" &
	cpid=$!
	# CREATE comes right after the last superblock write
	while kill -0 "$cpid" 2>/dev/null; do
		read -r -a f <"$STAT_LAST"
		[ "${f[4]}" = "$w0" ] || break
	done
	tb=$EPOCHREALTIME
	# jitter: +-step/2
	d=$((delay + RANDOM % (step + 1) - step / 2))
	[ "$d" -lt 0 ] && d=0
	[ "$d" -gt 0 ] && sleep_s "$(printf '%d.%03d' $((d / 1000)) $((d % 1000)))"
	echo 0 >"$CFG0/power" || mqs_die "member 0 powered off (round $r)"
	tc=$EPOCHREALTIME
	wait_create "$cpid"
	rc=$?
	if [ "$rc" -eq 124 ]; then
		hangs=$((hangs + 1))
		kill -KILL "$cpid" 2>/dev/null
		fail "round $r: the create ends within $ROUND_S s of member 0's power-off" \
			"delay $d ms; stripectl killed; stderr: $(cat "$MQS_TMP/err")"
		break
	fi
	td=$EPOCHREALTIME
	echo "mqstripe-selftest: $MQS_TEST round $r end" >/dev/kmsg
	for ((i = 0; i < 100; i++)); do
		pos=$(round_log "$r" "$uuid") && break
		sleep_s 0.05
	done
	read -r pgone pmade <<<"$pos"
	out=$(<"$MQS_TMP/out")
	err=$(<"$MQS_TMP/err")
	dev=
	[[ $out =~ (/dev/mqstripe[0-9]+) ]] && dev=${BASH_REMATCH[1]}
	if [ -n "$dev" ]; then
		MQS_ARRAYS+=("$dev")
		if [ "$pgone" -gt 0 ] && [ "$pgone" -lt "$pmade" ]; then
			made_gone=$((made_gone + 1))
			what=made-gone
		else
			what=late
		fi
		late=$((late + 1))
		delay=$((delay - step))
		[ "$rc" -eq 0 ] ||
			bad_msg+=("round $r ($what, $d ms): exit $rc with $dev: $err")
		# member 0 gone, the others ok (sysfs: one line per slot)
		st=$(awk '{ printf "%s%s", (NR > 1 ? " " : ""), $4 }' \
			"/sys/block/${dev##*/}/mqstripe/members" 2>&1)
		[ "$st" = "$EXP_ST" ] ||
			bad_state+=("round $r ($what, $d ms): sysfs member states '$st'")
		if [ "$what" = made-gone ] || [ "$late" -eq 1 ]; then
			"$STRIPECTL" status --json "$dev" >"$MQS_TMP/status.json" 2>&1
			js=$(jget "$MQS_TMP/status.json" members.0.state members.1.state \
				"members.$((NM - 1)).state" state)
			[ "$js" = "gone ok ok failed" ] ||
				bad_state+=("round $r ($what, $d ms): status --json member 0, 1, $((NM - 1)), array: '$js'")
		fi
		[ "$what" = made-gone ] && [ ${#seen_made[@]} -lt 2 ] &&
			seen_made+=("round $r: $dev, status: $st")
		mqs_stop "$dev" >"$MQS_TMP/stop.out" 2>&1 ||
			bad_stop+=("round $r: stop $dev: $(cat "$MQS_TMP/stop.out")")
	else
		if [ "$pgone" -gt 0 ]; then
			hits=$((hits + 1))
			what=hit
			[ ${#seen_hit[@]} -lt 2 ] && seen_hit+=("round $r: ${err%%$'\n'*}")
		else
			early=$((early + 1))
			what=early
			delay=$((delay + step))
		fi
		# a clean failure names member 0 (its node or its disk name)
		if [ "$rc" -eq 0 ] || { [[ $err != *"${M[0]}"* ]] &&
		   [[ $err != *"$NAME0"* ]]; }; then
			bad_msg+=("round $r ($what, $d ms): exit $rc, stdout '$out', stderr: $err")
		fi
	fi
	[ "$delay" -lt 0 ] && delay=0
	te=$EPOCHREALTIME
	left=$(mqs_arrays)
	[ -z "$left" ] || bad_left+=("round $r: $left")
	power_on0 || mqs_die "member 0 powered on again (round $r)"
	[ "${MQS_GONE_VERBOSE:-0}" = 1 ] &&
		diag "round $r: $d ms: $what (exit $rc, gone line $pgone, created line $pmade); ms: superblocks $(ms "$ta" "$tb"), off took $(ms "$tb" "$tc"), create end $(ms "$ta" "$td"), checks $(ms "$td" "$te"), on $(ms "$te" "$EPOCHREALTIME")"
done
diag "$rounds rounds in $((SECONDS - t0)) s: $hits removals before the disk (create failed), $made_gone after it (array made, member 0 gone), $early too early, $((late - made_gone)) after the create; delay at the end $delay ms +- $((step / 2))"
for i in "${seen_hit[@]}" "${seen_made[@]}"; do diag "$i"; done

check_num -eq "no create hangs" 0 "$hangs"
if [ ${#bad_msg[@]} -eq 0 ]; then
	pass "each failed create names member 0 ($((early + hits)) failed)"
else
	fail "each failed create names member 0 ($((early + hits)) failed)" \
		"${bad_msg[@]:0:5}"
fi
if [ ${#bad_state[@]} -eq 0 ]; then
	pass "each array made shows member 0 gone, the others ok ($late made)"
else
	fail "each array made shows member 0 gone, the others ok ($late made)" \
		"${bad_state[@]:0:5}"
fi
if [ ${#bad_stop[@]} -eq 0 ]; then
	pass "each array made stops"
else
	fail "each array made stops" "${bad_stop[@]:0:5}"
fi
if [ ${#bad_left[@]} -eq 0 ]; then
	pass "no array left after any round"
else
	fail "no array left after any round" "${bad_left[@]:0:5}"
fi
if [ "$OBSERVABLE" = 1 ]; then
	check_num -ge "member 0 went away before the module linked it to the array's disk, at least $WANT times (\"is gone\", create failed)" \
		"$WANT" "$hits"
else
	MQS_NCHECK=$((MQS_NCHECK + 1))
	ktap_skip "$MQS_NCHECK" "member 0 went away before the module linked it to the array's disk" \
		"kernel $MQS_KVER has no holder ops (->mark_dead is 6.8+): a removal during the create is logged only when something notices it, the window cannot be observed"
fi

# nothing left: no array, every member claimable (no claim kept)
check_eq "no array left" "" "$(mqs_arrays)"
check_eq "no member claimed" "" "$(blk_busy "${M[@]}")"
check_klog "no kernel report (oops, KASAN, warning) during the rounds" "$kmark"
mqs_finish
