#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of selftests/kmsg.py, the kernel-log scanner of the selftests.

Every report the guests must fail on (the kernel's own wording, as 6.1 and
6.12 print it: KASAN, lockdep, UBSAN, kmemleak, hung tasks, RCU stalls,
sleeping in atomic context, oopses, ...) is flagged; the ordinary lines the
tests cause (IO errors of fault injection, mounts, device messages, the
suite's own marks) are not.  A known kernel bug outside mqstripe that a
caller allows (null_blk's bandwidth timer warning) is left out only as a
whole report with its own call-trace frame.  Then the kmemleak report
parser: which unreferenced objects count as leaks of the run.  Prints KTAP.
"""
import contextlib
import importlib.util
import io
import os
import sys
import tempfile

TOP = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
spec = importlib.util.spec_from_file_location(
    "kmsg", os.path.join(TOP, "selftests", "kmsg.py"))
kmsg = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kmsg)

n = 0
failed = 0


def result(ok, name):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print("%s %d %s" % ("ok" if ok else "not ok", n, name))


BAD = [
    # KASAN, KFENCE, oopses
    "BUG: KASAN: slab-use-after-free in mqs_end_io+0x1c/0x80 [mqstripe]",
    "BUG: KASAN: null-ptr-deref in mqs_queue_rq+0x3e/0x2a0 [mqstripe]",
    "BUG: KFENCE: out-of-bounds read in mqs_map+0x10/0x40 [mqstripe]",
    "Oops: general protection fault, probably for non-canonical address "
    "0xdffffc0000000001: 0000 [#1] PREEMPT SMP KASAN NOPTI",
    "BUG: kernel NULL pointer dereference, address: 0000000000000008",
    "kernel BUG at block/blk-mq.c:1234!",
    "Kernel panic - not syncing: Fatal exception",
    "WARNING: CPU: 1 PID: 345 at block/genhd.c:670 del_gendisk+0x6c/0x3a0",
    "list_add corruption. prev->next should be next (ffff888100c4a000), "
    "but was 0000000000000000. (prev=ffff888100c4a008).",
    "refcount_t: underflow; use-after-free.",
    "watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [fio:1234]",
    # lockdep
    "WARNING: possible circular locking dependency detected",
    "WARNING: inconsistent lock state",
    "WARNING: possible recursive locking detected",
    "WARNING: possible irq lock inversion dependency detected",
    "WARNING: suspicious RCU usage",
    "WARNING: bad unlock balance detected!",
    "WARNING: held lock freed!",
    "WARNING: lock held when returning to user space!",
    "[ BUG: Invalid wait context ]",
    "DEBUG_LOCKS_WARN_ON(lock->magic != lock)",
    "INFO: lockdep is turned off.",
    "Disabling lock debugging due to kernel taint",
    # wording without the usual prefix must still be caught
    "possible circular locking dependency detected",
    "inconsistent lock state",
    "sleeping function called from invalid context at block/blk-core.c:1123",
    # might_sleep
    "BUG: sleeping function called from invalid context at "
    "kernel/locking/mutex.c:585",
    "BUG: scheduling while atomic: fio/1234/0x00000002",
    # UBSAN
    "UBSAN: shift-out-of-bounds in module/mqs_io.c:120:3",
    "UBSAN: array-index-out-of-bounds in module/mqs_array.c:88:12",
    # kmemleak
    "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
    "unreferenced object 0xffff888104e6a000 (size 256):",
    # hung tasks, RCU stalls
    "INFO: task fio:1234 blocked for more than 120 seconds.",
    "INFO: task kworker/u8:3:88 blocked for more than 241 seconds.",
    "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    "rcu: INFO: rcu_preempt self-detected stall on CPU",
    "rcu: rcu_preempt kthread starved for 10502 jiffies! g1234 f0x0 "
    "RCU_GP_WAIT_FQS(5) ->state=0x0 ->cpu=0",
    "INFO: rcu_tasks detected stalls on tasks:",
]

GOOD = [
    "nvme nvme0: 4/0/0 default/read/poll queues",
    "XFS (mqstripe0): Mounting V5 Filesystem 0f6e3b52-3a45-4bb8-9b5e-8c5e2c1d2f3a",
    "XFS (mqstripe0): Ending clean mount",
    "EXT4-fs (mqstripe0): mounted filesystem 3d1c-11 r/w with ordered data mode. "
    "Quota mode: none.",
    "mqstripe: loading out-of-tree module taints kernel.",
    "I/O error, dev nvme1n1, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 "
    "prio class 0",
    "Buffer I/O error on dev mqstripe0, logical block 0, async page read",
    "blk_print_req_error: 11 callbacks suppressed",
    "nvme nvme2: I/O tag 12 (100c) opcode 0x2 (I/O Cmd) QID 1 timeout, aborting",
    "device-mapper: ioctl: 4.48.0-ioctl (2023-03-01) initialised: "
    "dm-devel@lists.linux.dev",
    "null_blk: disk nullb0 created",
    "md127: detected capacity change from 0 to 2097152",
    "FAULT_INJECTION: forcing a failure.",
    "name fail_make_request, interval 1, probability 100, space 0, times 1",
    "CPU: 1 UID: 0 PID: 412 Comm: fio Not tainted 6.12.117 #1",
    "Call Trace:",
    "random: crng init done",
    "mqstripe-selftest: start test_10_errors.sh",
    # the suite's marks may say anything
    "mqstripe-selftest: expect a WARNING: and a BUG: here",
]

for line in BAD:
    result(kmsg.bad(line), "flagged: %s" % line[:70])
for line in GOOD:
    result(not kmsg.bad(line), "not flagged: %s" % line[:70])

# null_blk's bandwidth timer warning, as 6.12 prints it (first lines from
# a bench guest with mbps=26 members)
BW_HEAD = ("WARNING: CPU: 1 PID: 389 at kernel/time/hrtimer.c:1056 "
           "hrtimer_forward+0x7b/0xc0")
BW_TRACE = [
    "------------[ cut here ]------------",
    BW_HEAD,
    "Modules linked in: raid0 md_mod null_blk mqstripe(OE) dm_mod configfs",
    "CPU: 1 UID: 0 PID: 389 Comm: fio Tainted: G           OE      "
    "6.12.118+deb12-amd64 #1  Debian 6.12.118-1~deb12u1",
    "Tainted: [O]=OOT_MODULE, [E]=UNSIGNED_MODULE",
    "RIP: 0010:hrtimer_forward+0x7b/0xc0",
    "RSP: 0000:ffffc903804cbe60 EFLAGS: 00000002",
    "Call Trace:",
    " <IRQ>",
    " ? __warn+0x89/0x130",
    " ? hrtimer_forward+0x7b/0xc0",
    " nullb_bwtimer_fn+0x58/0x80 [null_blk]",
    " ? __pfx_nullb_bwtimer_fn+0x10/0x10 [null_blk]",
    " __hrtimer_run_queues+0x112/0x2a0",
    " hrtimer_interrupt+0xf4/0x250",
    " </IRQ>",
    "---[ end trace 0000000000000000 ]---",
]
OTHER = "WARNING: CPU: 0 PID: 77 at block/blk-mq.c:1234 blk_mq_end_request+0x10/0x80"
BW = "null_blk-bw-timer"


def scan(msgs, allow=()):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = kmsg.show_bad(msgs, allow)
    return rc, out.getvalue()


rc, _ = scan(BW_TRACE)
result(rc == 1, "null_blk bandwidth timer warning: bad when not allowed")
rc, out = scan(BW_TRACE, [BW])
result(rc == 0 and out == "", "null_blk bandwidth timer warning: not bad when allowed (got %r)" % out[:80])
k = kmsg.known_reports(BW_TRACE, [BW])
result(k == [(BW, 1, len(BW_TRACE) - 1)], "known_reports finds it whole (got %r)" % k)
# the warning as the bench saw it under a deep task stack: the IRQ part,
# the interrupted task's registers and its 90-odd frames (fio in io_uring
# through mqstripe into null_blk) put the end-trace line well past 80 lines
DEEP = (BW_TRACE[:-1] + [" <TASK>", " asm_sysvec_apic_timer_interrupt+0x1a/0x20",
                         "RIP: 0010:null_handle_cmd+0x3c/0x240 [null_blk]",
                         "RSP: 0018:ffffcfba80eb3a30 EFLAGS: 00000246"]
        + [" ? frame_%d+0x10/0x20" % n for n in range(90)]
        + [" </TASK>", BW_TRACE[-1]])
rc, out = scan(DEEP, [BW])
result(rc == 0 and out == "",
       "a whole report with a %d-line trace is not bad when allowed (got %r)" % (len(DEEP), out[:80]))
k = kmsg.known_reports(DEEP, [BW])
result(k == [(BW, 1, len(DEEP) - 1)], "known_reports finds the long report whole (got %r)" % k)
rc, out = scan(DEEP[:-1] + [OTHER, "---[ end trace 0000000000000000 ]---"], [BW])
result(rc == 1 and BW_HEAD in out and OTHER in out,
       "a long report cut by another WARNING before its end-trace line is bad")
theirs = [m.replace("nullb_bwtimer_fn", "mqs_timer_fn").replace("[null_blk]", "[mqstripe]")
          for m in BW_TRACE]
rc, out = scan(theirs, [BW])
result(rc == 1 and BW_HEAD in out,
       "the same warning from another timer function is bad although allowed")
rc, out = scan(BW_TRACE[:-1] + ["md127: detected capacity change"], [BW])
result(rc == 1, "a report without its end-trace line is bad although allowed")
rc, out = scan(BW_TRACE + ["Call Trace:", OTHER, "---[ end trace 0000000000000000 ]---"], [BW])
result(rc == 1 and OTHER in out and BW_HEAD not in out,
       "another WARNING after an allowed report is bad, and only it is shown")
rc, out = scan([OTHER] + BW_TRACE, [BW])
result(rc == 1 and OTHER in out and BW_HEAD not in out,
       "a WARNING just before an allowed report is shown without it")
# a WARNING raised on corrupted emulated CPU state (bench setup d under
# QEMU -icount): its saved EFLAGS has reserved bits set
TCG = "tcg-eflags"
TCG_TRACE = [
    "------------[ cut here ]------------",
    "WARNING: CPU: 0 PID: 306 at lib/sbitmap.c:556 sbitmap_queue_get_shallow+0x10/0x20",
    "RIP: 0010:sbitmap_queue_get_shallow+0x10/0x20",
    "RSP: 0018:ffffd48780467a00 EFLAGS: 54ec5697",
    "RAX: 0000000000000011 RBX: ffffd48780467af8 RCX: ffffd48780467af8",
    "Call Trace:",
    " <TASK>",
    " blk_mq_get_tag+0x24f/0x2a0",
    " __blk_mq_alloc_requests+0x1b3/0x520",
    "RSP: 002b:00007f0ecc722660 EFLAGS: 00000246 ORIG_RAX: 00000000000001aa",
    " </TASK>",
    "---[ end trace 0000000000000000 ]---",
]
rc, _ = scan(TCG_TRACE)
result(rc == 1, "a WARNING with garbage EFLAGS: bad when not allowed")
rc, out = scan(TCG_TRACE, [TCG])
result(rc == 0 and out == "", "a WARNING with garbage EFLAGS: not bad when allowed (got %r)" % out[:80])
for flags in ("00010246", "00200286", "0000000000010246"):
    sane = [m.replace("EFLAGS: 54ec5697", "EFLAGS: " + flags) for m in TCG_TRACE]
    rc, out = scan(sane, [TCG])
    result(rc == 1 and "sbitmap_queue_get_shallow" in out,
           "the same WARNING with valid EFLAGS %s is bad although allowed" % flags)
for flags in ("00400246", "100010246"):
    odd = [m.replace("EFLAGS: 54ec5697", "EFLAGS: " + flags) for m in TCG_TRACE]
    rc, out = scan(odd, [TCG])
    result(rc == 0, "EFLAGS %s (a reserved bit set) is taken as corrupted" % flags)
try:
    kmsg.known_reports(BW_TRACE, ["no-such-bug"])
    result(False, "an unknown bug name is refused")
except ValueError:
    result(True, "an unknown bug name is refused")

# kmemleak: which reported objects are leaks of the run (since jiffies S)
S = 4294900000
REPORT = """unreferenced object 0xffff888104e6a000 (size 256):
  comm "stripectl", pid 412, jiffies 4294950000
  hex dump (first 32 bytes):
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................
  backtrace (crc 5d4e3f2a):
    __kmalloc_cache_noprof+0x2e7/0x3a0
    mqs_array_create+0x1a2/0x9c0 [mqstripe]
    mqs_ctl_ioctl+0x3c1/0x8d0 [mqstripe]
unreferenced object 0xffff888100200000 (size 64):
  comm "swapper/0", pid 1, jiffies 4294667400
  hex dump (first 32 bytes):
    6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b  kkkkkkkkkkkkkkkk
  backtrace (crc 11):
    kmalloc_trace_noprof+0x27/0x40
    acpi_os_allocate_zeroed+0x1c/0x30
unreferenced object 0xffff888100300000 (size 128):
  comm "kworker/1:2", pid 88, jiffies 4294960000
  backtrace (crc 1):
    __kmalloc_noprof+0x1f0/0x3a0
    0xffffffffc0123456
unreferenced object 0xffff888100400000 (size 32):
  comm "insmod", pid 300, jiffies 4294800000
  backtrace (crc 2):
    kmalloc_trace_noprof+0x27/0x40
    mqs_init+0x40/0x100 [mqstripe]
"""
reports = kmsg.leak_reports(REPORT)
result(len(reports) == 4, "kmemleak: 4 objects parsed (got %d)" % len(reports))
result([r[0] for r in reports] == [4294950000, 4294667400, 4294960000, 4294800000],
       "kmemleak: allocation jiffies parsed")
verdict = [kmsg.ours(r, S) for r in reports]
result(verdict == [True, False, True, True],
       "kmemleak: ours = named mqstripe or allocated after the start (got %s)" % verdict)

with tempfile.NamedTemporaryFile("w", suffix=".kmemleak") as f:
    f.write(REPORT)
    f.flush()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = kmsg.leaks(S, f.name)
    text = out.getvalue()
    result(rc == 1, "leaks exits 1 when the run leaked")
    result(text.count("unreferenced object") == 3 and "0xffff888100200000" not in text,
           "leaks prints the 3 objects of the run, not the early-boot one")
    result("and 1 older objects" in text, "leaks counts the older object")
    result("mqs_array_create+0x1a2/0x9c0 [mqstripe]" in text,
           "leaks prints the backtrace")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = kmsg.leaks(S, f.name, [(4294955000, "test_02"), (4294940000, "test_01")])
    text = out.getvalue()
    result("0xffff888104e6a000 (size 256): [allocated +50.0 s after the start, "
           "during test_01]" in text, "leaks names the test of each allocation")
    result(text.splitlines()[-1] == "leaked: test_01 x1, test_02 x1, before the first test x1",
           "leaks ends with a summary by test (got %r)" % text.splitlines()[-1])
    f.seek(0)
    f.truncate()
    early = REPORT.split("unreferenced object ")[2]
    f.write("unreferenced object " + early)
    f.flush()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = kmsg.leaks(S, f.name)
    result(rc == 0, "leaks exits 0 when only early-boot objects are reported")
    f.seek(0)
    f.truncate()
    f.flush()
    with contextlib.redirect_stdout(io.StringIO()):
        rc = kmsg.leaks(S, f.name)
    result(rc == 0, "leaks exits 0 on an empty report")

print("1..%d" % n)
sys.exit(1 if failed else 0)
