#!/usr/bin/env python3
"""1,000 concurrent blocking playlist requests on one core: how soon after a new part
exists does the relay answer all of them?

The relay runs pinned to one core (`taskset -c 0`) while packaging one live room (a
`broadcast start` test pattern, pinned with this client to another core). This client
keeps --clients keep-alive HTTP/1.1 connections open. Each round:

  1. a blocking reload on a control connection returns right after part L+1 is published;
  2. at once every connection sends `GET media.m3u8?_HLS_msn=M&_HLS_part=I+1` (L+1 being
     part I of segment M): the relay holds each until part L+2 exists (RFC 8216bis
     §6.2.5.2; a part index past the end of a segment is satisfied by the next segment);
  3. every response is timestamped by the kernel as it arrives (SO_TIMESTAMPNS on the TCP
     socket), so this client's own Python speed does not enter the figure.

Reference: the relay logs (at trace level) the wall-clock time at which each part was
published (`HLS part published part=N unix_us=...`, taken right after the packager
returned it). Per request: response arrival - publication of the part that released it
(read from the response). Also per round: arrival - earliest arrival. Same host, same clock.

  .venv-interop/bin/python tools/bench/hls/blocking_fanout.py --clients 1000 --rounds 20
"""

from __future__ import annotations

import argparse
import os
import re
import select
import socket
import struct
import sys
import time

from hlsbench import (Broadcast, Client, MediaPlaylist, Relay, default_binary, loadavg, make_realtime, percentile,
                      raise_file_limit, wait_for_playlist)

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
SCM_TIMESTAMPNS = SO_TIMESTAMPNS


class Connection:
    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.setblocking(False)
        self.reset()

    def reset(self):
        self.buffer = b""
        self.first_arrival: float | None = None
        self.expected: int | None = None
        self.status = 0

    def feed(self) -> bool:
        """Reads what is there; True once the whole response is in."""
        while True:
            try:
                data, ancillary, _flags, _addr = self.sock.recvmsg(262144, socket.CMSG_SPACE(16))
            except BlockingIOError:
                return False
            if not data:
                raise ConnectionError("server closed the connection")
            if self.first_arrival is None:
                for level, kind, payload in ancillary:
                    if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPNS:
                        seconds, nanoseconds = struct.unpack("qq", payload[:16])
                        self.first_arrival = seconds + nanoseconds / 1e9
                if self.first_arrival is None:
                    self.first_arrival = time.time()   # no kernel stamp: fall back to now
            self.buffer += data
            if self.expected is None and b"\r\n\r\n" in self.buffer:
                head, _, _ = self.buffer.partition(b"\r\n\r\n")
                self.status = int(head.split(b" ", 2)[1])
                length = re.search(rb"(?i)content-length:\s*(\d+)", head)
                self.expected = len(head) + 4 + (int(length.group(1)) if length else 0)
            if self.expected is not None and len(self.buffer) >= self.expected:
                return True

    @property
    def body(self) -> str:
        return self.buffer.partition(b"\r\n\r\n")[2].decode(errors="replace")


def newest_part(playlist_text: str) -> int:
    return max(int(n) for n in re.findall(r'#EXT-X-PART:[^\n]*URI="part(\d+)\.m4s"', playlist_text))


def publication_times(log: str) -> dict[int, float]:
    """part number -> unix seconds of publication, from the relay's trace lines."""
    times = {}
    for line in log.splitlines():
        if "HLS part published" in line:
            part = re.search(r"\bpart=(\d+)", line)
            at = re.search(r"unix_us=(\d+)", line)
            if part and at:
                times[int(part.group(1))] = int(at.group(1)) / 1e6
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--relay-bin", default=default_binary("relay", "ONAIR_RELAY_BIN"))
    parser.add_argument("--broadcast-bin", default=default_binary("broadcast", "ONAIR_BROADCAST_BIN"))
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--relay-core", type=int, default=0)
    parser.add_argument("--client-core", type=int, default=1)
    parser.add_argument("--part-target", type=float, default=0.33334)
    parser.add_argument("--delta", action="store_true", help="ask for delta updates (_HLS_skip=YES)")
    parser.add_argument("--per-round", action="store_true", help="print each round's figures")
    parser.add_argument("--realtime", action=argparse.BooleanOptionalAction, default=True,
                        help="relay, publisher and this client as SCHED_RR priority 1 (default on)")
    args = parser.parse_args()

    raise_file_limit(args.clients + 256)
    os.sched_setaffinity(0, {args.client_core})
    if args.realtime:
        make_realtime()
    room = "fanout"
    relay = Relay(args.relay_bin, env={"ONAIR_HLS_PART_TARGET": str(args.part_target)}, core=args.relay_core,
                  log_level="trace", realtime=args.realtime)
    broadcast = Broadcast(args.broadcast_bin, relay.base_url, room, Relay.TOKEN, seconds=args.rounds * 2 + 60,
                          core=args.client_core, realtime=args.realtime)
    rounds = []   # (released_by_part, [arrivals], all_sent_at, statuses)
    try:
        control = Client(relay.base_url)
        media_path = wait_for_playlist(control, room)
        connections = [Connection(relay.http_port) for _ in range(args.clients)]
        epoll = select.epoll()
        by_fd = {c.sock.fileno(): c for c in connections}
        for fd in by_fd:
            epoll.register(fd, select.EPOLLIN)
        _, body = control.get(media_path)
        playlist = MediaPlaylist.parse(body.decode())
        for _ in range(args.rounds):
            # 1. Wait on the control connection for the next part (L+1) to be published.
            _, body = control.get(f"{media_path}?_HLS_msn={playlist.next_msn}&_HLS_part={playlist.next_index}")
            playlist = MediaPlaylist.parse(body.decode())
            newest = playlist.parts[-1]
            # 2. Every connection asks for the part after it (L+2).
            query = f"_HLS_msn={newest.msn}&_HLS_part={newest.index + 1}" + ("&_HLS_skip=YES" if args.delta else "")
            request = f"GET {media_path}?{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
            for connection in connections:
                connection.reset()
                connection.sock.send(request)
            all_sent = time.time()
            # 3. Collect every response with its kernel arrival time.
            pending = set(by_fd)
            deadline = time.monotonic() + 10
            while pending and time.monotonic() < deadline:
                for fd, _event in epoll.poll(0.5):
                    if fd in pending and by_fd[fd].feed():
                        pending.discard(fd)
            if pending:
                raise RuntimeError(f"{len(pending)} requests unanswered after 10 s")
            statuses = [c.status for c in connections]
            released_by = newest_part(connections[0].body)
            rounds.append((released_by, [c.first_arrival for c in connections], all_sent, statuses))
    finally:
        broadcast.stop()
        relay.stop()

    published = publication_times(relay.log_text())
    latencies, spreads, early_sends, missing = [], [], [], 0
    for released_by, arrivals, all_sent, statuses in rounds:
        assert all(s == 200 for s in statuses), f"non-200 answers: {sorted(set(statuses))}"
        if released_by not in published:
            missing += 1
            continue
        at = published[released_by]
        latencies += [(a - at) * 1000 for a in arrivals]
        first = min(arrivals)
        spreads += [(a - first) * 1000 for a in arrivals]
        early_sends.append((at - all_sent) * 1000)
        if args.per_round:
            mine = sorted((a - at) * 1000 for a in arrivals)
            print(f"part {released_by}: first {mine[0]:.2f} ms, p50 {percentile(mine, 50):.2f}, p99 {percentile(mine, 99):.2f}, "
                  f"last {mine[-1]:.2f} ms")
    print(f"\nLL-HLS blocking reload fan-out: {args.clients} held playlist requests x {len(rounds)} rounds, relay on core "
          f"{args.relay_core} (taskset) packaging one 640x360 room, part target {args.part_target * 1000:.2f} ms"
          f"{', delta updates' if args.delta else ''}{', SCHED_RR' if args.realtime else ''}; relay {args.relay_bin}; loadavg {loadavg()}")
    print(f"all requests sent before the part existed by: min {min(early_sends):.0f} ms, median "
          f"{percentile(early_sends, 50):.0f} ms (a negative value would mean some were not held)")
    print(f"response arrival - part publication: p50 {percentile(latencies, 50):.2f} ms, p90 {percentile(latencies, 90):.2f} ms, "
          f"p99 {percentile(latencies, 99):.2f} ms, max {max(latencies):.2f} ms  ({len(latencies)} responses)")
    print(f"response arrival - first response of its round: p50 {percentile(spreads, 50):.2f} ms, "
          f"p99 {percentile(spreads, 99):.2f} ms, max {max(spreads):.2f} ms")
    if missing:
        print(f"({missing} rounds without a publication time in the relay log were left out)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
