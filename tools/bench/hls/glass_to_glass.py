#!/usr/bin/env python3
"""Glass-to-glass latency over LL-HLS: `broadcast start` (test pattern, every frame stamped
with its capture wall-clock time in a barcode) -> relay (LL-HLS, ~333 ms parts) -> this
LL-HLS reader, which decodes with libavcodec (PyAV) and reads the barcode of every frame.

The reader is what an LL-HLS player does, minus the screen:
  * it follows the live media playlist with blocking reloads (`_HLS_msn`/`_HLS_part` for
    the part after the newest one it has, RFC 8216bis §6.2.5.2); in `--mode hint` it also
    requests the EXT-X-PRELOAD-HINT part at once (§6.2.6: held by the relay until complete),
    as hls.js and AVPlayer do;
  * it downloads each new part as soon as the playlist lists it (or the hint answers), splits
    the moof/mdat into H.264 samples and decodes them with an h264 decoder opened on the
    init segment's avcC (one thread, low delay: a frame comes out of the packet that has it);
  * it starts at the newest independent part (the live edge).

Two figures per decoded frame, both against the barcode (same host, same CLOCK_REALTIME):
  decode:  the moment the decoder returned the frame. The earliest a player could show it.
  paced:   a player that shows frames at their media timestamps, with the smallest constant
           buffer that never stalls over the run (t0 = max(decode - pts)): what a smooth
           player at minimum hold-back would show.
  hold-back: a player that starts PART-HOLD-BACK (3 part targets, RFC 8216bis §4.4.3.8)
           behind the live edge it sees in its first playlist and then plays in real time,
           as hls.js and AVPlayer do in low-latency mode; `late` counts frames that would
           have been decoded after their display time (a stall).
The first --warmup seconds (the catch-up from the last independent part) are left out.

Run (venv with PyAV: .venv-interop in the repository):
  .venv-interop/bin/python tools/bench/hls/glass_to_glass.py --seconds 30
"""

from __future__ import annotations

import argparse
import sys
import threading
import time

import av

from hlsbench import (Broadcast, Client, MediaPlaylist, Relay, avc_decoder_configuration, default_binary, loadavg,
                      make_realtime, percentile, samples, wait_for_playlist)
from testpattern import read_barcode


class Reader:
    def __init__(self, base_url: str, room: str, mode: str):
        self.base_url, self.room, self.mode = base_url, room, mode
        self.playlist_client, self.part_client = Client(base_url), Client(base_url)
        self.records: list[tuple[float, float, int]] = []   # (decoded_at, pts_seconds, barcode_ms)
        self.unreadable = 0
        self.parts = 0
        self.stop = threading.Event()
        self.errors: list[str] = []
        # A player that starts PART-HOLD-BACK behind the live edge (RFC 8216bis §4.4.3.8):
        # wall time and live edge (end of the last listed part, media seconds) at its start.
        self.started_at = 0.0
        self.edge_part = -1
        self.edge_end: float | None = None
        self.part_hold_back = 0.0

    def run(self) -> None:
        media_path = wait_for_playlist(self.playlist_client, self.room)
        directory = media_path.rsplit("/", 1)[0]
        status, body = self.playlist_client.get(media_path)
        self.started_at = time.time()
        playlist = MediaPlaylist.parse(body.decode())
        self.part_hold_back = playlist.part_hold_back
        self.edge_part = int(playlist.parts[-1].uri.removeprefix("part").removesuffix(".m4s"))
        status, init = self.part_client.get(f"{directory}/{playlist.map_uri}")
        assert status == 200, status
        codec = av.CodecContext.create("h264", "r")
        codec.extradata = avc_decoder_configuration(init)
        codec.thread_count = 1
        codec.options = {"flags": "low_delay"}
        codec.open()
        independent = [p for p in playlist.parts if p.independent]
        start = independent[-1] if independent else playlist.parts[0]
        number = int(start.uri.removeprefix("part").removesuffix(".m4s"))
        fetched_through = number - 1
        while not self.stop.is_set():
            # Blocking reload for the part after the newest one we have.
            if self.mode == "hint" and playlist.preload_hint:
                hinted = int(playlist.preload_hint.removeprefix("part").removesuffix(".m4s"))
                while fetched_through + 1 < hinted:   # listed parts we have not fetched yet
                    fetched_through += 1
                    self.fetch(directory, fetched_through, codec)
                if fetched_through + 1 == hinted:
                    fetched_through += 1
                    self.fetch(directory, hinted, codec)   # held until the part is complete
            listed = {int(p.uri.removeprefix("part").removesuffix(".m4s")) for p in playlist.parts}
            while fetched_through + 1 in listed:
                fetched_through += 1
                self.fetch(directory, fetched_through, codec)
            if playlist.ended:
                return
            status, body = self.playlist_client.get(
                f"{media_path}?_HLS_msn={playlist.next_msn}&_HLS_part={playlist.next_index}")
            if status != 200:
                self.errors.append(f"playlist {status}")
                time.sleep(0.05)
                status, body = self.playlist_client.get(media_path)
            playlist = MediaPlaylist.parse(body.decode())

    def fetch(self, directory: str, number: int, codec) -> None:
        status, fragment = self.part_client.get(f"{directory}/part{number}.m4s")
        if status != 200:
            self.errors.append(f"part{number}: {status}")
            return
        self.parts += 1
        video = samples(fragment)
        if number == self.edge_part and video:
            self.edge_end = (video[-1][0] + video[-1][1]) / 90_000
        for decode_time, _duration, data, _sync in video:
            for frame in codec.decode(av.Packet(data)):
                decoded_at = time.time()
                ms = read_barcode(frame.to_ndarray(format="gray"))
                if ms is None:
                    self.unreadable += 1
                else:
                    self.records.append((decoded_at, decode_time / 90_000, ms))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--relay-bin", default=default_binary("relay", "ONAIR_RELAY_BIN"))
    parser.add_argument("--broadcast-bin", default=default_binary("broadcast", "ONAIR_BROADCAST_BIN"))
    parser.add_argument("--seconds", type=float, default=30, help="measured seconds (after --warmup)")
    parser.add_argument("--warmup", type=float, default=4)
    parser.add_argument("--part-target", type=float, default=0.33334)
    parser.add_argument("--segment-target", type=float, default=2)
    parser.add_argument("--size", default="640x360")
    parser.add_argument("--fps", type=int, default=30)
    parser.add_argument("--mode", choices=["reload", "hint", "both"], default="both")
    parser.add_argument("--relay-core", type=int, default=None, help="taskset the relay to this core")
    parser.add_argument("--realtime", action=argparse.BooleanOptionalAction, default=True,
                        help="relay, publisher and this reader as SCHED_RR priority 1 (default on)")
    args = parser.parse_args()

    if args.realtime:
        make_realtime()
    rows = []
    for mode in (["reload", "hint"] if args.mode == "both" else [args.mode]):
        relay = Relay(args.relay_bin, env={"ONAIR_HLS_PART_TARGET": str(args.part_target),
                                           "ONAIR_HLS_SEGMENT_TARGET": str(args.segment_target)}, core=args.relay_core,
                      realtime=args.realtime)
        room = f"g2g-{mode}"
        broadcast = Broadcast(args.broadcast_bin, relay.base_url, room, Relay.TOKEN,
                              seconds=args.seconds + args.warmup + 10, size=args.size, fps=args.fps, realtime=args.realtime)
        reader = Reader(relay.base_url, room, mode)
        thread = threading.Thread(target=lambda: _guard(reader), daemon=True)
        try:
            thread.start()
            started = time.time()
            while time.time() - started < 30 and not reader.records:
                time.sleep(0.1)
            if not reader.records:
                raise RuntimeError(f"no frame decoded: {reader.errors} relay log: {relay.log_text()[-1500:]}")
            first = time.time()
            time.sleep(args.warmup + args.seconds)
            reader.stop.set()
            thread.join(5)
        finally:
            broadcast.stop()
            relay.stop()
        measured = [r for r in reader.records if r[0] >= first + args.warmup]
        decode = [(at * 1000 - ms) for at, _pts, ms in measured]
        # Paced playback: show frame i at t0 + pts_i with the smallest t0 that is never early.
        t0 = max(at - pts for at, pts, _ in measured)
        paced = [((t0 + pts) * 1000 - ms) for _at, pts, ms in measured]
        # The PART-HOLD-BACK player: media time m is shown at started_at + m - (edge_end - hold_back).
        held, late = [], 0
        if reader.edge_end is not None:
            origin = reader.started_at - (reader.edge_end - reader.part_hold_back)
            for at, pts, ms in measured:
                shown = origin + pts
                held.append(shown * 1000 - ms)
                late += at > shown
        rows.append((mode, len(measured), reader.parts, reader.unreadable, decode, paced, held, late, reader.errors))

    print(f"\nLL-HLS glass-to-glass, part target {args.part_target * 1000:.2f} ms, segments {args.segment_target} s, "
          f"{args.size}@{args.fps}{', SCHED_RR' if args.realtime else ''}, {args.seconds:.0f} s measured after {args.warmup:.0f} s; relay {args.relay_bin}; "
          f"loadavg {loadavg()}")
    print(f"{'mode':<8}{'frames':>8}{'parts':>7}{'no code':>9}{'decode min':>12}{'p50':>7}{'p95':>7}{'max':>7}"
          f"{'paced p50':>11}{'p95':>8}{'hold-back p50':>15}{'p95':>8}{'late':>6}  (ms)")
    for mode, frames, parts, unreadable, decode, paced, held, late, errors in rows:
        print(f"{mode:<8}{frames:>8}{parts:>7}{unreadable:>9}{min(decode):>12.0f}{percentile(decode, 50):>7.0f}"
              f"{percentile(decode, 95):>7.0f}{max(decode):>7.0f}{percentile(paced, 50):>11.0f}{percentile(paced, 95):>8.0f}"
              f"{percentile(held, 50):>15.0f}{percentile(held, 95):>8.0f}{late:>6}"
              + (f"  errors: {errors[:5]}" if errors else ""))
    return 0


def _guard(reader: Reader) -> None:
    try:
        reader.run()
    except Exception as error:  # noqa: BLE001 - reported in the table
        reader.errors.append(repr(error))


if __name__ == "__main__":
    sys.exit(main())
