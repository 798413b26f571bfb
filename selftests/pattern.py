#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Sector-tagged data patterns for the mqstripe selftests (O_DIRECT IO).

Every 512-byte sector of a pattern starts with two little-endian u64: the
sector's "tag" (its byte offset / 512 in the address space the pattern
describes) and the seed; the rest of the sector is a seed-dependent filler.
So any sector read back names where it was written and by which pass.

  pattern.py fill  DEV OFF LEN SEED [--tag TAGOFF] [--vary] [--sync fsync|dsync|none]
                   [--sizes N,N...] [--buf-offset B]
  pattern.py check DEV OFF LEN SEED [--tag TAGOFF] [--sizes N,N...] [--buf-offset B]
  pattern.py verify DEV OFF LEN SEED    fill, then check, in one process
  pattern.py zero  DEV OFF LEN                  the range reads as zeroes
  pattern.py mapcheck ARRAY CHUNK DOFF SEED MEMBER...
        the members hold, at the offsets of the striping rule (chunk c on
        member c mod N at DOFF + (c div N) * CHUNK), what "fill ARRAY 0
        CAPACITY SEED" wrote through the array
  pattern.py mapfill ARRAY|CAPACITY CHUNK DOFF SEED MEMBER...
        write the members directly so that the array reads as
        "check ARRAY 0 CAPACITY SEED" (no array needed: give its capacity)
  pattern.py zonecheck CHUNK DOFF SEED MEMBER:BYTES... [--range OFF:LEN]...
                   [--segments N,N...]
        members of unequal size (zones): the members hold, where the rule
        puts it, what "fill ARRAY OFF LEN SEED" wrote through the array in
        each range (default: all of it).  The rule, by brute force: at each
        member byte b (from DOFF, chunk by chunk), each member (in slot
        order) holding data at b takes the next array chunk.  --segments:
        the members are segments of N members each, in slot order, each
        laid out by that rule over its own members alone, one after the
        other in the array
  pattern.py rw read|write DEV OFF LEN   one O_DIRECT IO: prints OK or the
        errno name, exit 0 on success, 1 on an IO error
  pattern.py regions DEV SEED OFF:LEN:zero|pat...
        each range reads as zeroes or as the pattern SEED (tag = offset);
        one process for many ranges (a process start costs under TCG)
  pattern.py each fill|check DEV:OFF:LEN:SEED...
        "fill DEV OFF LEN SEED" or "check DEV OFF LEN SEED" of every range,
        one after the other in one process; exit 1 if any check failed
  pattern.py batch
        one of the commands above per line of stdin, "DESC<TAB>COMMAND<TAB>
        ARG<TAB>...", in order in this process: each prints "ok N DESC" or
        "not ok N DESC" (its output as "# " lines), then the plan; exit 1
        if any failed (lib.sh import_checks reads it; one python start
        instead of one per command)
  pattern.py discard DEV discard|zeroout OFF:LEN...
        BLKDISCARD or BLKZEROOUT of every range, all at once from threads
        on one non-exclusive descriptor (blkdiscard opens O_EXCL, so two
        blkdiscard processes cannot run concurrently); exit 1 if any failed

OFF, LEN, TAGOFF: bytes, multiples of the logical block size; suffixes K, M.
--tag defaults to OFF.  --vary (fill, check): IO sizes cycle through odd
multiples of 512 so requests start and end at unaligned places (else 1 MiB).  --sizes (fill,
check): IO sizes cycle through this list instead (each at most 4M).  --buf-offset (fill,
check): the IO buffer starts B bytes past a page boundary (O_DIRECT needs only
the device's dma_alignment + 1, 512 for most: data then straddles pages and
no vector is block-aligned in memory).  --sync: how fill makes its
writes durable: fsync at the end (default), O_DSYNC on every write, or not.
Exit 0 if all matched, 1 on a mismatch (first ones described), 2 on usage.
"""
import errno
import fcntl
import mmap
import os
import struct
import sys
import threading
from array import array

SECTOR = 512
MAXIO = 4 << 20


def num(s):
    mult = 1
    if s[-1] in "kKmMgG":
        mult = 1 << {"k": 10, "m": 20, "g": 30}[s[-1].lower()]
        s = s[:-1]
    return int(s, 0) * mult


class Pat:
    """Expected bytes of a pattern, built with strided array copies."""

    def __init__(self, seed):
        self.seed = seed
        filler = bytes(((i * 7 + seed * 13 + 3) & 0xFF) for i in range(SECTOR))
        self.tmpl = filler * (MAXIO // SECTOR)

    def get(self, tag_byte, n):
        assert tag_byte % SECTOR == 0 and n % SECTOR == 0 and n <= MAXIO
        ns = n // SECTOR
        buf = bytearray(self.tmpl[:n])
        q = memoryview(buf).cast("Q")
        s0 = tag_byte // SECTOR
        q[0::SECTOR // 8] = array("Q", range(s0, s0 + ns))
        q[1::SECTOR // 8] = array("Q", [self.seed]) * ns
        return bytes(buf)


def describe(got, exp, devoff):
    """Say what is at the first differing sector."""
    for i in range(0, len(got), SECTOR):
        if got[i:i + SECTOR] != exp[i:i + SECTOR]:
            etag, eseed = struct.unpack_from("<QQ", exp, i)
            gtag, gseed = struct.unpack_from("<QQ", got, i)
            if not any(got[i:i + SECTOR]):
                what = "zeroes"
            elif gseed < 1 << 32 and gtag < 1 << 40:
                what = "tag byte %d seed %d" % (gtag * SECTOR, gseed)
            else:
                what = "unknown data %s" % got[i:i + 16].hex()
            return ("at device byte %d: expected tag byte %d seed %d, "
                    "found %s" % (devoff + i, etag * SECTOR, eseed, what))
    return None


class Dev:
    def __init__(self, path, write=False, extra=0, bufoff=0):
        self.path = path
        flags = (os.O_RDWR if write else os.O_RDONLY) | os.O_DIRECT | extra
        self.fd = os.open(path, flags)
        self.buf = mmap.mmap(-1, MAXIO + mmap.PAGESIZE)
        if bufoff:
            # Pages in an order that leaves no two neighbours physically
            # adjacent, so that the block layer cannot merge them into one
            # vector: no huge page, and the even pages faulted in first.
            try:
                self.buf.madvise(mmap.MADV_NOHUGEPAGE)
            except OSError as e:
                # EINVAL: a kernel without transparent huge pages (the
                # debug kernel) has none to keep out
                if e.errno != errno.EINVAL:
                    raise
            npages = len(self.buf) // mmap.PAGESIZE
            for first in (0, 1):
                for pg in range(first, npages, 2):
                    self.buf[pg * mmap.PAGESIZE] = 1
        self.mv = memoryview(self.buf)[bufoff:bufoff + MAXIO]

    def pread(self, off, n):
        got = os.preadv(self.fd, [self.mv[:n]], off)
        if got != n:
            raise OSError(errno.EIO, "short read %d of %d at %d on %s"
                          % (got, n, off, self.path))
        return bytes(self.mv[:n])

    def pwrite(self, off, data):
        n = len(data)
        self.mv[:n] = data
        put = os.pwritev(self.fd, [self.mv[:n]], off)
        if put != n:
            raise OSError(errno.EIO, "short write %d of %d at %d on %s"
                          % (put, n, off, self.path))

    def close(self, sync=True):
        if sync:
            os.fsync(self.fd)
        os.close(self.fd)


def sizes(vary):
    if isinstance(vary, list):
        while True:
            yield from vary
    if not vary:
        while True:
            yield 1 << 20
    # odd sector counts: 0.5K .. ~2M, so IO starts and ends anywhere
    seq = [1, 7, 127, 129, 255, 1023, 2049, 4095, 3, 511, 1025]
    while True:
        for s in seq:
            yield s * SECTOR


def fill(dev, off, length, seed, tag, vary, sync="fsync", bufoff=0):
    d = Dev(dev, write=True, extra=os.O_DSYNC if sync == "dsync" else 0,
            bufoff=bufoff)
    p = Pat(seed)
    pos = 0
    it = sizes(vary)
    while pos < length:
        n = min(next(it), length - pos, MAXIO)
        d.pwrite(off + pos, p.get(tag + pos, n))
        pos += n
    d.close(sync == "fsync")
    return 0


def check(dev, off, length, seed, tag, zero=False, vary=False, bufoff=0):
    d = Dev(dev, bufoff=bufoff)
    p = None if zero else Pat(seed)
    pos = 0
    bad = 0
    it = sizes(vary)
    while pos < length:
        n = min(next(it), length - pos, MAXIO)
        got = d.pread(off + pos, n)
        exp = bytes(n) if zero else p.get(tag + pos, n)
        if got != exp:
            bad += 1
            if bad <= 5:
                print("mismatch in %s: %s" % (dev, describe(got, exp, off + pos)))
        pos += n
    if bad:
        print("%s: %d MiB-blocks of %d bytes at %d differ" % (dev, bad, length, off))
        return 1
    return 0


def geometry(array_dev, chunk, nmem):
    """Rows of the array; ARRAY may also be its capacity in bytes."""
    if array_dev.isdigit():
        cap = int(array_dev)
    else:
        fd = os.open(array_dev, os.O_RDONLY)
        try:
            cap = os.lseek(fd, 0, os.SEEK_END)
        finally:
            os.close(fd)
    if cap % (chunk * nmem):
        print("capacity %d of %s is not whole stripes of %d"
              % (cap, array_dev, chunk * nmem))
    return cap // (chunk * nmem)


def units(rows, n, m, chunk, doff, p):
    """(member offset, expected bytes, first array chunk) of about 1 MiB."""
    step = 1 << 20
    if chunk >= step:
        for r in range(rows):
            c = r * n + m
            for piece in range(0, chunk, step):
                yield doff + r * chunk + piece, p.get(c * chunk + piece, step), c
        return
    per = step // chunk
    for r in range(0, rows, per):
        k = min(per, rows - r)
        exp = b"".join(p.get(((r + i) * n + m) * chunk, chunk) for i in range(k))
        yield doff + r * chunk, exp, r * n + m


def mapwalk(args, write):
    array_dev, chunk, doff, seed = args[0], num(args[1]), num(args[2]), num(args[3])
    members = args[4:]
    n = len(members)
    rows = geometry(array_dev, chunk, n)
    p = Pat(seed)
    bad = 0
    for m, mem in enumerate(members):
        d = Dev(mem, write=write)
        for moff, exp, c in units(rows, n, m, chunk, doff, p):
            if write:
                d.pwrite(moff, exp)
                continue
            got = d.pread(moff, len(exp))
            if got != exp:
                bad += 1
                if bad <= 5:
                    print("member %d (%s), from array chunk %d: %s"
                          % (m, mem, c, describe(got, exp, moff)))
        d.close()
    if bad:
        print("%d member ranges differ from the striping rule" % bad)
        return 1
    return 0


def zonecheck(args, ranges, segments=None):
    chunk, doff, seed = num(args[0]), num(args[1]), num(args[2])
    members = []
    for a in args[3:]:
        path, size = a.rsplit(":", 1)
        members.append((path, num(size)))
    if not segments:
        segments = [len(members)]
    if sum(segments) != len(members):
        print("segments of %d members, %d members given"
              % (sum(segments), len(members)))
        return 2
    table = []          # array chunk -> (slot, member chunk)
    first = 0
    for nseg in segments:
        slots = range(first, first + nseg)
        b = 0
        while True:
            row = [m for m in slots if members[m][1] > b * chunk]
            if not row:
                break
            table.extend((m, b) for m in row)
            b += 1
        first += nseg
    cap = len(table) * chunk
    if not ranges:
        ranges = [(0, cap)]
    p = Pat(seed)
    devs = [Dev(path) for path, _ in members]
    bad = 0
    for off, length in ranges:
        if off + length > cap:
            print("range %d+%d is past the array's %d bytes" % (off, length, cap))
            return 1
        pos = off
        while pos < off + length:
            c = pos // chunk
            n = min(chunk - pos % chunk, off + length - pos, MAXIO)
            m, row = table[c]
            moff = doff + row * chunk + pos % chunk
            got = devs[m].pread(moff, n)
            exp = p.get(pos, n)
            if got != exp:
                bad += 1
                if bad <= 5:
                    print("slot %d (%s), array byte %d (chunk %d): %s"
                          % (m, members[m][0], pos, c,
                             describe(got, exp, moff)))
            pos += n
    for d in devs:
        d.close(sync=False)
    if bad:
        print("%d pieces differ from the zone rule" % bad)
        return 1
    return 0


def rw(op, dev, off, length):
    try:
        d = Dev(dev, write=(op == "write"))
        if op == "read":
            d.pread(off, length)
        else:
            d.pwrite(off, Pat(99).get(off, length))
        os.close(d.fd)
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))
        return 1
    print("OK")
    return 0


BLKDISCARD = 0x1277
BLKZEROOUT = 0x127F


def discard(dev, mode, ranges):
    fd = os.open(dev, os.O_RDWR)
    req = BLKZEROOUT if mode == "zeroout" else BLKDISCARD
    errs = []
    start = threading.Barrier(len(ranges))

    def one(off, length):
        start.wait()
        try:
            fcntl.ioctl(fd, req, struct.pack("QQ", off, length))
        except OSError as e:
            errs.append("%s %d+%d: %s" % (mode, off, length, e))

    threads = [threading.Thread(target=one, args=r) for r in ranges]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    os.close(fd)
    for e in errs:
        print(e)
    return 1 if errs else 0


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    cmd, args = argv[1], argv[2:]
    opts = {}
    pos = []
    i = 0
    while i < len(args):
        if args[i] == "--tag":
            opts["tag"] = num(args[i + 1])
            i += 2
        elif args[i] == "--vary":
            opts["vary"] = True
            i += 1
        elif args[i] == "--sizes" and i + 1 < len(args):
            opts["vary"] = [min(num(x), MAXIO) for x in args[i + 1].split(",")]
            i += 2
        elif args[i] == "--range" and i + 1 < len(args):
            o, n = args[i + 1].split(":")
            opts.setdefault("ranges", []).append((num(o), num(n)))
            i += 2
        elif args[i] == "--segments" and i + 1 < len(args):
            opts["segments"] = [int(x) for x in args[i + 1].split(",")]
            i += 2
        elif args[i] == "--buf-offset" and i + 1 < len(args):
            opts["bufoff"] = num(args[i + 1])
            i += 2
        elif args[i] == "--sync" and i + 1 < len(args) and \
                args[i + 1] in ("fsync", "dsync", "none"):
            opts["sync"] = args[i + 1]
            i += 2
        else:
            pos.append(args[i])
            i += 1
    try:
        if cmd in ("fill", "check") and len(pos) == 4:
            dev, off, length, seed = pos[0], num(pos[1]), num(pos[2]), num(pos[3])
            tag = opts.get("tag", off)
            if cmd == "fill":
                return fill(dev, off, length, seed, tag, opts.get("vary", False),
                            opts.get("sync", "fsync"), opts.get("bufoff", 0))
            return check(dev, off, length, seed, tag,
                         vary=opts.get("vary", False),
                         bufoff=opts.get("bufoff", 0))
        if cmd == "verify" and len(pos) == 4:
            dev, off, length, seed = pos[0], num(pos[1]), num(pos[2]), num(pos[3])
            return fill(dev, off, length, seed, off, False) or \
                check(dev, off, length, seed, off)
        if cmd == "zero" and len(pos) == 3:
            return check(pos[0], num(pos[1]), num(pos[2]), 0, 0, zero=True)
        if cmd in ("mapcheck", "mapfill") and len(pos) >= 5:
            return mapwalk(pos, cmd == "mapfill")
        if cmd == "zonecheck" and len(pos) >= 4:
            return zonecheck(pos, opts.get("ranges", []),
                             opts.get("segments"))
        if cmd == "regions" and len(pos) >= 3:
            bad = 0
            for r in pos[2:]:
                off, length, kind = r.split(":")
                off, length = num(off), num(length)
                if length <= 0:
                    continue
                if kind == "zero":
                    rc = check(pos[0], off, length, 0, 0, zero=True)
                else:
                    rc = check(pos[0], off, length, num(pos[1]), off)
                if rc:
                    print("range %d+%d (%s) differs" % (off, length, kind))
                    bad += 1
            return 1 if bad else 0
        if cmd == "each" and len(pos) >= 1 and pos[0] in ("fill", "check"):
            bad = 0
            for r in pos[1:]:
                dev, off, length, seed = r.rsplit(":", 3)
                off, length, seed = num(off), num(length), num(seed)
                if pos[0] == "fill":
                    fill(dev, off, length, seed, off, False)
                else:
                    bad += check(dev, off, length, seed, off)
            return 1 if bad else 0
        if cmd == "discard" and len(pos) >= 3 and pos[1] in ("discard", "zeroout"):
            ranges = [tuple(num(x) for x in r.split(":")) for r in pos[2:]]
            return discard(pos[0], pos[1], ranges)
        if cmd == "rw" and len(pos) == 4 and pos[0] in ("read", "write"):
            return rw(pos[0], pos[1], num(pos[2]), num(pos[3]))
    except OSError as e:
        print("pattern.py %s: %s" % (cmd, e))
        return 1
    sys.stderr.write(__doc__)
    return 2


def batch():
    import io
    from contextlib import redirect_stdout
    n = bad = 0
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        desc, *args = line.split("\t")
        n += 1
        out = io.StringIO()
        try:
            with redirect_stdout(out):
                rc = main(["pattern.py"] + args)
        except Exception as e:  # a broken step fails, the others run
            out.write("pattern.py %s: %r\n" % (" ".join(args), e))
            rc = 1
        print("%s %d %s" % ("ok" if rc == 0 else "not ok", n, desc))
        for o in out.getvalue().splitlines():
            print("# " + o)
        bad += rc != 0
        sys.stdout.flush()
    print("1..%d" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["batch"]:
        sys.exit(batch())
    sys.exit(main(sys.argv))
