"""Shared bits of the aiortc WHIP/WHEP peers: loopback ICE, JSON status lines, the
WHIP/WHEP HTTP exchange (RFC 9725) and codec preferences."""

from __future__ import annotations

import asyncio
import os
import re
from urllib.parse import urljoin

import aiohttp
import aioice.ice

from status_lines import T0, emit, log  # noqa: F401 - the peers import them from here



def allow_loopback() -> None:
    """aioice drops loopback addresses from its host candidates; our tests run on
    127.0.0.1 only, so offer exactly that (PEERS.md). In a network-lab namespace
    ONAIR_ICE_HOST gives the address(es) to offer instead (comma list, e.g. 198.18.0.10)."""
    addresses = [a.strip() for a in os.environ.get("ONAIR_ICE_HOST", "127.0.0.1").split(",") if a.strip()]
    aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=True: list(addresses)



class SessionError(Exception):
    def __init__(self, status: int, reason: str, retry_after: float | None = None):
        super().__init__(f"HTTP {status}: {reason}")
        self.status, self.retry_after = status, retry_after


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value.strip()))
    except ValueError:
        return None  # HTTP-date form: the caller uses its default


class Session:
    """A WHIP or WHEP session resource: POST the offer, keep Location/ETag, DELETE it."""

    def __init__(self, http: aiohttp.ClientSession, endpoint: str, token: str | None):
        self.http, self.endpoint, self.token = http, endpoint, token
        self.location: str | None = None
        self.etag: str | None = None

    def _headers(self, extra: dict | None = None) -> dict:
        headers = dict(extra or {})
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    async def post_offer(self, sdp: str, timeout: float = 10) -> tuple[int, str, dict]:
        """POSTs the offer; returns (status, answer, headers) on 201, raises SessionError otherwise."""
        async with self.http.post(
            self.endpoint, data=sdp.encode(),
            headers=self._headers({"Content-Type": "application/sdp"}),
            timeout=aiohttp.ClientTimeout(total=timeout),
        ) as resp:
            body = await resp.text()
            if resp.status != 201:
                raise SessionError(resp.status, body.strip()[:200], parse_retry_after(resp.headers.get("Retry-After")))
            location = resp.headers.get("Location")
            # RFC 9725 §4.2: Location may be relative to the endpoint URL.
            self.location = urljoin(self.endpoint, location) if location else None
            self.etag = resp.headers.get("ETag")
            return resp.status, body, dict(resp.headers)

    async def delete(self, timeout: float = 5) -> int | None:
        """DELETEs the session resource; returns the status, or None when there is none/failed."""
        if not self.location:
            return None
        try:
            async with self.http.delete(self.location, headers=self._headers(),
                                        timeout=aiohttp.ClientTimeout(total=timeout)) as resp:
                await resp.read()
                return resp.status
        except (aiohttp.ClientError, asyncio.TimeoutError) as error:
            log("DELETE failed:", error)
            return None


def h264_first(codecs, only: bool) -> list:
    """Orders codec capabilities H.264 first (packetization-mode=1, then the rest);
    with only=True keeps just H.264 and RTX."""
    def rank(c):
        if c.mimeType == "video/H264":
            return 0 if (c.parameters or {}).get("packetization-mode") in ("1", 1) else 1
        return 2 if c.mimeType == "video/rtx" else 3
    ordered = sorted(codecs, key=rank)
    return [c for c in ordered if c.mimeType in ("video/H264", "video/rtx")] if only else ordered


def negotiated_codecs(answer_sdp: str) -> dict:
    """First rtpmap of each m-section in the answer: {"video": "H264/90000", "audio": "opus/48000/2"}."""
    result, kind, first_pt = {}, None, None
    for line in answer_sdp.splitlines():
        if line.startswith("m="):
            parts = line[2:].split()
            kind, first_pt = parts[0], (parts[3] if len(parts) > 3 else None)
        elif kind and first_pt and kind not in result:
            m = re.match(r"a=rtpmap:(\d+) (\S+)", line)
            if m and m.group(1) == first_pt:
                result[kind] = m.group(2)
    return result


def install_stop_signals(stop: asyncio.Event) -> None:
    import signal
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
