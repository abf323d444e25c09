"""What the GStreamer WHIP publisher and WHEP viewer share (system python3 with python3-gi):
a webrtcbin whose libnice agent is restricted as asked (--tcp-only / --udp-only), non-trickle
negotiation (the offer is POSTed once ICE gathering is complete, with every candidate, then
the 201 answer is applied), the connection's states in `report`, and how a run ends."""

from __future__ import annotations

import time

from gst_common import (GLib, Gst, GstWebRTC, HttpSession, configure_ice, emit, follow_selected_pair, log, parse_sdp,
                        sdp_with_candidates, state_name)


class WebRTCBinPeer:
    """Subclasses build `pipeline` (holding `webrtc`), then call ``connect_signals``; `method`
    names the endpoint in messages (WHIP or WHEP)."""

    method = "WHIP"

    def __init__(self, args, pipeline: Gst.Pipeline, webrtc: Gst.Element):
        self.args, self.pipeline, self.webrtc = args, pipeline, webrtc
        self.loop = GLib.MainLoop()
        self.http = HttpSession(args.url, args.token)
        self.report: dict = {"connection_state": "new", "selected_pair": None, "reached": []}
        self.candidates: list[tuple[int, str]] = []
        self.started = time.monotonic()
        self.posted_at: float | None = None
        self.connected_at: float | None = None
        self.offered = False
        self.stopping = False  # our own DELETE/teardown must not count as a failure
        follow_selected_pair(configure_ice(webrtc, tcp_only=args.tcp_only, udp_only=args.udp_only), self.report)

    def connect_signals(self) -> None:
        self.webrtc.connect("on-negotiation-needed", self._on_negotiation_needed)
        self.webrtc.connect("on-ice-candidate", lambda _webrtc, mline, candidate: self.candidates.append((mline, candidate)))
        self.webrtc.connect("notify::ice-gathering-state", self._on_gathering)
        self.webrtc.connect("notify::connection-state", self._on_state)
        bus = self.pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message::error", self._on_error)

    # -- hooks --------------------------------------------------------------------------------
    def offline(self, status: int, retry_after: str | None) -> bool:
        """A 409 (the room is not live yet): True when the POST is to be tried again later."""
        return False

    def answered(self) -> None:
        """The answer is applied."""

    # -- negotiation (webrtcbin's threads; HTTP on the main loop) -------------------------------
    def _on_negotiation_needed(self, webrtc):
        webrtc.emit("create-offer", None, Gst.Promise.new_with_change_func(self._on_offer, webrtc))

    def _on_offer(self, promise, webrtc):
        promise.wait()
        reply = promise.get_reply()
        offer = reply.get_value("offer") if reply else None
        if offer is None:
            GLib.idle_add(self._fail, f"create-offer failed: {reply.to_string() if reply else 'no reply'}")
            return
        webrtc.emit("set-local-description", offer, None)

    def _on_gathering(self, webrtc, _spec):
        state = state_name(webrtc.get_property("ice-gathering-state"))
        log("ICE gathering:", state)
        if state == "complete" and not self.offered:
            self.offered = True
            GLib.idle_add(self._post)

    def _post(self):
        offer = sdp_with_candidates(self.webrtc.get_property("local-description").sdp.as_text(), self.candidates)
        self.report["offer_candidates"] = [line[2:] for line in offer.split("\r\n") if line.startswith("a=candidate:")]
        status, body, retry_after = self.http.post_offer(offer)
        if status == 409 and self.offline(status, retry_after):
            return False
        self.posted_at = time.monotonic()
        emit("posted", status=status, location=self.http.location, candidates=self.report["offer_candidates"])
        if status != 201:
            return self._fail(f"{self.method} POST answered {status}: {body.strip()[:200]}", status=status)
        self.report["answer_candidates"] = [line[2:] for line in body.splitlines() if line.startswith("a=candidate:")]
        self.webrtc.emit("set-remote-description", parse_sdp(body, GstWebRTC.WebRTCSDPType.ANSWER), None)
        self.answered()
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
            self.report["connected_ms"] = round((self.connected_at - (self.posted_at or self.started)) * 1000)
        elif state in ("failed", "closed"):
            GLib.idle_add(self._fail, f"connection {state}")

    # -- ending ---------------------------------------------------------------------------------
    def _on_error(self, _bus, message):
        error, debug = message.parse_error()
        GLib.idle_add(self._fail, f"pipeline error: {error.message} ({debug})")

    def _fail(self, reason: str, **fields):
        log(reason)
        self.report.setdefault("error", reason)
        self.report.update(fields)
        self.loop.quit()
        return False

    def _stop(self, reason: str):
        self.report.setdefault("stopped_by", reason)
        self.loop.quit()
        return False

    def run_loop(self) -> float:
        """Plays until the loop ends, then DELETEs the session and tears down; returns when it stopped."""
        self.pipeline.set_state(Gst.State.PLAYING)
        try:
            self.loop.run()
        finally:
            stopped = time.monotonic()
            self.stopping = True
            self.report["delete_status"] = self.http.delete()
            self.pipeline.set_state(Gst.State.NULL)
        return stopped
