#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Member errors under load, injector dm-flakey.
# Member 1 is a dm device over an NVMe namespace.  fio runs randrw with
# verify, one job per chunk (so each job touches one member), then member 1
# is switched to dm-flakey with error_reads and error_writes (on kernels
# whose flakey lacks those features: no features, which fails all IO).
# Then: the fio jobs on member 1 end with EIO, the others verify without
# error, every job ends within 60 s of the fault, single IOs touching
# member 1 fail and the others work, `stripectl status --json` shows
# member 1 faulty with error counts and no errors elsewhere; with the
# fault lifted, "stripectl clear" makes member 1 ok and the array active,
# and data written then verifies; failing again, the array
# stops, and after the fault is lifted and the array assembled again the
# data acknowledged before and during the fault reads back.
# stripectl monitor watches it all (below, ft_hook).
# Catches: errors reported on requests that did not touch the member, a
# request that never completes after a member bio fails, lost or
# misdirected data after a fault, a stop that hangs on a failed member,
# a monitor that misses the fault, reports it twice or wrongly, or dies
# when its array stops.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
mqs_init
dm_nvme1 fl1 flakey

fault_on() {
	# up 0 s, down 1 s: always down
	if dm_switch fl1 "0 $sectors flakey ${NV[1]} 0 0 1 2 error_reads error_writes" 2>"$MQS_TMP/dm.err"; then
		return 0
	fi
	diag "flakey without error_reads ($(cat "$MQS_TMP/dm.err")): no features, all IO fails"
	dmsetup resume --noudevsync mqst-fl1 2>/dev/null
	dm_switch fl1 "0 $sectors flakey ${NV[1]} 0 0 1"
}
fault_off() { dm_switch fl1 "$LINEAR"; }

# stripectl monitor --scan (MAILADDR and PROGRAM from a conf, a stand-in
# program and sendmail appending to files) runs through the test: its
# --test event, exactly one member_faulty event for the fault, with slot,
# member device and error, in the program's arguments and environment and
# in the mail, array_failed; --oneshot's report of the failed array; the
# clear and the second fault; the stop (array_stopped) and the assembly
# (array_started) with the monitor still running; SIGTERM ends it.
MON=$MQS_TMP/mon
mkdir -p "$MON/one"
cat >"$MON/prog" <<'EOF'
#!/bin/sh
echo "$*|$MQSTRIPE_ERROR|$MQSTRIPE_NAME" >>"${0%/*}/events"
EOF
cat >"$MON/sendmail" <<'EOF'
#!/bin/sh
{ echo "ARGS $*"; cat; echo "--"; } >>"${0%/*}/mail"
EOF
cp "$MON/prog" "$MON/one/prog"
chmod +x "$MON/prog" "$MON/sendmail" "$MON/one/prog"
printf 'MAILADDR root@example.invalid\nPROGRAM %s\n' "$MON/prog" >"$MON/conf"
FT_CREATE_ARGS=(--name flakey)

# mon_wait REGEX: wait up to 60 s for an event line of the monitor's program
mon_wait() {
	local i
	for ((i = 0; i < 300; i++)); do
		grep -qE -- "$1" "$MON/events" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
mon_count() { grep -cE -- "$1" "$MON/events"; }

ft_hook() {
	local dev=$2 mdev mm rc
	mdev=$DM_MAP	# the map by its /dev/mapper name
	mm=$(stat -L -c '%t %T' "$DM_DEV" | { read -r a b; echo "$((16#$a)):$((16#$b))"; })
	case $1 in
	created)
		MQSTRIPE_CONF=$MON/conf MQSTRIPE_SENDMAIL=$MON/sendmail \
			"$STRIPECTL" monitor --scan --test >"$MON/out" 2>"$MON/err" &
		MON_PID=$!
		MQS_BG+=("$MON_PID")
		mon_wait "^test $dev\\|" ||
			mqs_die "monitor --scan --test: no test event for $dev in 60 s" "$(cat "$MON/err")"
		check_eq "monitor --test: one test event for $dev, its name" "test $dev||flakey" \
			"$(grep "^test " "$MON/events")"
		;;
	faulted)
		mon_wait "^array_failed $dev\\|" ||
			fail "monitor: array_failed for $dev within 60 s" "$(cat "$MON/events" "$MON/err")"
		check_eq "monitor: exactly one member_faulty event, slot 1, member $mdev, -EIO" \
			"member_faulty $dev 1 $mdev|-EIO|flakey" "$(grep "^member_faulty " "$MON/events")"
		check_eq "monitor: the member_faulty mail, through sendmail -t to MAILADDR" \
			"ARGS -t|To: root@example.invalid|Subject: mqstripe member_faulty event on $(hostname): array flakey ($dev)" \
			"$(grep -B3 '^Subject: mqstripe member_faulty' "$MON/mail" | grep -v '^From' | paste -sd '|')"
		check_eq "monitor: the mail names array, device, slot, member, error" \
			"Array:   flakey|Device:  $dev|Slot:    1|Member:  $mdev ($mm)|Error:   -EIO" \
			"$(sed -n '/^Subject: mqstripe member_faulty/,/^--$/p' "$MON/mail" | grep -E '^(Array|Device|Slot|Member|Error):' | paste -sd '|')"
		"$STRIPECTL" monitor --oneshot --program "$MON/one/prog" flakey >/dev/null 2>"$MON/one/err"
		check_eq "monitor --oneshot flakey: the faulty member and the failed array" \
			"member_faulty $dev 1 $mdev||flakey|array_failed $dev||flakey" \
			"$(paste -sd '|' "$MON/one/events")"
		;;
	stopped)
		mon_wait "^array_stopped $dev\\|" ||
			fail "monitor: array_stopped for $dev within 60 s" "$(cat "$MON/events" "$MON/err")"
		check_eq "monitor: after clear and the second fault: member_cleared once, member_faulty twice" \
			"1 2" "$(mon_count '^member_cleared ') $(mon_count '^member_faulty ')"
		;;
	assembled)
		if mon_wait "^array_started $dev\\|\\|flakey$"; then
			pass "monitor: runs on over the stop: array_started $dev, named flakey"
		else
			fail "monitor: runs on over the stop: array_started $dev" "$(cat "$MON/events" "$MON/err")"
		fi
		;;
	end)
		mon_wait "^array_stopped $dev\\|\\|flakey$" ||
			fail "monitor: array_stopped for $dev within 60 s" "$(cat "$MON/events")"
		kill -TERM "$MON_PID"
		wait "$MON_PID"
		rc=$?
		# on stderr only its records of the faults in the superblocks
		check_eq "monitor: SIGTERM ends it, exit status 0, nothing on stderr but its fault records" "0" \
			"$rc$(grep -v "^stripectl: $dev: slot 1 (.*) is faulty: recorded in the superblocks of the 3 other members" "$MON/err")"
		check_eq "monitor: one test and two member_faulty events in all" "1 2" \
			"$(mon_count '^test ') $(mon_count '^member_faulty ')"
		;;
	esac
}

FT_MEMBERS=("${NV[0]}" "$DM_DEV" "${NV[2]}" "${NV[3]}")
FT_BAD=1
FT_CHUNK=$((64 << 10))
FT_CLEAR=1
# the monitor records the fault in the superblocks (two events) when it
# sees it, unless the stop comes first and records it itself
FT_BEHIND="(2|4)"
member_fault_test
mqs_finish
