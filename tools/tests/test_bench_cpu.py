#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of the benchmark report for setup d (CPU cost in guest time),
without QEMU: a results directory made here the way guest.py and bench.sh
write one (setup d's plan, fio JSON with chosen figures), then
tools/bench/report.py and validate.py on it.  Checks the report's format
(what the smoke test checks when setup d runs there), the 2 % check of
the two rounds (the setup fails beyond it, and validate.py says so), and
the MET/MISSED judgement of each CPU-cost target at and beside its
threshold.  Nothing about speed: the figures are made up.  Also setup d's
perf profile points (PROFILE=1): their jobs are setup d's own but for the
runtime, their comparison table's arithmetic, and bench.sh boots setup d
(with icount) for PROFILE=1 by default.  Prints KTAP.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

TOP = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
BENCH = os.path.join(TOP, "tools", "bench")
sys.dont_write_bytecode = True
sys.path.insert(0, BENCH)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
import benchfix  # noqa: E402
from benchfix import report_validate, result, write_host  # noqa: E402


# The figures of a run where every CPU-cost target is met with a margin:
# IOPS for the random points, MB/s for the sequential ones.
BASE = {
    (B.CPU_RANDREAD, "mqstripe"): 100000, (B.CPU_RANDREAD, "md"): 90000,
    (B.CPU_RANDREAD, "dm"): 80000, (B.CPU_RANDREAD, "jbod"): 105000,
    (B.CPU_RANDREAD_BATCH, "mqstripe"): 100000,
    (B.CPU_RANDREAD_BATCH, "md"): 90000, (B.CPU_RANDREAD_BATCH, "dm"): 80000,
    (B.CPU_RANDREAD_BATCH, "jbod"): 105000,
    (B.CPU_RANDWRITE, "mqstripe"): 90000, (B.CPU_RANDWRITE, "md"): 80000,
    (B.CPU_RANDWRITE, "dm"): 70000, (B.CPU_RANDWRITE, "jbod"): 95000,
    (B.CPU_MIX, "mqstripe"): 50000, (B.CPU_MIX, "md"): 45000,
    (B.CPU_MIX, "dm"): 44000, (B.CPU_MIX, "jbod"): 60000,
    (B.CPU_POLLED, "mqstripe"): 120000, (B.CPU_POLLED, "dm"): 100000,
    (B.CPU_POLLED, "jbod"): 130000,
    (B.CPU_SEQREAD, "mqstripe"): 1300, (B.CPU_SEQREAD, "md"): 1200,
    (B.CPU_SEQREAD, "dm"): 1000, (B.CPU_SEQREAD, "jbod"): 1500,
    (B.CPU_SEQWRITE, "mqstripe"): 1100, (B.CPU_SEQWRITE, "md"): 1000,
    (B.CPU_SEQWRITE, "dm"): 1000, (B.CPU_SEQWRITE, "jbod"): 1200,
}


def fio_side(iops, bw):
    return {"iops": iops, "total_ios": int(iops * 2), "bw_bytes": bw,
            "io_bytes": bw * 2, "clat_ns": {}}


def fio_job(name, var, value):
    """fio's JSON entry of one reporting group with that figure."""
    if B.CPU_METRIC[var] == "iops":
        bs = 16384 if var == B.CPU_MIX else 4096
        rd = {B.CPU_RANDWRITE: 0.0, B.CPU_MIX: 0.75}.get(var, 1.0)
        r, w = value * rd, value * (1 - rd)
        read, write = fio_side(r, int(r * bs)), fio_side(w, int(w * bs))
    else:
        bw = int(value * 1e6)
        read = fio_side(bw / B.MIB, bw) if var == B.CPU_SEQREAD else \
            fio_side(0, 0)
        write = fio_side(bw / B.MIB, bw) if var == B.CPU_SEQWRITE else \
            fio_side(0, 0)
    return {"jobname": name, "error": 0, "job_runtime": 2000,
            "usr_cpu": 0.0, "sys_cpu": 0.0, "read": read, "write": write}


def make_run(d, figure, quick=True):
    """A results directory of setup d: figure(variant, system, members,
    chunk, round) gives each figure."""
    raw = os.path.join(d, "raw")
    sd = os.path.join(raw, "d")
    os.makedirs(os.path.join(sd, "r1"))
    os.makedirs(os.path.join(sd, "r2"))
    mode = "quick" if quick else "full"
    write_host(raw, "d", mode)
    mem = ["/dev/nullb%d" % i for i in range(B.SETUPS["d"]["wide"])]
    man = open(os.path.join(sd, "manifest.jsonl"), "w")
    for k, st in enumerate(B.plan("d", quick)):
        members = mem[:st["members"]]
        devs = members if st["system"] == "jbod" else ["/dev/arr"]
        jobs = B.step_jobs(st, "d", quick, devs, members)
        rel = "r%d/%03d.json" % (st["rep"], k)
        out = {"jobs": [fio_job(j.name, j.meta["variant"], figure(
            j.meta["variant"], st["system"], st["members"], st["chunk"],
            st["rep"])) for j in jobs]}
        with open(os.path.join(sd, rel), "w") as f:
            json.dump(out, f)
        man.write(json.dumps({
            "id": "%03d" % k, "kind": "cpu", "rep": st["rep"],
            "system": st["system"], "chunk_kib": st["chunk"],
            "members": [os.path.basename(m) for m in members],
            "fio_json": rel, "fio_rc": 0,
            "jobs": [{"name": j.name, "meta": j.meta} for j in jobs]}) +
            "\n")
    man.close()
    info = {"setup": "d", "title": B.SETUPS["d"]["title"], "mode": mode,
            "workloads": [B.CPU], "errors": [], "warnings": [],
            "members": mem, "limits": {}, "seconds": 120,
            "member_params": {"nullb": dict(B.SETUPS["d"]["nullb"],
                                            submit_queues=2)},
            "env": {"kernel": "6.12.0-test", "vcpus": 2,
                    "accelerator": "TCG", "fio_version": "fio-3.33",
                    "clock": "QEMU icount shift=0,sleep=off: one guest ns "
                             "per instruction of any vCPU"}}
    with open(os.path.join(sd, "setup.json"), "w") as f:
        json.dump(info, f)


def base_figure(var, system, members, chunk, rnd, scale=None):
    v = BASE[(var, system)]
    if members > 4:
        v *= 0.99  # the wide member count: within 3 %
    if scale:
        v *= scale(var, system, members, chunk, rnd)
    return v


def run(name, scale=None, quick=True):
    """Make a run, report it, validate it: (results.json, report.md,
    validate's output, validate's exit status, report.py's output)."""
    d = os.path.join(TMP, name)
    make_run(d, lambda *a: base_figure(*a, scale=scale), quick)
    return report_validate(d)


def status(rj, tid):
    for t in (rj or {}).get("targets_cpu") or []:
        if t["id"] == tid:
            return t["status"]
    return None


TMP = tempfile.mkdtemp(prefix="test_bench_cpu.")
try:
    print("TAP version 13")
    # a run that meets every target, rounds 0.5 % apart
    rj, md, vout, vrc, rout = run(
        "good", lambda v, s, m, c, r: 1.005 if r == 2 else 1.0)
    result(rj is not None, "report.py writes results.json for setup d",
           vout)
    result(vrc == 0, "validate.py passes a well-formed setup d run", vout)
    result(all(status(rj, t) == "MET" for t in B.CPU_TARGETS),
           "every CPU-cost target MET on figures that meet them",
           json.dumps((rj or {}).get("targets_cpu"), indent=1))
    result(all(re.search(r"^- \*\*cpu/%s MET\*\*" % re.escape(t), md, re.M)
               for t in B.CPU_TARGETS),
           "report.md has a line 'cpu/<target> MET' per target")
    result(all("bench: cpu/%s MET" % t in rout for t in B.CPU_TARGETS),
           "report.py prints 'bench: cpu/<target> MET' per target", rout)
    result(re.search(r"^## Setup d: ", md, re.M) is not None and
           "instructions per IO" in md,
           "report.md has the setup d section and says how instructions "
           "per IO are derived")
    fig = [f for f in rj["figures"] if f["variant"] == B.CPU_RANDREAD and
           f["system"] == "mqstripe" and f["members"] == 4 and
           f["metric"] == "insn_per_io"]
    result(len(fig) == 1 and all(
        abs(x - y) < 1e-6 for x, y in zip(fig[0]["values"],
                                          [1e9 / 100000, 1e9 / 100500])),
           "instructions per IO = 1e9 / IOPS in guest time, per round", fig)
    result("cpu_rounds" in rj and all(r["ok"] for r in rj["cpu_rounds"])
           and not rj.get("problems"),
           "rounds 0.5 % apart: no problem recorded", rj.get("problems"))

    # the 2 % round check, on one figure
    def apart(pct):
        def scale(v, s, m, c, r):
            if (v, s, m) == (B.CPU_RANDREAD, "dm", 4) and r == 2:
                return 1 + pct / 100.0
            return 1.0
        return scale
    rj, md, vout, vrc, _ = run("apart19", apart(1.9), quick=False)
    result(vrc == 0 and not rj.get("problems"),
           "rounds 1.9 % apart: the setup passes", vout)
    rj, md, vout, vrc, _ = run("apart25q", apart(2.5))
    result(vrc == 0 and not rj.get("problems") and
           rj.get("cpu_round_limit") == 0.05,
           "rounds 2.5 % apart in a QUICK run: the setup passes (limit 5 %)",
           vout)
    rj, md, vout, vrc, _ = run("apart55q", apart(5.5))
    result(vrc != 0 and any("setup d failed" in p and "5.5 %" in p
                            for p in rj.get("problems") or []),
           "rounds 5.5 % apart in a QUICK run: the setup fails", vout)
    rj, md, vout, vrc, _ = run("apart25", apart(2.5), quick=False)
    bad = [r for r in rj["cpu_rounds"] if not r["ok"]]
    result(len(bad) == 1 and bad[0]["system"] == "dm" and
           abs(bad[0]["spread"] - 0.025) < 1e-9,
           "rounds 2.5 % apart: that figure (and only it) fails the round "
           "check in results.json", bad)
    result(any("setup d failed" in p and "2.5 %" in p
               for p in rj.get("problems") or []),
           "rounds 2.5 % apart: results.json records the setup as failed",
           rj.get("problems"))
    result("Setup d FAILED" in md and "**FAILED**" in md,
           "rounds 2.5 % apart: report.md marks the setup and the figure "
           "FAILED")
    result(vrc != 0 and re.search(r"^not ok \d+ setup d: no figure's two "
                                  r"rounds differ by more than 2 %", vout,
                                  re.M) is not None,
           "rounds 2.5 % apart: validate.py fails on the round check", vout)
    apart_down = run("apartdown", lambda v, s, m, c, r: 0.975 if (
        v, s, m, r) == (B.CPU_SEQREAD, "mqstripe", 4, 1) else 1.0,
        quick=False)[0]
    result(any(not r["ok"] for r in apart_down["cpu_rounds"]),
           "a first round 2.5 % below the second fails the check too")

    # MET/MISSED at and beside each threshold: mqstripe's figure (at every
    # member count) set to LIMIT x the other's, times 1.001 (MET) or 0.999
    # (MISSED); every other system's figure but that one halved, so that
    # this threshold alone decides
    def at(var, other, lim, f, other_var=None):
        def scale(v, s, m, c, r):
            if v == var and s == "mqstripe":
                ref = BASE[(other_var or var, other)]
                return lim * ref * f / BASE[(var, "mqstripe")]
            if s != "mqstripe" and (v, s) != (other_var or var, other):
                return 0.5
            return 1.0
        return scale
    cases = [
        ("randread4k", B.CPU_RANDREAD, "md", 1.05, None),
        ("randread4k", B.CPU_RANDREAD, "dm", 1.15, None),
        ("randread4k", B.CPU_RANDREAD, "jbod", 0.90, None),
        ("randwrite4k", B.CPU_RANDWRITE, "md", 1.05, None),
        ("randwrite4k", B.CPU_RANDWRITE, "dm", 1.15, None),
        ("randwrite4k", B.CPU_RANDWRITE, "jbod", 0.90, None),
        ("randrw16k", B.CPU_MIX, "md", 1.05, None),
        # polled against md's interrupt figure, and dm's polled
        ("randread4k-polled", B.CPU_POLLED, "md", 1.25, B.CPU_RANDREAD),
        ("randread4k-polled", B.CPU_POLLED, "dm", 1.05, None),
        ("seqread1m", B.CPU_SEQREAD, "md", 1.05, None),
        ("seqread1m", B.CPU_SEQREAD, "dm", 1.2, None),
    ]
    for tid, var, other, lim, ov in cases:
        for f, want in ((1.001, "MET"), (0.999, "MISSED")):
            rj = run("%s-%s-%s" % (tid, other, want),
                     at(var, other, lim, f, ov))[0]
            others = [t for t in B.CPU_TARGETS if t != tid]
            result(status(rj, tid) == want and
                   all(status(rj, t) == "MET" for t in others),
                   "cpu/%s %s at %.3f x %s's %s (limit %.2f)" % (
                       tid, want, lim * f, B.LABEL[other], ov or var, lim),
                   json.dumps(rj.get("targets_cpu"), indent=1))
    # the member count: 16 members against 4, within 3 % either way
    for f, want in ((0.971, "MET"), (0.969, "MISSED"), (1.029, "MET"),
                    (1.031, "MISSED")):
        def wide(v, s, m, c, r, f=f):
            if v == B.CPU_RANDREAD and s == "mqstripe" and m > 4:
                return f / 0.99
            return 1.0
        rj = run("wide-%s" % f, wide)[0]
        result(status(rj, "randread4k-16members") == want,
               "cpu/randread4k-16members %s at %.3f x the 4-member figure"
               % (want, f), json.dumps(rj.get("targets_cpu"), indent=1))
    # seqread1m holds at every chunk of a full run: one chunk short
    def chunk4(v, s, m, c, r):
        if v == B.CPU_SEQREAD and s == "mqstripe" and c == 4:
            return 0.9
        return 1.0
    rj, md, vout, vrc, _ = run("full-chunk4", chunk4, quick=False)
    result(status(rj, "seqread1m") == "MISSED" and
           "chunk 4K" in next(t["figure"] for t in rj["targets_cpu"]
                              if t["id"] == "seqread1m"),
           "cpu/seqread1m MISSED when one chunk (4K) of a full run misses",
           json.dumps(rj.get("targets_cpu"), indent=1))
    result(vrc == 0, "validate.py passes a full-mode setup d run (MISSED "
           "fails nothing)", vout)

    # setup d's profile points (PROFILE=1)
    pts = B.PROFILE.get("d", [])
    result(sorted(pt["variant"] for pt in pts) ==
           sorted([B.CPU_RANDREAD, B.CPU_RANDWRITE]) and all(
               pt["workload"] == B.CPU and pt["members"] == 4 and
               pt["chunk"] == B.MAIN_CHUNK and
               0 < pt["window"] < pt["seconds"] - 1 and
               sorted(pt["systems"]) ==
               sorted(["mqstripe", "md", "dm", "jbod"]) for pt in pts),
           "setup d's profile points: the 4K random read and write, 4 "
           "members, chunk 64K, on mqstripe, md, dm and JBOD, perf's "
           "window inside the job's runtime", pts)
    mem = ["/dev/nullb%d" % i for i in range(4)]
    same = []
    for quick in (True, False):
        for pt in pts:
            for system in pt["systems"]:
                devs = mem if system == "jbod" else ["/dev/arr"]
                got = B.profile_jobs(pt, "d", quick, system, devs, mem)
                want = [j for st in B.plan("d", quick)
                        if st["system"] == system and not st.get("wide")
                        and st["chunk"] in (None, B.MAIN_CHUNK)
                        and st["rep"] == 1
                        for j in B.step_jobs(st, "d", quick, devs, mem)
                        if j.meta["variant"] == pt["variant"]]

                def lines(jobs):
                    return [x for j in jobs for x in j.fio_lines()[1:]
                            if not x.startswith("runtime=")]
                rt = ["runtime=%dms" % (pt["seconds"] * 1000)] * \
                    len(got[0].sections) if got else []
                same.append(len(got) == 1 and len(want) == 1 and
                            lines(got) == lines(want) and
                            [x for x in got[0].fio_lines()
                             if x.startswith("runtime=")] == rt)
    result(same and all(same), "each profile point of setup d runs setup "
           "d's own job of that variant (full and QUICK), only the runtime "
           "the point's", same)
    fake = {
        "mqstripe": {"insn_per_io": 16000, "insn_per_io_alone": 15000,
                     "insn_per_io_smp": 15500,
                     "sym": [(20.0, "[k] memcpy"), (10.0, "[k] mqs_map"),
                             (20.0, "[k] pv_native_safe_halt")],
                     "dso": [(80.0, "[kernel.kallsyms]"),
                             (20.0, "[mqstripe]")]},
        "jbod": {"insn_per_io": 12000, "insn_per_io_alone": 11000,
                 "sym": [(30.0, "[k] memcpy"),
                         (40.0, "[k] pv_native_safe_halt")],
                 "dso": [(100.0, "[kernel.kallsyms]")]},
    }
    txt = B.profile_compare(pts[0], fake, ["mqstripe", "md", "jbod"])

    def cells(label):
        for line in txt.splitlines():
            if line.startswith(label + " "):
                return line[len(label):].split()
        return None
    result(cells("memcpy") == ["4000", "6000", "-2000"] and
           cells("mqs_map") == ["2000", "-", "+2000"] and
           cells("[mqstripe]") == ["4000", "-", "+4000"] and
           cells("[kernel.kallsyms]") == ["12000", "12000", "+0"] and
           cells("idle samples %") == ["20.0", "40.0"] and
           cells("insn/IO alone, all vCPUs") == ["15500", "?"] and
           cells("pv_native_safe_halt") is None,
           "the comparison: a symbol's instructions per IO = its share of "
           "the non-idle samples x instructions per IO under perf, "
           "mqstripe - JBOD beside, idle samples left out", txt)
    est = subprocess.run([sys.executable, os.path.join(BENCH, "benchlib.py"),
                          "estimate-profile", "1", "a", "b", "c", "d"],
                         capture_output=True, text=True)
    result([ln.split()[0] for ln in est.stdout.splitlines()] ==
           ["a", "b", "c", "d"] and all(
               int(ln.split()[1]) > 60 for ln in est.stdout.splitlines()),
           "benchlib.py estimate-profile: seconds per setup", est.stdout +
           est.stderr)
    # bench.sh PROFILE=1 with a stand-in for run-vm.sh: which boots
    fakevm = os.path.join(TMP, "runvm")
    with open(fakevm, "w") as f:
        f.write('#!/bin/bash\necho "$*" >>"$FAKE_ARGS"\n')
    env = dict(os.environ, PROFILE="1", QUICK="1", MQS_RUNVM=fakevm,
               FAKE_ARGS=os.path.join(TMP, "args"),
               BENCH_OUT=os.path.join(TMP, "prof"))
    env.pop("BENCH_SETUPS", None)
    b = subprocess.run(["bash", os.path.join(BENCH, "bench.sh")], env=env,
                       capture_output=True, text=True, cwd=TOP)
    try:
        with open(env["FAKE_ARGS"]) as f:
            boots = f.read().splitlines()
    except OSError:
        boots = []
    setups = [ln.split("--setup ")[1].split()[0] for ln in boots
              if "--setup " in ln]
    dboot = [ln for ln in boots if "--setup d" in ln]
    result(b.returncode == 0 and setups == ["a", "b", "c", "d"] and
           all("--profile" in ln for ln in boots) and dboot and
           "--icount" in dboot[0] and "--accel tcg" in dboot[0],
           "bench.sh PROFILE=1 profiles setups a b c d by default, d in "
           "its icount guest", b.stdout + b.stderr + "\n".join(boots))
    # the sequential jobs' buffers in huge pages (the same bio_vecs on
    # every system and round), the guest reserving them
    seq = [j for st in B.plan("d", False)
           for j in B.step_jobs(st, "d", False,
                                mem if st["system"] == "jbod" else
                                ["/dev/arr"], mem)
           if j.meta["variant"] in (B.CPU_SEQREAD, B.CPU_SEQWRITE)]
    result(seq and all("iomem=shmhuge" in j.fio_lines() for j in seq) and
           B.SETUPS["d"].get("hugepages", 0) >= 16,
           "setup d's sequential jobs put fio's buffers in huge pages "
           "(iomem=shmhuge), and the guest reserves them",
           [j.fio_lines() for j in seq[:2]])
    # guest.py's bounded run under icount: a timeout in guest time that
    # expires while host time stands still (the guest idles, waiting for
    # the host) does not end the process; one that passed in host time too
    # does
    sys.path.insert(0, BENCH)
    import guest as G  # noqa: E402
    clock = os.path.join(TMP, "rtc")
    with open(clock, "w") as f:
        f.write("1000\n")
    G.HOST_CLOCK = clock
    rc, out, _, tmo = G.run_bounded(
        ["sh", "-c", "sleep 2.5; echo done"], 1)
    result(rc == 0 and out.strip() == "done" and not tmo,
           "guest.py run_bounded under icount: no kill while host time "
           "has not passed the timeout", (rc, out, tmo))
    p = subprocess.Popen(["sleep", "30"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)

    def host_passes():
        with open(clock, "w") as f:
            f.write("1002\n")
    threading.Timer(1.5, host_passes).start()
    try:
        G.communicate_bounded(p, 1)
        ended = False
    except subprocess.TimeoutExpired:
        ended = True
    p.kill()
    p.communicate()
    G.HOST_CLOCK = None
    result(ended, "guest.py communicate_bounded: a timeout passed in guest "
           "and host time ends the wait")
    print("1..%d" % benchfix.n)
finally:
    shutil.rmtree(TMP, ignore_errors=True)
sys.exit(1 if benchfix.failed else 0)
