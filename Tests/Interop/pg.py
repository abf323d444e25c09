"""A throwaway PostgreSQL server for tests, driven through tools/pg/throwaway.sh (which see):
its own data directory, a free 127.0.0.1 port, user/password onair/onair, gone after stop().
A watchdog stops it when the watched process (default: this one) ends, so a crashed or killed
test run leaves no server behind either.

As root the server runs as the `postgres` user, so its directory must be reachable by postgres:
pytest's tmp_path is not (it lives under a root-only 0700 directory); `new_dir()` makes one
under the system temp directory (/tmp)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "tools" / "pg" / "throwaway.sh"


def new_dir() -> Path:
    """A fresh, empty directory for a server, short enough for its unix socket path."""
    return Path(tempfile.mkdtemp(prefix="onair-pg-"))


class ThrowawayPostgres:
    def __init__(self) -> None:
        self.dir: Path | None = None
        self.url: str | None = None  # postgres://onair:onair@127.0.0.1:PORT/onair
        self.paused = False

    @property
    def port(self) -> int:
        return int((self.dir / "port").read_text())

    def _run(self, *args: str, timeout: float = 60) -> str:
        result = subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout)
        if result.returncode != 0:
            raise RuntimeError(f"{SCRIPT.name} {' '.join(args)} failed ({result.returncode}):\n"
                               f"{result.stderr.strip()}")
        return result.stdout.strip()

    def start(self, tmp_dir: Path, watch: int | None = None) -> str:
        """Starts a server in `tmp_dir` (missing or empty; see the module note on where) and
        returns its URL. `watch`: the PID whose end stops the server (default: this process)."""
        self.dir = Path(tmp_dir)
        self.url = self._run("start", str(self.dir), "--watch", str(watch or os.getpid()))
        return self.url

    def createdb(self, name: str) -> str:
        """Creates database `name` ([a-z_][a-z0-9_]*, owner onair) and returns its URL."""
        return self._run("createdb", str(self.dir), name)

    def pause(self) -> None:
        """Shuts the server down, keeping its data: a database outage."""
        self._run("pause", str(self.dir))
        self.paused = True

    def resume(self) -> None:
        """Starts it again on the same port."""
        self._run("resume", str(self.dir))
        self.paused = False

    def stop(self) -> None:
        """Immediate shutdown; the directory is removed. Safe to call twice."""
        if self.dir is not None:
            self._run("stop", str(self.dir))
