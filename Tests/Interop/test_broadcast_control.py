"""`broadcast stop`, `broadcast doctor` and reconnection, against our relay (real processes on
loopback): stop from another shell ends the stream at once; the doctor's pre-flight passes on a
healthy relay and names the failing check otherwise; a relay killed with -9 and restarted on the
same ports gets the broadcast back through a new WHIP session.

  .venv-interop/bin/python -m pytest -q -s Tests/Interop/test_broadcast_control.py
"""

from __future__ import annotations

import json
import os
import signal
import time

from conftest import launch_relay
from harness import free_port
from test_broadcast import (ROOM, assert_exit, broadcast_bin, read_stats, room_live,  # noqa: F401 (fixture)
                            start_broadcast, stderr_of, wait_until)


def stdout_of(process) -> str:
    return "\n".join(line for line in process.log_text().splitlines() if not line.startswith("! "))


def test_stop_from_another_process_ends_the_stream(broadcast_bin, relay, procs, tmp_path, monkeypatch):
    monkeypatch.setenv("ONAIR_BROADCAST_STATE_DIR", str(tmp_path / "state"))
    stats_path = tmp_path / "stats.json"
    start = start_broadcast(procs, "broadcast-start", "start", "--room", ROOM, "--relay", relay.base_url,
                            "--size", "320x180", "--fps", 15, "--stats-json", stats_path, env_token=relay.publish_token)
    wait_until(lambda: room_live(relay), 20, "live at the relay", start)
    time.sleep(1)
    stop = start_broadcast(procs, "broadcast-stop", "stop", "--room", ROOM, "--relay", relay.base_url, timeout=30)
    assert stop.wait(20) is not None, "broadcast stop did not return"
    assert_exit(stop, 0)
    ended_after = wait_until(lambda: not room_live(relay), 5, "ended at the relay after `broadcast stop`")
    assert start.wait(10) is not None, "broadcast start did not exit after stop"
    assert_exit(start, 0)
    stats = read_stats(stats_path)
    print(f"\nstop: ended {ended_after * 1000:.0f} ms after `broadcast stop` returned; {stats['video_frames']} frames sent")
    assert stats["exit_reason"] == "terminated", stats
    assert "broadcast ended" in stdout_of(start), "no summary printed"
    # Nothing left to stop: a clear message and a non-zero exit.
    again = start_broadcast(procs, "broadcast-stop-again", "stop", "--room", ROOM, timeout=30)
    again.wait(20)
    assert again.returncode == 1 and "no broadcast of room" in stderr_of(again), stderr_of(again)


def test_doctor_passes_on_a_healthy_relay(broadcast_bin, relay, procs):
    doctor = start_broadcast(procs, "broadcast-doctor", "doctor", "--room", "doctor-room", "--relay", relay.base_url,
                             "--token", relay.publish_token, timeout=60)
    assert doctor.wait(45) is not None, "doctor did not finish"
    out = stdout_of(doctor)
    print("\n" + out)
    assert_exit(doctor, 0)
    for check in ("relay reachable", "OPTIONS answers with CORS", "token accepted", "answer has Location",
                  "codecs agreed", "UDP path: ICE + DTLS", "keyframe request round trip", "DELETE ends the session"):
        assert f"[PASS] {check}" in out, f"{check} did not pass:\n{out}"
    assert not room_live(relay)


def test_doctor_names_the_failing_check(broadcast_bin, relay, procs):
    closed = free_port()
    down = start_broadcast(procs, "doctor-down", "doctor", "--room", ROOM, "--relay", f"http://127.0.0.1:{closed}", timeout=40)
    down.wait(30)
    assert down.returncode == 1 and "[FAIL] relay reachable" in stdout_of(down), stdout_of(down)
    wrong = start_broadcast(procs, "doctor-token", "doctor", "--room", ROOM, "--relay", relay.base_url,
                            "--token", "wrong-token", timeout=40)
    wrong.wait(30)
    out = stdout_of(wrong)
    assert wrong.returncode == 1 and "[FAIL] token accepted" in out and "token" in out, out


def test_reconnects_after_the_relay_restarts(broadcast_bin, procs, tmp_path):
    """kill -9 of the relay: the broadcaster hears nothing for 6 s, reports the loss, and
    publishes again (new WHIP session) once a relay answers on the same address."""
    first = launch_relay("onair", procs, tmp_path, name="relay-1")
    ports = (first.http_port, first.udp_port)
    stats_path = tmp_path / "stats.json"
    process = start_broadcast(procs, "broadcast", "start", "--room", ROOM, "--relay", first.base_url,
                              "--size", "320x180", "--fps", 15, "--retries", 8, "--stats-json", stats_path,
                              env_token=first.publish_token, timeout=120)
    wait_until(lambda: room_live(first), 20, "live at the first relay", process)
    first.process.signal(signal.SIGKILL)
    first.process.wait(5)
    time.sleep(2)
    second = launch_relay("onair", procs, tmp_path, name="relay-2", ports=ports)
    back_after = wait_until(lambda: room_live(second), 40, "live again at the restarted relay", process)
    time.sleep(1)
    process.signal(signal.SIGINT)
    assert process.wait(15) is not None
    assert_exit(process, 0)
    stats = read_stats(stats_path)
    err = stderr_of(process)
    print(f"\nreconnect: live again {back_after:.1f}s after the new relay started; {stats['reconnects']} reconnect(s); "
          f"messages: {err.strip().splitlines()}")
    assert stats["reconnects"] >= 1, stats
    assert "reconnecting" in err, err


def test_follows_307_to_the_real_endpoint(broadcast_bin, procs, tmp_path):
    """RFC 9725 §4.5: POST to a URL that answers 307 -> the same offer is POSTed where it points,
    and the session's Location (relative, resolved against the final URL) takes the DELETE."""
    from test_broadcast import ENDPOINT_TOKEN, InProcessEndpoint, only_session
    endpoint = InProcessEndpoint(ENDPOINT_TOKEN)
    try:
        moved = f"{endpoint.base_url}/moved/redirected"
        process = start_broadcast(procs, "broadcast-307", "start", "--room", ROOM, "--relay", moved, "--duration", 3,
                                  "--size", "320x180", "--fps", 15, "--token", ENDPOINT_TOKEN, timeout=60)
        assert process.wait(30) is not None
        assert_exit(process, 0)
        time.sleep(0.5)
        session = only_session(endpoint, "redirected")
        print(f"\n307: session {session.get('name')} video frames {session.get('video', {}).get('frames')}, "
              f"deleted {session.get('deleted')}")
        assert session.get("deleted"), session
        assert session["video"]["frames"] > 20, session
    finally:
        endpoint.close()


def test_gives_up_after_the_configured_retries(broadcast_bin, procs, tmp_path):
    """The relay dies for good: one message per attempt, then exit 7 (connection lost after
    all retries) with the summary and the stats written."""
    relay = launch_relay("onair", procs, tmp_path, name="relay-doomed")
    stats_path = tmp_path / "stats.json"
    process = start_broadcast(procs, "broadcast", "start", "--room", ROOM, "--relay", relay.base_url, "--size", "320x180",
                              "--fps", 15, "--retries", 2, "--stats-json", stats_path, env_token=relay.publish_token,
                              timeout=90)
    wait_until(lambda: room_live(relay), 20, "live", process)
    relay.process.signal(signal.SIGKILL)
    started = time.monotonic()
    assert process.wait(60) is not None, "broadcast did not give up"
    gave_up_after = time.monotonic() - started
    err = stderr_of(process)
    print(f"\ngive up: exit {process.returncode} {gave_up_after:.1f}s after the relay died; stderr: {err.strip().splitlines()}")
    assert process.returncode == 7, err
    assert err.count("reconnecting in") == 2, err
    assert "gave up after 2 reconnect attempts" in err, err
    assert read_stats(stats_path)["exit_reason"] == "error"
