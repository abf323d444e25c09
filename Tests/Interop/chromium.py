"""A tiny Chrome DevTools Protocol driver for headless Chromium (no Selenium).

    async with Chromium() as browser:
        tab = await browser.open("http://127.0.0.1:8080/rooms/42")
        state = await tab.wait_for("window.result", lambda r: r and r["frames"] > 30, timeout=20)
        await tab.screenshot("/tmp/room.png")

Each tab is its own window (Target.createTarget newWindow), so every page is visible and
requestVideoFrameCallback keeps firing. The browser runs in its own process group with a
temporary profile; close() kills that group and deletes the profile.

In a network-lab namespace (tools/netlab), run the browser with `ip netns exec` (spawn=) and
this driver on an event loop inside the same namespace (netlab.NetnsLoop): the DevTools port
listens on that namespace's 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import aiohttp
import websockets
from aiohttp import web

from harness import ROOM_PAGE, WEB_DIR

CHROMIUM = os.environ.get("ONAIR_CHROMIUM", "/usr/bin/chromium")
# PEERS.md: these worked headless; without --allow-loopback-in-peer-connection Chromium
# offers no 127.0.0.1 candidate at all.
FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu",
    "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
    "--autoplay-policy=no-user-gesture-required", "--allow-loopback-in-peer-connection",
    # keep every tab running at full speed
    "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
    "--disable-component-update", "--disable-default-apps", "--mute-audio",
    "--remote-allow-origins=*",
]


# Run before a page's own scripts (Chromium.open(init_script=...)): keeps every
# RTCPeerConnection the page makes in window.__onairPeerConnections, so a test can read
# getStats() of a page that does not expose its connection (Tab.rtp_stats).
RECORD_PEER_CONNECTIONS = """
(() => {
  const Native = window.RTCPeerConnection;
  if (!Native || Native.__onairRecorded) return;
  window.__onairPeerConnections = [];
  class Recorded extends Native {
    constructor(...args) { super(...args); window.__onairPeerConnections.push(this); }
  }
  Recorded.__onairRecorded = true;
  window.RTCPeerConnection = Recorded;
})();
"""

# Run before a page's own scripts: every frame the page's first <video> presents
# (requestVideoFrameCallback) as [wall seconds, width, height, capture ms] in
# window.__onairFrames, for judging frame rate, freezes, sizes and glass-to-glass latency as a
# viewer sees them (Tab.presented_frames). A
# watchdog starts a new callback chain when the old one stopped (the element's stream was
# replaced); presentedFrames keeps a frame from being counted twice.
RECORD_VIDEO_FRAMES = """
(() => {
  window.__onairFrames = [];
  // The test pattern's wall-clock barcode (testpattern.py: 2 rows x 32 cells at the top, each
  // W/32 x H/24; 48-bit Unix ms + CRC-16/CCITT-FALSE): the top twelfth of each presented frame
  // drawn into a 32x2 canvas, one pixel per cell (the browser averages the cell), bit = luma
  // >= 128. Read in the same callback as the frame is presented: glass-to-glass.
  const canvas = document.createElement("canvas");
  canvas.width = 32; canvas.height = 2;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  const crc16 = (bytes) => {
    let crc = 0xFFFF;
    for (const byte of bytes) {
      crc ^= byte << 8;
      for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xFFFF : (crc << 1) & 0xFFFF;
    }
    return crc;
  };
  const barcode = (video, width, height) => {
    try {
      context.drawImage(video, 0, 0, width, height / 12, 0, 0, 32, 2);
      const pixels = context.getImageData(0, 0, 32, 2).data;
      const bits = [];
      for (let i = 0; i < 64; i++) {
        const p = 4 * i;
        bits.push(0.299 * pixels[p] + 0.587 * pixels[p + 1] + 0.114 * pixels[p + 2] >= 128 ? 1 : 0);
      }
      const bytes = [];
      for (let b = 0; b < 8; b++) bytes.push(bits.slice(8 * b, 8 * b + 8).reduce((v, bit) => (v << 1) | bit, 0));
      if (crc16(bytes.slice(0, 6)) !== (bytes[6] << 8 | bytes[7])) return null;
      return bytes.slice(0, 6).reduce((v, byte) => v * 256 + byte, 0);
    } catch (e) {
      return null;
    }
  };
  let generation = 0, lastCallback = 0, lastPresented = -1;
  const chain = (video, mine) => {
    const onFrame = (now, meta) => {
      if (mine !== generation) return;
      lastCallback = performance.now();
      if (meta.presentedFrames > lastPresented) {
        lastPresented = meta.presentedFrames;
        window.__onairFrames.push([(performance.timeOrigin + meta.presentationTime) / 1000, meta.width, meta.height,
                                   barcode(video, meta.width, meta.height)]);
      }
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  };
  setInterval(() => {
    const video = document.querySelector("video");
    if (video && performance.now() - lastCallback > 2000) {
      lastCallback = performance.now();
      lastPresented = -1;
      chain(video, ++generation);
    }
  }, 250);
})();
"""


class CDPError(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Process:
    """Default process holder: Popen in its own session, killed as a group."""

    def __init__(self, argv: list[str], log_path: Path | None):
        self.log = open(log_path, "w") if log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)

    def poll(self):
        return self.proc.poll()

    def stop(self, grace: float = 5.0):
        if self.proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5)):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self.log is not subprocess.DEVNULL:
            self.log.close()
        return self.proc.returncode


class Tab:
    """One page target over its own DevTools WebSocket."""

    def __init__(self, browser: "Chromium", target_id: str, name: str):
        self.browser, self.target_id, self.name = browser, target_id, name
        self.console: list[str] = []
        self._ws = None
        self._next_id = 0
        self._pending: dict[int, asyncio.Future] = {}
        self._waiters: list[tuple[str, asyncio.Future]] = []
        self._reader: asyncio.Task | None = None

    async def connect(self) -> None:
        url = f"ws://127.0.0.1:{self.browser.port}/devtools/page/{self.target_id}"
        self._ws = await websockets.connect(url, max_size=None, open_timeout=10)
        self._reader = asyncio.ensure_future(self._read())
        await self.send("Page.enable")
        await self.send("Runtime.enable")

    async def _read(self) -> None:
        try:
            async for raw in self._ws:
                message = json.loads(raw)
                if "id" in message:
                    future = self._pending.pop(message["id"], None)
                    if future and not future.done():
                        future.set_result(message)
                    continue
                self._on_event(message.get("method", ""), message.get("params", {}))
        except websockets.ConnectionClosed:
            pass
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(CDPError(f"tab {self.name}: DevTools connection closed"))

    def _on_event(self, method: str, params: dict) -> None:
        stamp = time.strftime("%H:%M:%S")
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", a.get("type")))) for a in params.get("args", []))
            self.console.append(f"{stamp} console.{params.get('type')}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text")
            self.console.append(f"{stamp} exception: {text}")
        for waited, future in list(self._waiters):
            if waited == method and not future.done():
                future.set_result(params)

    async def send(self, method: str, timeout: float = 15, **params) -> dict:
        self._next_id += 1
        future = asyncio.get_running_loop().create_future()
        self._pending[self._next_id] = future
        await self._ws.send(json.dumps({"id": self._next_id, "method": method, "params": params}))
        message = await asyncio.wait_for(future, timeout)
        if "error" in message:
            raise CDPError(f"{method}: {message['error']}")
        return message.get("result", {})

    async def navigate(self, url: str, timeout: float = 15) -> None:
        future = asyncio.get_running_loop().create_future()
        waiter = ("Page.loadEventFired", future)
        self._waiters.append(waiter)
        try:
            result = await self.send("Page.navigate", url=url)
            if result.get("errorText"):
                raise CDPError(f"navigate {url}: {result['errorText']}")
            await asyncio.wait_for(future, timeout)
        finally:
            self._waiters.remove(waiter)

    async def evaluate(self, expression: str, await_promise: bool = False):
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                                 awaitPromise=await_promise)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise CDPError(f"evaluate {expression!r}: {details.get('exception', {}).get('description') or details}")
        return result.get("result", {}).get("value")

    async def json(self, expression: str = "window.result"):
        """Evaluates `expression` and returns it through JSON (getters included)."""
        text = await self.evaluate(f"JSON.stringify({expression} === undefined ? null : {expression})")
        return None if text is None else json.loads(text)

    async def wait_for(self, expression: str, predicate=bool, timeout: float = 20, interval: float = 0.25,
                       fail=None):
        """Polls json(expression) until predicate(value); raises TimeoutError with the last
        value, or AssertionError at once when fail(value) is true."""
        deadline = time.monotonic() + timeout
        value = None
        while True:
            value = await self.json(expression)
            if predicate(value):
                return value
            if fail is not None and value is not None and fail(value):
                raise AssertionError(f"tab {self.name}: {expression} failed: {value}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"tab {self.name}: {expression} not ready after {timeout}s: {value}")
            await asyncio.sleep(interval)

    async def rtp_stats(self, stat_type: str = "inbound-rtp", kind: str = "video") -> list[dict]:
        """getStats() entries of `stat_type` and `kind` (e.g. inbound-rtp video: frameWidth,
        framesPerSecond, framesDecoded, freezeCount, totalFreezesDuration) of the page's newest
        RTCPeerConnection that is not closed; [] when there is none. Needs the page opened
        with init_script=RECORD_PEER_CONNECTIONS."""
        return await self.evaluate(f"""(async () => {{
          const pcs = (window.__onairPeerConnections || []).filter((pc) => pc.connectionState !== "closed");
          if (!pcs.length) return [];
          const out = [];
          (await pcs[pcs.length - 1].getStats()).forEach((s) => {{
            if (s.type === {json.dumps(stat_type)} && s.kind === {json.dumps(kind)}) out.push(s);
          }});
          return out;
        }})()""", await_promise=True) or []

    async def presented_frames(self, since: int = 0) -> list[tuple[float, int, int, int | None]]:
        """The frames the page's <video> presented, from index `since` on: (wall seconds,
        width, height, capture ms from the test pattern's barcode or None). Needs the page
        opened with init_script=RECORD_VIDEO_FRAMES."""
        return [tuple(f) for f in await self.json(f"(window.__onairFrames || []).slice({int(since)})") or []]

    async def select(self, element_id: str, value: str) -> str:
        """Chooses `value` in the <select> `element_id` as a person would (a change event
        follows); returns the select's value afterwards."""
        return await self.evaluate(
            f"(() => {{ const m = document.getElementById({json.dumps(element_id)}); m.value = {json.dumps(value)}; "
            "m.dispatchEvent(new Event('change')); return m.value; })()")

    async def set_viewport(self, width: int, height: int, mobile: bool = False) -> None:
        """Emulates a screen of width x height CSS pixels (e.g. a phone: 390x844, mobile=True)."""
        await self.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                        deviceScaleFactor=1, mobile=mobile)

    async def screenshot(self, path: str | Path) -> Path:
        result = await self.send("Page.captureScreenshot", format="png")
        path = Path(path)
        path.write_bytes(base64.b64decode(result["data"]))
        return path

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()


class Chromium:
    """Headless Chromium with a temporary profile and a free remote-debugging port."""

    def __init__(self, binary: str = CHROMIUM, log_path: Path | None = None, spawn=None,
                 window_size: tuple[int, int] = (1280, 800), extra_flags: tuple[str, ...] = ()):
        self.binary, self.log_path, self.window_size = binary, log_path, window_size
        self.extra_flags = list(extra_flags)
        self._spawn = spawn or (lambda argv: _Process(argv, log_path))
        self.port: int | None = None
        self.process = None
        self.profile: str | None = None
        self.tabs: list[Tab] = []
        self._http: aiohttp.ClientSession | None = None
        self._browser_ws = None
        self._next_id = 0

    async def __aenter__(self) -> "Chromium":
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def start(self, timeout: float = 30) -> None:
        self.port = _free_port()
        self.profile = tempfile.mkdtemp(prefix="onair-chromium-")
        w, h = self.window_size
        argv = [self.binary, *FLAGS, *self.extra_flags, f"--user-data-dir={self.profile}",
                f"--remote-debugging-port={self.port}", f"--window-size={w},{h}", "about:blank"]
        self.process = self._spawn(argv)
        self._http = aiohttp.ClientSession()
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise CDPError(f"chromium exited ({self.process.poll()}) at start; log: {self.log_path}")
            try:
                async with self._http.get(f"http://127.0.0.1:{self.port}/json/version",
                                          timeout=aiohttp.ClientTimeout(total=2)) as resp:
                    version = await resp.json()
                    break
            except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
                if time.monotonic() > deadline:
                    raise CDPError(f"chromium DevTools not reachable on port {self.port} after {timeout}s")
                await asyncio.sleep(0.2)
        self.version = version.get("Browser")
        self._browser_ws = await websockets.connect(version["webSocketDebuggerUrl"], max_size=None)

    async def _browser_call(self, method: str, **params) -> dict:
        self._next_id += 1
        await self._browser_ws.send(json.dumps({"id": self._next_id, "method": method, "params": params}))
        while True:  # the browser session only sends events we did not subscribe to; skip them
            message = json.loads(await asyncio.wait_for(self._browser_ws.recv(), 15))
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise CDPError(f"{method}: {message['error']}")
                return message.get("result", {})

    async def open(self, url: str, name: str | None = None, timeout: float = 15,
                   init_script: str | None = None) -> Tab:
        """Opens `url` in a new window and waits for its load event; `init_script` runs in
        the page before its own scripts (e.g. RECORD_PEER_CONNECTIONS)."""
        created = await self._browser_call("Target.createTarget", url="about:blank", newWindow=True)
        tab = Tab(self, created["targetId"], name or f"tab{len(self.tabs) + 1}")
        self.tabs.append(tab)
        await tab.connect()
        if init_script:
            await tab.send("Page.addScriptToEvaluateOnNewDocument", source=init_script)
        await tab.navigate(url, timeout=timeout)
        return tab

    async def close(self) -> None:
        for tab in self.tabs:
            try:
                await tab.close()
            except Exception:
                pass
        if self._browser_ws is not None:
            try:
                await asyncio.wait_for(self._browser_call("Browser.close"), 3)
            except Exception:
                pass
            await self._browser_ws.close()
        if self._http is not None:
            await self._http.close()
        if self.process is not None:
            self.process.stop()
        if self.profile:
            shutil.rmtree(self.profile, ignore_errors=True)


FORWARDED_REQUEST = ("Content-Type", "Authorization", "If-Match")
FORWARDED_RESPONSE = ("Content-Type", "Location", "ETag", "Retry-After", "Link", "Accept-Patch", "WWW-Authenticate")


async def start_web_server(relay) -> tuple[web.AppRunner, str]:
    """Serves web/publisher.html and room.html at /rooms/{room} on 127.0.0.1 (of the calling
    loop's network namespace), and forwards /whip/... and /whep/... to the relay, so pages on
    this origin need no CORS from the relay. Returns (runner: cleanup() it, base URL)."""
    http = aiohttp.ClientSession()

    async def proxy(request: web.Request) -> web.Response:
        headers = {k: request.headers[k] for k in FORWARDED_REQUEST if k in request.headers}
        async with http.request(request.method, relay.base_url + request.rel_url.path_qs,
                                data=await request.read(), headers=headers) as upstream:
            body = await upstream.read()
            out = {k: upstream.headers[k] for k in FORWARDED_RESPONSE if k in upstream.headers}
            return web.Response(status=upstream.status, body=body, headers=out)

    async def room_page(_request: web.Request) -> web.Response:
        return web.Response(body=ROOM_PAGE.read_bytes(), content_type="text/html")

    async def close_client(_app):
        await http.close()

    app = web.Application()
    app.router.add_get("/rooms/{room}", room_page)
    app.router.add_route("*", r"/{kind:whip|whep}/{tail:.*}", proxy)
    app.router.add_static("/", WEB_DIR)
    app.on_cleanup.append(close_client)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    return runner, f"http://127.0.0.1:{port}"
