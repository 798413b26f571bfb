#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/run.sh's host side without QEMU: a stand-in for run-vm.sh
# (MQS_RUNVM) prints what a guest's run_guest.sh would, and the checks are
# on what run.sh makes of it:
#  - the kmemleak whole-run scan of a debug boot is a result of its own,
#    and a leak it found fails the run (it once went unread: run.sh looked
#    for a line the guest no longer printed);
#  - the TEST arguments are run in the order given (make check orders the
#    debug kernel's tests by value, for its time budget);
#  - a test the guest reports skipped for the time budget is counted
#    skipped, a test with no result at all failed;
#  - a guest that dies of an int3 oops outside mqstripe (the emulator's
#    text-patching fault) is booted again for the tests without a result;
#    so is a test that such an oops failed without killing the guest (it
#    killed a task: taint D), with the tests after it; one with mqstripe
#    in the oops, or any other crash, is not;
#  - a test runs in the boots its header names ("# mqs-boots: BOOT..."),
#    else in main; a name that is no boot stops run.sh before any guest
#    boots, with a message naming the test (on a copy of run.sh beside
#    made-up tests), and the tests of boots of their own keep them;
#  - the persistence tests (persist/) run only with --boots persist or when
#    named: three boots one after the other, the later ones over the first
#    one's images (in the order each needs, with udev, with 4096-byte
#    blocks) and its shared records, which are removed afterwards; a boot
#    whose images an earlier one did not leave is not booted and its tests
#    fail; no persistence boot is booted again after an int3 oops; naming
#    a test runs the tests its "# mqs-needs:" line names first.
#  - a test whose "# mqs-kernels:" line does not name the kernel (14, 21
#    and 33: debug) is counted skipped with the reason and not sent to the
#    guest (a word names its releases: "6.1" names "6.1-x", not "6.12");
#    a kernels line naming none, or a "# mqs-timeout:" that is no number,
#    stops run.sh before any guest boots;
#  - a test's time budget in the guest (header.sh test_timeout): its
#    "# mqs-timeout:" line (persist/test_04_cut: 600), else settings' 300;
#    MQS_TIMEOUT over both.
# Prints KTAP.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d) || exit 1
K=hosttest-$$	# run.sh's output goes to selftests/output/$K
trap 'rm -rf "$TMP" "$TOP/selftests/output/$K"' EXIT

# shellcheck source=SCRIPTDIR/check_lib.sh
. "$TOP/tools/tests/check_lib.sh"
# shellcheck source=SCRIPTDIR/../../selftests/header.sh
. "$TOP/selftests/header.sh"

# The stand-in guest: records the tests it was given, then prints a result
# per test as FAKE_RESULT says (pass, skip-budget, none) and the kmemleak
# scan as FAKE_LEAK says (0: clean, 1: a leak).  FAKE_CRASH (int3: an int3
# oops in __schedule; int3-ours: with an mqstripe frame; panic: a NULL
# pointer oops) makes the first boot die during its second test;
# FAKE_CRASH=int3-task makes the int3 oops kill a task of the second test
# instead: the guest fails it and does not run the later ones.  Its
# run-vm options go to $FAKE_ARGS.opts, one line per boot; with
# --keep-images DIR it makes the six images there, unless FAKE_NO_IMAGES=1.
cat >"$TMP/runvm" <<'EOF'
#!/bin/bash
opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	[ "$1" = --keep-images ] && [ "${FAKE_NO_IMAGES:-0}" = 0 ] &&
		for n in 0 1 2 3 4 5; do : >"$2/nvme$n.img"; done
	opts+=("$1")
	shift
done
echo "${opts[*]}" >>"$FAKE_ARGS.opts"
shift 2	# -- selftests/run_guest.sh
echo "$*" >>"$FAKE_ARGS"
echo "TAP version 13"
if [ -n "$FAKE_CRASH" ] && [ ! -e "$FAKE_ARGS.booted" ]; then
	: >"$FAKE_ARGS.booted"
	echo "ok 1 selftests: mqstripe: $1 # 3s"
	echo "# selftests: mqstripe: $2"
	case $FAKE_CRASH in
	int3-task)
		echo "[   56.305443] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"
		echo "[   56.306101] RIP: 0010:blk_mq_submit_bio+0x11/0x6a0"
		echo "[   56.311588] Modules linked in: dm_mod mqstripe(OE) nvme"
		echo "[   56.311588] ---[ end trace 0000000000000000 ]---"
		echo "not ok 2 selftests: mqstripe: $2 # 26s; kernel log has warnings;kernel oops (taint D)"
		i=2
		for t in "${@:3}"; do
			i=$((i + 1))
			echo "not ok $i selftests: mqstripe: $t # not run: the kernel oopsed in $2"
		done
		exit 1 ;;
	int3*) echo "[   56.305443] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"
		echo "[   56.306101] RIP: 0010:__schedule+0x339/0xbf0"
		echo "[   56.307320]  schedule+0x27/0xc0"
		[ "$FAKE_CRASH" = int3-ours ] && echo "[   56.307321]  mqs_queue_rq+0x20/0x300 [mqstripe]"
		echo "[   56.311588] Modules linked in: dm_mod mqstripe(OE) nvme"
		echo "[   56.311588] ---[ end trace 0000000000000000 ]---" ;;
	*) echo "[   56.305443] BUG: kernel NULL pointer dereference, address: 0000000000000008"
		echo "[   56.306101] RIP: 0010:mqs_end_io+0x39/0xbf0 [mqstripe]" ;;
	esac
	echo "[   56.311851] Kernel panic - not syncing: Fatal exception in interrupt"
	exit 125
fi
echo "# kmemleak: a scan after the tests, after rmmod (kmemleak_final_scan)"
i=0
for t in "$@"; do
	i=$((i + 1))
	case $FAKE_RESULT in
	pass) echo "ok $i selftests: mqstripe: $t # 3s" ;;
	skip-budget) echo "ok $i selftests: mqstripe: $t # SKIP not started: the run's time budget ended" ;;
	esac
done
i=$((i + 1))
if [ "$FAKE_LEAK" = 1 ]; then
	echo "not ok $i selftests: mqstripe: kmemleak_final_scan # kmemleak: 1 unreferenced object"
	exit 1
fi
echo "ok $i selftests: mqstripe: kmemleak_final_scan"
EOF
chmod +x "$TMP/runvm"

# runner RESULT LEAK TEST...: run.sh with the stand-in; output in $TMP/out
runner() {
	local r=$1 l=$2
	shift 2
	rm -f "$TMP/args" "$TMP/args.booted" "$TMP/args.opts"
	TMPDIR=$TMP/work FAKE_RESULT=$r FAKE_LEAK=$l FAKE_ARGS=$TMP/args MQS_RUNVM=$TMP/runvm \
		bash "$TOP/selftests/run.sh" --kernel "$K" "$@" >"$TMP/out" 2>&1
}

echo "TAP version 13"
echo "1..49"
mkdir -p "$TMP/work"

runner pass 0 05 01 08
rc=$?
check "all passed, no leak: run.sh exits 0" [ $rc -eq 0 ]
check "the tests run in the order of the arguments (05 01 08)" \
	grep -qx 'test_05_fio_verify.sh test_01_load.sh test_08_flush_fua.sh' "$TMP/args"
check "the kmemleak scan is a result of its own, passed" \
	grep -qE "^ok [0-9]+ $K: kmemleak_final_scan \(main boot\)$" "$TMP/out"

runner pass 1 01
rc=$?
check "a leak found by the kmemleak scan: run.sh exits 1" [ $rc -eq 1 ]
check "a leak found by the kmemleak scan: its result is not ok, with the reason" \
	grep -qE "^not ok [0-9]+ $K: kmemleak_final_scan \(main boot\) # kmemleak: 1 unreferenced object$" "$TMP/out"
check "a leak found by the kmemleak scan: the summary counts 1 failure" \
	grep -qx '1 passed, 1 failed, 0 skipped' "$TMP/out"

runner skip-budget 0 01 05
rc=$?
[ $rc -eq 0 ] && grep -qx '1 passed, 0 failed, 2 skipped' "$TMP/out"
check "tests skipped for the time budget: exit 0, both counted skipped" [ $? = 0 ]

runner none 0 01
rc=$?
check "a test with no result line: run.sh exits 1" [ $rc -eq 1 ]
check "a test with no result line: not ok, 'no result from boot main'" \
	grep -qE "^not ok [0-9]+ $K: test_01_load # no result from boot main" "$TMP/out"

FAKE_CRASH=int3 runner pass 0 01 05 08 10
rc=$?
[ $rc -eq 0 ] && grep -qx '5 passed, 0 failed, 0 skipped' "$TMP/out"
check "an int3 oops outside mqstripe in the second test: exit 0, all 4 passed" [ $? = 0 ]
check "... booted again for the 3 tests without a result, the crashed one first" \
	grep -qx 'test_05_fio_verify.sh test_08_flush_fua.sh test_10_errors.sh' <(sed -n 2p "$TMP/args")
check "... and says so, with the oops" \
	grep -q "an int3 oops outside mqstripe.*booting again for the 3 tests it took, from test_05_fio_verify; the oops:" "$TMP/out"

FAKE_CRASH=int3-task runner pass 0 01 05 08
rc=$?
[ $rc -eq 0 ] && grep -qx '4 passed, 0 failed, 0 skipped' "$TMP/out"
check "an int3 oops outside mqstripe that killed a task of the second test: exit 0, all 3 passed" [ $? = 0 ]
check "... booted again for the test it failed and the one it left unrun" \
	grep -qx 'test_05_fio_verify.sh test_08_flush_fua.sh' <(sed -n 2p "$TMP/args")

FAKE_CRASH=int3-ours runner pass 0 01 05 08
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/args")" -eq 1 ]
check "an int3 oops with an mqstripe frame: not booted again, exit 1" [ $? = 0 ]
check "... the crashed and the later tests fail" \
	grep -qx '1 passed, 2 failed, 0 skipped' "$TMP/out"

FAKE_CRASH=panic runner pass 0 01 05
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/args")" -eq 1 ] &&
	grep -qE "^not ok [0-9]+ $K: test_05_fio_verify # no result from boot main \(guest exit 125" "$TMP/out"
check "another crash (NULL pointer in mqstripe): not booted again, exit 1" [ $? = 0 ]

# the boots of the real tests that do not run (only) in main
runner pass 0 03 16 31 32
check "the boots named in the tests' headers: 03 in main and lbs4k, 31 in poll, 16 in hotrm, 32 in pi" \
	cmp -s <(printf '%s\n' test_03_limits.sh test_03_limits.sh test_31_poll.sh \
		test_16_hot_remove.sh test_32_integrity.sh) "$TMP/args"

# the tests for the debug kernel only (# mqs-kernels: debug)
runner pass 0 01 14 21 33
rc=$?
[ $rc -eq 0 ] && grep -qx 'test_01_load.sh' "$TMP/args" &&
	grep -qx '2 passed, 0 failed, 3 skipped' "$TMP/out"
check "14, 21 and 33 (fault injection, '# mqs-kernels: debug') on another kernel: not sent to the guest, counted skipped" [ $? = 0 ]
check "... with the reason" grep -qx "ok [0-9]* $K: test_21_failslab # SKIP not for kernel $K: its header names the kernels it is for ('# mqs-kernels: debug')" "$TMP/out"

# the time budgets (header.sh test_timeout, what run_guest.sh gives each
# test): settings' 300 s, persist/test_04_cut's header 600 s, MQS_TIMEOUT
# over both
S=$TOP/selftests/settings
check "time budget of a test without a '# mqs-timeout:' line: settings' timeout=, 300" \
	[ "$(test_timeout "$TOP/selftests/persist/test_01_create.sh" "$S")" = 300 ]
check "time budget of persist/test_04_cut: 600 s, its header's" \
	[ "$(test_timeout "$TOP/selftests/persist/test_04_cut.sh" "$S")" = 600 ]
check "... MQS_TIMEOUT=50 overrides it" \
	[ "$(MQS_TIMEOUT=50 test_timeout "$TOP/selftests/persist/test_04_cut.sh" "$S")" = 50 ]
check "... no settings file: 300 s" \
	[ "$(test_timeout "$TOP/selftests/persist/test_01_create.sh" /nonexistent)" = 300 ]

# the persistence boots
P_CREATE="persist/test_01_create.sh persist/test_02_format.sh persist/test_03_force.sh persist/test_04_cut.sh persist/test_05_readonly.sh"
P_REBOOT="persist/test_11_reboot.sh persist/test_12_incremental.sh persist/test_13_refusals.sh persist/test_14_udev.sh"
runner pass 0 --boots persist
rc=$?
[ $rc -eq 0 ] && grep -qx '13 passed, 0 failed, 0 skipped' "$TMP/out" &&
	grep -qE "^ok [0-9]+ $K: persist/test_14_udev$" "$TMP/out"
check "--boots persist: exit 0, the 10 persistence tests and each boot's kmemleak scan passed" [ $? = 0 ]
check "... three boots: create, reboot and lbs4k, each with its tests, nothing else" \
	cmp -s <(printf '%s\n' "$P_CREATE" "$P_REBOOT" persist/test_21_lbs.sh) "$TMP/args"
# the boots' work directory: where the create boot keeps its images
W=$(sed -n '1s/.*--keep-images \([^ ]*\)\/img.*/\1/p' "$TMP/args.opts")
[ -n "$W" ] && sed -n 1p "$TMP/args.opts" | grep -q -- "--nvme 6 --nvme-size 320M --keep-images $W/img" &&
	sed -n 1p "$TMP/args.opts" | grep -q -- "--share $W/share --env MQS_PERSIST_DIR=$W/share"
check "... the create boot: 6 fresh images of 320M kept in a work directory, which it shares as MQS_PERSIST_DIR" [ $? = 0 ]
sed -n 2p "$TMP/args.opts" | grep -q -- "--share $W/share --env MQS_PERSIST_DIR=$W/share.* --udev --nvme-images $W/img/nvme3.img,$W/img/nvme2.img,$W/img/nvme1.img,$W/img/nvme0.img,$W/img/nvme4.img,$W/img/nvme5.img"
check "... the reboot boot: its images 3,2,1,0,4,5, udev, the same share" [ $? = 0 ]
sed -n 3p "$TMP/args.opts" | grep -q -- "--share $W/share --env MQS_PERSIST_DIR=$W/share.* --nvme-lbs 4096 --nvme-images $W/img/nvme0.img,$W/img/nvme1.img,$W/img/nvme2.img,$W/img/nvme3.img\( \|$\)"
check "... the lbs4k boot: images 0..3 with 4096-byte blocks, the same share" [ $? = 0 ]
check "... the work directory is removed after the run" [ ! -e "$W" ]

runner pass 0 01 05
grep -qx 'test_01_load.sh test_05_fio_verify.sh' "$TMP/args" && [ "$(wc -l <"$TMP/args")" -eq 1 ]
check "without --boots and no persistence test named: no persistence boot" [ $? = 0 ]

runner pass 0 persist/11 persist/test_21
rc=$?
[ $rc -eq 0 ] && cmp -s <(printf '%s\n' persist/test_01_create.sh persist/test_11_reboot.sh persist/test_21_lbs.sh) "$TMP/args"
check "persist/11 persist/test_21: test_01_create (their '# mqs-needs:') first, in the create boot" [ $? = 0 ]
check "... three results (and three kmemleak scans)" grep -qx '6 passed, 0 failed, 0 skipped' "$TMP/out"

FAKE_NO_IMAGES=1 runner pass 0 --boots persist
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/args")" -eq 1 ]
check "a create boot that left no images: exit 1, the later boots not booted" [ $? = 0 ]
grep -qx '6 passed, 5 failed, 0 skipped' "$TMP/out" &&
	grep -qE "^not ok [0-9]+ $K: persist/test_11_reboot # no result from boot persist-reboot \(guest exit 125" "$TMP/out"
check "... their 5 tests fail: no result (the create boot's 5 and its kmemleak scan passed)" [ $? = 0 ]

FAKE_CRASH=int3 runner pass 0 --boots persist
rc=$?
[ $rc -eq 1 ] && cmp -s <(printf '%s\n' "$P_CREATE" "$P_REBOOT" persist/test_21_lbs.sh) "$TMP/args" &&
	grep -qx '8 passed, 4 failed, 0 skipped' "$TMP/out"
check "an int3 oops outside mqstripe in the create boot: that boot is not booted again, its tests from the crashed one fail" [ $? = 0 ]

# made-up tests beside a copy of run.sh: TREE/selftests/NAME.sh with the
# header line HEAD and the body line BODY
TREE=$TMP/tree/selftests
mkdir -p "$TREE"
cp "$TOP/selftests/run.sh" "$TOP/selftests/header.sh" "$TREE/"
fake_test() {
	printf '#!/bin/bash\n#\n%s\n\n%s\n' "$2" "${3:-true}" >"$TREE/$1.sh"
}
fake_test test_01_plain "# a test with no boot line"
fake_test test_02_poll "# mqs-boots: poll"
fake_test test_03_two "# mqs-boots:   main lbs4k "
fake_test test_04_body "# its boot line is not in the header" "# mqs-boots: pi"
# tree_runner [ARG...]: the copy of run.sh on the made-up tests; output in $TMP/out
tree_runner() {
	rm -f "$TMP/args"
	TMPDIR=$TMP/work FAKE_RESULT=pass FAKE_LEAK=0 FAKE_ARGS=$TMP/args MQS_RUNVM=$TMP/runvm \
		bash "$TREE/run.sh" --kernel "$K" "$@" >"$TMP/out" 2>&1
}
tree_runner
rc=$?
check "made-up tests with and without a boot line: exit 0" [ $rc -eq 0 ]
check "... main boots the tests without one and those naming it, lbs4k and poll theirs, only the header is read" \
	cmp -s <(printf '%s\n' "test_01_plain.sh test_03_two.sh test_04_body.sh" \
		test_03_two.sh test_02_poll.sh) "$TMP/args"
check "... a test in two boots is one result" \
	grep -qE "^ok [0-9]+ $K: test_03_two$" "$TMP/out"
mkdir -p "$TREE/persist"
fake_test persist/test_01_rec "# mqs-boots: persist-create"
fake_test persist/test_02_after "# mqs-boots: persist-create"
fake_test persist/test_11_read "# mqs-boots: persist-reboot
# mqs-needs: persist/test_01_rec"
tree_runner
[ "$(wc -l <"$TMP/args")" -eq 3 ] && ! grep -q persist "$TMP/args"
check "... a made-up persistence test: not booted without --boots persist or its name" [ $? = 0 ]
tree_runner persist/test_11_read
check "... named: booted with the test its '# mqs-needs:' line names, before it, in their boots" \
	cmp -s <(printf '%s\n' persist/test_01_rec.sh persist/test_11_read.sh) "$TMP/args"
rm -r "$TREE/persist"

fake_test test_05_typo "# mqs-boots: main pol"
tree_runner
rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/args" ]
check "a boot line naming no boot: exit 2, no guest booted" [ $? = 0 ]
check "... one line naming the test, the name and the boots there are" \
	grep -qx "run.sh: test_05_typo.sh: '# mqs-boots:' names no boot 'pol': name one or more of main lbs4k poll hotrm pi persist-create persist-reboot persist-lbs4k" "$TMP/out"
# refused DESC TEST MESSAGE: the copy of run.sh on the made-up tests
# exits 2 with the one line "run.sh: TEST.sh: MESSAGE", no guest booted
refused() {
	tree_runner
	local rc=$?
	[ $rc -eq 2 ] && [ ! -e "$TMP/args" ] && grep -qx "run.sh: $2.sh: $3" "$TMP/out"
	check "$1: exit 2 with a message, no guest booted" [ $? = 0 ]
}
fake_test test_05_typo "# mqs-boots:"
refused "an empty boot line" test_05_typo \
	"its '# mqs-boots:' line names no boot: name one or more of main lbs4k poll hotrm pi persist-create persist-reboot persist-lbs4k, or drop the line (main)"
rm "$TREE/test_05_typo.sh"

fake_test test_06_mine "# mqs-kernels: 6.1 hosttest"
fake_test test_07_other "# mqs-kernels: 6.1 debug hosttes"
tree_runner 06 07
rc=$?
[ $rc -eq 0 ] && grep -qx 'test_06_mine.sh' "$TMP/args"
check "'# mqs-kernels: 6.1 hosttest' runs on kernel $K (the word and '-'), 'hosttes' does not: only 06 booted" [ $? = 0 ]
grep -qx '2 passed, 0 failed, 1 skipped' "$TMP/out" &&
	grep -qx "ok [0-9]* $K: test_07_other # SKIP not for kernel $K: its header names the kernels it is for ('# mqs-kernels: 6.1 debug hosttes')" "$TMP/out"
check "... 07 counted skipped, with the reason" [ $? = 0 ]
fake_test test_07_other "# mqs-kernels:"
refused "an empty kernels line" test_07_other \
	"its '# mqs-kernels:' line names no kernel: name one or more of 6.1 6.12 debug, or drop the line (every kernel)"
fake_test test_07_other "# mqs-timeout: 10m"
refused "a time budget that is no number" test_07_other \
	"its '# mqs-timeout:' line is '10m', not a number of seconds: give one (e.g. '# mqs-timeout: 600') or drop the line (timeout= of settings)"
fake_test test_07_other "# mqs-timeout: 600" "# mqs-kernels: debug"
tree_runner 07
rc=$?
[ $rc -eq 0 ] && grep -qx 'test_07_other.sh' "$TMP/args"
check "a valid time budget; a kernels line below the header is not read" [ $? = 0 ]

[ $fail -eq 0 ] || { echo "# run.sh's output of the last case:"; sed 's/^/#   /' "$TMP/out"; }
[ "$fail" -eq 0 ]
