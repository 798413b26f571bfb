#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the fault tests (test_13 .. test_19): one member failing
# under fio load, dm table switches, configfs null_blk devices.  Sourced
# after lib.sh by the tests that need it.

# shellcheck disable=SC2034,SC2317	# used by the sourcing scripts; called indirectly

# ------------------------------------------------------------ dm tables
# dm_switch NAME TABLE [dmsetup suspend options]: load TABLE into the
# existing dm device mqst-NAME (suspend, load, resume)
dm_switch() {
	local name="mqst-$1" table=$2
	shift 2
	dmsetup suspend --noudevsync "$@" "$name" &&
		dmsetup load --noudevsync "$name" --table "$table" &&
		dmsetup resume --noudevsync "$name"
}

# dm_nvme1 NAME TARGET: for a test with member 1 on dm: needs dmsetup, fio,
# 4 NVMe namespaces (NV) and the dm target TARGET, else skips; sets
# sectors (of NV[1]) and LINEAR (its linear table) and creates mqst-NAME
# with it (DM_DEV)
dm_nvme1() {
	mqs_require_cmd dmsetup fio
	mapfile -t NV < <(nvme_disks)
	[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
	modprobe "dm-$2" 2>/dev/null
	dmsetup targets | grep -qw "$2" || mqs_skip "no dm-$2 target"
	sectors=$(($(blk_bytes "${NV[1]}") / 512))
	LINEAR="0 $sectors linear ${NV[1]} 0"
	mqs_dm_create "$1" "$LINEAR" || mqs_die "dmsetup create over ${NV[1]}"
}

# -------------------------------------------------------- null_blk
NULLB_CFG=/sys/kernel/config/nullb
NULLB_DIRS=()	# configfs directories made by this test
NULLB_DEV=	# /dev/nullbN of the last nullb_create

# nullb_ready: null_blk loaded with configfs, no devices of its own
# (nr_devices=0); prints why not and returns 1 otherwise
nullb_ready() {
	if [ ! -d /sys/module/null_blk ]; then
		modprobe null_blk nr_devices=0 >/dev/null 2>&1 ||
			{ echo "null_blk module not available"; return 1; }
	fi
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config 2>/dev/null
	[ -d "$NULLB_CFG" ] || { echo "no $NULLB_CFG (null_blk without configfs)"; return 1; }
	return 0
}

# nullb_has ATTR: does a configfs null_blk device have this attribute?
nullb_has() { grep -qw -- "$1" "$NULLB_CFG/features" 2>/dev/null; }

# nullb_create NAME ATTR=VALUE...: a configfs null_blk device, powered on
# last; sets NULLB_DEV (/dev/NAME, or /dev/nullbN on older kernels).  Attributes are written in the order given.
nullb_create() {
	local d=$NULLB_CFG/$1 kv i
	shift
	mkdir "$d" || return 1
	NULLB_DIRS+=("$d")
	for kv in "$@"; do
		echo "${kv#*=}" >"$d/${kv%%=*}" ||
			{ echo "# null_blk: cannot set ${kv%%=*}=${kv#*=}"; return 1; }
	done
	echo 1 >"$d/power" || return 1
	# named after the configfs directory since 6.0, nullbINDEX before
	for i in $(seq 50); do
		for NULLB_DEV in "/dev/${d##*/}" "/dev/nullb$(cat "$d/index")"; do
			[ -b "$NULLB_DEV" ] && return 0
		done
		sleep 0.1
	done
	echo "# null_blk: neither /dev/${d##*/} nor /dev/nullb$(cat "$d/index") appeared"
	return 1
}

# remove the configfs devices (after the arrays over them are stopped)
nullb_cleanup() {
	local d
	for d in "${NULLB_DIRS[@]}"; do
		[ -d "$d" ] || continue
		echo 0 >"$d/power" 2>/dev/null
		rmdir "$d" 2>/dev/null || echo "# cleanup: rmdir $d failed"
	done
	NULLB_DIRS=()
}

# The EXIT trap of tests with null_blk devices: arrays first, then these.
fault_cleanup() {
	local tmp=$MQS_TMP
	MQS_TMP=	# mqs_cleanup removes it; keep it until the end
	mqs_cleanup
	nullb_cleanup
	[ -n "$tmp" ] && rm -rf "$tmp"
}

# ------------------------------------------------------- waiting
# wait_pid_until PID DEADLINE: wait for PID to end, at most until
# $SECONDS >= DEADLINE; returns its exit status, or 124 if it was still
# running (it is then killed)
wait_pid_until() {
	local pid=$1 deadline=$2
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 124
		fi
		sleep 0.2
	done
	wait "$pid"
}


# wait_ios DEV N SECS: until DEV has completed N more IOs than now
wait_ios() {
	local dev=$1 want t0
	want=$(($(array_ios "$dev") + $2))
	t0=$SECONDS
	while [ "$(array_ios "$dev")" -lt "$want" ]; do
		[ $((SECONDS - t0)) -ge "$3" ] && return 1
		sleep 0.2
	done
}

# fio_bg OUT DEV JOB-OPTIONS...: randrw with verify on DEV in the
# background until stopped, JSON to OUT.json; sets FIO_PID.  iodepth 1 per
# job (the jobs run concurrently): a job's region is one chunk, 16 blocks,
# so its random map is used up every few IOs and time_based starts a new
# pass; with several IOs in flight a block can then be written twice at
# once, in no defined order, and verify reports EILSEQ (seen once on 6.1)
FIO_PID=
fio_bg() {
	local out=$1 dev=$2
	shift 2
	fio --output-format=json --output="$out.json" --filename="$dev" \
		--direct=1 --ioengine=libaio --iodepth=1 --bs=4k --rw=randrw \
		--verify=crc32c --verify_backlog=8 --time_based --runtime=600 \
		"$@" >"$out.out" 2>&1 &
	FIO_PID=$!
	MQS_BG+=("$FIO_PID")
}

# single_ios DEV SPEC...: one O_DIRECT IO per SPEC, in order, from one
# process (a process start costs seconds under TCG); prints one line per
# SPEC: OK, the errno name (EIO), or BAD (data differs).  SPEC:
#   read:OFF:LEN  write:OFF:LEN:SEED (pattern.py data, tag = OFF)
#   check:OFF:LEN:SEED  fsync
single_ios() {
	"$PYTHON" -S - "$MQS_DIR" "$@" <<'EOF'
import errno, os, sys
sys.path.insert(0, sys.argv[1])
import pattern
dev = pattern.Dev(sys.argv[2], write=True)
for spec in sys.argv[3:]:
    f = spec.split(":")
    try:
        if f[0] == "read":
            dev.pread(int(f[1]), int(f[2]))
        elif f[0] == "write":
            dev.pwrite(int(f[1]), pattern.Pat(int(f[3])).get(int(f[1]), int(f[2])))
        elif f[0] == "check":
            got = dev.pread(int(f[1]), int(f[2]))
            if got != pattern.Pat(int(f[3])).get(int(f[1]), int(f[2])):
                print("BAD", flush=True)
                continue
        elif f[0] == "fsync":
            os.fsync(dev.fd)
        print("OK", flush=True)
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)), flush=True)
EOF
}

# ------------------------------------- one member failing under load
# member_fault_test: the common body of test_13 .. test_15.
# The caller sets:
#   FT_MEMBERS  the members (array), FT_BAD its slot that will fail
#   FT_CHUNK    chunk size in bytes
#   fault_on    function: make member FT_BAD fail every IO
#   fault_off   function: make it work again
#   FT_FLUSH    what an fsync of the array gets during the fault: EIO
#               (default: the injector fails flushes too) or OK
#   FT_CREATE_ARGS  more options of create (array; default none)
#   ft_hook     optional function, called as "ft_hook STAGE DEV" at the
#               stages created, faulted (the jobs and checks of the fault
#               done, the member still failing), stopped (after the stop
#               with the member failing), assembled, end (stopped again)
# Layout (chunk c of the array is on member c mod N, row c div N):
#   rows 0-1  fio: one randrw+verify job per chunk, so each job touches
#             exactly one member; the jobs of member FT_BAD must end with
#             EIO, the others must verify without error
#   rows 2-3  written and fsynced before the fault: must read back after
#             the array is stopped, the fault lifted and it is assembled
#   row 4     written (O_DIRECT, no fsync) during the fault: EIO on member
#             FT_BAD, the other chunks acknowledged and must read back
#             after the restart; an fsync of the array must fail (member
#             FT_BAD was written since its last flush, its flush fails)
member_fault_test() {
	local n=${#FT_MEMBERS[@]} ch=$FT_CHUNK bad=$FT_BAD
	local dev badjobs=() goodjobs=() c badpid goodpid t_fault t_stop rc out
	local J=$MQS_TMP/status.json badw0 badw

	mqs_must_create --chunk "$ch" "${FT_CREATE_ARGS[@]}" "${FT_MEMBERS[@]}"
	dev=$MQS_DEV
	ft_stage created "$dev"
	check_cmd "rows 2-3 written before the fault" \
		pattern fill "$dev" $((2 * n * ch)) $((2 * n * ch)) 61
	badw0=$(blk_stat "${FT_MEMBERS[bad]}" 5)

	# two fio processes: the jobs on member FT_BAD must end by themselves,
	# the others run until stopped
	for ((c = 0; c < 2 * n; c++)); do
		if [ $((c % n)) -eq "$bad" ]; then
			badjobs+=(--name="c$c" --offset=$((c * ch)) --size="$ch")
		else
			goodjobs+=(--name="c$c" --offset=$((c * ch)) --size="$ch")
		fi
	done
	fio_bg "$MQS_TMP/fio-bad" "$dev" "${badjobs[@]}"
	badpid=$FIO_PID
	fio_bg "$MQS_TMP/fio-good" "$dev" "${goodjobs[@]}"
	goodpid=$FIO_PID
	if wait_ios "$dev" 256 60 && kill -0 "$badpid" 2>/dev/null; then
		pass "fio runs on $MQS_DISK"
	else
		fail "fio runs on $MQS_DISK" "fewer than 256 IOs in 60 s or fio ended" \
			"$(cat "$MQS_TMP/fio-bad.out")"
	fi

	# writes completed on the failing member since the last flush
	badw=$(blk_stat "${FT_MEMBERS[bad]}" 5)
	if fault_on; then
		pass "member $bad ($(blk_name "${FT_MEMBERS[bad]}")) fails IO"
	else
		mqs_die "member $bad ($(blk_name "${FT_MEMBERS[bad]}")) fails IO"
	fi
	t_fault=$SECONDS

	wait_pid_until "$badpid" $((t_fault + 60))
	rc=$?
	if [ $rc -eq 124 ]; then
		fail "the fio jobs on member $bad end within 60 s of the fault" \
			"fio still running $((SECONDS - t_fault)) s after the fault: killed"
	else
		pass "the fio jobs on member $bad end within 60 s of the fault ($((SECONDS - t_fault)) s)"
	fi

	# while the other jobs run: single IOs by member, rows 2 and 4
	local spec=() exp=() what=()
	spec+=("read:$(((2 * n + bad) * ch)):4096")
	exp+=(EIO)
	what+=("read of a chunk of member $bad during the fault")
	spec+=("read:$(((2 * n + (bad + 1) % n) * ch)):$ch")
	exp+=(OK)
	what+=("read of a chunk of member $(((bad + 1) % n)) during the fault")
	for ((c = 4 * n; c < 5 * n; c++)); do
		spec+=("write:$((c * ch)):$ch:62")
		what+=("write of chunk $c (member $((c % n))) during the fault")
		if [ $((c % n)) -eq "$bad" ]; then exp+=(EIO); else exp+=(OK); fi
	done
	if [ "$badw" -gt "$badw0" ]; then
		# member FT_BAD was written since its last flush: it is flushed
		spec+=(fsync)
		exp+=("${FT_FLUSH:-EIO}")
		what+=("fsync of the array during the fault (member $bad written, flushed)")
	else
		diag "no write reached member $bad before the fault: fsync not checked"
	fi
	single_ios "$dev" "${spec[@]}" >"$MQS_TMP/ios" 2>&1
	for c in "${!spec[@]}"; do
		check_eq "${what[c]}" "${exp[c]}" "$(sed -n "$((c + 1))p" "$MQS_TMP/ios")"
	done

	# the other jobs go on verifying after the fault; then stop them
	if wait_ios "$dev" 256 60 && kill -0 "$goodpid" 2>/dev/null; then
		pass "the fio jobs on the other members run on after the fault"
	else
		fail "the fio jobs on the other members run on after the fault" \
			"$(cat "$MQS_TMP/fio-good.out")"
	fi
	kill -INT "$goodpid" 2>/dev/null
	t_stop=$SECONDS
	wait_pid_until "$goodpid" $((t_stop + 60))
	rc=$?
	if [ $rc -eq 124 ]; then
		fail "the other fio jobs end within 60 s of SIGINT" \
			"fio still running $((SECONDS - t_stop)) s after SIGINT: killed"
	else
		pass "the other fio jobs end within 60 s of SIGINT ($((SECONDS - t_stop)) s)"
	fi
	# per job: errno and IOs done
	"$PYTHON" -S - "$MQS_TMP/fio-bad.json" "$MQS_TMP/fio-good.json" \
		>"$MQS_TMP/jobs" 2>&1 <<'EOF'
import json, sys
for f in sys.argv[1:]:
    t = open(f).read()
    d = json.loads(t[t.index("{"):])
    for j in d["jobs"]:
        print(j["jobname"][1:], j["error"],
              j["read"]["total_ios"] + j["write"]["total_ios"])
EOF
	[ "$(grep -c '' "$MQS_TMP/jobs")" -eq $((2 * n)) ] ||
		fail "fio reports all $((2 * n)) jobs" "$(cat "$MQS_TMP/jobs" "$MQS_TMP/fio.out")"
	while read -r c err ios; do
		if [ $((c % n)) -eq "$bad" ]; then
			check_eq "fio job on chunk $c (member $bad) ends with EIO" 5 "$err"
		else
			check_eq "fio job on chunk $c (member $((c % n))) verifies, no error" 0 "$err"
			check_num -gt "fio job on chunk $c did IO" 0 "$ios"
		fi
	done <"$MQS_TMP/jobs"

	"$STRIPECTL" status --json "$dev" >"$J" 2>&1
	local keys=() st
	for ((c = 0; c < n; c++)); do
		keys+=("members.$c.read_errors" "members.$c.write_errors" "members.$c.state")
	done
	read -r -a st <<<"$(jget "$J" "${keys[@]}")"
	for ((c = 0; c < n; c++)); do
		if [ "$c" -eq "$bad" ]; then
			check_ge "status --json: member $bad has errors" 1 \
				"$(awk '{ print $1 + $2 }' <<<"${st[*]:3 * c:2}")"
			check_match "status --json: member $bad is not ok" 'faulty|gone' "${st[3 * c + 2]}"
		else
			check_eq "status --json: member $c: no errors, ok" "0 0 ok" \
				"${st[*]:3 * c:3}"
		fi
	done
	# the same figures as metrics for node_exporter (status --prometheus)
	local arr=${dev##*/} p="$MQS_TMP/prom"
	"$STRIPECTL" status --prometheus >"$p" 2>&1
	check_cmd "status --prometheus: the Prometheus text format" \
		"$PYTHON" -S "$MQS_REPO/tools/tests/prom_check.py" "$p"
	check_eq "status --prometheus: member $bad's read and write errors and state as status --json says" \
		"${st[3 * bad]} ${st[3 * bad + 1]} 1" \
		"$(awk -v a="{array=\"$arr\",slot=\"$bad\"" -v s="{array=\"$arr\",slot=\"$bad\",state=\"${st[3 * bad + 2]}\"}" '
			$1 == "mqstripe_member_read_errors_total" a "}" { r = $2 }
			$1 == "mqstripe_member_write_errors_total" a "}" { w = $2 }
			$1 == "mqstripe_member_state" s { x = $2 }
			END { print r, w, x }' "$p")"
	check_num -gt "status --prometheus: the array's bytes written (fio's)" 0 \
		"$(awk -v k="mqstripe_array_io_bytes_total{array=\"$arr\",op=\"write\"}" '$1 == k { print $2 }' "$p")"

	ft_stage faulted "$dev"

	# FT_CLEAR=1: the fault was transient: lifted, the member cleared, the
	# array is active and verifies over every member; then it fails again
	if [ "${FT_CLEAR:-0}" = 1 ]; then
		fault_off || mqs_die "fault lifted for clear"
		check_match "stripectl clear $bad: was faulty, is ok now" \
			"slot $bad \\(/dev/[^ ,]+, [0-9]+:[0-9]+\\) was faulty, is ok now" \
			"$("$STRIPECTL" clear "$dev" "$bad" 2>&1)"
		"$STRIPECTL" status --json "$dev" >"$J" 2>&1
		check_eq "after clear: member $bad ok, the array active" "ok active" \
			"$(jget "$J" "members.$bad.state" state)"
		check_cmd "after clear: rows 0-1 written and verified over every member" \
			pattern verify "$dev" 0 $((2 * n * ch)) 63
		check_match "clear of an ok member: nothing to clear" \
			"slot $bad .* is ok: nothing to clear" "$("$STRIPECTL" clear "$dev" "$bad" 2>&1)"
		fault_on || mqs_die "member $bad fails IO again"
		pattern rw read "$dev" $((bad * ch)) 4096 >/dev/null 2>&1
		"$STRIPECTL" status --json "$dev" >"$J" 2>&1
		check_eq "member $bad fails again: faulty" faulty "$(jget "$J" "members.$bad.state")"
	fi

	# with the member still failing
	check_stop "$dev"
	[ -e "/sys/block/${dev##*/}" ] && mqs_die "the array must stop to go on"
	ft_stage stopped "$dev"

	if fault_off; then
		pass "fault lifted"
	else
		mqs_die "fault lifted"
	fi
	out=$("$STRIPECTL" assemble "${FT_MEMBERS[@]}" 2>&1)
	# A member that failed both passes of the stop's superblock update
	# (an injector that fails its writes) is two events behind: stale,
	# refused by name, and "assemble --force" starts the array, saying
	# how far behind it is (FT_BEHIND, a regex: four events when the
	# fault was recorded before the stop, by stripectl monitor or
	# record-fault).  One whose writes still worked is not.
	if [[ $out == "stripectl: ${FT_MEMBERS[bad]}: stale member of "*"stripectl assemble --force'" ]]; then
		pass "assemble after the fault: ${FT_MEMBERS[bad]}, which missed the stop's superblock updates, is refused as stale"
		out=$("$STRIPECTL" assemble --force "${FT_MEMBERS[@]}" 2>"$MQS_TMP/force.err")
		check_match "assemble --force says how far behind ${FT_MEMBERS[bad]} is" \
			"warning: ${FT_MEMBERS[bad]} \\(slot $bad of .* is ${FT_BEHIND:-2} events behind" "$(cat "$MQS_TMP/force.err")"
	fi
	if [[ $out =~ ^/dev/mqstripe[0-9]+$ ]]; then
		pass "assemble after the fault: $out"
		MQS_ARRAYS+=("$out")
		dev=$out
	else
		mqs_die "assemble after the fault" "$out"
	fi
	ft_stage assembled "$dev"
	check_cmd "rows 2-3 (written before the fault) read back" \
		pattern check "$dev" $((2 * n * ch)) $((2 * n * ch)) 61
	spec=()
	for ((c = 4 * n; c < 5 * n; c++)); do
		[ $((c % n)) -eq "$bad" ] && continue
		spec+=("$((c * ch)):$ch:pat")
	done
	check_cmd "row 4 (acknowledged during the fault) reads back" \
		pattern regions "$dev" 62 "${spec[@]}"
	c=$((4 * n + bad))
	single_ios "$dev" "write:$((c * ch)):$ch:63" "check:$((c * ch)):$ch:63" >"$MQS_TMP/ios" 2>&1
	check_eq "member $bad works again: write and read back chunk $c" "OK OK" \
		"$(tr '\n' ' ' <"$MQS_TMP/ios" | sed 's/ $//')"
	check_stop "$dev"
	ft_stage end "$dev"
}

# ft_stage STAGE DEV: the caller's ft_hook, if it has one
ft_stage() {
	if declare -F ft_hook >/dev/null; then
		ft_hook "$@"
	fi
	return 0
}
