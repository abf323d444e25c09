#!/usr/bin/env python3
"""A network lab of Linux network namespaces: a relay, a publisher and N viewers on one
bridge, with per-link, per-direction rate limits and random loss that can change while a
test runs. Real kernel plumbing only (ip, tc tbf, nftables); needs root. Stdlib only.

Topology (addresses only in the RFC 2544 benchmarking range 198.18.0.0/15 and, with `ipv6`,
its IPv6 counterpart 2001:2::/48 of RFC 5180):

    onairlab-<id>-relay   br0 198.18.0.1/24 (2001:2::1/64), one bridge port per peer (named after it)
    onairlab-<id>-pub     eth0 198.18.0.2/24 (2001:2::2)  <- veth ->  relay's port "pub"
    onairlab-<id>-v1..vN  eth0 198.18.0.10+ (2001:2::10+) <- veth ->  relay's port "v1".."vN"

`lo` is up everywhere. IPv6 is off unless the lab is built with `ipv6=True`; then every host
has its 2001:2:: address too and no link-local one (addrgenmode none: nothing outside the lab's
ranges), and the hosts in `ipv6_only` have no IPv4 address at all.
A link is named after its peer ("pub", "v1"); "up" is peer -> relay, "down" relay -> peer.
  rate: `tc qdisc replace ... root tbf` on the sending end (up: the peer's eth0, down: the
        relay's port), so the queue builds where a real bottleneck's would.
  loss: an nftables netdev ingress rule `numgen random mod 10000 < P*100 drop` on the
        receiving end (up: the relay's port, down: the peer's eth0). Not in the sender's
        output hook: a drop there makes the sender's sendto() fail with EPERM, which real
        loss never does.

    with Lab(viewers=2) as lab:
        lab.set_rate("pub", "up", 1000)          # kbit/s, None removes the limit
        lab.set_loss("pub", "up", 5)             # percent
        lab.block("v1", udp=True)                # a firewall: no UDP (tcp_open=(8080,): only that TCP),
                                                 # IPv4 and IPv6 alike
        proc = lab.run("v1", ["python3", "viewer.py"])  # ip netns exec
        lab.address("relay")                     # "198.18.0.1"
        loop = lab.loop("v1")                    # asyncio loop on a thread in v1's namespace
        loop.run(coroutine(), timeout=30); loop.close()

CLI (for manual use; a CLI lab has the id "cli" and stays until `down`):
    netlab.py up [--viewers N] | down [--all] | status
    netlab.py set LINK up|down [--rate KBIT|off] [--loss PERCENT] [--burst BYTES] [--latency MS]
    netlab.py exec HOST -- COMMAND...
    netlab.py check        # builds a lab, measures loss and rate with UDP probes, removes it
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import ctypes
import ipaddress
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

PREFIX = "onairlab"
LAB_RANGE = ipaddress.ip_network("198.18.0.0/15")  # RFC 2544: never route anything else
LAB_RANGE6 = ipaddress.ip_network("2001:2::/48")   # RFC 5180: the IPv6 benchmarking range
RELAY_ADDRESS6 = "2001:2::1"
PREFIX_LEN6 = 64
RELAY_ADDRESS = "198.18.0.1"
PUBLISHER_ADDRESS = "198.18.0.2"
FIRST_VIEWER = 10  # v1 = 198.18.0.10
PREFIX_LEN = 24
TABLE = "onairlab"  # nftables table (netdev family) in every lab namespace
PEER_DEV = "eth0"
BRIDGE = "br0"
CLONE_NEWNET = 0x40000000


class LabUnavailable(RuntimeError):
    """The lab cannot be built here; str() says why."""


def check_available() -> None:
    """Raises LabUnavailable with the reason when this process cannot build a lab."""
    if not sys.platform.startswith("linux"):
        raise LabUnavailable(f"network namespaces need Linux (this is {sys.platform})")
    if os.geteuid() != 0:
        raise LabUnavailable("the network lab needs root (network namespaces, tc, nftables)")
    missing = [tool for tool in ("ip", "tc", "nft", "ethtool") if _which(tool) is None]
    if missing:
        raise LabUnavailable(f"missing {', '.join(missing)} (Debian: apt-get install iproute2 nftables ethtool)")


def _which(tool: str) -> str | None:
    return shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/sbin:/usr/bin:/bin")


def _cmd(*argv: str, netns: str | None = None, input: str | None = None, check: bool = True) -> str:
    """Runs a command (in `netns` via ip netns exec); returns stdout, raises with stderr."""
    full = [_which(argv[0]) or argv[0], *argv[1:]]
    if netns:
        full = [_which("ip") or "ip", "netns", "exec", netns, *full]
    done = subprocess.run(full, input=input, capture_output=True, text=True, timeout=20)
    if check and done.returncode != 0:
        raise RuntimeError(f"`{' '.join(full)}` failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def lab_namespaces() -> list[str]:
    """Every namespace with the lab's prefix (any run)."""
    names = [line.split()[0] for line in _cmd("ip", "netns", "list").splitlines() if line.strip()]
    return sorted(n for n in names if n.startswith(PREFIX + "-"))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale() -> list[str]:
    """Deletes lab namespaces whose creating process is gone (a crashed earlier run).
    Names carry the creator's pid: onairlab-<pid>[_<n>]-<host>. CLI labs ("cli") stay."""
    removed = []
    for name in lab_namespaces():
        m = re.match(rf"{PREFIX}-(\d+)(?:_\d+)?-", name)
        if m and not _pid_alive(int(m.group(1))):
            _cmd("ip", "netns", "del", name, check=False)
            removed.append(name)
    return removed


def enter_netns(netns: str) -> None:
    """Moves the calling thread (only it: setns is per thread) into network namespace
    `netns`; threads it starts later inherit it."""
    fd = os.open(f"/run/netns/{netns}", os.O_RDONLY)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns({netns}) failed")
    finally:
        os.close(fd)


def in_netns(netns: str, fn, *args, timeout: float = 30):
    """Calls fn(*args) on a fresh thread that has entered `netns` (setns applies to the
    calling thread only): sockets it opens live in that namespace. Returns fn's result."""
    result: dict = {}

    def body():
        try:
            enter_netns(netns)
            result["value"] = fn(*args)
        except BaseException as error:  # re-raised on the caller's thread
            result["error"] = error

    thread = threading.Thread(target=body, name=f"netns-{netns}", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise TimeoutError(f"call in {netns} still running after {timeout}s")
    if "error" in result:
        raise result["error"]
    return result["value"]


class NetnsLoop:
    """An asyncio event loop on a daemon thread inside `netns`: every socket its coroutines
    open (and every thread it starts, e.g. for getaddrinfo) lives in that namespace. For
    async clients that must stay in a lab host, e.g. a DevTools client for a browser whose
    debugging port listens on the namespace's 127.0.0.1.

        loop = lab.loop("v1")
        value = loop.run(coroutine(), timeout=30)
        loop.close()
    """

    def __init__(self, netns: str):
        self.netns = netns
        self.loop = asyncio.new_event_loop()
        entered = threading.Event()
        failure: list[BaseException] = []

        def body():
            try:
                enter_netns(netns)
            except BaseException as error:  # reported to the constructor's caller
                failure.append(error)
                entered.set()
                return
            entered.set()
            asyncio.set_event_loop(self.loop)
            self.loop.run_forever()

        self._thread = threading.Thread(target=body, name=f"netns-loop-{netns}", daemon=True)
        self._thread.start()
        entered.wait(10)
        if failure:
            self.loop.close()
            raise failure[0]

    def run(self, coro, timeout: float = 30):
        """Runs `coro` on the loop and waits (this thread) for its result, at most `timeout` s
        (then the coroutine is cancelled and TimeoutError raised)."""
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise TimeoutError(f"coroutine in {self.netns} still running after {timeout}s") from None

    def close(self) -> None:
        """Stops the loop (what still runs on it is dropped) and its thread. Idempotent."""
        if self.loop.is_closed():
            return
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(5)
        if not self._thread.is_alive():
            self.loop.close()


@dataclass(frozen=True)
class Host:
    name: str     # "relay", "pub", "v1", ...
    netns: str
    address: str
    address6: str


_live_labs: list["Lab"] = []
_handlers_installed = False
_lab_counter = 0


def _close_all() -> None:
    for lab in list(_live_labs):
        lab.close()


def _on_signal(sig, frame, previous) -> None:
    _close_all()
    if callable(previous):
        previous(sig, frame)
    elif previous != signal.SIG_IGN:
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)


def _install_cleanup() -> None:
    """atexit + SIGINT/SIGTERM (chained to the previous handlers) remove live labs."""
    global _handlers_installed
    if _handlers_installed:
        return
    _handlers_installed = True
    atexit.register(_close_all)
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous = signal.getsignal(sig)
            signal.signal(sig, lambda s, f, p=previous: _on_signal(s, f, p))


class Lab:
    """The namespaces of one lab. `with Lab(viewers=N) as lab:` builds it and always
    removes it (also at exit and on SIGINT/SIGTERM)."""

    def __init__(self, viewers: int = 1, lab_id: str | None = None, ipv6: bool = False,
                 ipv6_only: tuple[str, ...] = ()):
        global _lab_counter
        if not 0 <= viewers <= 200:
            raise ValueError("viewers: 0...200")
        if ipv6_only and not ipv6:
            raise ValueError("ipv6_only hosts need a lab built with ipv6=True")
        if lab_id is None:
            _lab_counter += 1
            lab_id = f"{os.getpid()}" + (f"_{_lab_counter}" if _lab_counter > 1 else "")
        self.lab_id = lab_id
        names = [("relay", RELAY_ADDRESS, RELAY_ADDRESS6), ("pub", PUBLISHER_ADDRESS, "2001:2::2")]
        names += [(f"v{i}", f"198.18.0.{FIRST_VIEWER + i - 1}", f"2001:2::{FIRST_VIEWER + i - 1}")
                  for i in range(1, viewers + 1)]
        self.hosts = {name: Host(name, f"{PREFIX}-{lab_id}-{name}", address, address6)
                      for name, address, address6 in names}
        for host in self.hosts.values():
            assert ipaddress.ip_address(host.address) in LAB_RANGE, host
            assert ipaddress.ip_address(host.address6) in LAB_RANGE6, host
        unknown = (set(ipv6_only) - set(self.hosts)) | ({"relay"} & set(ipv6_only))
        if unknown:
            raise ValueError(f"ipv6_only: no peer {', '.join(sorted(unknown))}")
        self.ipv6 = ipv6
        self.ipv6_only = tuple(ipv6_only)
        self.processes: list[subprocess.Popen] = []
        self.built = False

    # -- lookups ------------------------------------------------------------------------
    @property
    def viewers(self) -> list[str]:
        return [name for name in self.hosts if name.startswith("v")]

    @property
    def links(self) -> list[str]:
        return [name for name in self.hosts if name != "relay"]

    def netns(self, host: str) -> str:
        return self.hosts[host].netns

    def address(self, host: str) -> str:
        return self.hosts[host].address

    def addresses(self, host: str) -> list[str]:
        """Every address `host` has: IPv4 (unless IPv6-only), then IPv6 (a lab built with ipv6=True)."""
        h = self.hosts[host]
        return ([] if host in self.ipv6_only else [h.address]) + ([h.address6] if self.ipv6 else [])

    def address6(self, host: str) -> str:
        """`host`'s IPv6 address (a lab built with ipv6=True)."""
        if not self.ipv6:
            raise ValueError("this lab has no IPv6: build it with Lab(ipv6=True)")
        return self.hosts[host].address6

    def prefix(self, host: str) -> list[str]:
        """argv prefix that runs a command in `host`'s namespace."""
        return [_which("ip") or "ip", "netns", "exec", self.netns(host)]

    # -- lifetime -----------------------------------------------------------------------
    def __enter__(self) -> "Lab":
        self.up()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def up(self) -> "Lab":
        check_available()
        sweep_stale()
        _install_cleanup()
        _live_labs.append(self)
        try:
            self._build()
        except Exception as error:
            self.close()
            if isinstance(error, LabUnavailable):
                raise
            raise LabUnavailable(f"building the lab failed: {error}") from error
        self.built = True
        return self

    def _build(self) -> None:
        relay = self.netns("relay")
        for host in self.hosts.values():
            _cmd("ip", "netns", "add", host.netns)
            if not self.ipv6:
                _cmd("sh", "-c", "echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6; "
                     "echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6", netns=host.netns)
            _cmd("ip", "-n", host.netns, "link", "set", "lo", "up")
        _cmd("ip", "-n", relay, "link", "add", BRIDGE, "type", "bridge")
        self._no_link_local(relay, BRIDGE)
        _cmd("ip", "-n", relay, "addr", "add", f"{RELAY_ADDRESS}/{PREFIX_LEN}", "dev", BRIDGE)
        if self.ipv6:
            _cmd("ip", "-n", relay, "addr", "add", f"{RELAY_ADDRESS6}/{PREFIX_LEN6}", "dev", BRIDGE, "nodad")
        _cmd("ip", "-n", relay, "link", "set", BRIDGE, "up")
        # The relay sends UDP GSO batches; on a real wire the NIC cuts them into datagrams, but
        # across veth and bridge a whole batch would reach tbf and the loss rule as one packet
        # (a 5 % loss rule then drops whole runs of a frame). Segment at the bridge instead.
        _cmd("ethtool", "-K", BRIDGE, "tx-udp-segmentation", "off", netns=relay)
        relay_rules = [f"table netdev {TABLE} {{"]
        for link in self.links:
            peer = self.hosts[link]
            _cmd("ip", "-n", relay, "link", "add", link, "type", "veth", "peer", "name", PEER_DEV,
                 "netns", peer.netns)
            self._no_link_local(relay, link)
            self._no_link_local(peer.netns, PEER_DEV)
            _cmd("ip", "-n", relay, "link", "set", link, "master", BRIDGE)
            _cmd("ip", "-n", relay, "link", "set", link, "up")
            if link not in self.ipv6_only:
                _cmd("ip", "-n", peer.netns, "addr", "add", f"{peer.address}/{PREFIX_LEN}", "dev", PEER_DEV)
            if self.ipv6:
                _cmd("ip", "-n", peer.netns, "addr", "add", f"{peer.address6}/{PREFIX_LEN6}", "dev", PEER_DEV, "nodad")
            _cmd("ip", "-n", peer.netns, "link", "set", PEER_DEV, "up")
            relay_rules.append(f'  chain {link}_up {{ type filter hook ingress device "{link}" priority 0; }}')
            relay_rules.append(f'  chain {link}_up_block {{ type filter hook ingress device "{link}" priority -10; }}')
            _cmd("nft", "-f", "-", netns=peer.netns, input=(
                f'table netdev {TABLE} {{\n  chain down {{ type filter hook ingress device "{PEER_DEV}" '
                f'priority 0; }}\n  chain down_block {{ type filter hook ingress device "{PEER_DEV}" '
                f"priority -10; }}\n}}\n"))
        _cmd("nft", "-f", "-", netns=relay, input="\n".join(relay_rules + ["}", ""]))

    def _no_link_local(self, netns: str, dev: str) -> None:
        """With IPv6 on, `dev` gets no automatic (link-local) address: only the lab's own."""
        if self.ipv6:
            _cmd("ip", "-n", netns, "link", "set", "dev", dev, "addrgenmode", "none")

    def close(self) -> None:
        """Stops processes started with run(), deletes every namespace. Idempotent."""
        for proc in self.processes:
            if proc.poll() is None:
                try:
                    if os.getpgid(proc.pid) == proc.pid:  # its own session: take its children too
                        os.killpg(proc.pid, signal.SIGKILL)
                    else:
                        proc.kill()
                except (ProcessLookupError, PermissionError):
                    pass
        for proc in self.processes:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
        self.processes.clear()
        existing = set(lab_namespaces())
        for host in self.hosts.values():
            if host.netns in existing:
                _cmd("ip", "netns", "del", host.netns, check=False)
        if self in _live_labs:
            _live_labs.remove(self)
        self.built = False

    def run(self, host: str, argv: list[str], **popen_kwargs) -> subprocess.Popen:
        """Starts argv in `host`'s namespace (its own session); killed by close()."""
        popen_kwargs.setdefault("start_new_session", True)
        proc = subprocess.Popen([*self.prefix(host), *argv], **popen_kwargs)
        self.processes.append(proc)
        return proc

    def call(self, host: str, fn, *args, timeout: float = 30):
        """fn(*args) on a thread inside `host`'s namespace (e.g. an HTTP request)."""
        return in_netns(self.netns(host), fn, *args, timeout=timeout)

    def loop(self, host: str) -> NetnsLoop:
        """An asyncio loop on a thread inside `host`'s namespace (the caller closes it)."""
        return NetnsLoop(self.netns(host))

    # -- impairments --------------------------------------------------------------------
    def _end(self, link: str, direction: str, sending: bool) -> tuple[str, str]:
        """(netns, device) of the sending or receiving end of a link direction."""
        if link not in self.links:
            raise ValueError(f"no link {link!r} (links: {', '.join(self.links)})")
        if direction not in ("up", "down"):
            raise ValueError(f"direction must be 'up' or 'down', not {direction!r}")
        peer_end, relay_end = (self.netns(link), PEER_DEV), (self.netns("relay"), link)
        return (peer_end if sending else relay_end) if direction == "up" else (relay_end if sending else peer_end)

    def set_rate(self, link: str, direction: str, kbit: float | None, burst_bytes: int | None = None,
                 latency_ms: float = 300) -> None:
        """tbf rate limit (kbit/s, 1 kbit = 1000 bit) on the sending end; None removes it.
        The queue holds `latency_ms` of data at that rate (tail drop beyond); `burst_bytes`
        defaults to 20 ms at the rate, at least 16 KB."""
        netns, dev = self._end(link, direction, sending=True)
        if kbit is None:
            _cmd("tc", "qdisc", "del", "dev", dev, "root", netns=netns, check=False)
            return
        burst = burst_bytes or max(16_000, int(kbit * 1000 / 8 * 0.02))
        _cmd("tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", f"{kbit:g}kbit", "burst", str(burst),
             "latency", f"{latency_ms:g}ms", netns=netns)

    def set_loss(self, link: str, direction: str, percent: float) -> None:
        """Drops `percent` % of IP packets at random (0 removes the rule), at the receiving end."""
        if not 0 <= percent <= 100:
            raise ValueError("percent: 0...100")
        netns, dev = self._end(link, direction, sending=False)
        chain = f"{link}_up" if direction == "up" else "down"
        script = f"flush chain netdev {TABLE} {chain}\n"
        if percent > 0:
            script += (f"add rule netdev {TABLE} {chain} meta protocol {{ ip, ip6 }} "
                       f"numgen random mod 10000 < {round(percent * 100)} counter drop\n")
        _cmd("nft", "-f", "-", netns=netns, input=script)

    def block(self, link: str, udp: bool = True, tcp_open: tuple[int, ...] | None = None) -> None:
        """A firewall on the peer's network, as a corporate or hotel network has: every UDP
        datagram dropped (`udp`), and with `tcp_open` every TCP segment except those to and
        from the relay's ports in it; IPv4 and IPv6 alike. Both directions, each at its receiving end (dropped on
        the way, as a firewall does: the sender's sendto() still succeeds)."""
        for direction in ("up", "down"):
            netns, _ = self._end(link, direction, sending=False)
            chain = f"{link}_up_block" if direction == "up" else "down_block"
            script = f"flush chain netdev {TABLE} {chain}\n"
            if udp:
                script += f"add rule netdev {TABLE} {chain} meta protocol ip ip protocol udp counter drop\n"
                script += f"add rule netdev {TABLE} {chain} meta protocol ip6 ip6 nexthdr udp counter drop\n"
            if tcp_open is not None:
                ports = ", ".join(str(port) for port in tcp_open) or "0"
                field = "dport" if direction == "up" else "sport"
                script += (f"add rule netdev {TABLE} {chain} meta protocol ip ip protocol tcp "
                           f"tcp {field} != {{ {ports} }} counter drop\n")
                script += (f"add rule netdev {TABLE} {chain} meta protocol ip6 ip6 nexthdr tcp "
                           f"tcp {field} != {{ {ports} }} counter drop\n")
            _cmd("nft", "-f", "-", netns=netns, input=script)

    def unblock(self, link: str) -> None:
        """Removes ``block``'s rules from `link`."""
        self.block(link, udp=False, tcp_open=None)

    def clear(self) -> None:
        """No rate limits, no loss, no firewall, on every link and direction."""
        for link in self.links:
            self.unblock(link)
            for direction in ("up", "down"):
                self.set_rate(link, direction, None)
                self.set_loss(link, direction, 0)

    def qdisc_stats(self, link: str, direction: str) -> dict:
        """Counters of the sending end's root qdisc: bytes/packets sent, drops, backlog."""
        netns, dev = self._end(link, direction, sending=True)
        out = _cmd("tc", "-s", "-j", "qdisc", "show", "dev", dev, "root", netns=netns)
        for q in json.loads(out or "[]"):
            return {"kind": q.get("kind"), "bytes": q.get("bytes", 0), "packets": q.get("packets", 0),
                    "drops": q.get("drops", 0), "backlog": q.get("backlog", 0)}
        return {"kind": None, "bytes": 0, "packets": 0, "drops": 0, "backlog": 0}

    def describe(self) -> str:
        lines = []
        for host in self.hosts.values():
            lines.append(f"{host.name:6} {host.netns:28} {host.address}")
        for link in self.links:
            for direction in ("up", "down"):
                netns, dev = self._end(link, direction, sending=True)
                qdisc = _cmd("tc", "qdisc", "show", "dev", dev, "root", netns=netns, check=False).strip()
                rnetns, _ = self._end(link, direction, sending=False)
                chain = f"{link}_up" if direction == "up" else "down"
                rule = _cmd("nft", "list", "chain", "netdev", TABLE, chain, netns=rnetns, check=False)
                loss = re.search(r"numgen random mod 10000 < (\d+)", rule)
                rate = re.sub(r"^.* root (refcnt \d+ )?", "", qdisc) if "tbf" in qdisc else "none"
                lines.append(f"  {link:4} {direction:4} rate: {rate}"
                             f"; loss: {int(loss.group(1)) / 100 if loss else 0:g}%")
        return "\n".join(lines)

    @classmethod
    def existing(cls, lab_id: str) -> "Lab":
        """A Lab object for namespaces made earlier (e.g. by `netlab.py up`)."""
        viewers = [n for n in lab_namespaces() if re.fullmatch(rf"{PREFIX}-{re.escape(lab_id)}-v\d+", n)]
        if f"{PREFIX}-{lab_id}-relay" not in lab_namespaces():
            raise SystemExit(f"no lab {lab_id!r} (run `netlab.py up` first)")
        lab = cls(viewers=len(viewers), lab_id=lab_id)
        lab.built = True
        return lab


# -- UDP probes (`check`): measure what the lab really does ------------------------------

PROBE_PORT = 9

def probe_sink(seconds: float) -> dict:
    """Counts UDP datagrams on PROBE_PORT until `seconds` of silence after the first."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("0.0.0.0", PROBE_PORT))
        s.settimeout(seconds)
        count = size = 0
        first = last = None
        try:
            while True:
                size += len(s.recv(2048))
                count += 1
                last = time.monotonic()
                first = first or last
        except socket.timeout:
            pass
    span = (last - first) if count > 1 else 0
    return {"packets": count, "kbit_s": round(size * 8 / span / 1000) if span else 0}


def probe_source(address: str, count: int, size: int, interval: float) -> dict:
    errors = 0
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _ in range(count):
            try:
                s.sendto(b"\0" * size, (address, PROBE_PORT))
            except OSError:
                errors += 1
            time.sleep(interval)
    return {"sent": count, "send_errors": errors}


def measure(lab: Lab, link: str, direction: str, count: int, size: int, interval: float) -> dict:
    """Sends `count` datagrams over one link direction; returns what arrived."""
    sender, receiver = (link, "relay") if direction == "up" else ("relay", link)
    box: dict = {}
    sink = threading.Thread(target=lambda: box.update(lab.call(receiver, probe_sink, 1.5, timeout=120)))
    sink.start()
    time.sleep(0.3)
    sent = lab.call(sender, probe_source, lab.address(receiver), count, size, interval, timeout=120)
    sink.join()
    return {**sent, **box}


def check(viewers: int = 1) -> int:
    with Lab(viewers=viewers) as lab:
        print(lab.describe())
        failures = 0
        for link, direction, percent in (("pub", "up", 5), ("v1", "down", 20)):
            lab.set_loss(link, direction, percent)
            got = measure(lab, link, direction, 2000, 200, 0.0005)
            lost = 100 * (1 - got["packets"] / got["sent"])
            ok = abs(lost - percent) < 2.5 and got["send_errors"] == 0
            failures += not ok
            print(f"loss {link} {direction} {percent}%: {got}, lost {lost:.1f}% {'ok' if ok else 'WRONG'}")
            lab.set_loss(link, direction, 0)
        for link, direction, kbit in (("pub", "up", 1000), ("v1", "down", 2500)):
            lab.set_rate(link, direction, kbit)
            got = measure(lab, link, direction, 1200, 1200, 0.001)  # ~9.6 Mbit/s offered
            ok = abs(got["kbit_s"] - kbit) < 0.15 * kbit
            failures += not ok
            print(f"rate {link} {direction} {kbit} kbit/s: {got} {'ok' if ok else 'WRONG'}; "
                  f"qdisc {lab.qdisc_stats(link, direction)}")
        lab.clear()
    print("lab namespaces left:", lab_namespaces() or "none")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="build the CLI lab (id 'cli'); it stays until `down`")
    up.add_argument("--viewers", type=int, default=1)
    down = sub.add_parser("down", help="remove the CLI lab")
    down.add_argument("--all", action="store_true", help="remove every lab namespace (any run)")
    sub.add_parser("status", help="lab namespaces, addresses, impairments")
    setp = sub.add_parser("set", help="change a link direction of the CLI lab")
    setp.add_argument("link")
    setp.add_argument("direction", choices=["up", "down"])
    setp.add_argument("--rate", help="kbit/s, or 'off'")
    setp.add_argument("--burst", type=int, help="tbf burst in bytes")
    setp.add_argument("--latency", type=float, default=300, help="tbf queue in ms (default 300)")
    setp.add_argument("--loss", type=float, help="percent of packets dropped at random")
    ex = sub.add_parser("exec", help="run a command in a host's namespace of the CLI lab")
    ex.add_argument("host")
    ex.add_argument("cmd", nargs=argparse.REMAINDER)
    chk = sub.add_parser("check", help="build a lab, verify loss and rate with UDP probes, remove it")
    chk.add_argument("--viewers", type=int, default=1)
    args = parser.parse_args(argv)

    try:
        check_available()
    except LabUnavailable as error:
        print(f"netlab: {error}", file=sys.stderr)
        return 2
    if args.command == "check":
        return check(args.viewers)
    if args.command == "up":
        if any(n.startswith(f"{PREFIX}-cli-") for n in lab_namespaces()):
            print("netlab: the CLI lab is up already (`netlab.py down` first)", file=sys.stderr)
            return 1
        lab = Lab(viewers=args.viewers, lab_id="cli")
        lab.up()
        _live_labs.remove(lab)  # keep it after this process exits
        print(lab.describe())
        return 0
    if args.command == "down":
        names = [n for n in lab_namespaces() if args.all or n.startswith(f"{PREFIX}-cli-")]
        for name in names:
            _cmd("ip", "netns", "del", name, check=False)
        print(f"removed {len(names)} namespace(s)")
        return 0
    if args.command == "status":
        names = lab_namespaces()
        print("\n".join(names) if names else "no lab namespaces")
        if any(n.startswith(f"{PREFIX}-cli-") for n in names):
            print(Lab.existing("cli").describe())
        return 0
    lab = Lab.existing("cli")
    if args.command == "set":
        if args.rate is not None:
            lab.set_rate(args.link, args.direction, None if args.rate == "off" else float(args.rate),
                         burst_bytes=args.burst, latency_ms=args.latency)
        if args.loss is not None:
            lab.set_loss(args.link, args.direction, args.loss)
        print(lab.describe())
        return 0
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    return subprocess.call([*lab.prefix(args.host), *cmd])


if __name__ == "__main__":
    sys.exit(main())
