#!/usr/bin/env python3
"""analyzer_flood.py PORT COOKIE TOKEN [HALF [TRICKLE [WATCH_S]]]

What a hostile local user can do to the analyzer on 127.0.0.1:PORT with sockets alone,
then what the user still gets.  Standard library only (tests/e2e/analyzer_security.sh).

 1. HALF connections (default 2000) that never finish a request: every other one sends
    nothing, the rest the first lines of a request without the blank line that ends it;
    TRICKLE more (default 10) that send a request one byte a second, forever.
 2. 0.5 s later, with all of them open, one normal request (GET /api/overview with the
    token's cookie COOKIE=TOKEN) on a new connection: its status and how long it took
    (at most 5 s are waited).
 3. Until WATCH_S seconds (default 9) after the first connect, or until the server has
    closed them all, the trickle goes on and each connection's end is noted: the server
    closed it (EOF or reset), and when, from its connect.
 4. One more normal request.

Prints "key value" lines:
    opened N                 connections made in 1 (HALF + TRICKLE)
    served STATUS SECONDS    the request of 2 (STATUS 0: no answer within 5 s)
    half_closed N MAX_S      how many of the HALF the server closed in 3, the latest when
    trickle_closed N MAX_S   the same for the TRICKLE ones
    served_after STATUS SECONDS  the request of 4
"""
import http.client
import resource
import selectors
import socket
import sys
import time


def request(port, cookie, token):
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("GET", "/api/overview", headers={"Cookie": "%s=%s" % (cookie, token)})
        r = c.getresponse()
        r.read()
        status = r.status
        c.close()
    except (OSError, http.client.HTTPException):
        status = 0
    return status, time.monotonic() - t0


def main():
    port, cookie, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    half = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
    trickle = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    watch_s = float(sys.argv[6]) if len(sys.argv) > 6 else 9.0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = half + trickle + 64
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))

    partial = ("GET /api/overview HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port).encode()
    slow = ("GET /api/overview HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % port).encode() + b"a" * 100000
    sel = selectors.DefaultSelector()  # epoll: thousands of descriptors
    conns = []  # [socket, kind, connect time, closed after (s) or None, bytes of slow sent]
    for i in range(half + trickle):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
        except OSError:
            break
        kind = "trickle" if i >= half else "half"
        if kind == "half" and i % 2:
            s.sendall(partial)
        s.setblocking(False)
        conns.append([s, kind, time.monotonic(), None, 0])
        sel.register(s, selectors.EVENT_READ, len(conns) - 1)
    print("opened", len(conns))
    sys.stdout.flush()

    def watch(until):
        next_byte = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= until or all(c[3] is not None for c in conns):
                return
            if now >= next_byte:  # one byte a second on every open trickle connection
                next_byte = now + 1.0
                for c in conns:
                    if c[1] == "trickle" and c[3] is None:
                        try:
                            c[0].send(slow[c[4] : c[4] + 1])
                            c[4] += 1
                        except OSError:
                            c[3] = now - c[2]
            for key, _ in sel.select(timeout=max(0.0, min(until, next_byte) - now)):
                c = conns[key.data]
                try:
                    data = c[0].recv(4096)
                except OSError:
                    data = b""
                if not data and c[3] is None:  # the server closed it
                    c[3] = time.monotonic() - c[2]
                    sel.unregister(c[0])

    watch(time.monotonic() + 0.5)
    print("served %d %.3f" % request(port, cookie, token))
    sys.stdout.flush()
    watch(conns[0][2] + watch_s if conns else time.monotonic())
    for kind in ("half", "trickle"):
        closed = [c[3] for c in conns if c[1] == kind and c[3] is not None]
        print("%s_closed %d %.3f" % (kind, len(closed), max(closed, default=0.0)))
    print("served_after %d %.3f" % request(port, cookie, token))
    for c in conns:
        c[0].close()


main()
