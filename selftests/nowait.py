#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""RWF_NOWAIT O_DIRECT reads for test_30_nowait.sh.

  nowait.py once DEV OFF LEN
        one preadv2(RWF_NOWAIT) of LEN bytes at OFF: prints OK, or the errno
        name (EAGAIN, EOPNOTSUPP, ...)
  nowait.py loop DEV SECONDS LEN SEED SPAN [--until-eagain]
        repeated RWF_NOWAIT reads of LEN bytes at offsets spread over the
        first SPAN bytes, for SECONDS (or until the first EAGAIN); each read
        that succeeds is checked against the pattern SEED of pattern.py
        (sector tag = offset / 512).  Prints "ok=N eagain=N other=N
        bad=N" (other: any other errno, named after it on the line; bad:
        data that does not match).

Exit status 0 unless usage is wrong (2).
"""
import errno
import mmap
import os
import struct
import sys
import time

SECTOR = 512


def read_nowait(fd, buf, off):
    """Return None on success, else the errno name."""
    try:
        n = os.preadv(fd, [buf], off, os.RWF_NOWAIT)
    except OSError as e:
        if e.errno == errno.EOPNOTSUPP:	# ENOTSUP has the same number
            return "EOPNOTSUPP"
        return errno.errorcode.get(e.errno, str(e.errno))
    if n != len(buf):
        return "SHORT%d" % n
    return None


def matches(buf, off, seed):
    for s in range(0, len(buf), SECTOR):
        tag, sd = struct.unpack_from("<QQ", buf, s)
        if tag != (off + s) // SECTOR or sd != seed:
            return False
    return True


def main(argv):
    if len(argv) >= 4 and argv[0] == "once":
        dev, off, length = argv[1], int(argv[2]), int(argv[3])
        fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, length)
        r = read_nowait(fd, buf, off)
        print(r or "OK")
        return 0
    if len(argv) >= 6 and argv[0] == "loop":
        dev = argv[1]
        secs, length, seed, span = (float(argv[2]), int(argv[3]),
                                    int(argv[4]), int(argv[5]))
        until = "--until-eagain" in argv[6:]
        fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, length)
        ok = eagain = other = bad = 0
        others = set()
        end = time.monotonic() + secs
        i = 0
        while time.monotonic() < end:
            off = (i * 7919 * length) % span
            i += 1
            r = read_nowait(fd, buf, off)
            if r is None:
                ok += 1
                if seed >= 0 and not matches(buf, off, seed):
                    bad += 1
            elif r == "EAGAIN":
                eagain += 1
                if until:
                    break
            else:
                other += 1
                others.add(r)
        print("ok=%d eagain=%d other=%d bad=%d %s" %
              (ok, eagain, other, bad, " ".join(sorted(others))))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
