#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check an array's queue limits against the members' own sysfs values.

  limits.py ARRAY CHUNK_BYTES MEMBER...

Every expected value is computed here from what the members report, by the
rules of docs/IO_PATH.md, "Queue limits"; prints "ok N desc" / "not ok N desc"
with expected and actual values, exit 1 if any check failed.

Environment: MQS_MAX_HW_CEILING_KB (documented max_hw_sectors_kb ceiling),
MQS_KVER (uname -r of the guest kernel).
"""
import os
import sys

UINT_MAX = (1 << 32) - 1
n_checks = 0
n_fail = 0


def qattr(dev, attr):
    name = os.path.basename(os.path.realpath(dev))
    try:
        with open("/sys/class/block/%s/queue/%s" % (name, attr)) as f:
            v = f.read().strip()
    except OSError:
        return None
    try:
        return int(v)
    except ValueError:
        return v


def check(desc, ok, expected, actual):
    global n_checks, n_fail
    n_checks += 1
    if ok:
        print("ok %d %s (%s)" % (n_checks, desc, actual))
    else:
        n_fail += 1
        print("not ok %d %s" % (n_checks, desc))
        print("# expected: %s" % expected)
        print("# actual:   %s" % actual)


def eq(desc, expected, actual):
    check(desc, expected == actual, expected, actual)


def ge(desc, minimum, actual):
    check(desc, actual is not None and actual >= minimum, ">= %s" % minimum, actual)


def main():
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    arr, chunk, members = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    n = len(members)
    ceil_kb = int(os.environ.get("MQS_MAX_HW_CEILING_KB", "32768"))
    a = lambda attr: qattr(arr, attr)  # noqa: E731
    m = lambda attr: [qattr(x, attr) for x in members]  # noqa: E731

    for attr in ("logical_block_size", "physical_block_size", "max_hw_sectors_kb",
                 "max_sectors_kb", "max_segments", "discard_max_bytes",
                 "discard_granularity", "write_zeroes_max_bytes", "write_cache",
                 "fua", "rotational", "dma_alignment", "max_segment_size",
                 "virt_boundary_mask", "read_ahead_kb"):
        print("# %-22s members %-40s array %s" % (attr, m(attr), a(attr)))

    eq("logical_block_size = largest member's", max(m("logical_block_size")),
       a("logical_block_size"))
    eq("physical_block_size = largest member's", max(m("physical_block_size")),
       a("physical_block_size"))
    eq("minimum_io_size = chunk", chunk, a("minimum_io_size"))
    eq("optimal_io_size = chunk x members", chunk * n, a("optimal_io_size"))
    eq("chunk_sectors = 0 (no block-layer split at chunks)", 0, a("chunk_sectors"))

    hw = a("max_hw_sectors_kb")
    ge("max_hw_sectors_kb >= min(members x smallest member's, ceiling %d)" % ceil_kb,
       min(n * min(m("max_hw_sectors_kb")), ceil_kb), hw)
    width_kb = chunk * n // 1024
    if isinstance(hw, int):
        exp = min(hw, max(n * min(m("max_sectors_kb")), width_kb))
        eq("max_sectors_kb = min(max_hw_sectors_kb, max(members x smallest "
           "member max_sectors_kb, stripe width KiB))", exp, a("max_sectors_kb"))
    ms = a("max_sectors_kb")
    if isinstance(ms, int):
        eq("max_segments = min(65535, max(members x smallest member's, "
           "max_sectors_kb / 4))",
           min(65535, max(n * min(m("max_segments")), ms // 4)), a("max_segments"))

    # a request's length is an unsigned int of bytes: discard and
    # write-zeroes requests cannot exceed 4 GiB less one logical block
    lbs = a("logical_block_size") if isinstance(a("logical_block_size"), int) else 512
    cap = UINT_MAX // lbs * lbs
    dmax = m("discard_max_bytes")
    if all(v and v > 0 for v in dmax):
        eq("discard_granularity = largest member's", max(m("discard_granularity")),
           a("discard_granularity"))
        ge("discard_max_bytes >= members x smallest member's (at most a "
           "request's u32 byte length, %d)" % cap,
           min(n * min(dmax), cap), a("discard_max_bytes"))
    else:
        eq("discard_max_bytes = 0: a member has no discard", 0, a("discard_max_bytes"))
    wz = m("write_zeroes_max_bytes")
    if all(v and v > 0 for v in wz):
        ge("write_zeroes_max_bytes >= members x smallest member's (at most %d)" % cap,
           min(n * min(wz), cap), a("write_zeroes_max_bytes"))
    else:
        eq("write_zeroes_max_bytes = 0: a member has no write-zeroes", 0,
           a("write_zeroes_max_bytes"))

    # always, whatever the members have now: a member's cache can come
    # and go after create, flushes are sent per member as needed
    eq("write_cache = write back (whatever the members': decided per flush)",
       "write back", a("write_cache"))
    eq("fua = 1 (members without FUA get it emulated by the block layer)",
       1, a("fua"))
    eq("rotational = 0 only when every member is non-rotational",
       int(any(v == 1 for v in m("rotational"))), a("rotational"))
    oio = a("optimal_io_size")
    if isinstance(oio, int) and isinstance(ms, int):
        eq("read_ahead_kb = max(128, min(2 x optimal_io_size, 2 x max_sectors_kb))",
           max(128, min(2 * oio // 1024, 2 * ms)), a("read_ahead_kb"))
    mss = m("max_segment_size")
    if None not in mss:
        eq("max_segment_size = smallest member's", min(mss), a("max_segment_size"))
    if a("dma_alignment") is not None and None not in m("dma_alignment"):
        ge("dma_alignment >= largest member's", max(m("dma_alignment")),
           a("dma_alignment"))
    if a("stable_writes") is not None and None not in m("stable_writes"):
        if any(v == 1 for v in m("stable_writes")):
            eq("stable_writes = 1: a member needs stable pages", 1, a("stable_writes"))
    if a("nowait") is not None and None not in m("nowait"):
        if not all(v == 1 for v in m("nowait")):
            eq("nowait = 0: a member lacks NOWAIT", 0, a("nowait"))
    eq("zoned = none", "none", a("zoned"))
    print("1..%d" % n_checks)
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
