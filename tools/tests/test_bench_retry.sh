#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/bench.sh's boot loop without QEMU: a stand-in for run-vm.sh
# (MQS_RUNVM) writes a guest console and exits as FAKE_MODE says, and the
# checks are on what bench.sh makes of it:
#  - the known crash of Debian's 6.12 under TCG (a double fault in
#    kmem_cache_alloc_noprof(), seen also with no mqstripe loaded) boots
#    the setup again, keeps that console, counts it, and names the step;
#    so does the same fault in the other slab fast path,
#    __kmalloc_cache_noprof();
#  - at most twice: a third such crash fails the run;
#  - any other crash (here an Oops in mqstripe's IO path) fails the run at
#    once, no second boot.
# Prints KTAP.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=SCRIPTDIR/check_lib.sh
. "$TOP/tools/tests/check_lib.sh"

# The stand-in guest.  FAKE_MODE: df-once (the first boot dies of the known
# double fault in md's step, the next one exits 0), df-kmalloc (the same
# with RIP in __kmalloc_cache_noprof), df-always, other (an Oops in
# mqstripe's IO path).
cat >"$TMP/runvm" <<'EOF'
#!/bin/bash
log=/dev/null
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	[ "$1" = --console-log ] && log=$2
	shift
done
boot=$(($(cat "$FAKE_BOOTS" 2>/dev/null || echo 0) + 1))
echo "$boot" >"$FAKE_BOOTS"
if { [ "$FAKE_MODE" = df-once ] || [ "$FAKE_MODE" = df-kmalloc ]; } && [ "$boot" -gt 1 ]; then
	echo "bench: setup b done" >"$log"
	exit 0
fi
{
	echo "bench: [0:39 elapsed, ~22:06 left] setup b: rep 1/3 W7 W4 W3 W8 on mqstripe (4 members, chunk 4K)"
	if [ "$FAKE_MODE" = other ]; then
		echo "[   58.100000] BUG: kernel NULL pointer dereference, address: 0000000000000008"
		echo "[   58.100100] Oops: 0000 [#1] PREEMPT SMP NOPTI"
		echo "[   58.100200] RIP: 0010:mqs_end_io+0x1c/0x90 [mqstripe]"
	else
		echo "bench: [0:52 elapsed, ~20:30 left] setup b: rep 1/3 W7 W4 W3 W8 on md raid0 (4 members, chunk 4K)"
		echo "[   59.144654] traps: PANIC: double fault, error_code: 0x0"
		echo "[   59.147150] Oops: double fault: 0000 [#1] PREEMPT SMP NOPTI"
		if [ "$FAKE_MODE" = df-kmalloc ]; then
			echo "[   59.148455] RIP: 0010:__kmalloc_cache_noprof+0x8e/0x300"
		else
			echo "[   59.148455] RIP: 0010:kmem_cache_alloc_noprof+0x6b/0x2f0"
		fi
	fi
	echo "[   59.152000] Kernel panic - not syncing: Fatal exception in interrupt"
} >"$log"
exit 125
EOF
chmod +x "$TMP/runvm"

# bench MODE: bench.sh on setup b with the stand-in; output in $TMP/out,
# results in $TMP/res-MODE
bench() {
	rm -f "$TMP/boots"
	FAKE_MODE=$1 FAKE_BOOTS=$TMP/boots MQS_RUNVM=$TMP/runvm QUICK=1 \
		BENCH_SETUPS=b BENCH_OUT=$TMP/res-$1 \
		bash "$TOP/tools/bench/bench.sh" >"$TMP/out" 2>&1
}
boots() { cat "$TMP/boots" 2>/dev/null; }
hostjson() { tr -d ' ' <"$TMP/res-$1/raw/host-b.json"; }

echo "TAP version 13"
echo "1..10"

bench df-once
check "the known crash: the setup is booted again (2 boots)" \
	[ "$(boots)" = 2 ]
check "the known crash: its console is kept as console-b-known-crash1.log" \
	grep -q "Oops: double fault" "$TMP/res-df-once/raw/console-b-known-crash1.log"
check "the known crash: host-b.json has rc 0 and known_crashes 1" \
	grep -q '"rc":0,.*"known_crashes":1}' <<<"$(hostjson df-once)"
check "the known crash: bench.sh says so and names the step it hit" \
	grep -q "died of the known emulation crash .* at: b: rep 1/3 W7 W4 W3 W8 on md raid0 (4 members, chunk 4K); running the setup again" "$TMP/out"

bench df-kmalloc
check "the same fault in __kmalloc_cache_noprof: booted again (2 boots)" \
	[ "$(boots)" = 2 ]
check "the same fault in __kmalloc_cache_noprof: host-b.json has rc 0 and known_crashes 1" \
	grep -q '"rc":0,.*"known_crashes":1}' <<<"$(hostjson df-kmalloc)"

bench df-always
rc=$?
check "the known crash every time: 3 boots, then the run fails (exit 1)" \
	[ "$(boots)" = 3 ] && [ $rc -eq 1 ]
check "the known crash every time: host-b.json has rc 125 and known_crashes 2" \
	grep -q '"rc":125,.*"known_crashes":2}' <<<"$(hostjson df-always)"

bench other
rc=$?
check "another crash (an Oops in mqstripe): no second boot, the run fails (exit 1)" \
	[ "$(boots)" = 1 ] && [ $rc -eq 1 ]
check "another crash: host-b.json has rc 125 and known_crashes 0" \
	grep -q '"rc":125,.*"known_crashes":0}' <<<"$(hostjson other)"

[ $fail -eq 0 ] || { echo "# bench.sh's output of the last case:"; sed 's/^/#   /' "$TMP/out"; }
[ "$fail" -eq 0 ]
