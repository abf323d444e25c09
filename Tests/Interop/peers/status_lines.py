"""How every peer script reports (the harness, Tests/Interop/harness.py, parses it): one JSON
line per event on stdout, times since the script started; logs on stderr. No dependency
beyond the standard library, so both the aiortc peers (the venv) and the GStreamer ones (the
system python3) share it."""

from __future__ import annotations

import json
import sys
import time

T0 = time.monotonic()


def emit(event: str, **fields) -> None:
    """One JSON status line on stdout."""
    fields = {"event": event, "t": round(time.monotonic() - T0, 3), "wall": round(time.time(), 3), **fields}
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def log(*args) -> None:
    print(f"[{time.monotonic() - T0:7.3f}]", *args, file=sys.stderr, flush=True)
