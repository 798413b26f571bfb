#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that a bench-results directory is well-formed (nothing about
speed): results.json parses and has the expected structure, every workload
W1..W8 has figures, report.md has its sections and one MET/MISSED line per
target, the plots are PNG files.

    validate.py [--bench-rc RC] DIR

--bench-rc: the exit status of the bench.sh run that made DIR, checked too.
KTAP-style output; the last line is "N passed, N failed, N skipped".
Exit 0 when nothing failed.
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, HERE)
import benchlib as B  # noqa: E402

# the benchmark targets (report lines "W1 MET" ...)
TARGETS = ["W7", "W3", "W1", "W4", "W5", "W6", "W8"]
# the driver's stricter targets (report lines "driver/W1 MET" ...): the
# same workloads plus W2 and polled W1 (W1P)
TARGETS_DRIVER = ["W7", "W3", "W1", "W2", "W1P", "W4", "W5", "W6", "W8"]


def main():
    args = sys.argv[1:]
    bench_rc = None
    if len(args) == 3 and args[0] == "--bench-rc":
        bench_rc = int(args[1])
        args = args[2:]
    if len(args) != 1:
        print("usage: validate.py [--bench-rc RC] DIR", file=sys.stderr)
        sys.exit(2)
    d = args[0]
    res = []  # (status, description, detail)

    def check(ok, desc, detail=""):
        res.append(("ok" if ok else "not ok", desc, detail))
        return ok

    def skip(desc, why):
        res.append(("skip", desc, why))

    if bench_rc is not None:
        check(bench_rc == 0, "bench.sh QUICK run exits 0", "exit %d" %
              bench_rc)
    rj = None
    try:
        with open(os.path.join(d, "results.json")) as f:
            rj = json.load(f)
        check(True, "results.json parses")
    except (OSError, ValueError) as e:
        check(False, "results.json parses", str(e))
    if rj is not None:
        keys = ["schema", "mode", "environment", "setups", "runs", "figures",
                "ratios", "targets", "workloads"]
        miss = [k for k in keys if k not in rj]
        check(not miss, "results.json has its top-level keys",
              "missing: %s" % miss)
        check(str(rj.get("schema", "")).startswith("mqstripe-bench/"),
              "results.json schema is mqstripe-bench/*")
        guests = (rj.get("environment") or {}).get("guests") or {}
        envok = bool(guests) and all(
            g and all(g.get(k) for k in ("kernel", "vcpus", "accelerator",
                                         "fio_version"))
            for g in guests.values())
        host = (rj.get("environment") or {}).get("host") or {}
        check(envok and host.get("host_cores"),
              "environment records kernel, vCPUs, accelerator, fio version, "
              "host cores")
        runs = rj.get("runs") or []
        bad = [r for r in runs if not isinstance(r.get("metrics"), dict) or
               r.get("system") not in B.SYSTEMS or
               r.get("workload") not in B.WORKLOADS]
        check(runs and not bad, "every run names a workload, a system and "
              "its figures", "%d bad of %d" % (len(bad), len(runs)))
        figs = rj.get("figures") or []
        fbad = [f for f in figs if not all(
            isinstance(f.get(k), (int, float)) for k in ("median", "min",
                                                         "max", "n")) or
            not f["min"] <= f["median"] <= f["max"]]
        check(figs and not fbad, "every figure has median, min, max, n "
              "(min <= median <= max)", "%d bad" % len(fbad))
        for w in B.WORKLOADS:
            have = [f for f in figs if f.get("workload") == w]
            if w == "W8":
                # W8's sequential half is stored as W3 at each chunk
                have = have and [f for f in figs if f.get("workload") == "W3"
                                 and f.get("chunk_kib") in (4, 512)]
            check(bool(have), "%s: figures present" % w)
        systems = {r.get("system") for r in runs}
        check(set(B.SYSTEMS) <= systems, "every system measured "
              "(mqstripe, md, dm, JBOD, single)",
              "have %s" % sorted(systems))
        tg = rj.get("targets") or []
        ids = [t.get("id") for t in tg]
        check(sorted(ids) == sorted(TARGETS) and all(
            t.get("status") in ("MET", "MISSED", "NOT MEASURED") for t in tg),
            "results.json: one verdict per target", str(ids))
        nm = [t["id"] for t in tg if t.get("status") == "NOT MEASURED"]
        check(not nm, "every target evaluated (MET or MISSED)",
              "not measured: %s" % nm)
        tgd = rj.get("targets_driver") or []
        idsd = [t.get("id") for t in tgd]
        check(sorted(idsd) == sorted(TARGETS_DRIVER) and all(
            t.get("status") in ("MET", "MISSED", "NOT MEASURED")
            for t in tgd),
            "results.json: one verdict per driver target", str(idsd))
        nm = [t["id"] for t in tgd if t.get("status") == "NOT MEASURED"]
        check(not nm, "every driver target evaluated (MET or MISSED)",
              "not measured: %s" % nm)
        check(not rj.get("problems"), "no problems recorded",
              "; ".join(rj.get("problems") or [])[:500])
        errs = [e for s in (rj.get("setups") or {}).values()
                for e in (s.get("errors") or [])]
        check(not errs, "no step failed and no kernel report (WARNING, BUG, "
              "Oops, ...) in the guests", "; ".join(errs)[:1500])

    md = None
    try:
        with open(os.path.join(d, "report.md")) as f:
            md = f.read()
        check(True, "report.md readable")
    except OSError as e:
        check(False, "report.md readable", str(e))
    if md is not None:
        for w in B.WORKLOADS:
            check(re.search(r"^## %s: " % w, md, re.M) is not None,
                  "report.md has a %s section" % w)
        lines = re.findall(r"^- \*\*(W\d) (MET|MISSED|NOT MEASURED)\*\*", md,
                           re.M)
        check(sorted(x for x, _ in lines) == sorted(TARGETS),
              "report.md: one MET/MISSED line per target", str(lines))
        lines = re.findall(
            r"^- \*\*driver/(W\dP?) (MET|MISSED|NOT MEASURED)\*\*", md, re.M)
        check(sorted(x for x, _ in lines) == sorted(TARGETS_DRIVER),
              "report.md: one MET/MISSED line per driver target",
              str(lines))
        check("## Environment" in md and "accelerator" in md and
              "fio" in md and "host cores" in md,
              "report.md records the environment")
        check("only the ratios" in md or "Accelerator: KVM" in md,
              "report.md says that under TCG only ratios mean anything")
        check(bool(re.search(r"^\|.*\|$", md, re.M)), "report.md has tables")
    for name in ("w3-scaling.png", "w4-bars.png", "w6-latency.png"):
        p = os.path.join(d, name)
        if not os.path.exists(p) and not os.path.exists("/usr/bin/gnuplot"):
            skip("plot %s" % name, "gnuplot not installed")
            continue
        try:
            with open(p, "rb") as f:
                ok = f.read(8) == b"\x89PNG\r\n\x1a\n"
        except OSError:
            ok = False
        check(ok, "plot %s is a PNG" % name)

    print("TAP version 13")
    print("1..%d" % len(res))
    np = nf = ns = 0
    for i, (st, desc, det) in enumerate(res, 1):
        if st == "ok":
            np += 1
            print("ok %d %s" % (i, desc))
        elif st == "skip":
            ns += 1
            print("ok %d %s # SKIP %s" % (i, desc, det))
        else:
            nf += 1
            print("not ok %d %s%s" % (i, desc, (": " + det) if det else ""))
    print("%d passed, %d failed, %d skipped" % (np, nf, ns))
    sys.exit(1 if nf else 0)


if __name__ == "__main__":
    main()
