#!/usr/bin/env python3
"""What a viewer that does not decode receives: a raw-socket RTP sniffer (stdlib only, root).

Listens with an AF_PACKET socket on one interface (in a network-lab namespace: the viewer's
eth0) and, for every UDP datagram that arrives from --source (the relay), tells its kind by
the first byte (RFC 7983: 0-3 STUN, 20-63 DTLS, 128-191 RTP or RTCP) and RTP from RTCP by
the second (RFC 5761: payload types 64-95 with the marker bit are RTCP packet types 192-223).
RTP headers are not encrypted by SRTP, so each RTP packet is logged as one line:

    <arrival wall time, s> <ssrc> <payload type> <sequence> <UDP payload bytes> <marker 0|1> <padding bit 0|1>

The arrival time is the kernel's receive timestamp (SO_TIMESTAMPNS). The padding bit is
logged, not the padding length: SRTP encrypts the payload, the padding and its count octet
with it, so "all padding" cannot be read from the wire. A packet with the padding bit is
taken as padding only (RTX/probe padding, a relay's loss announcement): media packets of an
H.264/Opus sender never carry padding (rtp_log_figures in Tests/Interop/lab_cases.py).

The sniffer sees packets before the receiving host's nftables ingress hook: packets a loss
rule there drops are still logged (use it with rate limits, not with the lab's random loss).

JSON lines on stdout: {"event": "ready"}, {"event": "first_video"} (the first RTP packet of
600 bytes or more without padding), {"event": "progress", ...} once a second, and on SIGTERM
or SIGINT a final {"event": "report", "rtp": N, "rtcp": N, "stun": N, "dtls": N, ...}.

  ip netns exec onairlab-...-v1 python3 rtp_sniffer.py --iface eth0 --source 198.18.0.1 --log rtp.log
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800
PACKET_OUTGOING = 4
SO_TIMESTAMPNS = 35  # Linux; SCM_TIMESTAMPNS has the same value
VIDEO_HINT_BYTES = 600


def emit(event: str, **fields) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


def classify(payload: bytes) -> str:
    """RFC 7983 demultiplexing by the first byte, RFC 5761 for RTP vs RTCP."""
    if not payload:
        return "other"
    first = payload[0]
    if first <= 3:
        return "stun"
    if 20 <= first <= 63:
        return "dtls"
    if 128 <= first <= 191:
        if len(payload) < 2:
            return "other"
        return "rtcp" if 64 <= (payload[1] & 0x7F) <= 95 else "rtp"
    return "other"


def rtp_fields(payload: bytes) -> tuple[int, int, int, int, int] | None:
    """(ssrc, payload type, sequence, marker, padding bit) of an RTP packet, None if malformed."""
    if len(payload) < 12 or payload[0] >> 6 != 2:
        return None
    first, second = payload[0], payload[1]
    csrcs = first & 0x0F
    header = 12 + 4 * csrcs
    if first & 0x10:  # header extension
        if len(payload) < header + 4:
            return None
        header += 4 + 4 * struct.unpack_from("!H", payload, header + 2)[0]
    if len(payload) < header:
        return None
    sequence, = struct.unpack_from("!H", payload, 2)
    ssrc, = struct.unpack_from("!I", payload, 8)
    return ssrc, second & 0x7F, sequence, second >> 7, (first >> 5) & 1


def run(args) -> int:
    stop = False

    def on_signal(*_):
        nonlocal stop
        stop = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_IP))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.bind((args.iface, ETH_P_IP))
    sock.settimeout(0.25)
    source = socket.inet_aton(args.source)
    counts = {"rtp": 0, "rtcp": 0, "stun": 0, "dtls": 0, "other": 0, "malformed": 0}
    rtp_bytes = 0
    seen_video = False
    started = last_progress = time.monotonic()
    log = open(args.log, "w", buffering=1 << 16)
    emit("ready", iface=args.iface, source=args.source)
    try:
        while not stop:
            now = time.monotonic()
            if now - last_progress >= 1:
                last_progress = now
                log.flush()
                emit("progress", seconds=round(now - started, 1), **counts, rtp_bytes=rtp_bytes)
            if args.duration and now - started > args.duration:
                break
            try:
                data, ancillary, _flags, address = sock.recvmsg(65535, socket.CMSG_SPACE(16))
            except socket.timeout:
                continue
            except InterruptedError:
                continue
            if address[2] == PACKET_OUTGOING or len(data) < 28:
                continue
            version_ihl = data[0]
            if version_ihl >> 4 != 4 or data[9] != 17 or data[12:16] != source:
                continue
            if struct.unpack_from("!H", data, 6)[0] & 0x3FFF:  # a fragment: not one datagram
                counts["other"] += 1
                continue
            header = (version_ihl & 0x0F) * 4
            udp_length, = struct.unpack_from("!H", data, header + 4)
            payload = data[header + 8:header + udp_length]
            at = None
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
                    seconds, nanoseconds = struct.unpack("qq", value[:16])
                    at = seconds + nanoseconds / 1e9
            at = at if at else time.time()
            kind = classify(payload)
            if kind != "rtp":
                counts[kind] += 1
                continue
            fields = rtp_fields(payload)
            if fields is None:
                counts["malformed"] += 1
                continue
            ssrc, pt, sequence, marker, padding = fields
            counts["rtp"] += 1
            rtp_bytes += len(payload)
            log.write(f"{at:.6f} {ssrc} {pt} {sequence} {len(payload)} {marker} {padding}\n")
            if not seen_video and not padding and len(payload) >= VIDEO_HINT_BYTES:
                seen_video = True
                log.flush()
                emit("first_video", ssrc=ssrc, pt=pt, at=at)
    finally:
        log.close()
        sock.close()
        emit("report", seconds=round(time.monotonic() - started, 1), **counts, rtp_bytes=rtp_bytes)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iface", default="eth0", help="interface to listen on (default eth0)")
    parser.add_argument("--source", required=True, help="IPv4 address of the sender (the relay)")
    parser.add_argument("--log", required=True, help="file for one line per RTP packet")
    parser.add_argument("--duration", type=float, default=0, help="stop after this many seconds (0: on a signal)")
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
