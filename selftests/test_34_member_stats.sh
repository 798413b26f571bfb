#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The members' IO figures and the slow-member check.
# Four members, member 1 a dm device over an NVMe namespace, chunk 64K.
# Counts: single 4K O_DIRECT reads of chunks 5..14 and writes of chunks
# 20..25 (chunk c is on member c mod 4): each member's completed reads and
# writes (sysfs mqstripe/io_stats) grow by exactly the chunks it holds,
# its histogram by as many, nothing stays in flight; a read at the offset
# where slot 1's line began returns that line whole after slot 0's line
# changed length, in both files; the tunables refuse values out of range.  Slow: member 1
# switched to dm-delay (500 ms) under fio randread: stripectl status shows
# slot 1 slow (and still ok), its last-window latency at least the delay
# (less a tick) and ten times every other member's; the monitor's program
# gets exactly one member_slow event, for slot 1, with the latency; with
# the delay removed (a linear table again) the flag clears and one
# member_slow_cleared follows.
# Catches: figures counted on the wrong member or twice, bios never
# counted as completed, a line torn across two read() calls (a reader
# that goes on where it stopped lands mid-line in the text formatted
# anew: five fields where ten were), a latency not measured per member, no slow flag,
# a flag on the wrong member or one that never clears, a member_slow
# event missing or sent per window instead of per episode.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
mqs_init
mark=$(klog_mark "test_34 start")
dm_nvme1 dl1 delay
# far above a member's latency under TCG, also the debug kernel's (~10 ms)
DELAY_MS=500
# dm-delay holds a bio until the jiffy DELAY_MS after the jiffy it came in
# (delay_bio(): expires = jiffies + msecs_to_jiffies()), so a bio that
# came late in its jiffy waits up to one tick less: 4 ms at HZ 250, 10 ms
# allowed (HZ 100); a mean of 496,099 us was seen
DELAY_MIN_US=$((DELAY_MS * 1000 - 10000))
mqs_must_create --chunk 64K --name stats "${NV[0]}" "$DM_DEV" "${NV[2]}" "${NV[3]}"

# io_stats into R (reads), W (writes), F (in flight), S (slow) and H
# (read + write histogram sums), by slot; builtins
# only (a process start costs much under TCG)
io_stats() {
	local slot r w rf wf slow line v n
	while read -r slot r w rf wf _ _ _ _ slow; do
		R[slot]=$r W[slot]=$w F[slot]=$((rf + wf)) S[slot]=$slow
	done <"$MQS_SYS/mqstripe/io_stats"
	while read -r -a line; do
		n=0
		for v in "${line[@]:1}"; do n=$((n + v)); done
		H[line[0]]=$n
	done <"$MQS_SYS/mqstripe/latency_hist"
}

# --- counts: each member completes exactly the IOs of its chunks
mqs_settle
declare -a R W F S H
io_stats
R0=("${R[@]}") W0=("${W[@]}") H0=("${H[@]}")
specs=()
want_r=(0 0 0 0) want_w=(0 0 0 0)
for c in $(seq 5 14); do
	specs+=("read:$((c * 65536)):4096")
	want_r[c % 4]=$((want_r[c % 4] + 1))
done
for c in $(seq 20 25); do
	specs+=("write:$((c * 65536)):4096:7")
	want_w[c % 4]=$((want_w[c % 4] + 1))
done
res=$(single_ios "$MQS_DEV" "${specs[@]}" | sort | uniq -c | tr -s ' ')
check_eq "16 single IOs done" " 16 OK" "$res"
io_stats
got_r=() got_w=() got_h=()
for s in 0 1 2 3; do
	got_r+=($((R[s] - R0[s])))
	got_w+=($((W[s] - W0[s])))
	got_h+=($((H[s] - H0[s])))
done
check_eq "io_stats: completed reads by slot = the chunks each holds of 5..14" \
	"${want_r[*]}" "${got_r[*]}"
check_eq "io_stats: completed writes by slot = the chunks each holds of 20..25" \
	"${want_w[*]}" "${got_w[*]}"
check_eq "latency_hist: each member's buckets grew by its IOs" \
	"$((want_r[0] + want_w[0])) $((want_r[1] + want_w[1])) $((want_r[2] + want_w[2])) $((want_r[3] + want_w[3]))" \
	"${got_h[*]}"
check_eq "io_stats: nothing in flight, nobody slow, at rest" "0 0 0 0|0 0 0 0" "${F[*]}|${S[*]}"

# --- a read of a line where an earlier read saw it begin returns that
# line whole, though the lines before it changed length meanwhile (bash's
# read builtin and stdio read a file in several read() calls at such
# offsets; the file is formatted anew for each)
# line_at FILE OFF: the fields and the slot of the line read at byte OFF
line_at() {
	"$PYTHON" -S -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
f = os.pread(fd, 4096, int(sys.argv[2])).decode().split("\n")[0].split()
print(len(f), f[0] if f else "-")' "$1" "$2"
}
for f in io_stats latency_hist; do
	off=$(head -n 1 "$MQS_SYS/mqstripe/$f" | wc -c)
	read -r was <"$MQS_SYS/mqstripe/$f"
	# 4K reads of chunk 0 (slot 0) until slot 0's line has another length
	for ((i = 0; i < 300; i++)); do
		dd if="$MQS_DEV" of=/dev/null bs=4k count=1 iflag=direct status=none
		read -r now <"$MQS_SYS/mqstripe/$f"
		[ ${#now} -ne ${#was} ] && break
	done
	diag "$f: slot 0's line of ${#was} characters now ${#now} after $((i + 1)) reads"
	n=10
	[ "$f" = latency_hist ] && n=33
	check_eq "$f: a read at the offset where slot 1's line began ($off) returns it whole ($n fields) after slot 0's line changed" \
		"$n 1" "$(line_at "$MQS_SYS/mqstripe/$f" "$off")"
done

# the tunables: defaults, a value out of range refused (EINVAL), unchanged
T=$MQS_SYS/mqstripe
check_eq "tunables: slow_factor slow_min_us slow_windows by default" "4 5000 3" \
	"$(cat "$T/slow_factor") $(cat "$T/slow_min_us") $(cat "$T/slow_windows")"
bad=0
for kv in slow_factor=1 slow_factor=x slow_windows=0 slow_windows=61 slow_min_us=60000001; do
	echo "${kv#*=}" 2>/dev/null >"$T/${kv%=*}" && bad=$((bad + 1))
done
check_eq "tunables: out of range or not a number refused, values unchanged" "0 4 5000 3" \
	"$bad $(cat "$T/slow_factor") $(cat "$T/slow_min_us") $(cat "$T/slow_windows")"

# --- slow: member 1 delayed under fio, then not
MON=$MQS_TMP/mon
mkdir -p "$MON"
cat >"$MON/prog" <<'EOF'
#!/bin/sh
echo "$*|$MQSTRIPE_LATENCY_US|$MQSTRIPE_MEDIAN_LATENCY_US" >>"${0%/*}/events"
EOF
chmod +x "$MON/prog"
"$STRIPECTL" monitor --program "$MON/prog" stats >"$MON/out" 2>"$MON/err" &
MON_PID=$!
MQS_BG+=("$MON_PID")
fio --name=slow --filename="$MQS_DEV" --direct=1 --ioengine=libaio \
	--iodepth=16 --bs=4k --rw=randread --time_based --runtime=600 \
	>"$MQS_TMP/fio.out" 2>&1 &
FIO_PID=$!
MQS_BG+=("$FIO_PID")
dm_switch dl1 "0 $sectors delay ${NV[1]} 0 $DELAY_MS" ||
	mqs_die "dm-delay table on member 1"

# wait_slow VALUE: up to 30 s until slot 1's slow flag is VALUE
wait_slow() {
	local i
	for ((i = 0; i < 150; i++)); do
		io_stats
		[ "${S[1]}" = "$1" ] && return 0
		sleep 0.2
	done
	return 1
}
if wait_slow 1; then
	pass "slot 1 slow within 30 s of the delay"
else
	fail "slot 1 slow within 30 s of the delay" "io_stats: $(cat "$MQS_SYS/mqstripe/io_stats")"
fi
"$STRIPECTL" status --json stats >"$MQS_TMP/st.json"
check_eq "status --json: slow flags by slot, slot 1 still ok" "False True False False ok" \
	"$(jget "$MQS_TMP/st.json" members.0.slow members.1.slow members.2.slow members.3.slow members.1.state)"
read -r -a lat <<<"$(jget "$MQS_TMP/st.json" members.0.io.window_latency_us \
	members.1.io.window_latency_us members.2.io.window_latency_us members.3.io.window_latency_us)"
diag "window latencies (us) by slot: ${lat[*]}"
check_ge "status --json: slot 1's window latency (us) at least the delay less a tick" \
	"$DELAY_MIN_US" "${lat[1]}"
for s in 0 2 3; do
	check_ge "status --json: slot 1's latency ten times slot $s's (${lat[s]} us) or more" \
		$((10 * lat[s])) "${lat[1]}"
done
"$STRIPECTL" status stats >"$MQS_TMP/st.txt"
check_match "status: the slow line names slot 1" "^  slot 1 is slow: latency [0-9.]+ms, the median member's" \
	"$(grep "is slow" "$MQS_TMP/st.txt")"

dm_switch dl1 "$LINEAR" || mqs_die "linear table on member 1 again"
if wait_slow 0; then
	pass "slot 1 no longer slow within 30 s of the delay's end"
else
	fail "slot 1 no longer slow within 30 s of the delay's end" "io_stats: $(cat "$MQS_SYS/mqstripe/io_stats")"
fi
kill "$FIO_PID"
wait "$FIO_PID" 2>/dev/null
for ((i = 0; i < 100; i++)); do
	grep -q "^member_slow_cleared " "$MON/events" 2>/dev/null && break
	sleep 0.2
done
kill -TERM "$MON_PID"
wait "$MON_PID"
mdev=/dev/$(basename "$(readlink -f "$DM_DEV")")
check_eq "monitor: one member_slow and one member_slow_cleared, slot 1" \
	"member_slow $MQS_DEV 1 $mdev|member_slow_cleared $MQS_DEV 1 $mdev" \
	"$(cut -d'|' -f1 "$MON/events" | paste -sd '|')"
check_ge "monitor: member_slow carries slot 1's latency (us), at least the delay less a tick" \
	"$DELAY_MIN_US" "$(grep "^member_slow " "$MON/events" | cut -d'|' -f2)"
check_ge "monitor: ... ten times the median member's" \
	$((10 * $(grep "^member_slow " "$MON/events" | cut -d'|' -f3))) \
	"$(grep "^member_slow " "$MON/events" | cut -d'|' -f2)"

check_stop "$MQS_DEV"
mqs_dm_remove dl1 || fail "dmsetup remove mqst-dl1"
check_klog "no kernel warning in the kernel log" "$mark"
mqs_finish
