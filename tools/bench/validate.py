#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that a bench-results directory is well-formed (nothing about
speed): results.json parses and has the expected structure, every workload
W1..W8 has figures, report.md has its sections and one MET/MISSED line per
target, the plots are PNG files.  When setup d (CPU cost in guest time)
ran: every point of its plan has a figure in two rounds with instructions
per IO (per MiB), no figure's rounds differ by more than 2 % (else the
setup failed), one verdict and one report line per CPU-cost target.  When
setup e (nvme-tcp members) ran: its points (W1, W2, W3 and W5 at each
member count) with mqstripe's, md's, dm's and the raw members' figures and
mqstripe's ratios to each, in results.json and in its report section, and
the section's sentence on what the network sets.  The checks of setups
a-c are skipped when none of them ran, d's and e's when they did not.

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
# the setups of the workloads W1..W8, and setup d's
CLASSIC = ("a", "b", "c")
CPU_SETUP = "d"
# nvme-tcp members over veth: W1, W2, W3, W5, no targets
FABRIC_SETUP = "e"


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
        ran = set(rj.get("setups") or {})
        classic = bool(ran & set(CLASSIC)) or not ran
        fabric = FABRIC_SETUP in ran
        runs = rj.get("runs") or []
        bad = [r for r in runs if not isinstance(r.get("metrics"), dict) or
               r.get("system") not in B.SYSTEMS or
               r.get("workload") not in B.WORKLOADS + [B.CPU]]
        check(runs and not bad, "every run names a workload, a system and "
              "its figures", "%d bad of %d" % (len(bad), len(runs)))
        figs = rj.get("figures") or []
        fbad = [f for f in figs if not all(
            isinstance(f.get(k), (int, float)) for k in ("median", "min",
                                                         "max", "n")) or
            not f["min"] <= f["median"] <= f["max"]]
        check(figs and not fbad, "every figure has median, min, max, n "
              "(min <= median <= max)", "%d bad" % len(fbad))
        if classic:
            check_classic(rj, figs, runs, check)
        else:
            skip("workloads W1..W8 and their targets",
                 "none of setups %s ran" % ", ".join(CLASSIC))
        if fabric:
            check_fabric(rj, check)
        else:
            skip("setup e (nvme-tcp members)", "setup e did not run")
        if CPU_SETUP in ran:
            check_cpu(rj, figs, check)
        else:
            skip("setup d (CPU cost in guest time)", "setup d did not run")
        check(not rj.get("problems"), "no problems recorded",
              "; ".join(rj.get("problems") or [])[:500])
        errs = [e for s in (rj.get("setups") or {}).values()
                for e in (s.get("errors") or [])]
        check(not errs, "no step failed and no kernel report (WARNING, BUG, "
              "Oops, ...) in the guests", "; ".join(errs)[:1500])
    else:
        ran, classic, fabric = set(), True, False

    md = None
    try:
        with open(os.path.join(d, "report.md")) as f:
            md = f.read()
        check(True, "report.md readable")
    except OSError as e:
        check(False, "report.md readable", str(e))
    if md is not None:
        check("## Environment" in md and "accelerator" in md and
              "fio" in md and "host cores" in md,
              "report.md records the environment")
        check(bool(re.search(r"^\|.*\|$", md, re.M)), "report.md has tables")
        if classic:
            check_classic_md(md, check)
        if CPU_SETUP in ran:
            check_cpu_md(md, check)
        if fabric:
            check_fabric_md(md, check)
    if classic:
        check_plots(d, check, skip)
    print_tap(res)


def check_classic(rj, figs, runs, check):
    """Setups a-c: every workload, system and target."""
    for w in B.WORKLOADS:
        have = [f for f in figs if f.get("workload") == w]
        if w == "W8":
            # W8's sequential half is stored as W3 at each chunk
            have = have and [f for f in figs if f.get("workload") == "W3"
                             and f.get("chunk_kib") in (4, 512)]
        check(bool(have), "%s: figures present" % w)
    systems = {r.get("system") for r in runs if r.get("workload") !=
               B.CPU}
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


def fabric_want(quick):
    """Setup e's points: (workload, variant, members)."""
    p = B.params(quick)
    n = B.SETUPS[FABRIC_SETUP]["members"]
    return ([("W1", "4K-randread", n), ("W2", "16K-randrw-75/25", n)] +
            [("W3", "seq-" + rw, m) for rw in ("read", "write")
             for m in p["w3_counts"]] +
            [("W5", "4K-randwrite-fsync", m) for m in p["w5_counts"]])


def check_fabric(rj, check):
    """Setup e: every point, each with the three arrays, the raw members
    and mqstripe's ratios, in results.json."""
    pts = ((rj.get("fabric") or {}).get(FABRIC_SETUP) or {}).get(
        "points") or []
    have = {(p.get("workload"), p.get("variant"), p.get("members")): p
            for p in pts}
    want = fabric_want(rj.get("mode") == "quick")
    miss = [w for w in want if w not in have]
    check(not miss, "setup e: a figure of every point (W1, W2, W3 and W5 "
          "at each member count)", "missing: %s" % miss)
    keys = B.ARRAYS + ["raw", "mqstripe/md", "mqstripe/dm", "mqstripe/raw"]
    bad = ["%s %s %d: %s" % (w + (", ".join(
        k for k in keys if not isinstance(have[w].get(k), (int, float))),))
           for w in want if w in have and not all(
               isinstance(have[w].get(k), (int, float)) for k in keys)]
    check(not bad, "setup e: every point has mqstripe, md raid0, "
          "dm-stripe and the raw members, and mqstripe's ratios to each",
          "; ".join(bad))


def check_fabric_md(md, check):
    sec = re.search(r"^## Setup e: .*?(?=^## |\Z)", md, re.M | re.S)
    check(sec is not None, "report.md has the setup e section")
    sec = sec.group(0) if sec else ""
    check("| mq/md | mq/dm | mq/raw |" in sec and re.search(
        r"^\| W1 4K-randread \| 4 \|", sec, re.M) is not None,
        "setup e's table: the points with mqstripe's ratios to md, dm and "
        "the raw members")
    check("What the loopback network sets, not the array." in sec,
          "setup e's section says what the loopback network sets")


def check_cpu(rj, figs, check):
    """Setup d: its points, both rounds, the round check, the verdicts."""
    quick = rj.get("mode") == "quick"
    want = B.cpu_points(quick, CPU_SETUP)
    have = {}
    for f in figs:
        if f.get("setup") == CPU_SETUP and f.get("workload") == B.CPU:
            have.setdefault((f.get("variant"), f.get("system"),
                             f.get("members"), f.get("chunk_kib")),
                            {})[f.get("metric")] = f
    miss, short, noinsn = [], [], []
    for k in want:
        mets = have.get(k) or {}
        main = mets.get(B.CPU_METRIC.get(k[0]))
        if main is None:
            miss.append(k)
            continue
        if main.get("n", 0) < 2:
            short.append(k)
        if not (mets.get("insn_per_io") or mets.get("insn_per_MiB")):
            noinsn.append(k)
    check(not miss, "setup d: a figure for every point of its plan (%d)" %
          len(want), "missing: %s" % miss[:6])
    check(not short, "setup d: every figure in two rounds",
          "one round only: %s" % short[:6])
    check(not noinsn, "setup d: instructions per IO (per MiB) with every "
          "figure", "without: %s" % noinsn[:6])
    rounds = [r for r in rj.get("cpu_rounds") or []
              if r.get("setup") == CPU_SETUP]
    lim = rj.get("cpu_round_limit")
    want = B.cpu_round_limit(rj.get("mode"))
    check(rounds and lim == want and all(
        isinstance(r.get("spread"), (int, float)) and
        isinstance(r.get("ok"), bool) for r in rounds),
        "results.json: cpu_rounds with each figure's spread, limit %g "
        "(%s run)" % (want, rj.get("mode")))
    bad = ["%s %s n%s c%s: %.1f %%" % (
        r.get("variant"), r.get("system"), r.get("members"),
        r.get("chunk_kib"), 100 * (r.get("spread") or 0))
        for r in rounds if not r.get("ok")]
    check(not bad, "setup d: no figure's two rounds differ by more than "
          "%g %% (else the setup failed)" % (100 * want),
          "; ".join(bad)[:800])
    tc = rj.get("targets_cpu") or []
    ids = [t.get("id") for t in tc]
    check(sorted(ids) == sorted(B.CPU_TARGETS) and all(
        t.get("status") in ("MET", "MISSED", "NOT MEASURED") for t in tc),
        "results.json: one verdict per CPU-cost target", str(ids))
    nm = [t["id"] for t in tc if t.get("status") == "NOT MEASURED"]
    check(not nm, "every CPU-cost target evaluated (MET or MISSED)",
          "not measured: %s" % nm)
    env = ((rj.get("environment") or {}).get("guests") or {}).get(
        CPU_SETUP) or {}
    check("icount" in str(env.get("clock", "")),
          "setup d's guest ran with icount (its environment says so)",
          str(env.get("clock")))


def check_cpu_md(md, check):
    check(re.search(r"^## Setup d: ", md, re.M) is not None,
          "report.md has the setup d section")
    lines = re.findall(r"^- \*\*cpu/([\w-]+) (MET|MISSED|NOT MEASURED)\*\*",
                       md, re.M)
    check(sorted(x for x, _ in lines) == sorted(B.CPU_TARGETS),
          "report.md: one MET/MISSED line per CPU-cost target", str(lines))


def check_classic_md(md, check):
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
    check("only the ratios" in md or "Accelerator: KVM" in md,
          "report.md says that under TCG only ratios mean anything")


def check_plots(d, check, skip):
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


def print_tap(res):
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
