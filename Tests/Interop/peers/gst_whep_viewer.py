#!/usr/bin/env python3
"""GStreamer webrtcbin WHEP viewer (RFC 9725): a peer we did not write, whose ICE is
libnice. --tcp-only turns its UDP candidates off (ICE-TCP, RFC 6544).

Offers recvonly H.264 video (packetization-mode 1, 42e01f, NACK/PLI) and Opus audio
transceivers, non-trickle (the POST waits for ICE gathering to complete; 409 + Retry-After,
a room not live yet, is retried for --offline-wait seconds). Video is depayloaded and decoded
(avdec_h264) into a fakesink that timestamps every decoded frame; audio is decoded (opusdec)
and its buffers counted. Runs for --duration seconds after the POST or until SIGTERM/SIGINT,
DELETEs its session and prints JSON lines on stdout: posted, state, selected_pair,
first_frame, progress (every second), report, e.g.
{"event": "report", "frames": 540, "fps": 29.9, "window_s": 18.1, "max_gap_ms": 70,
 "width": 1280, "height": 720, "audio_buffers": 905, "selected_pair": {...}, ...}
fps and max_gap_ms are over the window from the first decoded frame to the end.

Runs under the system python3 (python3-gi), not the aiortc venv:
  /usr/bin/python3 gst_whep_viewer.py --url http://127.0.0.1:8080/whep/42 --tcp-only --duration 20
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time

from gst_common import GLib, Gst, GstWebRTC, emit, init
from gst_peer import WebRTCBinPeer

VIDEO_CAPS = ("application/x-rtp,media=video,encoding-name=H264,payload=102,clock-rate=90000,"
              "packetization-mode=(string)1,profile-level-id=(string)42e01f,level-asymmetry-allowed=(string)1,"
              "rtcp-fb-nack=(boolean)true,rtcp-fb-nack-pli=(boolean)true,rtcp-fb-ccm-fir=(boolean)true")
AUDIO_CAPS = "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,encoding-params=(string)2"
DECODERS = {"video": "rtph264depay ! h264parse ! avdec_h264 ! fakesink name=sink sync=false signal-handoffs=true",
            "audio": "rtpopusdepay ! opusdec ! fakesink name=sink sync=false signal-handoffs=true"}


class Viewer(WebRTCBinPeer):
    method = "WHEP"

    def __init__(self, args):
        pipeline = Gst.Pipeline.new("viewer")
        webrtc = Gst.ElementFactory.make("webrtcbin", "webrtc")
        webrtc.set_property("bundle-policy", GstWebRTC.WebRTCBundlePolicy.MAX_BUNDLE)
        pipeline.add(webrtc)
        super().__init__(args, pipeline, webrtc)
        self.report["offline_responses"] = 0
        self.lock = threading.Lock()
        self.frame_times: list[float] = []
        self.width = self.height = None
        self.audio_buffers = 0
        for caps in (VIDEO_CAPS, AUDIO_CAPS):
            self.webrtc.emit("add-transceiver", GstWebRTC.WebRTCRTPTransceiverDirection.RECVONLY,
                             Gst.Caps.from_string(caps))
        self.webrtc.connect("pad-added", self._on_pad)
        self.connect_signals()

    # -- media ------------------------------------------------------------------------------
    def _on_pad(self, _webrtc, pad):
        if pad.direction != Gst.PadDirection.SRC:
            return
        caps = pad.get_current_caps() or pad.query_caps(None)
        kind = caps.get_structure(0).get_value("media")
        if kind not in DECODERS:
            return
        decoder = Gst.parse_bin_from_description(f"queue ! {DECODERS[kind]}", True)
        decoder.get_by_name("sink").connect("handoff", self._on_video if kind == "video" else self._on_audio)
        self.pipeline.add(decoder)
        decoder.sync_state_with_parent()
        pad.link(decoder.get_static_pad("sink"))
        emit("track", kind=kind)

    def _on_video(self, _sink, _buffer, pad):
        now = time.monotonic()
        with self.lock:
            self.frame_times.append(now)
            first = len(self.frame_times) == 1
        structure = pad.get_current_caps().get_structure(0)
        self.width, self.height = structure.get_value("width"), structure.get_value("height")
        if first:
            emit("first_frame", width=self.width, height=self.height,
                 after_post_ms=round((now - (self.posted_at or self.started)) * 1000))

    def _on_audio(self, _sink, _buffer, _pad):
        self.audio_buffers += 1

    # -- negotiation hooks -------------------------------------------------------------------
    def offline(self, status: int, retry_after: str | None) -> bool:
        if time.monotonic() - self.started >= self.args.offline_wait:
            return False
        self.report["offline_responses"] += 1
        emit("offline", status=status, retry_after=retry_after)
        GLib.timeout_add(int(max(min(float(retry_after or 1), 5.0), 0.2) * 1000), self._post)
        return True

    def answered(self) -> None:
        if self.args.duration > 0:
            GLib.timeout_add(int(self.args.duration * 1000), self._stop, "duration")

    def _watch(self):
        """Every second: progress, and give up when no frame came within --connect-timeout."""
        with self.lock:
            frames = len(self.frame_times)
        emit("progress", frames=frames, audio_buffers=self.audio_buffers, state=self.report["connection_state"])
        if frames == 0 and self.posted_at and time.monotonic() - self.posted_at > self.args.connect_timeout:
            return self._fail(f"no decoded frame within {self.args.connect_timeout}s of the POST")
        return True

    # -- run ----------------------------------------------------------------------------------
    def summary(self) -> dict:
        with self.lock:
            times = list(self.frame_times)
        result = {"frames": len(times), "width": self.width, "height": self.height,
                  "audio_buffers": self.audio_buffers, "fps": None, "window_s": None, "max_gap_ms": None,
                  "first_frame_ms": (round((times[0] - self.posted_at) * 1000) if times and self.posted_at else None)}
        if len(times) >= 2:
            window = self.stopped_at - times[0]
            gaps = [b - a for a, b in zip(times, times[1:])] + [self.stopped_at - times[-1]]
            result.update(window_s=round(window, 2), fps=round((len(times) - 1) / window, 2),
                          max_gap_ms=round(max(gaps) * 1000))
        return result

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, self._stop, "signal")
        GLib.timeout_add(1000, self._watch)
        self.stopped_at = self.run_loop()
        self.report.update(self.summary(), tcp_only=self.args.tcp_only, gstreamer=Gst.version_string())
        emit("report", **self.report)
        return 0 if self.report["frames"] > 0 and "error" not in self.report else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="WHEP endpoint, e.g. http://127.0.0.1:8080/whep/42")
    parser.add_argument("--token", help="Bearer token (optional for viewers)")
    parser.add_argument("--duration", type=float, default=0, help="seconds after the POST (0: until SIGTERM)")
    parser.add_argument("--offline-wait", type=float, default=30, help="keep retrying 409 for this long")
    parser.add_argument("--connect-timeout", type=float, default=15, help="give up without a frame after this")
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--tcp-only", action="store_true", help="ICE-TCP only (libnice ice-udp=false)")
    transport.add_argument("--udp-only", action="store_true", help="UDP only (libnice ice-tcp=false)")
    args = parser.parse_args()
    init()
    return Viewer(args).run()


if __name__ == "__main__":
    sys.exit(main())
