#!/usr/bin/env python3
"""A delay line for `codebook lab up --delay-ms D` on kernels without netem (CONFIG_NET_SCH_NETEM).

Usage: lab-delay-line.py DELAY_MS HOST_TAP RACK_TAP [HOST_TAP RACK_TAP ...]

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
import os
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
TUNSETOFFLOAD = 0x400454D0
IFF_TAP, IFF_NO_PI, IFF_VNET_HDR = 0x0002, 0x1000, 0x4000
TUN_F_CSUM, TUN_F_TSO4, TUN_F_TSO6 = 0x01, 0x02, 0x04


def open_tap(name):
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
    fcntl.ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)
    return fd


def main():
    delay = float(sys.argv[1]) / 1000.0
    names = sys.argv[2:]
    if len(names) == 0 or len(names) % 2:
        sys.exit("usage: lab-delay-line.py DELAY_MS HOST_TAP RACK_TAP [...]")
    # peer[fd] = (fd to write to, delay before writing)
    peer = {}
    for i in range(0, len(names), 2):
        host, rack = open_tap(names[i]), open_tap(names[i + 1])
        peer[host] = (rack, delay)
        peer[rack] = (host, 0.0)
    if os.fork() > 0:
        os._exit(0)  # the taps exist: the caller may go on
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    poll = select.poll()
    for fd in peer:
        poll.register(fd, select.POLLIN)
    due = []  # heap of (time, seq, fd, frame)
    seq = 0
    while True:
        timeout = None if not due else max(0.0, (due[0][0] - time.monotonic()) * 1000)
        for fd, _ in poll.poll(timeout):
            out, wait = peer[fd]
            for _ in range(64):
                try:
                    frame = os.read(fd, 70000)
                except BlockingIOError:
                    break
                if wait == 0.0:
                    try:
                        os.write(out, frame)
                    except OSError:
                        pass  # a full queue drops the frame, as a switch would
                else:
                    seq += 1
                    heapq.heappush(due, (time.monotonic() + wait, seq, out, frame))
        now = time.monotonic()
        while due and due[0][0] <= now:
            _, _, out, frame = heapq.heappop(due)
            try:
                os.write(out, frame)
            except OSError:
                pass


main()
