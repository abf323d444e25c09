#!/usr/bin/env python3
"""GStreamer webrtcbin WHIP publisher (RFC 9725): a peer we did not write, whose ICE is
libnice. --tcp-only turns its UDP candidates off (ICE-TCP, RFC 6544: libnice's active TCP
candidate connects to the relay's passive one, RFC 4571 framing).

videotestsrc (live, 30 fps) -> x264enc (zerolatency, constrained baseline, a keyframe every
--key-int frames) -> rtph264pay, and a 440 Hz audiotestsrc -> opusenc -> rtpopuspay, both
sendonly into webrtcbin. Non-trickle: the offer is POSTed (Bearer token, application/sdp)
once ICE gathering is complete, then the 201 answer is applied. Runs for --duration seconds
or until SIGTERM/SIGINT, DELETEs its session and prints JSON lines on stdout: posted,
state, selected_pair, report, e.g.
{"event": "report", "connection_state": "connected", "selected_pair": {"local": {"transport":
 "tcp-active", ...}, "remote": {"transport": "tcp-passive", ...}}, "live_seconds": 20.0, ...}

Runs under the system python3 (python3-gi), not the aiortc venv:
  /usr/bin/python3 gst_whip_publisher.py --url http://127.0.0.1:8080/whip/42 --token T --tcp-only --duration 20
"""

from __future__ import annotations

import argparse
import signal
import sys

from gst_common import GLib, Gst, GstWebRTC, emit, init, state_name
from gst_peer import WebRTCBinPeer

PIPELINE = """
webrtcbin name=webrtc bundle-policy=max-bundle
videotestsrc is-live=true pattern=ball ! video/x-raw,width={width},height={height},framerate={fps}/1
 ! videoconvert ! queue
 ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max={key_int} bitrate={kbit}
 ! video/x-h264,profile=constrained-baseline ! h264parse
 ! rtph264pay name=vpay config-interval=-1 aggregate-mode=zero-latency pt=96
 ! application/x-rtp,media=video,encoding-name=H264,clock-rate=90000,payload=96 ! webrtc.
audiotestsrc is-live=true wave=sine freq=440 volume=0.3 ! audioconvert ! audioresample ! queue
 ! opusenc ! rtpopuspay name=apay pt=111
 ! application/x-rtp,media=audio,encoding-name=OPUS,clock-rate=48000,payload=111 ! webrtc.
"""


class Publisher(WebRTCBinPeer):
    method = "WHIP"

    def __init__(self, args):
        pipeline = Gst.parse_launch(PIPELINE.format(width=args.width, height=args.height, fps=args.fps,
                                                    key_int=args.key_int, kbit=args.kbit))
        super().__init__(args, pipeline, pipeline.get_by_name("webrtc"))
        self.report["ice_connection_state"] = "new"
        self.packets = {"video": 0, "audio": 0}
        for index in range(2):  # the two sink pads' transceivers: we only send
            transceiver = self.webrtc.emit("get-transceiver", index)
            transceiver.set_property("direction", GstWebRTC.WebRTCRTPTransceiverDirection.SENDONLY)
        for name, kind in (("vpay", "video"), ("apay", "audio")):
            self.pipeline.get_by_name(name).get_static_pad("src").add_probe(
                Gst.PadProbeType.BUFFER, self._count, kind)
        self.webrtc.connect("notify::ice-connection-state", self._on_ice_state)
        self.connect_signals()

    def _count(self, _pad, _info, kind):
        self.packets[kind] += 1
        return Gst.PadProbeReturn.OK

    def _on_ice_state(self, webrtc, _spec):
        if not self.stopping:
            self.report["ice_connection_state"] = state_name(webrtc.get_property("ice-connection-state"))

    def _connect_timeout(self):
        if self.connected_at is None:
            self._fail(f"not connected within {self.args.connect_timeout}s")
        return False

    def _progress(self):
        emit("progress", state=self.report["connection_state"], packets=dict(self.packets))
        return True

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, self._stop, "signal")
        GLib.timeout_add(int(self.args.connect_timeout * 1000), self._connect_timeout)
        if self.args.duration > 0:
            GLib.timeout_add(int(self.args.duration * 1000), self._stop, "duration")
        GLib.timeout_add(1000, self._progress)
        ended = self.run_loop()
        self.report.update(live_seconds=round(ended - self.connected_at, 2) if self.connected_at else 0,
                           packets=self.packets, tcp_only=self.args.tcp_only, gstreamer=Gst.version_string())
        emit("report", **self.report)
        return 0 if self.connected_at is not None and "error" not in self.report else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="WHIP endpoint, e.g. http://127.0.0.1:8080/whip/42")
    parser.add_argument("--token", help="Bearer token")
    parser.add_argument("--duration", type=float, default=0, help="seconds to run (0: until SIGTERM)")
    parser.add_argument("--connect-timeout", type=float, default=15, help="give up unless connected by then")
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--tcp-only", action="store_true", help="ICE-TCP only (libnice ice-udp=false)")
    transport.add_argument("--udp-only", action="store_true", help="UDP only (libnice ice-tcp=false)")
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=360)
    parser.add_argument("--fps", type=int, default=30)
    parser.add_argument("--key-int", type=int, default=60, help="frames between keyframes")
    parser.add_argument("--kbit", type=int, default=1000, help="x264 bitrate, kbit/s")
    args = parser.parse_args()
    init()
    return Publisher(args).run()


if __name__ == "__main__":
    sys.exit(main())
