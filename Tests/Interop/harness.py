"""Process plumbing for the interop tests: start a subprocess with a hard timeout, collect
its JSON status lines (stdout) and its log (stderr), wait for events, and always kill it.
Every process gets its own session (process group), so killing it also ends its children;
nothing here ever kills a process the harness did not start."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

INTEROP_DIR = Path(__file__).resolve().parent
REPO = INTEROP_DIR.parents[1]
PEERS_DIR = INTEROP_DIR / "peers"
WEB_DIR = INTEROP_DIR / "web"
ROOM_PAGE = REPO / "Sources" / "OnAirRelay" / "Web" / "room.html"
NETLAB_DIR = REPO / "tools" / "netlab"
PYTHON = sys.executable  # the venv that runs pytest also runs the aiortc peers


def netlab():
    """The network lab module, tools/netlab/netlab.py (namespaces, tbf, nftables)."""
    if str(NETLAB_DIR) not in sys.path:
        sys.path.insert(0, str(NETLAB_DIR))
    import netlab as module
    return module


def running_lab(viewers: int, ipv6: bool = False, ipv6_only: tuple[str, ...] = ()):
    """A built network lab with `viewers` viewer namespaces, for a pytest fixture to yield from:
    the test is skipped, with the reason, when the lab cannot be built; the lab is removed
    when the fixture ends (after `procs` stopped its processes: tests list `lab` first).
    `ipv6`: every host gets an IPv6 address too; `ipv6_only`: these peers have only that."""
    import pytest
    module = netlab()
    lab = module.Lab(viewers=viewers, ipv6=ipv6 or bool(ipv6_only), ipv6_only=ipv6_only)
    try:
        lab.up()
    except module.LabUnavailable as error:
        pytest.skip(f"network lab unavailable: {error}")
    yield lab
    lab.close()


REFPEER_DIR = REPO.parent / "shared" / "refpeer"   # ../shared/refpeer from the repository root
REFPEER_OUT = REPO / ".build" / "refpeer"


def refpeer_bin(name: str) -> Path:
    """The Pion reference peer's `relay` or `client` (../shared/refpeer), built once into
    .build/refpeer from Debian's Go packages (tools/setup.sh installs golang-go and
    golang-github-pion-webrtc.v3-dev). ONAIR_REFPEER_DIR names another build's folder."""
    out = Path(os.environ.get("ONAIR_REFPEER_DIR", str(REFPEER_OUT)))
    binary = out / "bin" / name
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        build = REFPEER_DIR / "build.sh"
        if not build.is_file():
            raise FileNotFoundError(f"no Pion reference peer at {REFPEER_DIR} (../shared/refpeer beside the repository)")
        done = subprocess.run(["sh", str(build), str(out)], capture_output=True, text=True, timeout=600)
        if done.returncode != 0 or not binary.is_file():
            raise RuntimeError(f"../shared/refpeer/build.sh {out} failed ({done.returncode}): "
                               f"{(done.stderr or done.stdout).strip()[-800:]} "
                               "(apt-get install golang-go golang-github-pion-webrtc.v3-dev: tools/setup.sh does)")
    return binary


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    """A port that is free on 127.0.0.1 right now (TCP or UDP)."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_udp_range(count: int | None = None) -> int:
    """The first of `count` consecutive ports free on 127.0.0.1 right now for UDP and TCP both:
    the relay's media workers listen on ONAIR_UDP_PORT + i, and on the same numbers for ICE-TCP
    (media.tcp_port's default). `count` defaults to the cores this process may use (the relay's
    default number of workers)."""
    count = count or len(os.sched_getaffinity(0))
    for _ in range(100):
        first = free_port(socket.SOCK_DGRAM)
        if first + count > 65535:
            continue
        held = []
        try:
            for port in range(first, first + count):
                for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
                    s = socket.socket(socket.AF_INET, kind)
                    held.append(s)
                    s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
    raise RuntimeError(f"no {count} consecutive free UDP ports")


def free_ports(count: int, kind: int = socket.SOCK_STREAM) -> list[int]:
    """`count` distinct free ports (held open together so they differ)."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, kind)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _connect(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
        pass


def wait_for_tcp(port: int, timeout: float, process: "ManagedProcess | None" = None,
                 netns: str | None = None) -> None:
    """Waits until 127.0.0.1:port accepts connections (inside network namespace `netns`)."""
    deadline = time.monotonic() + timeout
    where = f" in {netns}" if netns else ""
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            tail = "\n".join(process.log_text().splitlines()[-30:])
            raise RuntimeError(f"{process.name} exited with {process.returncode} before listening on "
                               f"{port}{where}:\n{tail}")
        try:
            if netns:
                netlab().in_netns(netns, _connect, port)
            else:
                _connect(port)
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}{where} after {timeout}s")


class ManagedProcess:
    """A subprocess with a hard timeout. stdout lines that parse as JSON objects are kept as
    events, the others in `lines` with their arrival (wall) time; everything (stdout and
    stderr) also goes to a log file."""

    def __init__(self, name: str, argv: list[str], log_dir: Path, timeout: float,
                 env: dict | None = None, cwd: str | None = None):
        self.name, self.argv, self.timeout = name, argv, timeout
        self.log_path = log_dir / f"{name}.log"
        self.events: list[dict] = []
        self.lines: list[tuple[float, str]] = []  # (time.time(), text) of non-JSON stdout lines
        self._cond = threading.Condition()
        self._log = open(self.log_path, "w", buffering=1)
        self._log.write(f"$ {' '.join(argv)}\n")
        self.started = time.monotonic()
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                     env=env, cwd=cwd, start_new_session=True, text=True, bufsize=1)
        self.timed_out = False
        self._threads = [threading.Thread(target=self._pump, args=(self.proc.stdout, True), daemon=True),
                         threading.Thread(target=self._pump, args=(self.proc.stderr, False), daemon=True)]
        for t in self._threads:
            t.start()
        self._killer = threading.Timer(timeout, self._on_timeout)
        self._killer.daemon = True
        self._killer.start()

    # -- output -------------------------------------------------------------------------
    def _pump(self, stream, is_stdout: bool) -> None:
        for line in stream:
            try:
                self._log.write(("" if is_stdout else "! ") + line)
            except ValueError:  # log already closed at teardown
                pass
            if is_stdout:
                try:
                    event = json.loads(line)
                except ValueError:
                    self.lines.append((time.time(), line.rstrip("\n")))
                    continue
                if isinstance(event, dict):
                    with self._cond:
                        self.events.append(event)
                        self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_event(self, name: str, timeout: float, predicate=None) -> dict:
        """Waits for an event named `name` (matching `predicate`); raises when the process
        exits first or the timeout passes."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for event in self.events:
                    if event.get("event") == name and (predicate is None or predicate(event)):
                        return event
                if self.proc.poll() is not None and not any(t.is_alive() for t in self._threads):
                    raise AssertionError(f"{self.name} exited ({self.proc.returncode}) without a {name!r} event")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.name}: no {name!r} event within {timeout}s")
                self._cond.wait(min(left, 0.2))

    def last(self, name: str) -> dict | None:
        with self._cond:
            matches = [e for e in self.events if e.get("event") == name]
        return matches[-1] if matches else None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    # -- lifetime -----------------------------------------------------------------------
    def poll(self):
        return self.proc.poll()

    @property
    def returncode(self):
        return self.proc.returncode

    def wait(self, timeout: float) -> int | None:
        """Waits for exit; returns the code, or None if still running after `timeout`."""
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        for t in self._threads:
            t.join(timeout=2)
        return code

    def signal(self, sig: int = signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, grace: float = 5.0) -> int | None:
        """SIGTERM, then SIGKILL after `grace` seconds. Idempotent."""
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
            if self.wait(grace) is None:
                self.signal(signal.SIGKILL)
                self.wait(5)
        self._killer.cancel()
        for t in self._threads:
            t.join(timeout=2)
        if not self._log.closed:
            self._log.write(f"# exit {self.proc.returncode}{' (hard timeout)' if self.timed_out else ''}\n")
            self._log.close()
        return self.proc.returncode

    def _on_timeout(self) -> None:
        if self.proc.poll() is None:
            self.timed_out = True
            try:
                self._log.write(f"# hard timeout after {self.timeout}s: killing\n")
            except ValueError:
                pass
            self.signal(signal.SIGKILL)


class ProcessGroup:
    """Owns every process a test starts; `stop_all` runs at teardown."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.processes: list[ManagedProcess] = []
        self.extra_logs: list[Path] = []  # e.g. browser console logs, shown with the rest

    def start(self, name: str, argv: list[str], timeout: float, **kwargs) -> ManagedProcess:
        process = ManagedProcess(name, argv, self.log_dir, timeout, **kwargs)
        self.processes.append(process)
        return process

    def stop_all(self) -> None:
        for process in reversed(self.processes):  # peers before the relay
            process.stop()

    def dump_logs(self, tail_lines: int = 200) -> str:
        parts = []
        for process in self.processes:
            lines = process.log_text().splitlines()
            shown = lines[-tail_lines:]
            header = f"===== {process.name} (exit {process.returncode}) {process.log_path}"
            if len(lines) > len(shown):
                header += f" [last {len(shown)} of {len(lines)} lines]"
            parts.append("\n".join([header, *shown]))
        for path in self.extra_logs:
            try:
                parts.append(f"===== {path}\n" + path.read_text(errors="replace"))
            except OSError:
                pass
        return "\n".join(parts)


def start_peer(procs: ProcessGroup, name: str, script: str, *args, timeout: float = 120) -> ManagedProcess:
    """Runs one of the aiortc peers in peers/ with this interpreter (the venv)."""
    argv = [PYTHON, "-u", str(PEERS_DIR / script), *[str(a) for a in args]]
    return procs.start(name, argv, timeout=timeout, cwd=str(PEERS_DIR))
