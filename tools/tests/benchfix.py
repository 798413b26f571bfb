# SPDX-License-Identifier: GPL-2.0
"""Shared by the host tests of the bench report (test_bench_cpu.py,
test_bench_fabric.py, test_bench_table.py): KTAP result lines, the host files bench.sh writes
into a results directory, report.py and validate.py on one."""
import json
import os
import subprocess
import sys

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(
    __file__))), "bench")

n = 0
failed = 0


def result(ok, name, detail=""):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print("%s %d %s" % ("ok" if ok else "not ok", n, name))
    if not ok and detail:
        for line in str(detail).splitlines()[:20]:
            print("#   " + line)


def write_host(raw, setup, mode):
    """bench.sh's host-start.json, host-end.json and host-SETUP.json of a
    run of one setup that went well."""
    host = {"host_cores": 2, "host_cpu": "test", "host_kernel": "test",
            "qemu": "QEMU test", "accel_requested": "tcg", "kver": "6.12",
            "mode": mode, "setups": setup, "vcpus": 2, "mem_mib": 4096,
            "started": 1700000000, "loadavg_start": "0 0 0"}
    with open(os.path.join(raw, "host-start.json"), "w") as f:
        json.dump(host, f)
    with open(os.path.join(raw, "host-end.json"), "w") as f:
        json.dump({"loadavg_end": "0 0 0", "wall_seconds": 150}, f)
    with open(os.path.join(raw, "host-%s.json" % setup), "w") as f:
        json.dump({"setup": setup, "rc": 0, "boot_wall_seconds": 150,
                   "known_crashes": 0}, f)


def report_validate(d):
    """report.py, then validate.py on results directory d: (results.json,
    report.md, validate's output, validate's exit status, report.py's
    output); (None, "", report.py's errors, 1, its output) when report.py
    fails."""
    rep = subprocess.run([sys.executable, os.path.join(BENCH, "report.py"),
                          d], capture_output=True, text=True)
    if rep.returncode != 0:
        return None, "", rep.stderr, 1, rep.stdout
    val = subprocess.run([sys.executable, os.path.join(BENCH, "validate.py"),
                          d], capture_output=True, text=True)
    with open(os.path.join(d, "results.json")) as f:
        rj = json.load(f)
    with open(os.path.join(d, "report.md")) as f:
        md = f.read()
    return rj, md, val.stdout, val.returncode, rep.stdout
