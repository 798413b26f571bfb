#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""In-guest benchmark runner: one member setup per boot.

    guest.py --setup a|b|c|d|e --out DIR [--quick]

Run by tools/bench/bench.sh through tools/vm/run-vm.sh (DIR is shared with
the host).  Creates the members, then for every step of the plan
(benchlib.plan) creates the array (mqstripe, md raid0, dm-stripe) or uses
the members directly (JBOD, single member), runs one fio invocation, keeps
fio's JSON output and the /sys/block/*/stat snapshots taken by fio's
exec_prerun/exec_postrun, and tears the array down.  Writes:

  DIR/raw/<setup>/manifest.jsonl  one line per step: what ran, where, how long
  DIR/raw/<setup>/r<rep>/*.json   fio output
  DIR/raw/<setup>/r<rep>/*.log.gz W6 reader latency logs
  DIR/raw/<setup>/setup.json      environment, members, queue limits, errors
  DIR/raw/<setup>/progress.log    the progress lines

Errors in one step are recorded and the run goes on; the report shows what
is missing.

Setup d runs in a guest booted with QEMU's icount (run-vm.sh --icount):
its clock counts instructions, runs at no fixed rate against the host's and
jumps ahead whenever every vCPU is idle (the emulated RTC with it).  There
the clock check does not apply, the harness's timeouts are ten times
longer in guest seconds (a wait on the host, e.g. for fio's libraries over
9p, can pass minutes of guest time in seconds; a hung IO leaves the guest
idle, and its clock then races to the timeout), and the progress lines'
times are guest seconds.
"""

import argparse
import glob
import gzip
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, HERE)
import benchlib as B  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
KMSG = os.path.join(REPO, "selftests", "kmsg.py")
# setup e's members (the fabric tests' bed over veth)
FABRIC = os.path.join(HERE, "fabric.sh")
STRIPECTL = os.environ.get("STRIPECTL",
                           os.path.join(REPO, "tools/stripectl/stripectl"))
# bench.sh copies stripectl and the modules into OUT/bin at the start, so
# that every boot of one run uses the same binaries even while someone
# rebuilds the tree
WORK = "/tmp/bench-work"
DM_NAME = "benchdm"
MD_DEV = "/dev/md0"


# run_bounded's timeouts are multiplied by this: 10 under icount (main()
# sets it), where a guest second is 1e9 instructions and an idle guest's
# clock jumps to its next timer
TIMEOUT_SCALE = 1
# Under icount (main() sets it): a file that reads host seconds, the
# emulated CMOS RTC (QEMU keeps it in host time).  While every vCPU waits
# for the host (a 9p read of a binary the page cache does not hold, on a
# loaded host) the guest's clock jumps from timer to timer, so a timeout
# counted in guest time can expire before the host has answered at all:
# seen as "fio --version: no exit ... after SIGKILL".  run_bounded then
# waits on until the timeout has passed in host time too.
HOST_CLOCK = None
# the emulated CMOS RTC in whole seconds (QEMU: host time)
RTC_SECONDS = "/sys/class/rtc/rtc0/since_epoch"


class Stuck(Exception):
    """A process that does not exit even when killed (IO that never
    completes): the members cannot be used any more in this boot."""


def run_bounded(cmd, timeout, cwd=None, shell=False):
    """subprocess.run with a timeout that cannot hang: kill, wait 30 s,
    then give up on the process (Stuck).  Returns (rc, out, err, timed_out).
    """
    p = subprocess.Popen(cmd, shell=shell, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = communicate_bounded(p, timeout * TIMEOUT_SCALE)
        return p.returncode, out, err, False
    except subprocess.TimeoutExpired:
        pass
    diag = diagnostics()
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        out, err = communicate_bounded(p, 30)
    except subprocess.TimeoutExpired:
        raise Stuck("%s: no exit %d s after SIGKILL: IO does not complete; "
                    "%s" % (cmd if isinstance(cmd, str) else " ".join(cmd),
                            timeout + 30, diag))
    return p.returncode, out, (err or "") + "\n" + diag, True


def host_seconds():
    """Host seconds (HOST_CLOCK), None when not under icount."""
    v = readf(HOST_CLOCK) if HOST_CLOCK else None
    return int(v) if v and v.isdigit() else None


def communicate_bounded(p, timeout):
    """p.communicate() for timeout seconds of guest time and, under icount,
    of host time too (HOST_CLOCK): the first wait is the whole timeout (no
    wakeup while a measured job runs); only when the guest's clock says it
    expired are host seconds counted, in steps of one guest second.
    Raises subprocess.TimeoutExpired."""
    h0 = host_seconds()
    try:
        return p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        if h0 is None:
            raise
    while True:
        h = host_seconds()
        if h is None or h - h0 >= timeout:
            raise subprocess.TimeoutExpired(p.args, timeout)
        try:
            return p.communicate(timeout=1)
        except subprocess.TimeoutExpired:
            pass


def diagnostics():
    """What is in flight where, and the blocked tasks (sysrq w)."""
    infl = []
    for d in sorted(glob.glob("/sys/block/*/inflight")):
        v = readf(d, "")
        if v and v.split() != ["0", "0"]:
            infl.append("%s %s" % (d.split("/")[3], v.replace("  ", " ")))
    try:
        with open("/proc/sysrq-trigger", "w") as f:
            f.write("w")
    except OSError:
        pass
    r = subprocess.run("dmesg | tail -n 40", shell=True,
                       capture_output=True, text=True)
    return "in flight: %s [kernel log: %s]" % (
        ", ".join(infl) or "none", " | ".join(r.stdout.splitlines()))


# kmsg.py's names of known kernel bugs outside mqstripe that the member
# setups provoke: null_blk's mbps= throttle (setup b) races its own timer;
# and a WARNING raised on corrupted emulated CPU state (saved EFLAGS with
# reserved bits set: QEMU TCG, "Known crash" in tools/bench/README.md)
KNOWN_BUGS = ("null_blk-bw-timer", "tcg-eflags")


def kmsg(*args):
    """selftests/kmsg.py (mark, since, scan): its output, "" on failure."""
    rc, out, _, _ = run_bounded([sys.executable, "-S", KMSG] +
                                [str(a) for a in args], 60)
    return out.strip() if rc in (0, 1) else ""


def sh(cmd, check=True, timeout=120):
    rc, out, err, tmo = run_bounded(cmd, timeout,
                                    shell=isinstance(cmd, str))
    if check and (rc != 0 or tmo):
        raise RuntimeError("%s: %s: %s" % (
            cmd if isinstance(cmd, str) else " ".join(cmd),
            "timed out" if tmo else "exit %d" % rc,
            (err or out).strip()[-400:]))
    return out.strip()


def readf(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def fmt_t(sec):
    sec = int(max(0, sec))
    return "%d:%02d" % (sec // 60, sec % 60)


QUEUE_ATTRS = ["max_sectors_kb", "max_hw_sectors_kb", "read_ahead_kb",
               "minimum_io_size", "optimal_io_size", "chunk_sectors",
               "max_segments", "scheduler", "nr_requests", "rotational",
               "write_cache", "fua", "logical_block_size",
               "physical_block_size", "wbt_lat_usec"]


def queue_limits(name):
    q = "/sys/block/%s/queue/" % name
    lim = {a: readf(q + a) for a in QUEUE_ATTRS}
    mq = "/sys/block/%s/mq" % name
    lim["hw_queues"] = len(os.listdir(mq)) if os.path.isdir(mq) else 0
    return lim


class ClockError(Exception):
    pass


EXIT_CLOCK = 75  # bench.sh boots the guest again


class Runner:
    def __init__(self, setup, quick, out):
        self.setup = setup
        self.quick = quick
        self.p = B.params(quick)
        self.mode = self.p["mode"]
        self.s = B.SETUPS[setup]
        self.out = out
        self.raw = os.path.join(out, "raw", setup)
        os.makedirs(self.raw, exist_ok=True)
        os.makedirs(WORK, exist_ok=True)
        self.manifest = open(os.path.join(self.raw, "manifest.jsonl"), "a")
        self.plog = open(os.path.join(self.raw, "progress.log"), "a")
        self.t0 = float(os.environ.get("BENCH_T0") or time.time())
        self.later = float(os.environ.get("BENCH_LATER") or 0)
        self.vcpus = os.cpu_count() or 1
        self.est_done = 0.0
        self.act_done = 0.0
        self.info = {"setup": setup, "title": self.s["title"],
                     "mode": self.mode, "params": self.p,
                     "workloads": B.SETUP_WORKLOADS[self.mode][setup],
                     "limits": {}, "errors": [], "warnings": [],
                     "member_params": {},
                     "started": time.time()}
        self.nseq = 0
        # kernel log from here on: saved whole when a step fails and
        # scanned for kernel reports when the setup ends
        self.kseq = kmsg("mark", "mqstripe bench: setup %s" % setup)

    # ------------------------------------------------------------ output
    def say(self, msg):
        line = "bench: " + msg
        print(line, flush=True)
        self.plog.write(line + "\n")
        self.plog.flush()

    def progress(self, desc, left_here):
        el = time.time() - self.t0
        f = 1.0
        if self.est_done > 20:
            f = max(0.5, min(4.0, self.act_done / self.est_done))
        left = f * (left_here + self.later)
        self.say("[%s elapsed, ~%s left] setup %s: %s" % (
            fmt_t(el), fmt_t(left), self.setup, desc))

    # ------------------------------------------------------------ env
    def environment(self):
        env = {"kernel": os.uname().release, "vcpus": self.vcpus,
               "mem_total_kib": None, "cmdline": readf("/proc/cmdline")}
        for line in (readf("/proc/meminfo") or "").splitlines():
            if line.startswith("MemTotal:"):
                env["mem_total_kib"] = int(line.split()[1])
        cs = readf("/sys/devices/system/clocksource/clocksource0/"
                   "available_clocksource") or ""
        env["accelerator"] = "KVM" if "kvm-clock" in cs else "TCG"
        env["accelerator_requested"] = os.environ.get("BENCH_ACCEL", "")
        env["fio_version"] = sh("fio --version", check=False)
        env["mdadm_version"] = sh("mdadm --version 2>&1", check=False)
        env["dmsetup_version"] = sh("dmsetup --version 2>&1 | head -n 1",
                                    check=False)
        env["python"] = sys.version.split()[0]
        for k in ("dirty_ratio", "dirty_background_ratio", "dirty_bytes",
                  "dirty_background_bytes", "dirty_expire_centisecs"):
            env["vm." + k] = readf("/proc/sys/vm/" + k)
        env["user_hz"] = os.sysconf("SC_CLK_TCK")
        return env

    # ------------------------------------------------------------ members
    def nullb(self, name, params):
        d = "/sys/kernel/config/nullb/" + name
        os.mkdir(d)
        unsupported = []
        for k, v in params.items():
            try:
                with open(os.path.join(d, k), "w") as f:
                    f.write(str(v))
            except OSError:
                unsupported.append(k)
        with open(os.path.join(d, "power"), "w") as f:
            f.write("1")
        idx = readf(os.path.join(d, "index"))
        dev = name if os.path.exists("/sys/block/" + name) else \
            "nullb" + str(idx)
        for _ in range(100):
            if os.path.exists("/dev/" + dev):
                break
            time.sleep(0.05)
        if unsupported:
            self.info["errors"].append("null_blk %s: attributes not "
                                       "supported by this kernel: %s" %
                                       (name, ",".join(unsupported)))
        return "/dev/" + dev

    def make_members(self):
        s = self.s
        if s.get("fabric"):
            self.fabric_members()
        elif s["nvme"]:
            devs = sorted(glob.glob("/dev/nvme*n1"),
                          key=lambda x: int(x[len("/dev/nvme"):-2]))
            if len(devs) < s["nvme"]:
                raise RuntimeError("expected %d NVMe namespaces, have %s" %
                                   (s["nvme"], devs))
            self.members = devs[:s["nvme"]]
            self.cache_members = []
            self.info["member_params"]["nvme"] = {
                "count": s["nvme"], "size": s["nvme_size"]}
        else:
            sh("modprobe null_blk nr_devices=0")
            self.info["nullb_features"] = readf(
                "/sys/kernel/config/nullb/features")
            prm = dict(s["nullb"], submit_queues=self.vcpus)
            count = max(s["members"], s.get("wide", 0))
            if "W3" in self.info["workloads"] or "W6" in self.info[
                    "workloads"]:
                count = max(count, max(self.p["w3_counts"]))
            self.members = [self.nullb("nullb%d" % i, prm)
                            for i in range(count)]
            self.info["member_params"]["nullb"] = prm
            self.cache_members = []
            if "W5" in self.info["workloads"] and "nullb_cache" in s:
                prc = dict(s["nullb_cache"], submit_queues=self.vcpus)
                self.cache_members = [
                    self.nullb("nullb%d" % (100 + i), prc)
                    for i in range(max(self.p["w5_counts"]))]
                self.info["member_params"]["nullb_cache"] = prc
        self.info["members"] = self.members
        self.info["cache_members"] = self.cache_members
        self.info["member_limits"] = queue_limits(
            os.path.basename(self.members[0]))
        if self.cache_members:
            self.info["cache_member_limits"] = queue_limits(
                os.path.basename(self.cache_members[0]))
        self.info["member_bytes"] = int(sh(["blockdev", "--getsize64",
                                            self.members[0]]))

    def fabric_members(self):
        """Setup e: the nvme-tcp namespaces of nvmet targets in network
        namespaces of their own, over veth (fabric.sh, the fabric tests'
        bed), alternating between the targets."""
        fb = self.s["fabric"]
        nt, nns = fb["targets"], fb["namespaces"]
        self.fabric_up = nt
        devs = sh(["bash", FABRIC, "up", str(nt), str(nns),
                   "%dM" % fb["size_mib"]], timeout=600).split()
        if len(devs) != nt * nns:
            raise RuntimeError("fabric.sh: expected %d namespaces, have %s"
                               % (nt * nns, devs))
        self.members = [devs[t * nns + i] for i in range(nns)
                        for t in range(nt)]
        # nvmet reports a volatile write cache: W5 runs on the same ones
        self.cache_members = self.members
        self.info["member_params"]["fabric"] = dict(
            fb, transport="tcp", backing="tmpfs file, buffered_io")
        self.info["fabric"] = {"paths": {}, "net": fabric_net()}
        for m in self.members:
            name = os.path.basename(m)
            addr = glob.glob("/sys/block/%s/device/address" % name) or \
                glob.glob("/sys/block/%s/device/nvme*/address" % name)
            self.info["fabric"]["paths"][name] = readf(addr[0]) if addr \
                else None

    def fabric_down(self):
        """Setup e: the bytes that crossed the veth pairs, then the
        targets and their network namespaces away."""
        nt = getattr(self, "fabric_up", 0)
        if not nt:
            return
        self.info.setdefault("fabric", {})["net_end"] = fabric_net()
        self.fabric_up = 0
        try:
            sh(["bash", FABRIC, "down", str(nt)], timeout=300)
        except (RuntimeError, Stuck) as e:
            self.info["errors"].append("fabric.sh down: %s" % e)

    def prefill(self):
        """Write the region every job touches on the first members, so that
        reads copy data (memory-backed null_blk, NVMe images) the same way
        for every system and repetition."""
        if not self.s.get("prefill"):
            return
        reg = self.s["region"][self.mode] + 4
        mem = self.members[:B.prefill_count(self.s)]
        self.progress("prefill %d MiB of %d members" % (reg, len(mem)),
                      self.left_est(0))
        t = time.time()
        args = ["fio", "--output-format=terse", "--thread"]
        for i, m in enumerate(mem):
            args += ["--name=fill%d" % i, "--filename=" + m, "--rw=write",
                     "--bs=1M", "--direct=1", "--ioengine=libaio",
                     "--iodepth=8", "--size=%dM" % reg]
        sh(args, timeout=900)
        self.info["prefill_seconds"] = time.time() - t

    # ------------------------------------------------------------ arrays
    def create(self, system, members, chunk):
        t = time.time()
        n = len(members)
        if system == "mqstripe":
            # --force: wipe the superblock a previous array left on
            # memory-backed members (stripectl versions that write one)
            dev = sh([STRIPECTL, "create", "--chunk", "%dK" % chunk] +
                     self.force + members)
        elif system == "md":
            cmd = (["mdadm", "--build", MD_DEV, "--level=0",
                    "--chunk=%d" % chunk, "--raid-devices=%d" % n] +
                   (["--force"] if n == 1 else []) + members)
            for attempt in range(3):
                try:
                    sh(cmd)
                    break
                except RuntimeError as e:
                    # seen once: RUN_ARRAY EINVAL; retry after a stop
                    klog = sh("dmesg | tail -n 5", check=False)
                    self.info["warnings"].append(
                        "md --build attempt %d failed (retried): %s "
                        "[kernel log: %s]" % (attempt + 1, e, " | ".join(
                            klog.splitlines())))
                    run_bounded(["mdadm", "--stop", MD_DEV], 60)
                    time.sleep(1)
                    if attempt == 2:
                        raise
            dev = MD_DEV
        elif system == "dm":
            cs = chunk * 2
            secs = min(int(readf("/sys/class/block/%s/size" %
                                 os.path.basename(m))) for m in members)
            per = secs // cs * cs
            table = "0 %d striped %d %d %s" % (
                per * n, n, cs, " ".join("%s 0" % m for m in members))
            sh(["dmsetup", "create", "--noudevsync", DM_NAME, "--table",
                table])
            dev = "/dev/" + sh(["dmsetup", "info", "-c", "--noheadings",
                                "-o", "blkdevname", DM_NAME])
        else:
            raise ValueError(system)
        for _ in range(100):
            if os.path.exists(dev):
                break
            time.sleep(0.05)
        key = "%s/%d/%s" % (system, n, chunk)
        if key not in self.info["limits"]:
            self.info["limits"][key] = queue_limits(os.path.basename(dev))
        return dev, time.time() - t

    def destroy(self, system, dev):
        cmd = {"mqstripe": [STRIPECTL, "stop", dev or ""],
               "md": ["mdadm", "--stop", MD_DEV],
               "dm": ["dmsetup", "remove", "--noudevsync", DM_NAME]}[system]
        last = None
        for _ in range(20):
            rc, out, err, _ = run_bounded(cmd, 60)
            if rc == 0:
                return
            last = (err or out).strip()
            time.sleep(0.5)
        raise RuntimeError("cannot stop %s %s: %s" % (system, dev, last))

    def cleanup_all(self):
        """After an error: stop whatever may be left (bounded waits)."""
        cmds = [["dmsetup", "remove", "--noudevsync", DM_NAME],
                ["mdadm", "--stop", MD_DEV]]
        cmds += [[STRIPECTL, "stop", d]
                 for d in glob.glob("/dev/mqstripe[0-9]*")]
        for c in cmds:
            try:
                run_bounded(c, 30)
            except Stuck:
                pass

    # ------------------------------------------------------------ steps
    def step_members(self, st):
        n = st["members"]
        if st["kind"] == "w5":
            return self.cache_members[:n]
        return self.members[:n]

    def describe(self, st, jobs):
        sysl = "single member and JBOD" if st["system"] == "raw" else \
            B.LABEL[st["system"]]
        where = "%d member%s" % (st["members"], "s" if st["members"] > 1
                                 else "")
        if st["system"] in B.ARRAYS:
            where += ", chunk %dK" % (st.get("chunk") or B.MAIN_CHUNK)
        if st["kind"] == "w6":
            wls = "W6" + (" (wbt off)" if st.get("wbt_off") else "")
        else:
            seen = []
            for j in jobs:
                if j.meta["workload"] not in seen:
                    seen.append(j.meta["workload"])
            wls = " ".join(seen)
        if st["kind"] == "cpu":
            have = {j.meta["variant"] for j in jobs}
            wls = " ".join(v for v in B.CPU_POINTS if v in have)
            return "round %d/%d %s on %s (%s)" % (
                st["rep"], st["reps"], wls, sysl, where)
        return "rep %d/%d %s on %s (%s)" % (st["rep"], self.p["reps"], wls,
                                            sysl, where)

    def run_fio_block(self, st, jobs, dev, members, ctime):
        self.nseq += 1
        sid = "%03d-%s-%s" % (self.nseq, st["kind"], st["system"])
        if st.get("chunk"):
            sid += "-c%d" % st["chunk"]
        sid += "-n%d" % st["members"]
        rdir = os.path.join(self.raw, "r%d" % st["rep"])
        os.makedirs(rdir, exist_ok=True)
        jf = write_job_file(jobs)
        outp = os.path.join(WORK, "out.json")
        tmo = 120 + sum(j.timed for j in jobs) * 4 + 10 * len(jobs)
        t = time.time()
        rc, _, err, timed_out = run_bounded(
            ["fio", "--output-format=json", "--output", outp, jf], tmo,
            cwd=WORK)
        r = subprocess.CompletedProcess([], rc, "", err or "")
        if timed_out:
            r.returncode = 124
        dur = time.time() - t
        rel = os.path.join("r%d" % st["rep"], sid + ".json")
        if os.path.exists(outp):
            shutil.copy(outp, os.path.join(self.raw, rel))
        shutil.copy(jf, os.path.join(self.raw, rel[:-5] + ".fio"))
        rec = {"id": sid, "kind": st["kind"], "rep": st["rep"],
               "system": st["system"], "chunk_kib": st.get("chunk"),
               "members": [os.path.basename(m) for m in members],
               "device": dev, "fio_rc": r.returncode, "seconds": dur,
               "create_seconds": ctime, "fio_json": rel,
               "fio_stderr": r.stderr.strip()[-2000:], "jobs": []}
        for j in jobs:
            jr = {"name": j.name, "meta": j.meta}
            if j.stat:
                jr["pre"] = readf(os.path.join(WORK, j.name +
                                               ".prerun.txt"), "")
                jr["post"] = readf(os.path.join(WORK, j.name +
                                                ".postrun.txt"), "")
            rec["jobs"].append(jr)
        self.manifest.write(json.dumps(rec) + "\n")
        self.manifest.flush()
        if r.returncode != 0:
            raise RuntimeError("fio %s: %s" % (
                "timed out after %d s" % tmo if r.returncode == 124 else
                "exit %d" % r.returncode, r.stderr.strip()[-1500:]))
        self.summary(rec)

    def summary(self, rec):
        """One short line of figures, for whoever watches the console."""
        try:
            data = B.load_fio_json(os.path.join(self.raw, rec["fio_json"]))
        except (OSError, ValueError):
            return
        byname = {j["jobname"]: j for j in data.get("jobs", [])}
        parts = []
        for jr in rec["jobs"]:
            fj = byname.get(jr["name"])
            if not fj:
                continue
            m = B.job_metrics(jr["meta"], fj,
                              B.parse_grep_stat(jr.get("pre")),
                              B.parse_grep_stat(jr.get("post")))
            wl, var = jr["meta"]["workload"], jr["meta"]["variant"]
            if wl == B.CPU and m.get("insn_per_io"):
                parts.append("%s %.1fk IOPS (%.0f insn/IO)" % (
                    var, m["iops"] / 1000, m["insn_per_io"]))
            elif wl == B.CPU and m.get("insn_per_MiB"):
                parts.append("%s %.0f MB/s (%.0fk insn/MiB)" % (
                    var, m["MBps"], m["insn_per_MiB"] / 1000))
            elif wl in ("W1", "W2", "W8") and m.get("iops") is not None:
                parts.append("%s %.1fk IOPS" % (wl, m["iops"] / 1000))
            elif wl == "W3":
                parts.append("%s %s %.0f MB/s" % (wl, var[4:], m["MBps"]))
            elif wl == "W5":
                parts.append("W5 %.0f fsync/s" % m["iops"])
            elif wl == "W7" and m.get("member_requests_per_MiB") is not None:
                parts.append("W7 %.1f req/MiB" %
                             m["member_requests_per_MiB"])
        if parts:
            print("bench:     " + ", ".join(parts), flush=True)

    def run_w6(self, st, dev, members, ctime):
        p = self.p
        n = st["members"]
        reg = self.s["region"][self.mode]
        mib = p["w6_mib"].get(self.setup, 256)
        self.nseq += 1
        wbt_off = st.get("wbt_off", False)
        sid = "%03d-w6-%s%s-n%d" % (self.nseq, st["system"],
                                    "-nowbt" if wbt_off else "", n)
        # writeback throttling of the array (blk-mq only: md has none of
        # its own, its members throttle); W6 compares on, off
        wbt_path = "/sys/block/%s/queue/wbt_lat_usec" % os.path.basename(
            os.path.realpath(dev))
        wbt = {"default": readf(wbt_path)}
        if wbt_off:
            with open(wbt_path, "w") as f:
                f.write("0\n")
        wbt["used"] = readf(wbt_path)
        rdir = os.path.join(self.raw, "r%d" % st["rep"])
        os.makedirs(rdir, exist_ok=True)
        for f in glob.glob(os.path.join(WORK, "*")):
            os.unlink(f)
        jf = os.path.join(WORK, "w6.fio")
        with open(jf, "w") as f:
            f.write("\n".join([
                # the latency log's times are compared with the writer's
                # time.time(): both from the kernel's clock (fio's default
                # "cpu" clock is its own TSC calibration, which a loaded
                # TCG guest gets wrong)
                "[global]", "thread", "clocksource=clock_gettime",
                "[reader]", "filename=" + dev, "rw=randread", "bs=4K",
                "direct=1", "ioengine=psync", "size=%dM" % (reg * n),
                "time_based", "runtime=3600s",
                "write_lat_log=" + os.path.join(WORK, "w6"),
                "log_unix_epoch=1", "log_avg_msec=0"]) + "\n")
        outp = os.path.join(WORK, "out.json")
        t = time.time()
        proc = subprocess.Popen(["fio", "--output-format=json", "--output",
                                 outp, jf], cwd=WORK,
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        writer = {}
        try:
            time.sleep(2.0 + p["w6_before"])
            buf = b"\xa5" * B.MIB
            fd = os.open(dev, os.O_WRONLY)
            try:
                os.lseek(fd, reg * n * B.MIB, 0)
                peak_dirty = 0
                writer["start_ms"] = time.time() * 1000
                for k in range(mib):
                    os.write(fd, buf)
                    if k % 32 == 0:
                        peak_dirty = max(peak_dirty, meminfo_dirty())
                writer["dirtied_ms"] = time.time() * 1000
                os.fsync(fd)
                writer["fsync_end_ms"] = time.time() * 1000
                writer["peak_dirty_writeback_kib"] = peak_dirty
            finally:
                os.close(fd)
            time.sleep(p["w6_after"])
            writer["reader_stop_ms"] = time.time() * 1000
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                _, err = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                diag = diagnostics()
                proc.kill()
                try:
                    _, err = proc.communicate(timeout=30)
                except subprocess.TimeoutExpired:
                    raise Stuck("W6 reader does not exit: %s" % diag)
        dur = time.time() - t
        rel = os.path.join("r%d" % st["rep"], sid + ".json")
        if os.path.exists(outp):
            shutil.copy(outp, os.path.join(self.raw, rel))
        logs = sorted(glob.glob(os.path.join(WORK, "w6_clat*.log")))
        lrel = None
        if logs:
            lrel = rel[:-5] + ".clat.log.gz"
            with open(logs[0], "rb") as src, gzip.open(
                    os.path.join(self.raw, lrel), "wb", 6) as dst:
                shutil.copyfileobj(src, dst)
        rec = {"id": sid, "kind": "w6", "rep": st["rep"],
               "system": st["system"], "chunk_kib": B.MAIN_CHUNK,
               "members": [os.path.basename(m) for m in members],
               "device": dev, "fio_rc": proc.returncode, "seconds": dur,
               "create_seconds": ctime, "fio_json": rel, "clat_log": lrel,
               "writer": dict(writer, mib=mib, offset_mib=reg * n),
               "wbt_lat_usec": wbt,
               "fio_stderr": (err or "").strip()[-2000:],
               "jobs": [{"name": "reader", "meta": {
                   "setup": self.setup, "system": st["system"],
                   "members": n, "chunk_kib": B.MAIN_CHUNK,
                   "workload": "W6",
                   "variant": B.W6_NOWBT if wbt_off else B.W6_VAR}}]}
        self.manifest.write(json.dumps(rec) + "\n")
        self.manifest.flush()
        if not lrel:
            raise RuntimeError("W6: fio wrote no latency log (rc %s): %s" %
                               (proc.returncode, (err or "")[-300:]))
        storm = (writer["fsync_end_ms"] - writer["start_ms"]) / 1000
        print("bench:     W6 storm %.1f s (%.0f MB/s), fsync %.1f s" % (
            storm, mib * B.MIB / 1e6 / storm,
            (writer["fsync_end_ms"] - writer["dirtied_ms"]) / 1000),
            flush=True)

    # ------------------------------------------------------------ profile
    def profile(self):
        """perf profiles (where the time goes where a target is
        missed): for each profile point of the setup (benchlib.PROFILE),
        each of its systems runs the point's fio job under `perf record
        -e cpu-clock -a -g` (TCG has no hardware counters); the fio
        figure, the flat report by symbol and by object and the call
        chains above 3 % go to DIR/profile/<setup>-<point>-<system>.txt.

        Under icount (setup d) cpu-clock follows the guest clock, one ns
        per instruction, but a sample counts instructions only when one
        vCPU runs: QEMU's single-threaded round robin runs a vCPU until
        the next timer deadline, and perf's timers on both vCPUs made one
        of two spinning vCPUs execute about 90 % of the instructions
        while each took half of the samples.  So every job first runs
        alone on both vCPUs (setup d's figure), then the other vCPUs go
        offline (no array exists across the change) and each job runs
        alone and under perf on the one left: the profile, its figure,
        and DIR/profile/<setup>-<point>-compare.txt, the systems'
        instructions per IO by symbol and object side by side."""
        self.info["env"] = {}
        self.ests = []  # no plan: no estimate in the progress lines
        if not B.PROFILE.get(self.setup):
            self.say("setup %s has no profile points" % self.setup)
            return
        self.guest_clock()
        self.prepare()
        pdir = os.path.join(self.out, "profile")
        os.makedirs(pdir, exist_ok=True)
        for path, val in (("/proc/sys/kernel/perf_event_paranoid", "-1"),
                          ("/proc/sys/kernel/kptr_restrict", "0")):
            with open(path, "w") as f:
                f.write(val + "\n")
        icount = bool(self.s.get("icount"))
        smp = {}
        if icount:
            for point in B.PROFILE[self.setup]:
                for system in point.get("systems", B.ARRAYS):
                    self.say("profile %s %s on %s: fio alone on %d vCPUs" %
                             (self.setup, point["name"], B.LABEL[system],
                              self.vcpus))
                    smp[point["name"], system] = self.on_target(
                        point, system, self.fio_alone)
            self.cpus_online(1)
        try:
            for point in B.PROFILE[self.setup]:
                figs = {}
                systems = point.get("systems", B.ARRAYS)
                for system in systems:
                    self.say("profile %s %s on %s (%d members)" % (
                        self.setup, point["name"], B.LABEL[system],
                        point["members"]))
                    fig = self.on_target(
                        point, system, self.profile_one, pdir,
                        smp.get((point["name"], system)))
                    if fig:
                        figs[system] = fig
                if icount and figs:
                    name = "%s-%s-compare.txt" % (self.setup, point["name"])
                    with open(os.path.join(pdir, name), "w") as f:
                        f.write(B.profile_compare(point, figs, systems))
                    self.say("profile: %s" % name)
        finally:
            if icount:
                self.cpus_online(None)

    def on_target(self, point, system, fn, *args):
        """fn(point, system, devs, members, *args) on the point's array
        (created and stopped around it) or members (JBOD); its result,
        None after an error (recorded)."""
        members = self.members[:point["members"]]
        dev = None
        try:
            if system in B.ARRAYS:
                dev, _ = self.create(system, members,
                                     point.get("chunk", B.MAIN_CHUNK))
            return fn(point, system, [dev] if dev else members, members,
                      *args)
        except Stuck:
            raise
        except Exception as e:  # record; the next system
            msg = "profile %s %s: %s" % (point["name"], system, e)
            self.say("ERROR " + msg)
            self.info["errors"].append(msg)
            return None
        finally:
            if dev:
                self.destroy(system, dev)

    def cpus_online(self, n):
        """The first n CPUs online, the others offline (None: all
        online)."""
        paths = glob.glob("/sys/devices/system/cpu/cpu[0-9]*/online")
        for path in sorted(paths, key=lambda x: int(x.split("/")[-2][3:])):
            k = int(path.split("/")[-2][3:])
            want = "1" if n is None or k < n else "0"
            if readf(path) != want:
                with open(path, "w") as f:
                    f.write(want + "\n")
        online = os.sysconf("SC_NPROCESSORS_ONLN")
        self.say("%d CPU%s online" % (online, "s" if online > 1 else ""))
        if n is not None and online != n:
            raise RuntimeError("%d CPUs online, not %d" % (online, n))

    def fio_alone(self, point, system, devs, members):
        """The point's job without perf: its figure (profile_fig)."""
        jobs = B.profile_jobs(point, self.setup, self.quick, system, devs,
                              members, self.vcpus, polls=io_poll)
        jf = write_job_file(jobs)
        outp = os.path.join(WORK, "out.json")
        rc, _, err, _ = run_bounded(
            ["fio", "--output-format=json", "--output", outp, jf],
            120 + sum(j.timed for j in jobs) * 4, cwd=WORK)
        fig = self.profile_fig(jobs[0], outp, rc, err)
        self.say("profile:     %s" % fig["text"])
        return fig

    def profile_one(self, point, system, devs, members, pdir, smp=None):
        """One system at one point: the profile file; returns the figures
        and parsed flat profiles (for the comparison of setup d).  smp:
        the figure alone on all vCPUs (setup d)."""
        chunk = None if system == "jbod" else point.get("chunk",
                                                        B.MAIN_CHUNK)
        icount = bool(self.s.get("icount"))
        # the job of the setup's vCPU count, whatever is online now
        jobs = B.profile_jobs(point, self.setup, self.quick, system, devs,
                              members, self.vcpus, polls=io_poll)
        if not jobs:
            raise RuntimeError("no job %s for %s" % (point["variant"],
                                                     system))
        tmo = 120 + sum(j.timed for j in jobs) * 4
        res = {"insn_per_io_smp": (smp or {}).get("insn_per_io")}
        alone = None
        if icount:
            # fio alone as profiled: one vCPU
            alone = self.fio_alone(point, system, devs, members)
            res["insn_per_io_alone"] = alone.get("insn_per_io")
        jf = write_job_file(jobs)
        data = os.path.join(WORK, "perf.data")
        outp = os.path.join(WORK, "out.json")
        if icount:
            fig = self.perf_window(jf, data, outp, members,
                                   point["window"], tmo)
        else:
            rc, _, err, _ = run_bounded(
                ["perf", "record", "-q", "-e", "cpu-clock", "-F", "999",
                 "-a", "-g", "-o", data, "--", "fio",
                 "--output-format=json", "--output", outp, jf], tmo + 180,
                cwd=WORK)
            fig = self.profile_fig(jobs[0], outp, rc, err)
        res["insn_per_io"] = fig.get("insn_per_io")
        # under icount a symbol of 0.1 % is about 15 instructions per IO
        lim = "0.1" if icount else "0.5"
        _, flat, _, _ = run_bounded(
            ["perf", "report", "-i", data, "--stdio", "--no-children",
             "--sort", "sym", "-g", "none", "--percent-limit", lim], 300,
            cwd=WORK)
        _, dsos, _, _ = run_bounded(
            ["perf", "report", "-i", data, "--stdio", "--no-children",
             "--sort", "dso", "-g", "none", "--percent-limit", "0.1"], 300,
            cwd=WORK)
        _, callers, _, _ = run_bounded(
            ["perf", "report", "-i", data, "--stdio", "--no-children",
             "--sort", "sym", "-g", "caller,0.5,callee,function,percent",
             "--percent-limit", "3", "--max-stack", "12"], 300, cwd=WORK)
        res["sym"] = B.parse_perf_flat(flat)
        res["dso"] = B.parse_perf_flat(dsos)
        seconds = "%s s" % point["seconds"]
        if icount:
            seconds = ("%s s of guest time in the job's steady state (icount:"
                       " one guest ns per instruction; cpu-clock samples "
                       "every 1e9/999 guest ns on each vCPU)" %
                       point["window"])
        name = "%s-%s-%s.txt" % (self.setup, point["name"], system)
        with open(os.path.join(pdir, name), "w") as f:
            f.write("# setup %s (%s), %s on %s, %d members, %s\n"
                    "# %s\n" % (
                        self.setup, self.s["title"], point["name"],
                        B.LABEL[system], len(members),
                        "chunk %dK" % chunk if chunk else
                        "the members in parallel", point["why"]))
            if alone is not None:
                f.write("# fio alone on %d vCPUs (setup d's figure): %s\n"
                        % (self.vcpus, (smp or {}).get("text", "?")))
                f.write("# fio alone on 1 vCPU (the others offline, as "
                        "profiled): %s\n" % alone["text"])
                f.write("# under perf on 1 vCPU, the recorded window: %s\n"
                        % fig["text"])
            else:
                f.write("# fio: %s\n" % fig["text"])
            opts = dict(jobs[0].opts, **jobs[0].sections[0])
            opts.pop("filename", None)
            f.write("# fio: %d jobs in parallel, each %s\n" % (
                len(jobs[0].sections), " ".join(
                    "%s=%s" % (k, v) if v is not None else k
                    for k, v in opts.items())))
            f.write("# kernel %s, %d vCPUs (%d online), perf record -e "
                    "cpu-clock -F 999 -a -g, %s\n" % (
                        os.uname().release, self.vcpus,
                        os.sysconf("SC_NPROCESSORS_ONLN"), seconds))
            if icount:
                f.write("# samples: under icount cpu-clock runs on the "
                        "guest clock, and with one vCPU online a sample "
                        "comes every 1e6 or so of its instructions; "
                        "samples in the idle loop count guest time the "
                        "clock skipped\n")
            f.write("\n")
            f.write(flat or "")
            f.write("\n\n# by object (the module: [mqstripe], [raid0], "
                    "[dm_mod])\n\n")
            f.write(dsos or "")
            f.write("\n\n# call chains of the symbols above 3 %\n\n")
            f.write(callers or "")
        self.say("profile: %s: %s" % (name, fig["text"]))
        return res

    def perf_window(self, jf, data, outp, members, window, tmo):
        """Under icount: perf record -a starts with its events disabled
        (-D -1) around fio, and records `window` guest seconds of the
        job's steady state only (enabled and disabled through --control):
        fio's start and end (its libraries come over 9p: the guest idles
        while the host reads, its clock jumps from timer to timer, and
        perf's own timer is one) stay out of the samples.  The figure is
        that window's: the IOs the members completed in it (their stat:
        reads, writes and merges) against the guest time it took.
        Returns {"text", "iops", "insn_per_io"}."""
        ctl = os.path.join(WORK, "perf.ctl")
        ack = os.path.join(WORK, "perf.ack")
        for fifo in (ctl, ack):
            os.mkfifo(fifo)
        errf = open(os.path.join(WORK, "perf.err"), "w")
        proc = subprocess.Popen(
            ["perf", "record", "-q", "-D", "-1", "--control",
             "fifo:%s,%s" % (ctl, ack), "-e", "cpu-clock", "-F", "999",
             "-a", "-g", "-o", data, "--", "fio", "--output-format=json",
             "--output", outp, jf], cwd=WORK, stdout=errf, stderr=errf,
            start_new_session=True)
        ackfd = os.open(ack, os.O_RDWR | os.O_NONBLOCK)
        ctlfd = None
        stats = ["/sys/block/%s/stat" % os.path.basename(m)
                 for m in members]

        def ios():
            n = 0
            for st in stats:
                f = (readf(st) or "").split()
                n += sum(int(f[k]) for k in (0, 1, 4, 5) if k < len(f))
            return n

        def alive():
            return proc.poll() is None

        def command(cmd):
            os.write(ctlfd, (cmd + "\n").encode())
            end = time.monotonic() + 60 * TIMEOUT_SCALE
            got = b""
            while b"ack" not in got:
                left = end - time.monotonic()
                if left <= 0 or not alive():
                    raise RuntimeError("perf did not acknowledge '%s'" %
                                       cmd)
                if select.select([ackfd], [], [], min(left, 1.0))[0]:
                    try:
                        got += os.read(ackfd, 64)
                    except BlockingIOError:
                        pass

        try:
            # perf opens the control fifo at its start; then fio's first
            # IOs, then its ramp and a little more
            end = time.monotonic() + tmo * TIMEOUT_SCALE
            while ctlfd is None:
                try:
                    ctlfd = os.open(ctl, os.O_WRONLY | os.O_NONBLOCK)
                except OSError:
                    if not alive() or time.monotonic() > end:
                        raise RuntimeError("perf did not start")
                    time.sleep(0.05)
            n0 = ios()
            while ios() == n0:
                if not alive() or time.monotonic() > end:
                    raise RuntimeError("fio did not start its IO")
                time.sleep(0.02)
            time.sleep(0.5)
            command("enable")
            t0, i0 = time.monotonic(), ios()
            time.sleep(window)
            t1, i1 = time.monotonic(), ios()
            command("disable")
            if not alive() and proc.returncode != 0:
                raise RuntimeError("perf/fio exit %d" % proc.returncode)
            try:
                proc.wait(timeout=tmo * TIMEOUT_SCALE)
            except subprocess.TimeoutExpired:
                raise RuntimeError("fio did not end")
        finally:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    raise Stuck("perf/fio: no exit after SIGKILL: %s" %
                                diagnostics())
            errf.close()
            os.close(ackfd)
            if ctlfd is not None:
                os.close(ctlfd)
        err = readf(os.path.join(WORK, "perf.err"), "")
        if proc.returncode != 0:
            raise RuntimeError("perf/fio exit %d: %s" % (proc.returncode,
                                                         err[-300:]))
        n = i1 - i0
        out = {"iops": n / (t1 - t0) if t1 > t0 else 0}
        out["insn_per_io"] = (t1 - t0) * 1e9 / n if n else None
        out["text"] = ("%.0f IOPS in guest time (%d IOs at the members in "
                       "%.3f s): %.0f instructions per IO (all vCPUs, "
                       "perf's sampling and recording counted)" % (
                           out["iops"], n, t1 - t0,
                           out["insn_per_io"] or 0))
        return out

    def profile_fig(self, job, outp, rc, err):
        """The figure of a profile run: {"text", "iops", "insn_per_io"}
        (instructions per IO under icount: 1e9 / IOPS in guest time)."""
        out = {"text": "fio/perf exit %d %s" % (
            rc, (err or "").strip()[-300:])}
        try:
            fj = B.load_fio_json(outp)["jobs"][0]
        except (OSError, ValueError, KeyError, IndexError):
            return out
        iops = fj["read"]["iops"] + fj["write"]["iops"]
        mbps = (fj["read"]["bw_bytes"] + fj["write"]["bw_bytes"]) / 1e6
        out["iops"] = iops
        out["text"] = "%.0f IOPS, %.1f MB/s" % (iops, mbps)
        if job.meta["workload"] == B.CPU and iops:
            out["insn_per_io"] = 1e9 / iops
            out["text"] += (" in guest time: %.0f instructions per IO "
                            "(1e9 / IOPS, all vCPUs)" % out["insn_per_io"])
        if fj.get("error"):
            out["text"] += " (fio error %s)" % fj["error"]
        return out

    def left_est(self, i):
        return sum(self.ests[i:])

    def guest_clock(self):
        """Under icount the guest clock counts instructions by design:
        nothing to check against the RTC (host time); otherwise the clock
        first: with a miscalibrated TSC every timeout is wrong."""
        if not self.s.get("icount"):
            self.check_clock()
            return
        if os.environ.get("BENCH_ICOUNT") != "1":
            raise RuntimeError("setup %s needs a guest booted with icount "
                               "(run-vm.sh --icount)" % self.setup)
        self.info["env"]["clock"] = (
            "QEMU icount shift=0,sleep=off: one guest ns per instruction "
            "of any vCPU")
        self.info["env"]["clocksource"] = readf(
            "/sys/devices/system/clocksource/clocksource0/"
            "current_clocksource")

    def check_clock(self):
        cs = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
        r = clock_check()
        self.info["env"]["clocksource"] = readf(cs)
        self.info["env"]["clock_rate_vs_rtc"] = r
        if r is None:
            self.say("warning: no RTC: the guest clock is not verified")
            return
        self.say("guest clock: %.3f s per RTC second (clocksource %s)" % (
            r, readf(cs)))
        if abs(r - 1) <= 0.05:
            return
        if os.environ.get("BENCH_CLOCK_FALLBACK") != "1":
            raise ClockError("guest clock runs at %.2f x real time "
                             "(TSC miscalibrated at boot)" % r)
        avail = readf("/sys/devices/system/clocksource/clocksource0/"
                      "available_clocksource") or ""
        for c in ("hpet", "acpi_pm"):
            if c in avail.split():
                with open(cs, "w") as f:
                    f.write(c)
                break
        r2 = clock_check()
        self.info["env"]["clocksource"] = readf(cs)
        self.info["env"]["clock_rate_vs_rtc"] = r2
        self.info["warnings"].append(
            "guest clock ran at %.2f x real time (TSC miscalibrated at boot); "
            "switched the clocksource to %s: now %s x. CPU-time figures "
            "(scheduler clock) stay scaled in this boot; ratios are not "
            "affected" % (r, readf(cs), "%.3f" % r2 if r2 else "?"))
        if r2 is None or abs(r2 - 1) > 0.05:
            raise RuntimeError("guest clock still wrong after switching the "
                               "clocksource: %s" % r2)

    def run(self):
        steps = B.plan(self.setup, self.quick, self.vcpus)
        self.ests = [B.step_estimate(st, self.setup, self.quick, self.vcpus)
                     for st in steps]
        self.info["env"] = {}
        self.guest_clock()
        self.info["env"].update(self.environment())
        self.say("setup %s: %s; %s mode, %d steps, estimate %s" % (
            self.setup, self.s["title"], self.mode, len(steps),
            fmt_t(sum(self.ests))))
        self.prepare()
        self.run_steps(steps)

    def prepare(self):
        """Load the module, make the members, prefill them."""
        rel = os.uname().release
        global STRIPECTL
        ko = os.path.join(self.out, "bin", rel, "mqstripe.ko")
        if os.path.exists(os.path.join(self.out, "bin", "stripectl")):
            STRIPECTL = os.path.join(self.out, "bin", "stripectl")
        if not os.path.exists(ko):
            ko = os.path.join(REPO, "build", rel, "mqstripe.ko")
        if not os.path.exists(ko):
            raise RuntimeError("%s missing: run 'make vm-modules'" % ko)
        self.info["env"]["module"] = ko
        self.info["env"]["stripectl"] = STRIPECTL
        sh(["insmod", ko])
        self.info["env"]["stripectl_version"] = sh(
            [STRIPECTL, "--version"], check=False)
        self.force = ["--force"] if "--force" in sh(
            [STRIPECTL, "create", "--help"], check=False) else []
        self.make_members()
        self.prefill()
        if self.s.get("hugepages"):
            self.reserve_hugepages(self.s["hugepages"])

    def reserve_hugepages(self, n):
        """Reserve n huge pages (the jobs' buffers, fio iomem=shmhuge);
        fail the setup when the guest has fewer free ones."""
        with open("/proc/sys/vm/nr_hugepages", "w") as f:
            f.write("%d\n" % n)
        mi = dict(ln.split(":", 1) for ln in open("/proc/meminfo"))
        free = int(mi.get("HugePages_Free", "0").split()[0])
        self.info["env"]["hugepages_free"] = free
        if free < n:
            raise RuntimeError("reserved %d huge pages, %d free: the "
                               "sequential jobs' buffers need them" %
                               (n, free))

    def save_klog(self, name, bad=None):
        """Keep the kernel log written since the setup started in
        raw/SETUP/kernel-NAME.log; return a note naming the file, with the
        kernel reports in it (bad: kmsg scan's output, found here when
        None; the first lines of an oops) or its tail."""
        log = kmsg("since", self.kseq) if self.kseq else \
            sh("dmesg", check=False)
        if not log:
            return ""
        rel = "kernel-%s.log" % name
        with open(os.path.join(self.raw, rel), "w") as f:
            f.write(log + "\n")
        if bad is None:
            bad = kmsg("scan", self.kseq) if self.kseq else ""
        lines = (bad or log).splitlines()
        lines = lines[:8] if bad else lines[-8:]
        return " [kernel log in raw/%s/%s; %s: %s]" % (
            self.setup, rel, "kernel reports" if bad else "its tail",
            " | ".join(lines))

    def check_klog(self):
        """A kernel report (WARNING, BUG, Oops, hung task, ...) during the
        setup is an error of the run: its figures may be wrong.  The known
        reports from outside mqstripe (null_blk's bandwidth timer warning,
        a WARNING on corrupted emulated CPU state: KNOWN in kmsg.py) are
        warnings of the run instead, shown in the report."""
        if not self.kseq:
            return
        known = kmsg("known", self.kseq, *KNOWN_BUGS)
        if known:
            self.info["warnings"].append(
                "known kernel bug outside mqstripe during setup %s%s" % (
                    self.setup, self.save_klog("end", known)))
        allow = [a for name in KNOWN_BUGS for a in ("--allow", name)]
        bad = kmsg("scan", self.kseq, *allow)
        if bad:
            self.info["errors"].append(
                "kernel reports during setup %s%s" % (
                    self.setup, self.save_klog("end", bad)))

    def run_steps(self, steps):
        for i, st in enumerate(steps):
            members = self.step_members(st)
            if st["system"] in ("jbod", "raw"):
                jdevs = members
            else:
                jdevs = None
            jobs = []
            if st["kind"] != "w6":
                jobs = B.step_jobs(st, self.setup, self.quick,
                                   jdevs or ["/dev/x"], members, self.vcpus)
            self.progress(self.describe(st, jobs), self.left_est(i))
            t = time.time()
            dev = None
            try:
                ctime = 0.0
                if st["system"] in B.ARRAYS:
                    dev, ctime = self.create(st["system"], members,
                                             st.get("chunk") or
                                             B.MAIN_CHUNK)
                    targets = [dev]
                elif st["system"] in ("jbod", "raw"):
                    targets = members
                else:  # single
                    targets = members[:1]
                if st["kind"] == "w6":
                    self.run_w6(st, dev, members, ctime)
                else:
                    jobs = B.step_jobs(st, self.setup, self.quick, targets,
                                       members, self.vcpus, polls=io_poll)
                    self.run_fio_block(st, jobs, dev, members, ctime)
                if dev:
                    self.destroy(st["system"], dev)
            except Exception as e:  # record; clean up and go on
                msg = "step %s rep %d %s: %s%s" % (
                    st["kind"], st["rep"], st["system"], e,
                    self.save_klog("step%02d" % i))
                self.say("ERROR " + msg)
                self.info["errors"].append(msg)
                if isinstance(e, Stuck):
                    # hung IO: nothing more can run on these members
                    raise
                self.cleanup_all()
            self.act_done += time.time() - t
            self.est_done += self.ests[i]
        self.info["finished"] = time.time()
        self.info["seconds"] = self.info["finished"] - self.info["started"]
        self.say("setup %s done in %s (estimate was %s)" % (
            self.setup, fmt_t(self.info["seconds"]), fmt_t(sum(self.ests))))


def clock_check(rtc_seconds=3):
    """Rate of the guest's CLOCK_MONOTONIC against the emulated CMOS RTC
    (QEMU keeps it in host time): guest seconds per RTC second, or None
    when there is no RTC.  Under TCG on a loaded host the kernel's TSC
    calibration can fail ("PIT calibration deviates from HPET") and with
    tsc=reliable nothing corrects it: the guest clock then runs many times
    too fast or too slow, and so do fio's figures and null_blk's timers."""
    path = RTC_SECONDS
    if readf(path) is None:
        return None

    def edge(limit):
        first = readf(path)
        t_end = time.monotonic() + limit
        while time.monotonic() < t_end:
            cur = readf(path)
            if cur != first:
                return time.monotonic(), int(cur)
            time.sleep(0.002)
        return None, None

    t0, r0 = edge(60)
    if t0 is None:
        return None
    t1, r1 = t0, r0
    while r1 - r0 < rtc_seconds:
        t1, r1 = edge(60)
        if t1 is None:
            return None
    return (t1 - t0) / float(r1 - r0)


def fabric_net():
    """The byte counters of setup e's veth pairs (this side's end of each:
    fabric_lib.sh's mqsfab<T>): {name: [rx_bytes, tx_bytes]}."""
    out = {}
    for d in sorted(glob.glob("/sys/class/net/mqsfab*")):
        st = os.path.join(d, "statistics")
        out[os.path.basename(d)] = [int(readf(os.path.join(st, k), "0"))
                                    for k in ("rx_bytes", "tx_bytes")]
    return out


def write_job_file(jobs):
    """Empty WORK and write one fio job file holding jobs; its path."""
    for f in glob.glob(os.path.join(WORK, "*")):
        os.unlink(f)
    lines = ["[global]", "thread", "group_reporting"]
    for j in jobs:
        lines += j.fio_lines()
    jf = os.path.join(WORK, "job.fio")
    with open(jf, "w") as f:
        f.write("\n".join(lines) + "\n")
    return jf


def io_poll(dev):
    """Whether dev (a /dev path) takes polled IO: its queue/io_poll is 1."""
    name = os.path.basename(os.path.realpath(dev))
    return readf("/sys/block/%s/queue/io_poll" % name) == "1"


def meminfo_dirty():
    kib = 0
    for line in (readf("/proc/meminfo") or "").splitlines():
        if line.startswith(("Dirty:", "Writeback:")):
            kib += int(line.split()[1])
    return kib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--setup", required=True, choices=sorted(B.SETUPS))
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--profile", action="store_true",
                    help="perf profiles (benchlib.PROFILE) instead of the "
                    "plan")
    a = ap.parse_args()
    if B.SETUPS[a.setup].get("icount"):
        global TIMEOUT_SCALE, HOST_CLOCK
        TIMEOUT_SCALE = 10
        if readf(RTC_SECONDS) is not None:
            HOST_CLOCK = RTC_SECONDS
    r = Runner(a.setup, a.quick, os.path.abspath(a.out))
    rc = 0
    try:
        if a.profile:
            r.profile()
        else:
            r.run()
    except ClockError as e:
        r.say("bad clock, setup %s not run: %s" % (a.setup, e))
        r.info["errors"].append("clock: %s" % e)
        rc = EXIT_CLOCK
    except Exception as e:
        r.say("FATAL setup %s: %s" % (a.setup, e))
        r.info["errors"].append("fatal: %s" % e)
        r.info["fatal"] = str(e)
        rc = 1
    finally:
        r.cleanup_all()
        r.fabric_down()
        r.check_klog()
        if rc != EXIT_CLOCK:
            with open(os.path.join(r.raw, "setup.json"), "w") as f:
                json.dump(r.info, f, indent=1)
    sys.exit(rc)


if __name__ == "__main__":
    main()
