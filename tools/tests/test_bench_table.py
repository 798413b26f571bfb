#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of the README's table of figures (tools/bench/table.py).

The table in README.md is what table.py makes from the results files its
begin line names, and those files are in the tree (checked in, not a
local run); then table.py itself on a copy: it rewrites a stale table,
leaves a current one alone, --check fails on a changed cell, a results
file without figures is refused, and the by-design rows (W7, W5, W4)
appear when a results file has them.  Prints KTAP.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
TABLE = os.path.join(TOP, "tools", "bench", "table.py")
README = os.path.join(TOP, "README.md")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "tools", "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchfix  # noqa: E402
import table  # noqa: E402
from benchfix import result  # noqa: E402


def run(*args):
    p = subprocess.run([sys.executable, TABLE] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return p.returncode, p.stdout + p.stderr


def tracked(path):
    p = subprocess.run(["git", "-C", TOP, "ls-files", "--error-unmatch",
                        path], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return p.returncode == 0


print("TAP version 13")
with open(README) as f:
    text = f.read()
try:
    _, block, _ = table.split(text, README)
except table.Usage as e:
    block = ""
    result(False, "README.md has one bench-table block", str(e))
else:
    result(True, "README.md has one bench-table block")
paths = table.named(block)
result(bool(paths), "the block names its results files: %s" % " ".join(paths))
for p in paths:
    result(p.startswith("bench-results/") and p.endswith("/results.json")
           and os.path.isfile(os.path.join(TOP, p)),
           "%s is a bench-results/<run>/results.json" % p)
    if os.path.isdir(os.path.join(TOP, ".git")) or \
            os.path.isfile(os.path.join(TOP, ".git")):
        result(tracked(p), "%s is checked in" % p)
rc, out = run("--check", README)
result(rc == 0, "the README's table is what make bench-table makes from "
       "the files it names", out)

tmp = tempfile.mkdtemp()
try:
    res = None
    if paths and os.path.isfile(os.path.join(TOP, paths[0])):
        with open(os.path.join(TOP, paths[0])) as f:
            res = json.load(f)
    if res is None:
        res = {"mode": "full", "environment": {"host": {"kver": "6.12"}},
               "figures": []}
    d = os.path.join(tmp, "bench-results", "run")
    os.makedirs(d)
    rj = os.path.join(d, "results.json")
    with open(rj, "w") as f:
        json.dump(res, f)
    rm = os.path.join(tmp, "README.md")
    stale = ("# t\n\nbefore\n\n" + table.BEGIN +
             "bench-results/run/results.json -->\n| old | table |\n" +
             table.END + "\n\nafter\n")
    with open(rm, "w") as f:
        f.write(stale)
    rc, out = run("--check", rm)
    result(rc == 1 and "old" in out, "--check fails on a stale table", out)
    rc, out = run(rm)
    with open(rm) as f:
        new = f.read()
    if not res["figures"]:
        result(rc == 2, "figureless results refused", out)
    else:
        result(rc == 0 and new.startswith("# t\n\nbefore\n\n") and
               new.endswith(table.END + "\n\nafter\n") and "| old" not in
               new, "a stale table is rewritten, the text around kept", out)
        rc, out = run("--check", rm)
        result(rc == 0, "then --check passes", out)
        st = os.stat(rm).st_mtime_ns
        rc, out = run(rm)
        result(rc == 0 and os.stat(rm).st_mtime_ns == st,
               "a current table is left alone", out)
        changed = [dict(g) for g in res["figures"]]
        for g in changed:
            if g["system"] == "mqstripe" and g["metric"] in (
                    "insn_per_io", "insn_per_MiB"):
                g["median"] *= 1.5
                break
        with open(rj, "w") as f:
            json.dump(dict(res, figures=changed), f)
        rc, out = run("--check", rm)
        result(rc == 1, "--check fails when a figure changes", out)
    with open(rj, "w") as f:
        json.dump({"mode": "full"}, f)
    rc, out = run(rm, rj)
    result(rc == 2 and "figures" in out, "a results file without figures "
           "is refused", out)

    def fig(setup, wl, var, system, members, chunk, metric, median):
        return {"setup": setup, "workload": wl, "variant": var,
                "system": system, "members": members, "chunk_kib": chunk,
                "metric": metric, "median": median, "min": median,
                "max": median, "n": 1, "values": [median]}
    b = {"mode": "full", "environment": {"host": {"kver": "6.12"}},
         "figures": [
             fig("b", "W7", "1M-read", "mqstripe", 4, 4,
                 "member_requests_per_MiB", 4),
             fig("b", "W7", "1M-read", "md", 4, 4,
                 "member_requests_per_MiB", 222),
             fig("b", "W5", "4K-randwrite-fsync", "mqstripe", 1, 64,
                 "member_flushes_per_fsync", 1),
             fig("b", "W5", "4K-randwrite-fsync", "mqstripe", 16, 64,
                 "member_flushes_per_fsync", 1),
             fig("b", "W5", "4K-randwrite-fsync", "md", 16, 64,
                 "member_flushes_per_fsync", 16),
             fig("b", "W4", "buffered-128K", "single", 1, None, "MBps", 100),
             fig("b", "W4", "buffered-128K", "mqstripe", 4, 64, "MBps", 400),
         ]}
    with open(rj, "w") as f:
        json.dump(b, f)
    rc, out = run(rm, rj)
    with open(rm) as f:
        new = f.read()
    result(rc == 0 and "| member requests per aligned 1 MiB read, chunk 4K "
           "(setup b) | 4.00 | 222 | – |" in new and
           "| member flushes per fsync, 16 members (setup b) | 1.00 | 16.0 "
           "| – |" in new and "x one member (setup b) | 4.00 | – | – |"
           in new, "the by-design rows from a run that has them",
           out + new)
finally:
    shutil.rmtree(tmp)

print("1..%d" % benchfix.n)
sys.exit(1 if benchfix.failed else 0)
