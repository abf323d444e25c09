"""The publisher's uplink in the network lab (tools/netlab: namespaces, tbf, nftables; root
only): `broadcast` -> our relay -> an aiortc WHEP viewer, each in its own namespace, judged
as a viewer sees it (decoded fps, longest freeze, glass-to-glass latency). The cases and
their targets live in lab_cases.py (shared with tools/bench/lab/lab_bench.py):

  clean         >= 27 fps, no freeze over 300 ms (baseline; figures printed)
  uplink-1mbit  tbf 1 Mbit/s: >= 27 fps, no freeze over 300 ms, glass-to-glass p50 <= 250 ms
  uplink-loss5  5 % random loss: >= 28 fps, no freeze over 300 ms, broadcast resent > 0 packets
  uplink-drop   2.5 -> 0.8 Mbit/s mid-stream: no freeze over 300 ms from 5 s after the drop

Each case settles 10 s after the viewer's first frame and measures 30 s (ONAIR_LAB_SETTLE,
ONAIR_LAB_MEASURE change that). Skips, with the reason, when the lab cannot be built.

  .venv-interop/bin/python -m pytest -s Tests/Interop/test_lab.py
"""

from __future__ import annotations

import json
import os

import pytest

from harness import netlab
from lab_cases import CASES, run_case

SETTLE = float(os.environ.get("ONAIR_LAB_SETTLE", "10"))
MEASURE = float(os.environ.get("ONAIR_LAB_MEASURE", "30"))


@pytest.fixture
def lab():
    """A lab with one viewer, removed at teardown (after `procs` stopped its processes:
    tests list `lab` before `procs`)."""
    module = netlab()
    lab = module.Lab(viewers=1)
    try:
        lab.up()
    except module.LabUnavailable as error:
        pytest.skip(f"network lab unavailable: {error}")
    yield lab
    lab.close()


@pytest.mark.parametrize("name", list(CASES))
def test_uplink_case(name, lab, procs, tmp_path):
    case = CASES[name]
    result = run_case(case, lab, procs, tmp_path, settle=SETTLE, measure=MEASURE)
    print(f"\n{case.title}: {result.line()}")
    print(f"relay GET /api/streams/42: {json.dumps(result.stream)}")
    problems = result.problems()
    assert not problems, f"{case.title}: " + "; ".join(problems) + f"\n{result.line()}"
