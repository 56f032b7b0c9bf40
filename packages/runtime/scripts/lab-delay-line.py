#!/usr/bin/env python3
"""A delay line for `codebook lab up --delay-ms D` on kernels without netem (CONFIG_NET_SCH_NETEM).

Usage: lab-delay-line.py DELAY HOST_TAP RACK_TAP [HOST_TAP RACK_TAP ...]

DELAY is milliseconds for every frame, or (a lab with sites) a JSON table per host TAP of
destination /24 prefix -> milliseconds, e.g. {"a0": {"10.213.64": 36.3, "10.213.65": 0.25}}:
a host's IPv4 frame waits the delay of its destination's prefix (its destination site), any
other frame (ARP, the driver) is not delayed.

Creates each pair of TAP devices in the current network namespace (the lab's core), then forks
into the background and forwards frames between the two ends of every pair: what the host
sends (HOST_TAP's egress) is delivered DELAY_MS later, what comes back immediately. The lab
then moves HOST_TAP into the host's namespace (as eth0) and RACK_TAP onto the rack's bridge,
so the delay sits on the host's outgoing link, as netem would. Frames keep their virtio-net
header (segmentation offload), so one read moves up to 64 KiB and Python keeps up with the
lab's rates. The process lives in the core namespace: `lab down` finds and stops it there,
and its TAP devices vanish with it.
"""
import fcntl
import heapq
import json
import os
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
TUNSETOFFLOAD = 0x400454D0
IFF_TAP, IFF_NO_PI, IFF_VNET_HDR = 0x0002, 0x1000, 0x4000
TUN_F_CSUM, TUN_F_TSO4, TUN_F_TSO6 = 0x01, 0x02, 0x04
VNET_HDR = 10  # struct virtio_net_hdr precedes every frame
ETHERTYPE_AT = VNET_HDR + 12
DST_PREFIX_AT = VNET_HDR + 14 + 16  # IPv4 destination address, first three octets = the /24


def open_tap(name):
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
    fcntl.ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)
    return fd


def delay_of(frame, wait):
    """Seconds `frame` waits: `wait` itself, or from a table by its IPv4 destination's /24."""
    if not isinstance(wait, dict):
        return wait
    if frame[ETHERTYPE_AT:ETHERTYPE_AT + 2] != b"\x08\x00":
        return 0.0
    return wait.get(frame[DST_PREFIX_AT:DST_PREFIX_AT + 3], 0.0)


def parse_delays(arg):
    """A number of ms for every host, or {host tap: {"a.b.c": ms}} -> {tap: {bytes(a,b,c): s}}."""
    if not arg.lstrip().startswith("{"):
        return float(arg) / 1000.0
    table = json.loads(arg)
    return {
        tap: {bytes(int(o) for o in prefix.split(".")): ms / 1000.0 for prefix, ms in rows.items()}
        for tap, rows in table.items()
    }


def main():
    delays = parse_delays(sys.argv[1])
    names = sys.argv[2:]
    if len(names) == 0 or len(names) % 2:
        sys.exit("usage: lab-delay-line.py DELAY HOST_TAP RACK_TAP [...]")
    # peer[fd] = (fd to write to, delay before writing: seconds, or a table by destination prefix)
    peer = {}
    for i in range(0, len(names), 2):
        host, rack = open_tap(names[i]), open_tap(names[i + 1])
        peer[host] = (rack, delays.get(names[i], 0.0) if isinstance(delays, dict) else delays)
        peer[rack] = (host, 0.0)
    if os.fork() > 0:
        os._exit(0)  # the taps exist: the caller may go on
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    fds = list(peer)
    due = []  # heap of (time, seq, fd, frame)
    seq = 0
    while True:
        # select, not poll: its timeout has microsecond resolution (poll rounds up to 1 ms).
        timeout = None if not due else max(0.0, due[0][0] - time.monotonic())
        for fd in select.select(fds, [], [], timeout)[0]:
            out, wait = peer[fd]
            for _ in range(64):
                try:
                    frame = os.read(fd, 70000)
                except BlockingIOError:
                    break
                hold = delay_of(frame, wait)
                if hold == 0.0:
                    try:
                        os.write(out, frame)
                    except OSError:
                        pass  # a full queue drops the frame, as a switch would
                else:
                    seq += 1
                    heapq.heappush(due, (time.monotonic() + hold, seq, out, frame))
        now = time.monotonic()
        while due and due[0][0] <= now:
            _, _, out, frame = heapq.heappop(due)
            try:
                os.write(out, frame)
            except OSError:
                pass


main()
