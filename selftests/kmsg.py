#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Kernel log by sequence number, for the mqstripe selftests.

  kmsg.py mark TEXT   write TEXT to /dev/kmsg, print the record's sequence
  kmsg.py since SEQ   print the messages logged after record SEQ
  kmsg.py scan SEQ    print the bad lines logged after SEQ (WARNING, BUG,
                      Oops, hung tasks, RCU stalls, UBSAN, KASAN, leaks);
                      exit 1 if there is any

/dev/kmsg hands out one record per read() with its sequence number, so a
mark stays findable even when the ring buffer wraps (EPIPE: skipped).
"""
import errno
import os
import re
import sys

# Case-insensitive "bug"/"leak" would also catch harmless words; the
# upper-case forms are what the kernel prints for real reports.
CASE_SENSITIVE = re.compile(r"\bBUG\b|Oops|UBSAN:|KASAN|WARNING:")
INSENSITIVE = re.compile(
    r"INFO: task .* blocked for more than|rcu.*stall|kmemleak|\bleak"
    r"|unreferenced object|soft lockup|hard lockup"
    r"|general protection fault|kernel panic|list_(add|del) corruption"
    r"|refcount_t:|stack-protector", re.IGNORECASE)


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


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("mark", "since", "scan"):
        sys.stderr.write(__doc__)
        return 2
    cmd, arg = sys.argv[1], sys.argv[2]
    if cmd == "mark":
        with open("/dev/kmsg", "w") as f:
            f.write(arg + "\n")
        seq = None
        for s, msg in records():
            if msg.endswith(arg):
                seq = s
        if seq is None:
            sys.stderr.write("kmsg.py: mark not found in /dev/kmsg\n")
            return 1
        print(seq)
        return 0
    seq = int(arg)
    msgs = [msg for s, msg in records() if s > seq]
    if cmd == "since":
        for msg in msgs:
            print(msg)
        return 0
    # each bad line with what follows it (the call trace), once
    shown = -1
    found = 0
    for i, msg in enumerate(msgs):
        if not bad(msg):
            continue
        found += 1
        for j in range(max(i, shown + 1), min(len(msgs), i + 30)):
            print(msgs[j])
            shown = j
    return 1 if found else 0

if __name__ == "__main__":
    sys.exit(main())
