#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Kernel log by sequence number, for the mqstripe selftests.

  kmsg.py mark TEXT   write TEXT to /dev/kmsg, print the record's sequence
  kmsg.py since SEQ   print the messages logged after record SEQ
  kmsg.py scan SEQ [--allow NAME]...
                      print the bad lines logged after SEQ (WARNING, BUG,
                      Oops, hung tasks, RCU stalls, UBSAN, KASAN, lockdep,
                      sleeping in atomic context, leaks); exit 1 if any.
                      --allow NAME: a whole report of the known kernel bug
                      NAME outside mqstripe (see KNOWN) is not bad
  kmsg.py scan-file FILE [--allow NAME]...
                      the same for a saved kernel log, one message per
                      line (journalctl -k -o cat of a systemd guest)
  kmsg.py known SEQ NAME...
                      print "NAME: first line" for each report of the
                      known kernel bugs NAME logged after SEQ
  kmsg.py serve       answer requests on stdin, one a line, fields split
                      by tabs: "mark TEXT", "scan SEQ" (as above) and
                      "busy DEV..." (print the devices an O_EXCL open
                      refuses: claimed; status 1 if any); after each
                      answer a line "\x1eSTATUS" (2: the request failed,
                      why is printed).  One process for a test's many
                      marks and checks (lib.sh pyd_start: a process start
                      costs about 0.5 s under TCG)
  kmsg.py jiffies     print the kernel's jiffies (from /proc/timer_list)
  kmsg.py leaks JIFFIES [FILE [JIFFIES=NAME...]]
                      print the kmemleak reports of FILE (default
                      /sys/kernel/debug/kmemleak; write "scan" to it first,
                      twice: kmemleak reports an object only once it has
                      seen it unchanged in two scans) for objects allocated
                      at or after JIFFIES or whose report mentions mqstripe,
                      each with the NAME (a test) whose JIFFIES (its start)
                      came last before the allocation, then a summary line
                      "leaked: NAME xN, ..."; exit 1 if there is any

/dev/kmsg hands out one record per read() with its sequence number, so a
mark stays findable even when the ring buffer wraps (EPIPE: skipped).
"""
import errno
import os
import re
import sys

# Case-insensitive "bug"/"leak" would also catch harmless words; the
# upper-case forms are what the kernel prints for real reports.  Most
# lockdep and might_sleep reports start with "WARNING:" or "BUG:", but
# their own words are listed too, so that a report whose first line
# differs (another kernel's wording, a prefix) is still caught.
CASE_SENSITIVE = re.compile(r"\bBUG\b|Oops|UBSAN:|KASAN|KFENCE|WARNING:")
INSENSITIVE = re.compile(
    r"INFO: task .* blocked for more than|rcu.*stall|kmemleak|\bleak"
    r"|unreferenced object|soft lockup|hard lockup"
    r"|general protection fault|kernel panic|list_(add|del) corruption"
    r"|refcount_t:|stack-protector"
    # lockdep
    r"|possible circular locking|inconsistent lock state"
    r"|possible recursive locking|possible irq lock inversion"
    r"|suspicious RCU usage|bad unlock balance|held lock freed"
    r"|lock held when returning to user space|invalid wait context"
    r"|DEBUG_LOCKS_WARN_ON|lockdep is turned off"
    r"|Disabling lock debugging"
    # might_sleep and friends
    r"|sleeping function called from invalid context"
    r"|scheduling while atomic|rcu_sched kthread starved"
    r"|rcu_preempt kthread starved", re.IGNORECASE)


# Known kernel bugs outside mqstripe that a test fixture can provoke, by
# name: what the report's first line matches, a call-trace frame the same
# report must show before its "---[ end trace" line, and where the bug is.
# Only callers that name one with --allow accept it, and they record it.
KNOWN = {
    "null_blk-bw-timer": (
        re.compile(r"WARNING: .* at kernel/time/hrtimer\.c:\d+ "
                   r"hrtimer_forward\+"),
        re.compile(r"\bnullb_bwtimer_fn\+0x[0-9a-f]+/0x[0-9a-f]+ \[null_blk\]"),
        "null_blk with mbps= (drivers/block/null_blk/main.c, 6.1 to 6.18): "
        "null_handle_throttled() tests hrtimer_active(&nullb->bw_timer) "
        "and then calls hrtimer_restart() unlocked; when that CPU stalls "
        "between the two for a timer interval while another CPU started "
        "the timer, the restart queues it under nullb_bwtimer_fn(), whose "
        "hrtimer_forward_now() then warns that the timer is queued "
        "(kernel/time/hrtimer.c) and leaves it as queued: one early "
        "refill of the bandwidth budget"),
    "tcg-eflags": (
        re.compile(r"WARNING: CPU: \d+ PID: \d+ at "),
        # bits 22-63 of RFLAGS are reserved, always zero on a real CPU
        # (above 0x3fffff, leading zeros aside)
        re.compile(r"\bEFLAGS: 0*"
                   r"(?:[1-9a-f][0-9a-f]{6,}|[4-9a-f][0-9a-f]{5})\b"),
        "a WARNING whose saved EFLAGS has reserved bits set, which no CPU "
        "saves: the emulated CPU's state was corrupted (QEMU TCG, seen under "
        "-icount in bench setup d with garbage in other registers too, the "
        "same fault as the known double fault of setup b: "
        "tools/bench/README.md, \"Known crash\"); the warning's condition "
        "was evaluated on garbage"),
}
END_TRACE = re.compile(r"^---\[ end trace [0-9a-f]+ \]---")
# the first line of another report: a known report that reaches one before
# its end-trace line is not whole
REPORT_START = re.compile(r"^(?:-+\[ cut here \]-+|WARNING: |BUG: |Oops: "
                          r"|general protection fault|Kernel panic)")
# an upper bound on one report's lines (registers, the IRQ and the task
# stacks: the unwinder prints at most a few hundred frames)
REPORT_LINES = 1000


def records():
    """Yield (seq, message) for every record in the ring buffer."""
    fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    try:
        while True:
            try:
                rec = os.read(fd, 8192)
            except OSError as e:
                if e.errno == errno.EAGAIN:
                    return
                if e.errno == errno.EPIPE:  # overwritten: go on
                    continue
                raise
            text = rec.decode("utf-8", "replace")
            head, _, body = text.partition(";")
            fields = head.split(",")
            try:
                seq = int(fields[1])
            except (IndexError, ValueError):
                continue
            # continuation lines (" KEY=value") are dictionary data
            msg = body.split("\n", 1)[0]
            yield seq, msg
    finally:
        os.close(fd)


def bad(msg):
    if "mqstripe-selftest:" in msg:
        return False
    return bool(CASE_SENSITIVE.search(msg) or INSENSITIVE.search(msg))


def jiffies():
    """The kernel's jiffies now (/proc/timer_list prints them)."""
    with open("/proc/timer_list") as f:
        for line in f:
            if line.startswith("jiffies: "):
                return int(line.split()[1])
    raise RuntimeError("no jiffies in /proc/timer_list")


LEAK_HEAD = re.compile(r"^unreferenced object (0x[0-9a-f]+) \(size (\d+)\):")
LEAK_COMM = re.compile(r'^\s+comm "(.*)", pid (\d+), jiffies (\d+)')


def leak_reports(text):
    """Split kmemleak's report into (jiffies or None, lines) per object."""
    reports = []
    for line in text.splitlines():
        if LEAK_HEAD.match(line):
            reports.append([None, [line]])
        elif reports:
            reports[-1][1].append(line)
            m = LEAK_COMM.match(line)
            if m and reports[-1][0] is None:
                reports[-1][0] = int(m.group(3))
    return [(j, lines) for j, lines in reports]


def ours(report, since):
    """A leak of the run: allocated at or after SINCE (jiffies), or by
    mqstripe (the report names the module while it is loaded; after rmmod
    its frames are bare addresses, hence the allocation time)."""
    j, lines = report
    if any("mqstripe" in line for line in lines):
        return True
    return j is None or j >= since


def during(j, marks):
    """The name of the last mark (jiffies, name) at or before jiffies J."""
    name = None
    for mj, mname in sorted(marks):
        if j is not None and mj <= j:
            name = mname
    return name or "before the first test"


def leaks(since, path, marks=()):
    with open(path, errors="replace") as f:
        reports = leak_reports(f.read())
    found = [r for r in reports if ours(r, since)]
    count = {}
    for j, lines in found:
        name = during(j, marks)
        count[name] = count.get(name, 0) + 1
        when = "?" if j is None else "%+.1f s" % ((j - since) / HZ)
        print("%s [allocated %s after the start, during %s]" % (lines[0], when, name))
        for line in lines[1:]:
            print(line)
    if len(reports) > len(found):
        print("(and %d older objects, allocated before the start: not counted)"
              % (len(reports) - len(found)))
    if found:
        print("leaked: " + ", ".join("%s x%d" % (n, c) for n, c in count.items()))
    return 1 if found else 0


# CONFIG_HZ of the debug kernel: only used to print ages
HZ = 1000


def mark(text):
    """Write TEXT to /dev/kmsg, print the record's sequence; 0 or 1."""
    with open("/dev/kmsg", "w") as f:
        f.write(text + "\n")
    seq = None
    for s, msg in records():
        if msg.endswith(text):
            seq = s
    if seq is None:
        sys.stderr.write("kmsg.py: mark not found in /dev/kmsg\n")
        return 1
    print(seq)
    return 0


def busy(devs):
    """Print the devices an O_EXCL open refuses; 1 if any."""
    rc = 0
    for d in devs:
        try:
            os.close(os.open(d, os.O_RDONLY | os.O_EXCL))
        except OSError:
            print(d)
            rc = 1
    return rc


def serve():
    """The requests of "serve" (see the usage above) until end of input."""
    for line in sys.stdin:
        args = line.rstrip("\n").split("\t")
        try:
            if args[0] == "mark" and len(args) == 2:
                rc = mark(args[1])
            elif args[0] == "scan" and len(args) == 2:
                rc = show_bad([m for s, m in records() if s > int(args[1])])
            elif args[0] == "busy":
                rc = busy(args[1:])
            else:
                print("kmsg.py serve: bad request %r" % line)
                rc = 2
        except Exception as e:  # answer it: the caller must see it fail
            print("kmsg.py serve: %r: %s" % (line, e))
            rc = 2
        print("\x1e%d" % rc, flush=True)
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "serve":
        return serve()
    if len(sys.argv) == 2 and sys.argv[1] == "jiffies":
        print(jiffies())
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == "leaks":
        path = sys.argv[3] if len(sys.argv) >= 4 else "/sys/kernel/debug/kmemleak"
        marks = [(int(m.split("=", 1)[0]), m.split("=", 1)[1]) for m in sys.argv[4:]]
        return leaks(int(sys.argv[2]), path, marks)
    args = sys.argv[1:]
    allow = []
    while len(args) >= 4 and args[0] in ("scan", "scan-file") and \
            args[2] == "--allow":
        allow.append(args[3])
        del args[2:4]
    if len(args) >= 3 and args[0] == "known":
        names = args[2:]
    elif len(args) != 2 or args[0] not in ("mark", "since", "scan",
                                           "scan-file"):
        sys.stderr.write(__doc__)
        return 2
    cmd, arg = args[0], args[1]
    for name in allow + (names if cmd == "known" else []):
        if name not in KNOWN:
            sys.stderr.write("kmsg.py: unknown kernel bug name %r (known: "
                             "%s)\n" % (name, ", ".join(sorted(KNOWN))))
            return 2
    if cmd == "scan-file":
        with open(arg, encoding="utf-8", errors="replace") as f:
            return show_bad(f.read().splitlines(), allow)
    if cmd == "mark":
        return mark(arg)
    seq = int(arg)
    msgs = [msg for s, msg in records() if s > seq]
    if cmd == "since":
        for msg in msgs:
            print(msg)
        return 0
    if cmd == "known":
        for name, first, _ in known_reports(msgs, names):
            print("%s: %s" % (name, msgs[first]))
        return 0
    return show_bad(msgs, allow)


def known_reports(msgs, names):
    """The reports of the known bugs NAMES in MSGS: (name, first, last)
    with the indexes of the report's first line and of its end-trace
    line.  A report counts only when whole: its first line, the bug's
    frame and its end-trace line, with no other report begun between
    them.  The trace has no fixed length: a warning in an interrupt
    prints the interrupted task's registers and whole stack too (a fio
    in io_uring through the array into null_blk: over 100 lines)."""
    for name in names:
        if name not in KNOWN:
            raise ValueError("unknown kernel bug name %r (known: %s)"
                             % (name, ", ".join(sorted(KNOWN))))
    found = []
    i = 0
    while i < len(msgs):
        hit = None
        for name in names:
            head, frame, _ = KNOWN[name]
            if not head.search(msgs[i]):
                continue
            framed = False
            for j in range(i + 1, min(len(msgs), i + REPORT_LINES)):
                if END_TRACE.search(msgs[j]):
                    if framed:
                        hit = (name, i, j)
                    break
                if REPORT_START.search(msgs[j]):
                    break
                framed = framed or bool(frame.search(msgs[j]))
            if hit:
                break
        if hit:
            found.append(hit)
            i = hit[2]
        i += 1
    return found


def show_bad(msgs, allow=()):
    """Print each bad line with what follows it (the call trace), once,
    leaving out whole reports of the known bugs ALLOW; return 1 if there
    was one."""
    skip = set()
    for _, first, last in known_reports(msgs, allow):
        skip.update(range(first, last + 1))
    shown = -1
    found = 0
    for i, msg in enumerate(msgs):
        if i in skip or not bad(msg):
            continue
        found += 1
        for j in range(max(i, shown + 1), min(len(msgs), i + 30)):
            if j in skip:
                break
            print(msgs[j])
            shown = j
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
