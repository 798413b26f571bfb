# SPDX-License-Identifier: GPL-2.0
"""Benchmark plan, fio job building and result parsing.

Shared by the guest runner (guest.py, inside the QEMU guest), the host
driver (bench.sh, for time estimates) and the report (report.py).  Python 3
standard library only.

Vocabulary
  setup    the member devices of one guest boot: a (memory-backed null_blk),
           b (null_blk with device emulation), c (emulated NVMe), d
           (memory-backed null_blk in a guest whose clock counts its
           instructions: CPU cost in guest time)
  system   mqstripe, md (md raid0), dm (dm-stripe), jbod (the members driven
           in parallel by fio, one job per member), single (one member)
  block    one fio invocation against one system (one array creation)
  job      one fio reporting group inside a block (one figure per run)
"""

import json
import math
import os

SYSTEMS = ["mqstripe", "md", "dm", "jbod", "single"]
ARRAYS = ["mqstripe", "md", "dm"]
LABEL = {
    "mqstripe": "mqstripe",
    "md": "md raid0",
    "dm": "dm-stripe",
    "jbod": "JBOD",
    "single": "single member",
}
WORKLOADS = ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8"]
TITLE = {
    "W1": "4K random read, QD32 per job, one job per vCPU",
    "W2": "16K random read/write 75/25, QD64, 4 jobs",
    "W3": "1 MiB sequential read and write, O_DIRECT: scaling with members",
    "W4": "one thread, QD1 sequential reads (dd-like), buffered and O_DIRECT",
    "W5": "4K random writes, fsync after each",
    "W6": "4K random read latency under a writeback storm",
    "W7": "request shape of aligned 1 MiB O_DIRECT reads",
    "W8": "chunk sensitivity: 1 MiB sequential and 8K random 50/50 mix",
}

MIB = 1 << 20

# Setup d's points (workload CPU): the CPU cost of each system in guest
# time.  The guest runs under QEMU's -icount shift=0,sleep=off
# (run-vm.sh --icount): its clock advances one nanosecond per instruction
# that any of its vCPUs executes, so on memory-backed members (no device
# time) a figure in guest time counts instructions.
CPU = "CPU"
CPU_TITLE = ("CPU cost in guest time (one guest ns = one guest "
             "instruction): memory-backed null_blk under QEMU icount")
CPU_RANDREAD = "4K-randread"
# the same with fio submitting 8 IOs per io_uring_enter(): io_uring plugs
# a batch of more than 2, so the arrays' requests are plugged and reach
# mqstripe together through ->queue_rqs().  iodepth_batch_submit=8 alone
# does not batch at QD32: fio reaps each completion as it comes and
# submits as soon as a slot is free (one request per plug, the same
# clock reads per IO as the one-by-one read); with
# iodepth_batch_complete_min=8 it waits for 8 and submits 8.
CPU_RANDREAD_BATCH = "4K-randread-batch8"
CPU_RANDWRITE = "4K-randwrite"
CPU_MIX = "16K-randrw-75/25"
CPU_POLLED = "4K-randread-polled"
CPU_SEQREAD = "1M-seq-read"
CPU_SEQWRITE = "1M-seq-write"
# the points in report order, and the unit each is counted in: IOPS
# (instructions per IO) or MB/s (instructions per MiB)
CPU_POINTS = [CPU_RANDREAD, CPU_RANDREAD_BATCH, CPU_RANDWRITE, CPU_MIX,
              CPU_POLLED, CPU_SEQREAD, CPU_SEQWRITE]
CPU_METRIC = {CPU_RANDREAD: "iops", CPU_RANDREAD_BATCH: "iops",
              CPU_RANDWRITE: "iops", CPU_MIX: "iops",
              CPU_POLLED: "iops", CPU_SEQREAD: "MBps", CPU_SEQWRITE: "MBps"}
# a figure whose two rounds differ by more than this fails the setup: 2 %
# in a full run; 5 % in QUICK's 1 s runs (the make check smoke test), whose
# random points were seen up to 2.4 % apart
CPU_ROUND_LIMIT = 0.02
CPU_ROUND_LIMIT_QUICK = 0.05


def cpu_round_limit(mode):
    """The round check's limit for a run of this mode ("quick", "full")."""
    return CPU_ROUND_LIMIT_QUICK if mode == "quick" else CPU_ROUND_LIMIT
# the CPU-cost targets judged on setup d (report.TH_CPU: the thresholds;
# report lines "cpu/randread4k MET" ...)
CPU_TARGETS = ["randread4k", "randwrite4k", "randrw16k",
               "randread4k-polled", "seqread1m", "randread4k-16members"]


def cpu_points(quick, setup="d", vcpus=2):
    """The figures setup d's plan makes: (variant, system, members,
    chunk_kib) with chunk None for the members in parallel."""
    out = set()
    for st in plan(setup, quick, vcpus):
        mem = ["/dev/x%d" % i for i in range(st["members"])]
        devs = mem if st["system"] == "jbod" else ["/dev/arr"]
        for j in step_jobs(st, setup, quick, devs, mem, vcpus):
            m = j.meta
            out.add((m["variant"], m["system"], m["members"],
                     m["chunk_kib"]))
    return sorted(out, key=lambda k: tuple(str(x) for x in k))

# Member setups.  Sizes in MiB.  "region" is the part of every member the
# random and sequential jobs touch (prefilled where reads of never-written
# blocks would be cheaper than reads of data: memory-backed null_blk, NVMe
# images).
SETUPS = {
    "a": {
        "title": "null_blk, memory-backed (CPU-bound: per-IO overhead)",
        "members": 4,
        "nvme": 0,
        "nullb": {"memory_backed": 1, "size": 320, "blocksize": 512,
                  "max_sectors": 1024, "irqmode": 1,
                  "hw_queue_depth": 64},
        "region": {"full": 256, "quick": 64},
        "prefill": True,
    },
    "b": {
        "title": "null_blk with device emulation (bandwidth, completion "
                 "latency, write cache): the members are the limit",
        "members": 4,
        "nvme": 0,
        # bandwidth + latency members (W1-W4, W6-W8)
        "nullb": {"memory_backed": 0, "size": 4096, "blocksize": 512,
                  "max_sectors": 1024, "irqmode": 2,
                  "completion_nsec": 100000, "mbps": 26,
                  "hw_queue_depth": 64},
        # the same plus a volatile write cache (W5): cache_size needs
        # memory_backed=1 in null_blk
        "nullb_cache": {"memory_backed": 1, "size": 256, "blocksize": 512,
                        "max_sectors": 1024, "irqmode": 2,
                        "completion_nsec": 100000, "mbps": 26,
                        "cache_size": 16, "hw_queue_depth": 64},
        "region": {"full": 1024, "quick": 1024},
        "prefill": False,
    },
    "c": {
        "title": "emulated NVMe (QEMU nvme device, the kernel nvme driver)",
        "members": 4,
        "nvme": 4,
        "nvme_size": "2G",
        # booted with nvme.poll_queues=2 (bench.sh): W1 also runs polled
        # (io_uring IOPOLL) on the systems whose queue/io_poll is 1
        "poll_queues": 2,
        "region": {"full": 256, "quick": 64},
        "prefill": True,
    },
    "d": {
        "title": CPU_TITLE,
        "members": 4,
        # the 4K random read at this many members too
        "wide": 16,
        "nvme": 0,
        # run-vm.sh --icount: single-threaded TCG, -icount shift=0,sleep=off
        "icount": True,
        # as setup a, plus poll queues for the polled point; irqmode=1
        # (softirq): a completion costs what an interrupt's would
        "nullb": {"memory_backed": 1, "size": 128, "blocksize": 512,
                  "max_sectors": 1024, "irqmode": 1,
                  "hw_queue_depth": 64, "poll_queues": 2},
        "region": {"full": 64, "quick": 64},
        "prefill": True,
        # 2 MiB huge pages reserved in the guest for the sequential jobs'
        # buffers (cpu_jobs: fio iomem=shmhuge): 4 MiB per array job, 1 MiB
        # per member job, each rounded up to whole huge pages
        "hugepages": 32,
    },
    "e": {
        "title": "nvme-tcp namespaces of 2 nvmet targets, each target in "
                 "a network namespace of its own joined by a veth pair, "
                 "backed by tmpfs files: the loopback network is the limit",
        "members": 4,
        "nvme": 0,
        # tools/bench/fabric.sh (selftests/fabric_lib.sh with FAB_NETNS=1):
        # targets x namespaces of size MiB; the members alternate between
        # the targets, so that every array of 2 or more spans both veths.
        # nvmet reports a volatile write cache: W5's flushes go to the
        # targets (an fsync of a tmpfs file there)
        "fabric": {"targets": 2, "namespaces": 8, "size_mib": 80},
        "region": {"full": 64, "quick": 64},
        # every member (W3, W5 go to 16)
        "prefill": True,
    },
}

# Setup e's workloads: the arrays against each other and against the raw
# members on remote namespaces (W4, W6, W7 and W8 ask about the members'
# bandwidth, writeback and request shape, which setups b and c cover)
FABRIC_WORKLOADS = ["W1", "W2", "W3", "W5"]

# Which workloads run where.  W3 (scaling to 16 members), W4 (reads against
# one member's bandwidth) and W5 (flushes to a volatile write cache) need
# setup b's members, which set the limit; W6 needs GiBs written to the
# members, which memory-backed null_blk (setup a) would have to hold in
# guest RAM.
SETUP_WORKLOADS = {
    "full": {"a": ["W1", "W2", "W7", "W8"],
             "b": WORKLOADS,
             "c": ["W1", "W2", "W6", "W7", "W8"],
             "d": [CPU],
             "e": FABRIC_WORKLOADS},
    "quick": {"a": ["W1", "W2", "W7"],
              "b": WORKLOADS,
              "c": ["W1", "W2", "W7"],
              "d": [CPU],
              "e": FABRIC_WORKLOADS},
}

MAIN_CHUNK = 64  # KiB: W1, W2, W3, W5, W6

# Variant names used by the report
POLLED = "4K-randread-polled"     # W1 with io_uring IOPOLL (fio hipri)
W6_VAR = "4K-randread-QD1"      # W6, writeback throttling as it comes
W6_NOWBT = "4K-randread-QD1-wbt-off"  # W6, the array's wbt_lat_usec = 0

# perf profile points (bench.sh PROFILE=1): where the time goes in the
# workloads whose driver targets TCG leaves out of reach, and (setup d)
# where the instructions per IO go.  A point: name (of the files),
# workload and variant (the job of that setup's own job builder: block_jobs,
# or cpu_jobs for setup d), members, chunk (default MAIN_CHUNK), seconds
# (the job's runtime, replacing the setup's), under icount window (the
# guest seconds of the job's steady state that perf records), systems
# (default ARRAYS), why (the file's header).
_W1_POINT = {"name": "W1", "workload": "W1", "variant": "4K-randread",
             "members": 4, "seconds": 4,
             "why": "W1 target: 1.2 x md and dm IOPS, CPU per IO no more"}
_W2_POINT = {"name": "W2", "workload": "W2", "variant": "16K-randrw-75/25",
             "members": 4, "seconds": 4,
             "why": "W2 target: 1.2 x md and dm IOPS"}
PROFILE = {
    "a": [_W1_POINT, _W2_POINT],
    "b": [_W1_POINT,
          {"name": "W3-read-16", "workload": "W3", "variant": "seq-read",
           "members": 16, "seconds": 3,
           "why": "W3 target: 0.97 x JBOD at 16 members"}],
    "c": [_W1_POINT, _W2_POINT] + [
        {"name": "W8-read-chunk%dK" % chunk, "workload": "W8",
         "variant": "seq-read", "members": 4, "chunk": chunk, "seconds": 3,
         "why": "W8 target: 1 MiB reads at a 4K chunk within 10 % of "
                "the 512K chunk"} for chunk in (4, 512)],
    # setup d's own 4K random jobs (cpu_jobs: io_uring, QD32 per vCPU,
    # JBOD's jobs over every member), under icount: perf's
    # cpu-clock follows the guest clock, one ns per instruction, so a busy
    # vCPU's samples count its instructions; JBOD too, the floor
    "d": [{"name": var, "workload": CPU, "variant": var, "members": 4,
           "chunk": MAIN_CHUNK, "seconds": 6, "window": 4,
           "systems": ARRAYS + ["jbod"],
           "why": "CPU-cost target %s: where the instructions per IO go "
                  "(mqstripe >= 1.05 x md raid0, 1.15 x dm-stripe, 0.90 x "
                  "JBOD IOPS)" % tgt}
          for var, tgt in ((CPU_RANDREAD, "randread4k"),
                           (CPU_RANDWRITE, "randwrite4k"))],
}

# Jobs whose IOs cross chunk boundaries (1 MiB sequential, 8K random at a
# 4K chunk) use libaio: through io_uring, dm-stripe on 6.12 failed 1 MiB
# O_DIRECT IOs with EAGAIN (a NOWAIT attempt that is split completes with
# BLK_STS_AGAIN), and once an 8K random mix on dm-stripe with a 4K chunk
# never completed (fio could not exit).  W1 and W2 never cross a chunk
# (4K and 16K aligned IOs, 64K chunk) and use io_uring.
SEQ_ENGINE = "libaio"


def params(quick):
    """Run parameters.  Times in seconds, sizes in KiB or MiB as named."""
    if quick:
        return {
            "mode": "quick", "reps": 1,
            "rt_cpu": 0.5, "rt_bw": 0.4, "rt_w5": 0.4, "ramp": 0.1,
            "chunks": {"a": [64], "b": [4, 64, 512], "c": [64],
                       "e": [MAIN_CHUNK]},
            "w3_counts": [4, 16], "w5_counts": [1, 16],
            "w4_sizes": [4, 128], "w4_chunks": [64], "w4_rt": 0.25,
            "w7_ios": 4, "w5_region_mib": 16,
            "w6_mib": {"b": 128}, "w6_before": 0.5,
            "w6_after": 0.5,
            # setup d (guest time: one guest s = 1e9 instructions)
            "cpu_reps": 2, "cpu_rt": 1.0, "cpu_ramp": 0.2,
            "cpu_chunks": [64], "cpu_wide_systems": ["mqstripe"],
        }
    # rt_w5: 0.8 s runs (about 1500 fsyncs) varied by up to 15 % and gave
    # W5 0.89 x and 0.94 x in two full runs of the same code; 3 s runs
    # by hand gave 0.97 x (medians of 5)
    return {
        "mode": "full", "reps": 3,
        "rt_cpu": 1.5, "rt_bw": 0.8, "rt_w5": 3.0, "ramp": 0.1,
        "chunks": {"a": [4, 64, 512], "b": [4, 64, 512], "c": [4, 64, 512],
                   "e": [MAIN_CHUNK]},
        "w3_counts": [1, 2, 4, 8, 16], "w5_counts": [1, 2, 4, 8, 16],
        "w4_sizes": [4, 64, 128, 256, 512], "w4_chunks": [4, 64, 512],
        "w4_rt": 0.3,
        "w7_ios": 16, "w5_region_mib": 64,
        "w6_mib": {"b": 1024, "c": 512}, "w6_before": 3.0, "w6_after": 3.0,
        "cpu_reps": 2, "cpu_rt": 2.0, "cpu_ramp": 0.2,
        "cpu_chunks": [4, 64, 512],
        "cpu_wide_systems": ["mqstripe", "md", "dm", "jbod"],
    }


# ---------------------------------------------------------------- jobs

class Job:
    """One fio reporting group: sections run in parallel (JBOD: one per
    member), the first one carries stonewall/new_group and the stat
    snapshots."""

    def __init__(self, name, meta, opts, sections, timed, stat=None,
                 est=None, pre_cmd=None):
        self.name = name
        self.meta = meta          # workload, variant, system, members, chunk
        self.opts = opts          # fio options common to the sections
        self.sections = sections  # list of per-section option dicts
        self.timed = timed        # seconds of IO (runtime + ramp) or 0
        self.stat = stat          # files to snapshot before/after, or None
        self.est = est if est is not None else timed + COST["job"]
        self.pre_cmd = pre_cmd    # shell command before the first snapshot

    def fio_lines(self):
        out = []
        for k, sec in enumerate(self.sections):
            out.append("[%s]" % (self.name if k == 0 else
                                 "%s.%d" % (self.name, k)))
            if k == 0:
                out += ["stonewall", "new_group"]
                if self.stat:
                    cmd = "grep -H . " + " ".join(self.stat)
                    # not ";": fio cuts a job file line there (comment)
                    pre = cmd
                    if self.pre_cmd:
                        pre = self.pre_cmd + " && " + cmd
                    out += ["exec_prerun=" + pre, "exec_postrun=" + cmd]
            opts = dict(self.opts)
            opts.update(sec)
            for key, val in opts.items():
                out.append("%s=%s" % (key, val) if val is not None else key)
        return out


# Cost model for progress estimates (seconds, TCG on a loaded 2-core host);
# the runner rescales by what it measures as it goes.
COST = {"job": 0.45, "invocation": 2.4, "create": {"mqstripe": 0.5,
        "md": 1.0, "dm": 1.2, "jbod": 0.0, "single": 0.0, "raw": 0.0},
        "boot": 25.0, "prefill_bw": 150e6,
        # setup d: host seconds per guest second of fio under icount
        # (one host thread runs both vCPUs), and its boot
        "icount": 2.0, "icount_boot": 15.0}


def ms(sec):
    return "%dms" % int(round(sec * 1000))


def timed_opts(rt, ramp):
    o = {"time_based": None, "runtime": ms(rt)}
    if ramp > 0:
        o["ramp_time"] = ms(ramp)
    return o


def block_jobs(setup, system, chunk, devs, members, p, wl, vcpus,
               region_mib, prefix="j", polls=None):
    """Jobs of one block of the 4-member chunk loop (or the single/JBOD
    blocks, chunk None).  devs: the array device (one) or, for JBOD, the
    members; members: the member devices under the target.  polls(dev):
    whether dev's queue/io_poll is 1 (None: assume so where the setup has
    poll queues, for estimates)."""
    jobs = []
    n = len(members)
    one = devs[0]
    meta0 = {"setup": setup, "system": system, "members": n,
             "chunk_kib": chunk}
    nreg = region_mib * (n if system not in ("jbod", "single") else 1)
    is_array = system in ARRAYS
    main = chunk in (None, MAIN_CHUNK)
    idx = [0]

    def add(wlname, variant, opts, sections, timed, stat=None, est=None):
        m = dict(meta0)
        m.update({"workload": wlname, "variant": variant})
        jobs.append(Job("%s%02d" % (prefix, idx[0]), m, opts, sections,
                        timed, stat, est))
        idx[0] += 1

    base = {"direct": 1, "size": "%dM" % nreg}
    # W7: deterministic request shape (not for JBOD)
    if "W7" in wl and system != "jbod":
        stat = ["/sys/block/%s/stat" % os.path.basename(m) for m in members]
        if is_array:
            stat.append("/sys/block/%s/stat" % os.path.basename(one))
        add("W7", "1M-read", dict(base, rw="read", bs="1M", ioengine="psync",
                                  number_ios=p["w7_ios"]),
            [{"filename": one}], 0, stat=stat,
            est=COST["job"] + 0.2)
        if is_array:
            jobs[-1].meta["array_stat"] = [stat[-1]]
    # W4: dd-like QD1 reads (single and arrays; JBOD has no meaning here)
    if "W4" in wl and system != "jbod" and (chunk in p["w4_chunks"] or
                                             system == "single"):
        for direct in (0, 1):
            for bs in p["w4_sizes"]:
                add("W4", "%s-%dK" % ("direct" if direct else "buffered", bs),
                    dict({"direct": direct, "rw": "read", "bs": "%dK" % bs,
                          "ioengine": "psync", "size": "%dM" % nreg},
                         **timed_opts(p["w4_rt"], p["ramp"])),
                    [{"filename": one}], p["w4_rt"] + p["ramp"])
    t_cpu = p["rt_cpu"] + p["ramp"]
    t_bw = p["rt_bw"] + p["ramp"]
    if main and "W1" in wl:
        tot = 32 * vcpus
        o = dict(base, rw="randread", bs="4K", ioengine="io_uring",
                 **timed_opts(p["rt_cpu"], p["ramp"]))
        if system == "jbod":
            secs = [{"filename": d, "iodepth": max(1, tot // n)}
                    for d in devs]
        else:
            secs = [{"filename": one, "iodepth": 32} for _ in range(vcpus)]
        add("W1", "4K-randread", o, secs, t_cpu, stat=["/proc/stat"])
        # polled (io_uring IOPOLL): only where every target polls; md
        # cannot poll at all (its io_poll is 0), so it has no such figure
        if SETUPS[setup].get("poll_queues") and \
                all(polls(d) if polls else system != "md" for d in devs):
            add("W1", POLLED, dict(o, hipri=1), secs, t_cpu,
                stat=["/proc/stat"])
    if main and "W2" in wl:
        tot = 64 * 4
        o = dict(base, rw="randrw", rwmixread=75, bs="16K",
                 ioengine="io_uring", **timed_opts(p["rt_cpu"], p["ramp"]))
        if system == "jbod":
            secs = [{"filename": d, "iodepth": max(1, tot // n)}
                    for d in devs]
        else:
            secs = [{"filename": one, "iodepth": 64} for _ in range(4)]
        add("W2", "16K-randrw-75/25", o, secs, t_cpu)
    if ("W3" in wl and main) or "W8" in wl:
        for rw in ("read", "write"):
            o = dict(base, rw=rw, bs="1M", ioengine=SEQ_ENGINE,
                     **timed_opts(p["rt_bw"], p["ramp"]))
            if system == "jbod":
                secs = [{"filename": d, "iodepth": 4} for d in devs]
            else:
                secs = [{"filename": one,
                         "iodepth": 4 * (1 if system == "single" else n)}]
            add("W3", "seq-" + rw, o, secs, t_bw)
    if "W8" in wl:
        tot = 16 * vcpus
        o = dict(base, rw="randrw", rwmixread=50, bs="8K",
                 ioengine=SEQ_ENGINE, **timed_opts(p["rt_bw"], p["ramp"]))
        if system == "jbod":
            secs = [{"filename": d, "iodepth": max(1, tot // n)}
                    for d in devs]
        else:
            secs = [{"filename": one, "iodepth": 16} for _ in range(vcpus)]
        add("W8", "8K-randrw-50/50", o, secs, t_bw)
    return jobs


def cpu_jobs(setup, system, chunk, devs, members, p, vcpus, region_mib,
             wide=False, polls=None, prefix="c"):
    """Setup d: the jobs of one system at one chunk (JBOD: chunk None).
    Random points: io_uring, QD32 per vCPU in all, one job per vCPU (JBOD:
    each job over every member, fio's round robin of files).  Sequential
    points: 1 MiB, libaio, QD4 (JBOD: one job over every member, 1 MiB /
    members per IO at QD4 x members: the same bytes in flight).  JBOD's
    jobs are as many as the arrays': with one job per member (more threads
    than vCPUs) how the threads happened to share the vCPUs moved its
    figures by up to 2.9 % from one round to the next.  wide: the 4K random
    read only (the member-count point).  No exec_prerun/exec_postrun (stat
    snapshots) and no CPU pinning here: under icount either made the
    figures jump by up to a third from one run to the next (a snapshot's
    fork and exec wait on the host, and the guest clock jumps meanwhile);
    without them the same runs repeat within about 0.3 %."""
    jobs = []
    n = len(members)
    meta0 = {"setup": setup, "system": system, "members": n,
             "chunk_kib": chunk, "workload": CPU}
    # a job's size is divided among its files: region_mib on each member
    base = {"direct": 1, "size": "%dM" % (region_mib * n)}
    files = ":".join(devs)
    timed = p["cpu_rt"] + p["cpu_ramp"]
    tmo = timed_opts(p["cpu_rt"], p["cpu_ramp"])
    # the cost model: host seconds per guest second
    est = timed * COST["icount"] + 0.3

    def add(variant, opts, secs):
        m = dict(meta0, variant=variant)
        jobs.append(Job("%s%02d" % (prefix, len(jobs)), m, opts, secs,
                        timed, est=est))

    def rand_secs():
        return [{"filename": files, "iodepth": 32} for _ in range(vcpus)]

    main = chunk in (None, MAIN_CHUNK)
    if main:
        o = dict(base, rw="randread", bs="4K", ioengine="io_uring", **tmo)
        add(CPU_RANDREAD, o, rand_secs())
        if wide:
            return jobs
        add(CPU_RANDREAD_BATCH, dict(o, iodepth_batch_submit=8,
                                     iodepth_batch_complete_min=8),
            rand_secs())
        add(CPU_RANDWRITE, dict(o, rw="randwrite"), rand_secs())
        add(CPU_MIX, dict(o, rw="randrw", rwmixread=75, bs="16K"),
            rand_secs())
        # polled: where every target polls (md cannot: its io_poll is 0;
        # the report sets md's interrupt figure beside the others')
        if all(polls(d) if polls else system != "md" for d in devs):
            add(CPU_POLLED, dict(o, hipri=1), rand_secs())
    # The sequential jobs' buffers are in huge pages (fio iomem=shmhuge):
    # each 1 MiB IO is then one physically contiguous bio_vec on every
    # system and every round.  In fio's default malloc'd buffer, how many
    # of an IO's pages happen to be contiguous (merged into one bio_vec by
    # bio_iov_iter_get_pages()) changes from one run to the next, and with
    # it the cost of every layer that walks the vectors: two runs of the
    # same 1 MiB read on one array differed by 7 %; in huge pages, by 0.1 %.
    for rw, var in (("read", CPU_SEQREAD), ("write", CPU_SEQWRITE)):
        o = dict(base, rw=rw, ioengine=SEQ_ENGINE, iomem="shmhuge", **tmo)
        if system == "jbod":
            if not main:
                continue
            secs = [{"filename": files, "iodepth": 4 * n,
                     "bs": "%dK" % (1024 // n)}]
        else:
            secs = [{"filename": devs[0], "iodepth": 4, "bs": "1M"}]
        add(var, o, secs)
    return jobs


def w3_jobs(setup, system, n, devs, p, region_mib, prefix="s"):
    """W3 scaling point at n members (chunk 64 KiB for arrays)."""
    jobs = []
    for k, rw in enumerate(("read", "write")):
        o = {"direct": 1, "rw": rw, "bs": "1M", "ioengine": SEQ_ENGINE,
             "size": "%dM" % (region_mib * (1 if system == "jbod" else n))}
        o.update(timed_opts(p["rt_bw"], p["ramp"]))
        if system == "jbod":
            secs = [{"filename": d, "iodepth": 4} for d in devs]
        else:
            secs = [{"filename": devs[0], "iodepth": 4 * n}]
        meta = {"setup": setup, "system": system, "members": n,
                "chunk_kib": None if system in ("jbod", "single") else
                MAIN_CHUNK, "workload": "W3", "variant": "seq-" + rw}
        jobs.append(Job("%s%02d" % (prefix, k), meta, o, secs,
                        p["rt_bw"] + p["ramp"]))
    return jobs


def w5_jobs(setup, system, n, devs, members, p, prefix="f"):
    """W5 at n members: 4K random O_DIRECT writes, fsync after each."""
    reg = p["w5_region_mib"]
    o = {"direct": 1, "rw": "randwrite", "bs": "4K", "ioengine": "psync",
         "fsync": 1}
    # no ramp: the flush counters in stat count the ramp's IO, fio's sync
    # count does not (a ramp of 0.1 s gave 1.12 member flushes per fsync on
    # a single member); a 4K write never meets null_blk's bandwidth bucket
    o.update(timed_opts(p["rt_w5"], 0))
    pre = None
    if system == "jbod":
        # the raw members' own figure at n: the same one thread, each
        # write to a member picked at random and fsync of that member;
        # what the guest and the members alone lose as n grows
        secs = [{"filename": ":".join(devs), "size": "%dM" % (reg * n),
                 "file_service_type": "random"}]
    else:
        secs = [{"filename": devs[0], "size": "%dM" % (reg * n)}]
        # one flush before the counters are read: a new array counts every
        # member as written (nothing says their caches are clean), so its
        # first flush goes to all of them; W5 counts the flushes that the
        # fsyncs cause, each after one 4K write to one member
        pre = "sync %s" % devs[0]  # fsync(2) of the device: one flush
    # the members' flush counters (JBOD: devs are the members)
    stat = ["/sys/block/%s/stat" % os.path.basename(m) for m in members]
    meta = {"setup": setup, "system": system, "members": n,
            "chunk_kib": None if system in ("jbod", "single") else MAIN_CHUNK,
            "workload": "W5", "variant": "4K-randwrite-fsync"}
    return [Job(prefix + "00", meta, o, secs, p["rt_w5"], stat=stat,
                pre_cmd=pre)]


# ---------------------------------------------------------------- plan

def rotate(lst, k):
    k %= len(lst)
    return lst[k:] + lst[:k]


def plan(setup, quick, vcpus=2):
    """The ordered steps of one setup: dicts with kind, rep, system, and
    what to run.  Systems are rotated per repetition so that a burst of host
    load does not always hit the same one."""
    p = params(quick)
    wl = SETUP_WORKLOADS[p["mode"]][setup]
    s = SETUPS[setup]
    n = s["members"]
    steps = []
    if CPU in wl:
        return cpu_plan(setup, p)
    for rep in range(1, p["reps"] + 1):
        order = rotate(ARRAYS, rep - 1)
        # the single member and JBOD need no array: one fio invocation
        steps.append({"kind": "block", "rep": rep, "system": "raw",
                      "chunk": None, "members": n})
        for chunk in p["chunks"][setup]:
            for system in order:
                steps.append({"kind": "block", "rep": rep, "system": system,
                              "chunk": chunk, "members": n})
        if "W3" in wl:
            for m in p["w3_counts"]:
                if m == n:
                    continue  # measured in the chunk loop (64 KiB)
                if m > 1:
                    steps.append({"kind": "w3", "rep": rep,
                                  "system": "jbod", "members": m})
                for system in order:
                    steps.append({"kind": "w3", "rep": rep,
                                  "system": system, "members": m})
        if "W5" in wl:
            # the single member is the baseline; JBOD here is one thread
            # writing to a random raw member and syncing it (w5_jobs)
            for m in p["w5_counts"]:
                for system in order + (["single"] if m == 1 else
                                       ["jbod"]):
                    steps.append({"kind": "w5", "rep": rep,
                                  "system": system, "members": m})
        if "W6" in wl:
            # mqstripe twice: with writeback throttling as it comes (on)
            # and with the array's wbt_lat_usec = 0
            for system in [x for x in order if x != "dm"]:
                steps.append({"kind": "w6", "rep": rep, "system": system,
                              "members": n})
                if system == "mqstripe":
                    steps.append({"kind": "w6", "rep": rep,
                                  "system": system, "members": n,
                                  "wbt_off": True})
    return steps


def cpu_plan(setup, p):
    """Setup d: two rounds in the one boot, the systems' order rotated in
    the second; the members in parallel, each array at each chunk, then
    the 4K random read at the wide member count."""
    s = SETUPS[setup]
    n, wide = s["members"], s["wide"]
    steps = []
    reps = p["cpu_reps"]
    for rep in range(1, reps + 1):
        order = rotate(ARRAYS, rep - 1)
        steps.append({"kind": "cpu", "rep": rep, "reps": reps,
                      "system": "jbod", "chunk": None, "members": n})
        for chunk in p["cpu_chunks"]:
            for system in order:
                steps.append({"kind": "cpu", "rep": rep, "reps": reps,
                              "system": system, "chunk": chunk,
                              "members": n})
        for system in order + ["jbod"]:
            if system in p["cpu_wide_systems"]:
                steps.append({"kind": "cpu", "rep": rep, "reps": reps,
                              "system": system, "wide": True,
                              "chunk": None if system == "jbod" else
                              MAIN_CHUNK, "members": wide})
    return steps


def step_jobs(step, setup, quick, devs, members, vcpus=2,
              polls=None):
    """devs: the target (array device, or the members for JBOD);
    members: the member devices under it; polls: as for block_jobs."""
    p = params(quick)
    wl = SETUP_WORKLOADS[p["mode"]][setup]
    reg = SETUPS[setup]["region"][p["mode"]]
    if step["kind"] == "block" and step["system"] == "raw":
        return (block_jobs(setup, "single", None, members[:1], members[:1],
                           p, wl, vcpus, reg, prefix="s", polls=polls) +
                block_jobs(setup, "jbod", None, members, members, p, wl,
                           vcpus, reg, prefix="j", polls=polls))
    if step["kind"] == "block":
        return block_jobs(setup, step["system"], step["chunk"], devs,
                          members, p, wl, vcpus, reg, polls=polls)
    if step["kind"] == "w3":
        return w3_jobs(setup, step["system"], step["members"], devs, p, reg)
    if step["kind"] == "w5":
        return w5_jobs(setup, step["system"], step["members"], devs,
                       members, p)
    if step["kind"] == "cpu":
        return cpu_jobs(setup, step["system"], step["chunk"], devs, members,
                        p, vcpus, reg, wide=step.get("wide", False),
                        polls=polls)
    return []


def profile_jobs(point, setup, quick, system, devs, members, vcpus=2,
                 polls=None):
    """The jobs of one profile point (PROFILE) on one system: the setup's
    own job of that workload and variant (setup d: cpu_jobs, the same fio
    parameters as its figures), only the runtime the point's.  devs: the
    array device, or the members for JBOD."""
    p = params(quick)
    reg = SETUPS[setup]["region"][p["mode"]]
    chunk = point.get("chunk", MAIN_CHUNK)
    if point["workload"] == CPU:
        p = dict(p, cpu_rt=point["seconds"])
        jobs = cpu_jobs(setup, system, None if system == "jbod" else chunk,
                        devs, members, p, vcpus, reg, polls=polls)
    else:
        p = dict(p, rt_cpu=point["seconds"], rt_bw=point["seconds"])
        jobs = block_jobs(setup, system, chunk, devs, members, p,
                          [point["workload"]], vcpus, reg, polls=polls)
    return [j for j in jobs if j.meta["variant"] == point["variant"]]


# a profile run: fio's start, perf report three times over the samples
# (TCG seconds)
PROFILE_REPORT_COST = 40.0


def profile_estimate(setup, quick, vcpus=2):
    """Seconds for one boot of PROFILE=1: boot, members, prefill, and per
    point and system the array, the fio run (under icount: alone on all
    vCPUs, then alone and under perf on one) and perf's reports."""
    p = params(quick)
    s = SETUPS[setup]
    icount = s.get("icount")
    t = COST["icount_boot"] if icount else COST["boot"]
    if s.get("prefill"):
        t += prefill_count(s) * \
            (s["region"][p["mode"]] + 4) * MIB / COST["prefill_bw"] + 3
    for point in PROFILE.get(setup, []):
        mem = ["/dev/x%d" % i for i in range(point["members"])]
        for system in point.get("systems", ARRAYS):
            devs = mem if system == "jbod" else ["/dev/arr"]
            fio = sum(j.timed for j in profile_jobs(
                point, setup, quick, system, devs, mem, vcpus))
            create = COST["create"][system]
            if icount:
                # alone on all vCPUs, alone and under perf on one
                fio = 3 * (fio * COST["icount"] + COST["invocation"])
                create *= 2
            else:
                fio += COST["invocation"]
            t += create + fio + PROFILE_REPORT_COST
    return t


def prefill_count(s):
    """How many members the prefill of setup s writes: the first "members"
    or, where points go beyond them, every one (setup d's wide point,
    setup e's W3 and W5 at 16)."""
    if s.get("fabric"):
        return s["fabric"]["targets"] * s["fabric"]["namespaces"]
    return max(s["members"], s.get("wide", 0))


def step_estimate(step, setup, quick, vcpus=2):
    p = params(quick)
    if step["kind"] == "w6":
        mib = p["w6_mib"].get(setup, 256)
        bw = {"b": 80e6, "c": 60e6}.get(setup, 60e6)
        return (COST["create"][step["system"]] + 6.0 + p["w6_before"] +
                p["w6_after"] + mib * MIB / bw)
    mem = ["/dev/x%d" % i for i in range(step["members"])]
    devs = mem if step["system"] in ("jbod", "raw") else ["/dev/arr"]
    jobs = step_jobs(step, setup, quick, devs, mem, vcpus)
    if step["kind"] == "cpu":
        return 1.5 + sum(j.est for j in jobs)
    return (COST["invocation"] + COST["create"][step["system"]] +
            sum(j.est for j in jobs))


def setup_estimate(setup, quick, vcpus=2):
    """Seconds for one boot: boot, member setup, prefill, the steps."""
    p = params(quick)
    s = SETUPS[setup]
    t = COST["icount_boot"] if s.get("icount") else COST["boot"]
    if s.get("prefill"):
        t += prefill_count(s) * \
            (s["region"][p["mode"]] + 4) * MIB / COST["prefill_bw"] + 3
    return t + sum(step_estimate(st, setup, quick, vcpus)
                   for st in plan(setup, quick, vcpus))


# ---------------------------------------------------------------- parsing

def load_fio_json(path):
    """fio's JSON output, skipping the lines fio writes before it
    ("Saving output of prerun ...")."""
    with open(path, errors="replace") as f:
        txt = f.read()
    i = txt.find("\n{")
    if not txt.startswith("{"):
        if i < 0:
            raise ValueError("%s: no JSON object" % path)
        txt = txt[i + 1:]
    return json.loads(txt)


def parse_grep_stat(text):
    """Output of 'grep -H . FILES': {'/sys/block/X/stat': [ints],
    '/proc/stat': {'cpu': [ints], ...}}."""
    out = {}
    for line in (text or "").splitlines():
        path, _, rest = line.partition(":")
        if path == "/proc/stat":
            f = rest.split()
            if f and f[0].startswith("cpu"):
                out.setdefault("/proc/stat", {})[f[0]] = [int(x) for x in
                                                          f[1:]]
        elif path:
            out[path] = [int(x) for x in rest.split()]
    return out


def stat_delta(pre, post, path):
    a, b = pre.get(path), post.get(path)
    if a is None or b is None:
        return None
    return [y - x for x, y in zip(a, b)]


def cpu_busy_jiffies(pre, post):
    a = pre.get("/proc/stat", {}).get("cpu")
    b = post.get("/proc/stat", {}).get("cpu")
    if not a or not b:
        return None, None
    d = [y - x for x, y in zip(a, b)]
    # user nice system idle iowait irq softirq steal
    busy = d[0] + d[1] + d[2] + d[5] + d[6]
    total = busy + d[3] + d[4]
    return busy, total


def parse_perf_flat(text):
    """`perf report --stdio -g none` output with one sort key (sym, dso):
    [(percent, key)] in its order."""
    out = []
    for line in (text or "").splitlines():
        if line.lstrip().startswith("#"):
            continue
        f = line.split(None, 1)
        if len(f) == 2 and f[0].endswith("%"):
            try:
                out.append((float(f[0][:-1]), f[1].strip()))
            except ValueError:
                pass
    return out


# where an idle vCPU's samples land (the instruction after hlt): under
# icount they count the guest time that the other vCPUs' instructions (or
# a jump of the idle clock) passed, not instructions of this one
IDLE_SYMS = {"pv_native_safe_halt", "native_safe_halt", "default_idle",
             "acpi_safe_halt", "acpi_idle_do_entry", "cpu_idle_poll",
             "poll_idle", "mwait_idle", "intel_idle"}


def perf_sym_name(key):
    """"[k] name" -> "name" (perf's "[k]"/"[.]" mark dropped)."""
    return key.split("] ", 1)[1] if key.startswith("[") and "] " in key \
        else key


def profile_compare(point, figs, order=None, top=40):
    """Setup d: the instructions per IO of each system by symbol and by
    object, side by side.  figs: {system: {"insn_per_io": under perf (one
    vCPU online), "insn_per_io_alone": without perf (one vCPU),
    "insn_per_io_smp": without perf on all vCPUs, "sym":
    parse_perf_flat(...), "dso": ...}}.  A symbol's instructions per IO =
    its share of the samples that are not idle (IDLE_SYMS) x the
    instructions per IO under perf: the one vCPU's samples follow its
    instructions.  The text of the file."""
    systems = [x for x in (order or list(figs)) if x in figs]
    base = "jbod" if "jbod" in systems else systems[-1]
    lines = ["# setup d, %s: instructions per IO by symbol and by object"
             " (profiled with one vCPU online)" % point["name"],
             "# a symbol's share of the non-idle samples x 1e9 / IOPS "
             "under perf; '-' below the report's cut-off (0.1 %)", ""]
    w = 11

    def row(label, vals):
        return "%-34s" % label[:34] + "".join(
            ("%*s" % (w, v)) for v in vals)

    lines.append(row("", [LABEL[x][:w - 1] for x in systems] +
                     ["mq-%s" % base[:4]] +
                     (["mq-md"] if "md" in systems else [])))

    def fig(x, k, fmt="%.0f"):
        v = figs[x].get(k)
        return fmt % v if v else "?"
    lines.append(row("insn/IO alone, all vCPUs",
                     [fig(x, "insn_per_io_smp") for x in systems]))
    lines.append(row("insn/IO alone, 1 vCPU",
                     [fig(x, "insn_per_io_alone") for x in systems]))
    lines.append(row("insn/IO under perf, 1 vCPU",
                     [fig(x, "insn_per_io") for x in systems]))
    busy = {}
    for x in systems:
        idle = sum(pc for pc, k in figs[x].get("sym", [])
                   if perf_sym_name(k) in IDLE_SYMS)
        busy[x] = max(1e-9, 100.0 - idle)
        figs[x]["idle_pct"] = idle
    lines.append(row("idle samples %", ["%.1f" % figs[x]["idle_pct"]
                                        for x in systems]))

    def table(kind, title, ignore=()):
        per = {}
        for x in systems:
            ipo = figs[x].get("insn_per_io") or 0
            for pc, k in figs[x].get(kind, []):
                name = perf_sym_name(k) if kind == "sym" else k
                if name in ignore:
                    continue
                if name.startswith("[kernel."):
                    # the idle samples are the kernel's
                    pc -= figs[x]["idle_pct"]
                per.setdefault(name, {})[x] = pc / busy[x] * ipo
        mq = "mqstripe" if "mqstripe" in systems else systems[0]
        keys = sorted(per, key=lambda k: -(per[k].get(mq, 0) -
                                           per[k].get(base, 0)))
        keys = [k for k in keys if any(v >= 1 for v in per[k].values())]
        lines.extend(["", "# %s (sorted by mqstripe - %s)" % (
            title, LABEL[base])])
        def add(k):
            v = per[k]
            cells = ["%.0f" % v[x] if x in v else "-" for x in systems]
            cells.append("%+.0f" % (v.get(mq, 0) - v.get(base, 0)))
            if "md" in systems:
                cells.append("%+.0f" % (v.get(mq, 0) - v.get("md", 0)))
            lines.append(row(k, cells))
        for k in keys[:top]:
            add(k)
        # the other end: what mqstripe spends less on
        if len(keys) > top:
            lines.append("...")
            lines.append("# ... least (mqstripe below %s)" % LABEL[base])
            for k in keys[-8:]:
                add(k)
    table("dso", "by object, instructions per IO (the kernel's without "
          "its idle samples)")
    table("sym", "by symbol, instructions per IO", ignore=IDLE_SYMS)
    return "\n".join(lines) + "\n"


def pct(data, q):
    """Nearest-rank percentile of a sorted list."""
    if not data:
        return None
    k = max(0, min(len(data) - 1, int(math.ceil(q / 100.0 * len(data))) - 1))
    return data[k]


def median(vals):
    v = sorted(x for x in vals if x is not None)
    if not v:
        return None
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2.0


def job_metrics(job_meta, fj, pre, post, user_hz=100):
    """Figures of one fio group (fj: the entry of fio's 'jobs' list)."""
    wlname = job_meta["workload"]
    r, w = fj["read"], fj["write"]
    rt_ms = fj.get("job_runtime", 0)
    ios = r["total_ios"] + w["total_ios"]
    m = {"fio_error": fj.get("error", 0)}
    bw = (r["bw_bytes"] + w["bw_bytes"]) / 1e6
    iops = r["iops"] + w["iops"]
    cpu_s = (fj.get("usr_cpu", 0) + fj.get("sys_cpu", 0)) / 100.0 * \
        rt_ms / 1000.0
    if wlname == CPU:
        # guest time: one guest ns per instruction of any vCPU (QEMU's
        # icount counts them all in one clock), so guest ns per IO (per
        # MiB) is the instructions the whole guest spent on each
        if CPU_METRIC.get(job_meta["variant"]) == "iops":
            m["iops"] = iops
            m["insn_per_io"] = 1e9 / iops if iops else None
        else:
            m["MBps"] = bw
            m["insn_per_MiB"] = 1e9 * MIB / (bw * 1e6) if bw else None
    elif wlname == "W1":
        m["iops"] = iops
        m["cpu_us_per_io"] = cpu_s / ios * 1e6 if ios else None
        busy, _ = cpu_busy_jiffies(pre, post)
        if busy is not None and ios:
            m["sys_cpu_us_per_io"] = busy / float(user_hz) / ios * 1e6
        m["p99_us"] = clat_pct(r, "99.000000")
    elif wlname == "W2":
        m["iops"] = iops
        m["read_iops"] = r["iops"]
        m["write_iops"] = w["iops"]
        m["MBps"] = bw
        m["read_p99_us"] = clat_pct(r, "99.000000")
    elif wlname == "W3":
        m["MBps"] = bw
    elif wlname == "W8":
        m["iops"] = iops
        m["MBps"] = bw
    elif wlname == "W4":
        m["MBps"] = bw
        lat = r.get("clat_ns", {}).get("mean") or r.get("lat_ns", {}).get(
            "mean")
        m["lat_us"] = lat / 1000.0 if lat else None
    elif wlname == "W5":
        m["iops"] = w["iops"]
        syncs = fj.get("sync", {}).get("total_ios", 0) or w["total_ios"]
        m["fsyncs"] = syncs
        fl = wr = 0
        have = False
        for path in pre:
            if not path.startswith("/sys/block/"):
                continue
            d = stat_delta(pre, post, path)
            if d and len(d) >= 16:
                fl += d[15]  # field 16: flush requests completed
                wr += d[4]
                have = True
        if have and syncs:
            m["member_flushes_per_fsync"] = fl / float(syncs)
            m["member_writes_per_write"] = wr / float(w["total_ios"] or 1)
    elif wlname == "W7":
        mib = r["io_bytes"] / float(MIB)
        reqs = merges = sectors = 0
        arr = None
        for path in pre:
            if not path.startswith("/sys/block/"):
                continue
            d = stat_delta(pre, post, path)
            if d is None:
                continue
            if path in job_meta.get("array_stat", []):
                arr = d
                continue
            reqs += d[0]
            merges += d[1]
            sectors += d[2]
        if mib:
            m["member_requests_per_MiB"] = reqs / mib
            m["member_merges_per_MiB"] = merges / mib
            m["avg_member_request_KiB"] = (sectors * 512.0 / reqs / 1024
                                           if reqs else None)
            if arr is not None:
                m["array_requests_per_MiB"] = arr[0] / mib
        m["MiB_read"] = mib
    return m


def clat_pct(side, key):
    pc = side.get("clat_ns", {}).get("percentile") or {}
    v = pc.get(key)
    return v / 1000.0 if v else None


if __name__ == "__main__":
    import sys
    # bench.sh: "benchlib.py estimate QUICK SETUP..." prints seconds per
    # setup, one per line; "estimate-profile": those of PROFILE=1
    if len(sys.argv) >= 3 and sys.argv[1] in ("estimate",
                                               "estimate-profile"):
        q = sys.argv[2] not in ("", "0")
        vc = int(os.environ.get("BENCH_CPUS", "2"))
        fn = profile_estimate if sys.argv[1] == "estimate-profile" else \
            setup_estimate
        for s in sys.argv[3:]:
            if s in SETUPS:
                print(s, int(fn(s, q, vc)))
    else:
        print("usage: benchlib.py estimate[-profile] QUICK SETUP...",
              file=sys.stderr)
        sys.exit(2)
