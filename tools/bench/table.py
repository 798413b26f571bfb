#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The README's table of figures, made from bench results.

  table.py [--check] README RESULTS.json...
  table.py [--check] README

Renders one Markdown table from the results.json files of `make bench`
runs (report.py's "figures"): setup d's points (guest instructions per IO
or per MiB, counted by QEMU's icount), and the by-design rows when a
results file has them (W7 member requests per MiB, W5 member flushes per
fsync, W4 buffered reads against one member).  A row is taken from the
first file that has it; a row no file has is left out.

The table sits in README between the lines "<!-- bench-table begin: ...
-->" and "<!-- bench-table end -->"; the begin line names the results
files, so that without RESULTS the table is made again from the files it
names.  Without --check README is rewritten in place; with --check
nothing is written, and the exit status is 1 when the table in README is
not what the files it names give (a diff on stderr).  Paths in the begin
line are relative to README's directory.  Exit 2 on usage errors and
unreadable or figureless results.
"""
import difflib
import json
import os
import re
import sys
import textwrap

BEGIN = "<!-- bench-table begin: "
END = "<!-- bench-table end -->"
SYSTEMS = ["mqstripe", "md", "dm", "jbod"]
RANDREAD, POLLED = "4K-randread", "4K-randread-polled"
HEAD = ["point", "mqstripe", "md raid0", "dm-stripe",
        "members in parallel", "mqstripe against md, dm"]

# setup d's rows: (variant, members, chunk KiB, label); the unit follows
# from the metric (IOPS: per IO, MB/s: per MiB)
CPU_ROWS = [
    ("4K-randread", 4, 64, "4K random read"),
    ("4K-randwrite", 4, 64, "4K random write"),
    ("16K-randrw-75/25", 4, 64, "16K random 75/25 read/write"),
    ("4K-randread-polled", 4, 64, "4K random read, polled"),
    ("1M-seq-read", 4, 4, "1 MiB read, chunk 4K"),
    ("1M-seq-read", 4, 64, "1 MiB read, chunk 64K"),
    ("1M-seq-read", 4, 512, "1 MiB read, chunk 512K"),
    ("1M-seq-write", 4, 4, "1 MiB write, chunk 4K"),
    ("1M-seq-write", 4, 64, "1 MiB write, chunk 64K"),
    ("1M-seq-write", 4, 512, "1 MiB write, chunk 512K"),
    ("4K-randread", 16, 64, "4K random read, 16 members"),
]


class Usage(Exception):
    pass


def load(path):
    try:
        with open(path) as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        raise Usage("%s: %s" % (path, e))
    if not isinstance(res.get("figures"), list):
        raise Usage("%s: no \"figures\" list (not a report.py results.json)"
                    % path)
    idx = {}
    for g in res["figures"]:
        k = (g["setup"], g["workload"], g["variant"], g["system"],
             g["members"], g["chunk_kib"], g["metric"])
        idx[k] = g["median"]
    return res, idx


def fnum(x):
    """4 significant figures at most, k for thousands: 14.5k, 2,150k."""
    if x is None:
        return "–"
    if abs(x) >= 100000:
        return "{:,}k".format(int(round(x / 1000)))
    if abs(x) >= 10000:
        return "%.1fk" % (x / 1000)
    if abs(x) >= 100:
        return "{:,}".format(int(round(x)))
    if abs(x) >= 10:
        return "%.1f" % x
    return "%.2f" % x


def fratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return "%.2f" % (a / b)


def cpu_rows(runs):
    """Setup d's rows, from the first run that has setup d's point."""
    out = []
    for var, n, chunk, label in CPU_ROWS:
        for res, idx in runs:
            unit = "iops"
            mq = idx.get(("d", "CPU", var, "mqstripe", n, chunk, unit))
            if mq is None:
                unit = "MBps"
                mq = idx.get(("d", "CPU", var, "mqstripe", n, chunk, unit))
            if mq is None:
                continue
            per = "insn_per_io" if unit == "iops" else "insn_per_MiB"

            def fig(x, metric, v=var):
                return idx.get(("d", "CPU", v, x, n,
                                None if x == "jbod" else chunk, metric))
            cells = [fnum(fig(x, per)) for x in SYSTEMS]
            rs = [fratio(mq, fig(x, unit)) for x in ("md", "dm")]
            if var == POLLED and fig("md", per) is None:
                # md cannot poll: its interrupt-driven figure, as the
                # report's CPU-cost target takes it
                md = fig("md", per, RANDREAD)
                cells[1] = "(%s, interrupt)" % fnum(md) if md else "–"
                rs[0] = fratio(mq, fig("md", unit, RANDREAD))
            rs = [r for r in rs if r]
            if n != 4:
                four = idx.get(("d", "CPU", var, "mqstripe", 4, chunk,
                                unit))
                if four:
                    rs.append("%s x 4 members" % fratio(mq, four))
            out.append(["%s (%s)" % (label, "per IO" if unit == "iops"
                                     else "per MiB")] + cells +
                       [", ".join(rs) or "–"])
            break
    return out


def design_rows(runs):
    """The by-design rows, from the first run that has each."""
    out = []
    for res, idx in runs:
        for s in sorted({k[0] for k in idx if k[1] == "W7"}):
            v = [idx.get((s, "W7", "1M-read", x, 4, 4,
                          "member_requests_per_MiB")) for x in SYSTEMS[:3]]
            if v[0] is not None:
                out.append(("W7", ["member requests per aligned 1 MiB "
                                   "read, chunk 4K (setup %s)" % s] +
                            [fnum(x) for x in v] + ["–", "–"]))
                break
    for res, idx in runs:
        found = False
        for s in sorted({k[0] for k in idx if k[1] == "W5"}):
            ns = sorted({k[4] for k in idx if k[0] == s and k[1] == "W5"
                         and k[3] == "mqstripe"})
            if not ns:
                continue
            v = [idx.get((s, "W5", "4K-randwrite-fsync", x, ns[-1], 64,
                          "member_flushes_per_fsync")) for x in SYSTEMS[:3]]
            if v[0] is not None:
                out.append(("W5", ["member flushes per fsync, %d members "
                                   "(setup %s)" % (ns[-1], s)] +
                            [fnum(x) for x in v] + ["–", "–"]))
                found = True
                break
        if found:
            break
    for res, idx in runs:
        found = False
        for s in sorted({k[0] for k in idx if k[1] == "W4"}):
            one = idx.get((s, "W4", "buffered-128K", "single", 1, None,
                           "MBps"))
            v = [idx.get((s, "W4", "buffered-128K", x, 4, 64, "MBps"))
                 for x in SYSTEMS[:3]]
            if one and v[0] is not None:
                out.append(("W4", ["buffered 128K reads, one thread, 4 "
                                   "members, chunk 64K, x one member "
                                   "(setup %s)" % s] +
                            [fratio(x, one) or "–" for x in v] +
                            ["–", "–"]))
                found = True
                break
        if found:
            break
    return [r for _, r in out]


def describe(res):
    host = (res.get("environment") or {}).get("host") or {}
    return "kernel %s, %s vCPUs, %s run" % (
        host.get("kver", "?"), host.get("vcpus", "?"), res.get("mode") or "?")


def render(paths, runs):
    """The block between the markers, markers included."""
    rows = cpu_rows(runs) + design_rows(runs)
    if not rows:
        raise Usage("no setup d figures and no W7, W5 or W4 figures in %s"
                    % ", ".join(paths))
    lines = [BEGIN + " ".join(paths) + " -->"]
    caption = (
        "Made by `make bench-table` from %s (%s).  Setup d: 4 memory-backed "
        "null_blk members (16 where said), chunk 64K where not said; the "
        "instructions the guest executed per IO or per MiB, all layers and "
        "vCPUs together (lower is better), counted by QEMU's icount, so the "
        "host's load does not enter them; medians of two rounds in one "
        "boot.  Last column: mqstripe's IOPS or MB/s against md raid0's "
        "and dm-stripe's." % (", ".join("`%s`" % p for p in paths),
                              "; ".join(describe(r) for r, _ in runs)))
    lines += textwrap.wrap(caption, 74, break_on_hyphens=False,
                           break_long_words=False)
    lines.append("")
    lines.append("| " + " | ".join(HEAD) + " |")
    lines.append("|" + "---|" * len(HEAD))
    for r in rows:
        lines.append("| " + " | ".join(r) + " |")
    lines.append(END)
    return "\n".join(lines) + "\n"


def split(text, readme):
    """README's text before the block, the block, after it."""
    a = text.find(BEGIN)
    b = text.find(END)
    if a < 0 or b < a or text.count(BEGIN) != 1:
        raise Usage("%s: no single \"%s... -->\" ... \"%s\" block" %
                    (readme, BEGIN, END))
    b += len(END)
    if text[b:b + 1] == "\n":
        b += 1
    return text[:a], text[a:b], text[b:]


def named(block):
    """The results files the block's begin line names."""
    m = re.match(re.escape(BEGIN) + r"(.*?) -->", block)
    return m.group(1).split() if m else []


def main(argv):
    check = False
    if argv and argv[0] == "--check":
        check, argv = True, argv[1:]
    if not argv or argv[0].startswith("-"):
        raise Usage(__doc__.split("\n\n")[1])
    readme, paths = argv[0], argv[1:]
    try:
        with open(readme) as f:
            text = f.read()
    except OSError as e:
        raise Usage("%s: %s" % (readme, e))
    pre, block, post = split(text, readme)
    base = os.path.dirname(os.path.abspath(readme))
    if paths:
        paths = [os.path.relpath(os.path.abspath(p), base) for p in paths]
    else:
        paths = named(block)
        if not paths:
            raise Usage("%s: the table names no results file" % readme)
    runs = [load(os.path.join(base, p)) for p in paths]
    new = render(paths, runs)
    if check:
        if new == block:
            return 0
        sys.stderr.writelines(difflib.unified_diff(
            block.splitlines(True), new.splitlines(True),
            readme, "table.py %s" % " ".join(paths)))
        return 1
    if new != block:
        with open(readme + ".tmp", "w") as f:
            f.write(pre + new + post)
        os.replace(readme + ".tmp", readme)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Usage as e:
        print("table.py: %s" % e, file=sys.stderr)
        sys.exit(2)
