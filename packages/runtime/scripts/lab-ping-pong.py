#!/usr/bin/env python3
"""Ping-pong between two lab hosts, for `codebook lab calibrate` (the paper's calibration).

Usage:
  lab-ping-pong.py serve ADDRESS PORT
      Listens, prints "ready", serves one connection, exits when it closes. Each request is a
      9-byte header (op, length as uint64 big-endian) and `length` bytes: op "P" is echoed back
      whole (ping-pong), op "S" is answered with one byte once all of it has arrived.
  lab-ping-pong.py measure ADDRESS PORT PINGS LARGE_BYTES REPEAT
      Connects (TCP_NODELAY), times PINGS 1-byte ping-pongs, then one untimed LARGE_BYTES send
      (TCP's slow start is over after it) and REPEAT timed ones, each until its one-byte answer;
      prints {"rttSeconds": [...], "largeSeconds": [...], "largeBytes": N} on one line.
"""
import json
import socket
import struct
import sys
import time

HEADER = struct.Struct("!cQ")
CHUNK = 1 << 20


def read_exact(sock, n):
    """Reads exactly n bytes (returns how many arrived: fewer only when the peer closed)."""
    view = memoryview(bytearray(min(n, CHUNK)))
    got = 0
    while got < n:
        r = sock.recv_into(view, min(len(view), n - got))
        if r == 0:
            return got
        got += r
    return got


def serve(address, port):
    listener = socket.create_server((address, port))
    print("ready", flush=True)
    conn, _ = listener.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while True:
        head = conn.recv(HEADER.size, socket.MSG_WAITALL)
        if len(head) < HEADER.size:
            return
        op, length = HEADER.unpack(head)
        if read_exact(conn, length) < length:
            return
        conn.sendall(b"x" * length if op == b"P" else b"k")


def measure(address, port, pings, large, repeat):
    sock = socket.create_connection((address, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rtt = []
    for _ in range(pings):
        start = time.perf_counter()
        sock.sendall(HEADER.pack(b"P", 1) + b"x")
        read_exact(sock, 1)
        rtt.append(time.perf_counter() - start)
    payload = b"x" * large
    times = []
    for i in range(repeat + 1):
        start = time.perf_counter()
        sock.sendall(HEADER.pack(b"S", large) + payload)
        read_exact(sock, 1)
        if i > 0:
            times.append(time.perf_counter() - start)
    sock.close()
    print(json.dumps({"rttSeconds": rtt, "largeSeconds": times, "largeBytes": large}), flush=True)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "serve" and len(sys.argv) == 4:
        serve(sys.argv[2], int(sys.argv[3]))
    elif mode == "measure" and len(sys.argv) == 7:
        measure(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
    else:
        sys.exit(__doc__)


main()
