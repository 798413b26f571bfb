#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""uevent.py OUT DEVNAME SECONDS [ATTR]

Record the kernel's "change" uevents of the block device DEVNAME (for
example mqstripe0), straight from the kernel's netlink socket (no udevd
needed), for up to SECONDS: one event per paragraph of KEY=VALUE lines,
appended to OUT as they come.  With ATTR (a sysfs file), also wait in
poll() for a sysfs_notify() on it and append "POLL_WOKE=<its new text>"
when one comes.  Writes OUT.ready once listening, so that the caller can
start what makes the events.
"""
import os
import select
import socket
import sys
import time

NETLINK_KOBJECT_UEVENT = 15


def main(argv):
    if len(argv) not in (4, 5):
        sys.stderr.write(__doc__)
        return 2
    out, devname, secs = argv[1], argv[2], float(argv[3])
    attr = argv[4] if len(argv) == 5 else None
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM,
                         NETLINK_KOBJECT_UEVENT)
    sock.bind((0, 1))           # group 1: the kernel's own events
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    afd = None
    if attr:
        afd = os.open(attr, os.O_RDONLY)
        os.read(afd, 4096)      # sysfs: read before poll() arms it
        poller.register(afd, select.POLLPRI | select.POLLERR)
    with open(out + ".ready", "w"):
        pass
    end = time.monotonic() + secs
    with open(out, "a") as f:
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            for fd, _ in poller.poll(left * 1000):
                if fd == afd:
                    os.lseek(afd, 0, os.SEEK_SET)
                    text = os.read(afd, 4096).decode().strip()
                    f.write("POLL_WOKE=%s\n\n" % text)
                    f.flush()
                    poller.unregister(afd)
                    continue
                data = sock.recv(65536)
                fields = data.split(b"\0")[1:]
                env = dict(x.decode(errors="replace").split("=", 1)
                           for x in fields if b"=" in x)
                if env.get("ACTION") != "change" or \
                        env.get("DEVNAME") != devname:
                    continue
                f.write("".join("%s=%s\n" % kv for kv in sorted(env.items())))
                f.write("\n")
                f.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
