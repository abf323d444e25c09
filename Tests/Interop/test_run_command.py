"""The README's run command as a person uses it: `tools/run.sh` in a terminal (a pseudo-terminal
from PyPI pexpect), live on room 42 with the test pattern, then Ctrl-C typed as a terminal sends
it: the terminal driver signals the whole foreground process group, so the script and
`broadcast` both get SIGINT at once. Afterwards the stream must have ended with
`publisher_deleted` (broadcast's DELETE, not the relay's shutdown), the chat must have taken
that `stream.ended` and closed room 42, the servers must be gone, and the stop must log no
warning. The debug build (ONAIR_RUN_CONFIG=debug) stands in for the release binaries the
command builds by default: the stop order under test is the script's and the programs'.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pexpect
import pytest

from harness import REPO, free_port, free_ports, free_udp_range

ROOM = "42"


def _get_json(url: str) -> dict | None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=2) as response:
            return json.loads(response.read())
    except Exception:
        return None


def _wait_until(predicate, timeout: float, what: str, child: pexpect.spawn):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if not child.isalive():
            pytest.fail(f"tools/run.sh exited while waiting for {what}")
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


# How a person starts it: plain in a terminal, or with its output kept (`| tee run.log`): there
# Ctrl-C ends tee too, and what the script and broadcast write afterwards meets a closed pipe.
COMMANDS = {"terminal": "bash tools/run.sh", "piped-to-tee": "bash tools/run.sh | tee \"$ONAIR_RUN_DIR.log\""}

# What a Swift trap, a signal death or a failed write leaves on the terminal (stderr stays on
# it when piped).
CRASH_WORDS = ("Fatal error", "Program crashed", "Illegal instruction", "Segmentation fault", "Aborted", "write error")


def _processes_of(run_dir: Path) -> list[str]:
    """The command lines of processes this run started (the servers' and broadcast's): all name
    the run's directory in their environment (ONAIR_RUN_DIR, inherited from the test)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            environ = (proc / "environ").read_bytes()
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if f"ONAIR_RUN_DIR={run_dir}".encode() in environ and "pytest" not in cmdline:
            found.append(f"{proc.name}: {cmdline}")
    return found


def _wait_until_gone(run_dir: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while _processes_of(run_dir) and time.monotonic() < deadline:
        time.sleep(0.2)


@pytest.mark.parametrize("how", COMMANDS)
def test_ctrl_c_ends_the_stream_closes_the_chat_room_and_stops_everything(how: str, tmp_path: Path):
    if not (REPO / ".build/debug/relay").exists():
        pytest.skip("no debug build (.build/debug/relay)")
    http_port, chat_port = free_ports(2)
    udp_port = free_udp_range()
    run_dir = tmp_path / "run"
    env = dict(os.environ, ONAIR_RUN_CONFIG="debug", ONAIR_RUN_DIR=str(run_dir), ONAIR_HTTP_PORT=str(http_port),
               ONAIR_CHAT_PORT=str(chat_port), ONAIR_UDP_PORT=str(udp_port))
    terminal = open(tmp_path / "terminal.log", "w")
    child = pexpect.spawn("bash", ["-c", COMMANDS[how]], cwd=str(REPO), env=env, encoding="utf-8", timeout=600,
                          dimensions=(40, 160))
    child.logfile_read = terminal
    try:
        child.expect("going live on room 42", timeout=600)
        relay = f"http://127.0.0.1:{http_port}"
        chat = f"http://127.0.0.1:{chat_port}"
        _wait_until(lambda: (_get_json(f"{relay}/api/streams/{ROOM}") or {}).get("live"), 30, "the stream to go live", child)
        _wait_until(lambda: (_get_json(f"{chat}/rooms/{ROOM}") or {}).get("state") == "open", 15,
                    "chat room 42 to open (stream.started)", child)
        time.sleep(5)  # a person watches for a moment (broadcast's status line goes on)

        child.sendintr()  # Ctrl-C, as the terminal sends it
        child.expect(pexpect.EOF, timeout=60)
        _wait_until_gone(run_dir, 30)
    finally:
        if child.isalive():
            child.kill(signal.SIGKILL)
        child.close()
        terminal.close()

    left = _processes_of(run_dir)
    screen = (tmp_path / "terminal.log").read_text(errors="replace")
    relay_log = (run_dir / "relay.log").read_text(errors="replace")
    chat_log = (run_dir / "chat.log").read_text(errors="replace")
    context = f"\n--- terminal ---\n{screen[-3000:]}\n--- relay ---\n{relay_log[-3000:]}\n--- chat ---\n{chat_log[-3000:]}"
    assert "publisher_deleted" in relay_log and "relay_shutdown" not in relay_log, "the stream did not end by DELETE" + context
    assert "room closed: stream ended (publisher_deleted)" in chat_log, "chat room 42 was not closed" + context
    for name, log in (("relay", relay_log), ("chat", chat_log)):
        noisy = [line for line in log.splitlines() if " warning " in line or " error " in line or " critical " in line]
        assert not noisy, f"the {name}'s clean stop logged:\n" + "\n".join(noisy[:10]) + context
    assert not left, "still running after the stop:\n" + "\n".join(left) + context
    crashes = [line for line in screen.splitlines() if any(word in line for word in CRASH_WORDS)]
    assert not crashes, "a program crashed on the way out:\n" + "\n".join(crashes[:5]) + context
    if how == "terminal":  # piped, the summary went to tee, which Ctrl-C ended first
        assert "broadcast ended: stopped" in screen, "broadcast did not end cleanly (no summary)" + context
    assert not _port_open(http_port) and not _port_open(chat_port), "a server is still running after the stop" + context

    # The chat's store says so too: a chat started again on the same database shows room 42 closed
    # (once: how the command was started does not change what the chat stored).
    if how != "terminal":
        return
    port = free_port()
    chat_again = subprocess.Popen([str(REPO / ".build/debug/chat"), "serve", "--config", str(REPO / "config/chat.yaml")],
                                  env=dict(os.environ, ONAIR_CHAT_PORT=str(port), ONAIR_CHAT_DATABASE=str(run_dir / "chat.sqlite")),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(REPO))
    try:
        room = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and room is None:
            room = _get_json(f"http://127.0.0.1:{port}/rooms/{ROOM}")
            time.sleep(0.2)
        assert room and room["state"] == "closed" and room.get("closed_reason") == "publisher_deleted", f"{room}" + context
    finally:
        chat_again.terminate()
        chat_again.wait(timeout=20)
