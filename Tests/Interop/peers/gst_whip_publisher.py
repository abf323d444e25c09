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
import time

from gst_common import (GLib, Gst, GstWebRTC, HttpSession, configure_ice, emit, follow_selected_pair, init, log,
                        parse_sdp, sdp_with_candidates, state_name)

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


class Publisher:
    def __init__(self, args):
        self.args = args
        self.loop = GLib.MainLoop()
        self.http = HttpSession(args.url, args.token)
        self.report: dict = {"connection_state": "new", "ice_connection_state": "new", "selected_pair": None,
                             "reached": []}
        self.candidates: list[tuple[int, str]] = []
        self.posted = False
        self.stopping = False  # our own DELETE/teardown must not count as a failure
        self.connected_at: float | None = None
        self.started = time.monotonic()
        self.packets = {"video": 0, "audio": 0}
        self.pipeline = Gst.parse_launch(PIPELINE.format(width=args.width, height=args.height, fps=args.fps,
                                                         key_int=args.key_int, kbit=args.kbit))
        self.webrtc = self.pipeline.get_by_name("webrtc")
        agent = configure_ice(self.webrtc, tcp_only=args.tcp_only, udp_only=args.udp_only)
        follow_selected_pair(agent, self.report)
        for index in range(2):  # the two sink pads' transceivers: we only send
            transceiver = self.webrtc.emit("get-transceiver", index)
            transceiver.set_property("direction", GstWebRTC.WebRTCRTPTransceiverDirection.SENDONLY)
        for name, kind in (("vpay", "video"), ("apay", "audio")):
            self.pipeline.get_by_name(name).get_static_pad("src").add_probe(
                Gst.PadProbeType.BUFFER, self._count, kind)
        self.webrtc.connect("on-negotiation-needed", self._on_negotiation_needed)
        self.webrtc.connect("on-ice-candidate", self._on_ice_candidate)
        self.webrtc.connect("notify::ice-gathering-state", self._on_gathering)
        self.webrtc.connect("notify::connection-state", self._on_state)
        self.webrtc.connect("notify::ice-connection-state", self._on_ice_state)
        bus = self.pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message::error", self._on_error)

    def _count(self, _pad, _info, kind):
        self.packets[kind] += 1
        return Gst.PadProbeReturn.OK

    # -- negotiation (webrtcbin's threads; HTTP on the main loop) -----------------------
    def _on_negotiation_needed(self, webrtc):
        promise = Gst.Promise.new_with_change_func(self._on_offer, webrtc)
        webrtc.emit("create-offer", None, promise)

    def _on_offer(self, promise, webrtc):
        promise.wait()
        reply = promise.get_reply()
        offer = reply.get_value("offer") if reply else None
        if offer is None:
            GLib.idle_add(self._fail, f"create-offer failed: {reply.to_string() if reply else 'no reply'}")
            return
        webrtc.emit("set-local-description", offer, None)

    def _on_ice_candidate(self, _webrtc, mline, candidate):
        self.candidates.append((mline, candidate))

    def _on_gathering(self, webrtc, _spec):
        state = state_name(webrtc.get_property("ice-gathering-state"))
        log("ICE gathering:", state)
        if state == "complete" and not self.posted:
            self.posted = True
            GLib.idle_add(self._post)

    def _post(self):
        offer = sdp_with_candidates(self.webrtc.get_property("local-description").sdp.as_text(), self.candidates)
        self.report["offer_candidates"] = [line[2:] for line in offer.split("\r\n") if line.startswith("a=candidate:")]
        status, body, _ = self.http.post_offer(offer)
        emit("posted", status=status, location=self.http.location, candidates=self.report["offer_candidates"])
        if status != 201:
            return self._fail(f"WHIP POST answered {status}: {body.strip()[:200]}", status=status)
        self.report["answer_candidates"] = [line[2:] for line in body.splitlines() if line.startswith("a=candidate:")]
        self.webrtc.emit("set-remote-description", parse_sdp(body, GstWebRTC.WebRTCSDPType.ANSWER), None)
        return False

    def _on_state(self, webrtc, _spec):
        if self.stopping:
            return
        state = state_name(webrtc.get_property("connection-state"))
        self.report["connection_state"] = state
        if state not in self.report["reached"]:
            self.report["reached"].append(state)
        emit("state", state=state)
        if state == "connected" and self.connected_at is None:
            self.connected_at = time.monotonic()
            self.report["connected_ms"] = round((self.connected_at - self.started) * 1000)
        elif state in ("failed", "closed"):
            GLib.idle_add(self._fail, f"connection {state}")

    def _on_ice_state(self, webrtc, _spec):
        if self.stopping:
            return
        self.report["ice_connection_state"] = state_name(webrtc.get_property("ice-connection-state"))

    def _on_error(self, _bus, message):
        error, debug = message.parse_error()
        GLib.idle_add(self._fail, f"pipeline error: {error.message} ({debug})")

    def _fail(self, reason: str, **fields):
        log(reason)
        self.report.setdefault("error", reason)
        self.report.update(fields)
        self.loop.quit()
        return False

    def _timeout(self, reason: str):
        if self.connected_at is None and reason == "connect-timeout":
            return self._fail(f"not connected within {self.args.connect_timeout}s")
        if reason == "duration":
            self.report.setdefault("stopped_by", "duration")
            self.loop.quit()
        return False

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, self._on_signal)
        GLib.timeout_add(int(self.args.connect_timeout * 1000), self._timeout, "connect-timeout")
        if self.args.duration > 0:
            GLib.timeout_add(int(self.args.duration * 1000), self._timeout, "duration")
        GLib.timeout_add(1000, self._progress)
        self.pipeline.set_state(Gst.State.PLAYING)
        try:
            self.loop.run()
        finally:
            self.stopping = True
            ended = time.monotonic()
            self.report["delete_status"] = self.http.delete()
            self.pipeline.set_state(Gst.State.NULL)
        self.report.update(live_seconds=round(ended - self.connected_at, 2) if self.connected_at else 0,
                           packets=self.packets, tcp_only=self.args.tcp_only, gstreamer=Gst.version_string())
        emit("report", **self.report)
        return 0 if self.connected_at is not None and "error" not in self.report else 1

    def _on_signal(self):
        self.report.setdefault("stopped_by", "signal")
        self.loop.quit()
        return False

    def _progress(self):
        emit("progress", state=self.report["connection_state"], packets=dict(self.packets))
        return True


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
