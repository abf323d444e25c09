"""Shared bits of the GStreamer webrtcbin peers (gst_whip_publisher.py, gst_whep_viewer.py).

They run under the system python3 (python3-gi and Debian's GStreamer 1.22, installed by
tools/setup.sh), not the aiortc venv: only the standard library besides gi. webrtcbin's ICE
is libnice: `GstWebRTCNice` (property `ice-agent`) with `ice-udp` / `ice-tcp`, and its
NiceAgent (property `agent`). libnice skips loopback addresses, so the address to offer is
added to the NiceAgent by hand (ONAIR_ICE_HOST, default 127.0.0.1; PEERS.md).
"""

from __future__ import annotations

import ctypes
import os
import urllib.error
import urllib.request
from urllib.parse import urljoin

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstSdp", "1.0")
gi.require_version("GstWebRTC", "1.0")
gi.require_version("Nice", "0.1")
from gi.repository import GLib, Gst, GstSdp, GstWebRTC, Nice  # noqa: E402

from status_lines import T0, emit, log  # noqa: E402,F401 - the peers import them from here


# NiceCandidateTransport -> the word used in SDP (RFC 6544 tcptype for TCP).
TRANSPORTS = {int(Nice.CandidateTransport.UDP): "udp", int(Nice.CandidateTransport.TCP_ACTIVE): "tcp-active",
              int(Nice.CandidateTransport.TCP_PASSIVE): "tcp-passive", int(Nice.CandidateTransport.TCP_SO): "tcp-so"}
CANDIDATE_TYPES = {int(Nice.CandidateType.HOST): "host", int(Nice.CandidateType.SERVER_REFLEXIVE): "srflx",
                   int(Nice.CandidateType.PEER_REFLEXIVE): "prflx", int(Nice.CandidateType.RELAYED): "relay"}



def configure_ice(webrtc: Gst.Element, tcp_only: bool, udp_only: bool = False) -> Nice.Agent:
    """Restricts webrtcbin's libnice agent to TCP (RFC 6544) or UDP candidates and offers only
    the loopback (or ONAIR_ICE_HOST) address. Call before the first offer is made."""
    ice = webrtc.get_property("ice-agent")
    if ice.__grefcount__ == 1:
        # GStreamer 1.22's webrtcbin keeps its GstWebRTCNice floating; PyGObject sinks that
        # reference as its own on the first wrap and would free the agent with the wrapper.
        # Give webrtcbin its reference back (a fixed GStreamer shows 2 here).
        gobject = ctypes.CDLL("libgobject-2.0.so.0")
        gobject.g_object_ref.argtypes, gobject.g_object_ref.restype = [ctypes.c_void_p], ctypes.c_void_p
        gobject.g_object_ref(hash(ice))  # PyGObject hashes a GObject wrapper by its C pointer
    ice.set_property("ice-udp", not tcp_only)
    ice.set_property("ice-tcp", not udp_only)
    agent = ice.get_property("agent")
    for host in [a.strip() for a in os.environ.get("ONAIR_ICE_HOST", "127.0.0.1").split(",") if a.strip()]:
        address = Nice.Address.new()
        if not address.set_from_string(host):
            raise ValueError(f"bad ONAIR_ICE_HOST address {host!r}")
        agent.add_local_address(address)
    return agent


def describe(candidate: Nice.Candidate) -> dict:
    """A NiceCandidate as {"transport": "tcp-active", "type": "host", "port": N}."""
    return {"transport": TRANSPORTS.get(int(candidate.transport), str(candidate.transport)),
            "type": CANDIDATE_TYPES.get(int(candidate.type), str(candidate.type)),
            "port": candidate.addr.get_port()}


def follow_selected_pair(agent: Nice.Agent, report: dict) -> None:
    """Records libnice's selected pair (the pair media flows on) in report["selected_pair"]."""
    def on_pair(_agent, stream_id, component_id, local, remote):
        pair = {"stream": stream_id, "component": component_id, "local": describe(local), "remote": describe(remote)}
        report["selected_pair"] = pair
        emit("selected_pair", **pair)
    agent.connect("new-selected-pair-full", on_pair)


def sdp_with_candidates(sdp: str, candidates: list[tuple[int, str]]) -> str:
    """The offer with every gathered candidate in its m-section and a=end-of-candidates
    (non-trickle WHIP/WHEP: the offer must be complete). Candidates already present stay."""
    lines = sdp.replace("\r\n", "\n").rstrip("\n").split("\n")
    sections: list[list[str]] = [[]]
    for line in lines:
        if line.startswith("m="):
            sections.append([])
        sections[-1].append(line)
    for index, section in enumerate(sections[1:]):
        present = {line for line in section if line.startswith("a=candidate:")}
        for mline, candidate in candidates:
            text = candidate if candidate.startswith("a=") else "a=" + candidate
            if mline == index and text not in present:
                section.append(text)
                present.add(text)
        if "a=end-of-candidates" not in section:
            section.append("a=end-of-candidates")
    return "\r\n".join(line for section in sections for line in section) + "\r\n"


class HttpSession:
    """A WHIP/WHEP session resource (RFC 9725): POST the offer, keep Location, DELETE it."""

    def __init__(self, endpoint: str, token: str | None):
        self.endpoint, self.token, self.location = endpoint, token, None

    def _headers(self, extra: dict | None = None) -> dict:
        headers = dict(extra or {})
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def post_offer(self, sdp: str, timeout: float = 10) -> tuple[int, str, str | None]:
        """(status, body, Retry-After); Location is kept on 201."""
        request = urllib.request.Request(self.endpoint, data=sdp.encode(), method="POST",
                                         headers=self._headers({"Content-Type": "application/sdp"}))
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body = response.read().decode()
                location = response.headers.get("Location")
                self.location = urljoin(self.endpoint, location) if location else None
                return response.status, body, None
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace"), error.headers.get("Retry-After")

    def delete(self, timeout: float = 5) -> int | None:
        if not self.location:
            return None
        request = urllib.request.Request(self.location, method="DELETE", headers=self._headers())
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code
        except OSError as error:
            log("DELETE failed:", error)
            return None


def parse_sdp(text: str, kind: GstWebRTC.WebRTCSDPType) -> GstWebRTC.WebRTCSessionDescription:
    result, message = GstSdp.SDPMessage.new_from_text(text)
    if result != GstSdp.SDPResult.OK:
        raise ValueError(f"unparsable SDP ({result})")
    return GstWebRTC.WebRTCSessionDescription.new(kind, message)


def state_name(value) -> str:
    """'connected' from GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED and the like."""
    return value.value_nick if hasattr(value, "value_nick") else str(value)


def init() -> None:
    Gst.init(None)
    missing = [name for name in ("webrtcbin", "nicesrc", "rtph264pay", "rtph264depay", "avdec_h264", "x264enc",
                                 "opusenc", "opusdec") if Gst.ElementFactory.find(name) is None]
    if missing:
        raise SystemExit(f"GStreamer elements missing: {', '.join(missing)} (tools/setup.sh installs them)")


__all__ = ["GLib", "Gst", "GstWebRTC", "Nice", "HttpSession", "configure_ice", "describe", "emit",
           "follow_selected_pair", "init", "log", "parse_sdp", "sdp_with_candidates", "state_name"]
