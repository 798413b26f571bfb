#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of the benchmark report for setup e (nvme-tcp members over
veth), without QEMU: a results directory of setup e's QUICK plan made here
the way guest.py and bench.sh write one (fio JSON with chosen figures),
then tools/bench/report.py and validate.py on it.  Setup e needs a guest
boot of minutes, so make bench-smoke leaves it out; this checks its
report instead: every point with mqstripe's ratios to md raid0, dm-stripe
and the raw members (the single member at one member), the veth traffic,
the sentence on what the network sets, no benchmark target judged on it,
and validate.py failing a run with a figure missing.  Nothing about speed:
the figures are made up.  Prints KTAP.
"""
import json
import os
import re
import shutil
import sys
import tempfile

TOP = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
BENCH = os.path.join(TOP, "tools", "bench")
sys.dont_write_bytecode = True
sys.path.insert(0, BENCH)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
import benchfix  # noqa: E402
from benchfix import report_validate, result, write_host  # noqa: E402

S = "e"
# each system's figure (IOPS, MB/s or fsync/s, whatever the point)
FIG = {"mqstripe": 100.0, "md": 80.0, "dm": 50.0, "jbod": 125.0,
       "single": 40.0}


def fio_job(name, meta):
    """fio's JSON entry of one reporting group with its system's figure."""
    v = FIG[meta["system"]]
    wl = meta["workload"]
    rd = {"W1": 1.0, "W2": 0.75, "W5": 0.0}.get(
        wl, 1.0 if meta["variant"] == "seq-read" else 0.0)
    # W3: the figure in MB/s
    bw = v * 1e6 if wl == "W3" else v * 4096

    def side(share):
        return {"iops": v * share, "total_ios": int(v * share * 2),
                "bw_bytes": int(bw * share), "io_bytes": int(bw * share * 2),
                "clat_ns": {}}
    return {"jobname": name, "error": 0, "job_runtime": 2000,
            "usr_cpu": 0.0, "sys_cpu": 0.0, "read": side(rd),
            "write": side(1 - rd), "sync": {"total_ios": int(v * 2)}}


def make_run(d, drop=None):
    """Setup e's QUICK run in d; drop(step) leaves a step out."""
    raw = os.path.join(d, "raw")
    sd = os.path.join(raw, S)
    os.makedirs(os.path.join(sd, "r1"))
    write_host(raw, S, "quick")
    fb = B.SETUPS[S]["fabric"]
    mem = ["/dev/nvme%dn%d" % (t, i + 1) for i in range(fb["namespaces"])
           for t in range(fb["targets"])]
    man = open(os.path.join(sd, "manifest.jsonl"), "w")
    for k, st in enumerate(B.plan(S, True)):
        if drop and drop(st):
            continue
        members = mem[:st["members"]]
        devs = {"jbod": members, "raw": members,
                "single": members[:1]}.get(st["system"], ["/dev/arr"])
        jobs = B.step_jobs(st, S, True, devs, members)
        rel = "r1/%03d.json" % k
        with open(os.path.join(sd, rel), "w") as f:
            json.dump({"jobs": [fio_job(j.name, j.meta) for j in jobs]}, f)
        man.write(json.dumps({
            "id": "%03d" % k, "kind": st["kind"], "rep": st["rep"],
            "system": st["system"], "chunk_kib": st.get("chunk"),
            "members": [os.path.basename(m) for m in members],
            "fio_json": rel, "fio_rc": 0,
            "jobs": [{"name": j.name, "meta": j.meta} for j in jobs]}) +
            "\n")
    man.close()
    info = {"setup": S, "title": B.SETUPS[S]["title"], "mode": "quick",
            "workloads": B.FABRIC_WORKLOADS, "errors": [], "warnings": [],
            "members": mem, "cache_members": mem, "limits": {},
            "seconds": 120, "member_params": {"fabric": fb},
            "fabric": {"net": {"mqsfab1": [10, 20], "mqsfab2": [0, 0]},
                       "net_end": {"mqsfab1": [1e9 + 10, 1e9 + 20],
                                   "mqsfab2": [5e8, 5e8]}},
            "env": {"kernel": "6.12.0-test", "vcpus": 2,
                    "accelerator": "TCG", "fio_version": "fio-3.33"}}
    with open(os.path.join(sd, "setup.json"), "w") as f:
        json.dump(info, f)


def run(name, drop=None):
    """Make a run, report it, validate it: (results.json, report.md,
    validate's output, validate's exit status)."""
    d = os.path.join(TMP, name)
    make_run(d, drop)
    return report_validate(d)[:4]


def point(rj, wl, var, members):
    for p in ((rj or {}).get("fabric") or {}).get(S, {}).get("points", []):
        if (p["workload"], p["variant"], p["members"]) == (wl, var, members):
            return p
    return None


def near(a, b):
    return a is not None and abs(a - b) < 1e-6


TMP = tempfile.mkdtemp(prefix="test_bench_fabric.")
try:
    print("TAP version 13")
    rj, md, vout, vrc = run("good")
    result(rj is not None, "report.py writes results.json for setup e",
           vout)
    result(vrc == 0, "validate.py passes a well-formed setup e run", vout)
    p = point(rj, "W1", "4K-randread", 4)
    result(p is not None and near(p["mqstripe/md"], 1.25) and
           near(p["mqstripe/dm"], 2.0) and near(p["raw"], 125.0) and
           near(p["mqstripe/raw"], 0.8),
           "W1: mqstripe / md 1.25, / dm 2.00, / raw members (JBOD, "
           "125) 0.80", p)
    p1 = point(rj, "W5", "4K-randwrite-fsync", 1)
    p16 = point(rj, "W5", "4K-randwrite-fsync", 16)
    result(p1 is not None and near(p1["raw"], 40.0) and
           near(p1["mqstripe/raw"], 2.5) and p16 is not None and
           near(p16["raw"], 125.0),
           "W5: the raw members are the single member at 1 member, JBOD "
           "at 16", (p1, p16))
    w3 = [point(rj, "W3", "seq-" + rw, m) for rw in ("read", "write")
          for m in B.params(True)["w3_counts"]]
    result(all(x and near(x["mqstripe/dm"], 2.0) for x in w3),
           "W3: reads and writes at each member count, with their ratios",
           w3)
    result(re.search(r"^\| W1 4K-randread \| 4 \| IOPS \| 100 \| 80\.0 \| "
                     r"50\.0 \| 125 \| 1\.25 \| 2\.00 \| 0\.80 \|$", md,
                     re.M) is not None,
           "report.md: setup e's W1 row with the figures and ratios")
    result("What the loopback network sets, not the array." in md and
           "Best array / raw members: 0.80 to 2.50 x." in md and
           "3.0 GB crossed the veth pairs." in md,
           "report.md: what the network sets, best array / raw members, "
           "the bytes over the veth pairs")
    tg = (rj or {}).get("targets", []) + (rj or {}).get("targets_driver",
                                                          [])
    result(tg and all(t["status"] == "NOT MEASURED" for t in tg),
           "no benchmark or driver target judged on setup e's figures",
           [(t["id"], t["status"]) for t in tg])

    # md's W3 step at 16 members lost: validate.py fails the run
    rj, md, vout, vrc = run("no-md-w3", lambda st: (
        st["kind"], st["system"], st["members"]) == ("w3", "md", 16))
    result(vrc != 0 and re.search(
        r"^not ok \d+ setup e: every point has mqstripe, md raid0", vout,
        re.M) is not None,
        "validate.py fails a setup e run without md's W3 at 16 members",
        vout)
    # no W5 at all: the points are missing
    rj, md, vout, vrc = run("no-w5", lambda st: st["kind"] == "w5")
    result(vrc != 0 and re.search(
        r"^not ok \d+ setup e: a figure of every point", vout, re.M)
        is not None, "validate.py fails a setup e run without W5", vout)
    print("1..%d" % benchfix.n)
finally:
    shutil.rmtree(TMP, ignore_errors=True)
sys.exit(1 if benchfix.failed else 0)
