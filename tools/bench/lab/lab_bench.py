#!/usr/bin/env python3
"""Network-lab benchmark: the cases of Tests/Interop/test_lab.py (one implementation,
Tests/Interop/lab_cases.py), each in a fresh lab (tools/netlab), printed as a table:
`broadcast` in the publisher's namespace -> our relay -> an aiortc WHEP viewer, with the
publisher's uplink impaired, judged as a viewer sees it. Needs root.

  .venv-interop/bin/python tools/bench/lab/lab_bench.py [--cases clean,uplink-loss5] [--settle 10] [--measure 30]

Binaries: ONAIR_RELAY_BIN, ONAIR_BROADCAST_BIN (default .build/debug/relay, .build/debug/broadcast).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "Tests" / "Interop"))
from harness import ProcessGroup, netlab  # noqa: E402
from lab_cases import BROADCAST_BIN, CASES, FREEZE_MS, Result, fmt, run_case  # noqa: E402

UPSTREAM_WORDS = ("nack", "repair", "rtx", "upstream")


def relay_counters(stream: dict | None) -> list[tuple[str, str]]:
    """The relay's view of the publisher: loss in, keyframe requests, and every upstream
    NACK/repair counter it reports (whatever fields this relay build has)."""
    if not stream:
        return [("relay stream", "not reported")]
    rows = [(f"relay {key}", str(stream[key])) for key in ("packets_in", "packets_lost", "loss_fraction",
                                                           "keyframe_requests", "retransmissions") if key in stream]
    def walk(prefix: str, value):
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}.{key}" if prefix else key, inner)
        elif any(word in prefix.lower() for word in UPSTREAM_WORDS):
            rows.append((f"relay {prefix}", str(value)))
    walk("", stream)
    return rows


def table(result: Result) -> str:
    case, w, j, s = result.case, result.window, result.judged, result.stats
    goal = lambda op, v: "" if v is None else f"{op} {v:g}"  # noqa: E731
    rows = [("fps decoded", f"{w['fps']:.1f}", goal(">=", case.min_fps)),
            ("longest freeze ms", str(w["longest_freeze_ms"]), goal("<=", case.max_freeze_ms)),
            (f"freezes > {FREEZE_MS} ms", str(w["freezes"]), ""),
            ("latency p50 ms", fmt(w["p50_ms"]), goal("<=", case.max_p50_ms)),
            ("latency p95 ms", fmt(w["p95_ms"]), ""),
            ("latency from", f"{w['latency_from']}", f"{w['latencies']} of {w['frames']} frames")]
    if w["sr_offset_ms"] is not None:
        rows += [("sender report - barcode ms", str(w["sr_offset_ms"]), "p50; the two clocks agree when ~0")]
    if case.change_to_kbit:
        after = f"from {case.judge_after:g} s after the change"
        rows += [(f"fps, {after}", f"{j['fps']:.1f}", ""),
                 (f"longest freeze ms, {after}", str(j["longest_freeze_ms"]), goal("<=", case.max_freeze_ms)),
                 (f"freezes > {FREEZE_MS} ms, {after}", str(j["freezes"]), "")]
    rows += [("resent (broadcast)", str(s.get("retransmitted_packets")), "> 0" if case.needs_resent else ""),
             ("keyframes (broadcast)", str(s.get("keyframes")), ""),
             ("keyframe requests (broadcast)", str(s.get("keyframe_requests")), ""),
             ("sent kbit/s (broadcast)", fmt(result.sent_kbit), ""),
             ("target kbit/s (broadcast)", "-" if not result.target_kbit else "%d..%d" % result.target_kbit, "")]
    if result.uplink.get("kind") == "tbf":
        rows += [("uplink tbf kbit/s out", str(result.uplink["kbit_s"]), ""),
                 ("uplink tbf drops", str(result.uplink["drops"]), "")]
    rows += [(name, value, "") for name, value in relay_counters(result.stream)]
    rows += [("cpu % (one core)", " ".join(f"{k} {v}" for k, v in result.cpu.items()), "")]
    width = max(len(r[0]) for r in rows)
    problems = result.problems()
    lines = [f"== {case.name}: {case.title}, {case.source} ({w['seconds']:g} s measured) -> "
             + ("PASS" if not problems else "FAIL: " + "; ".join(problems))]
    lines += [f"  {name:<{width}}  {value:>14}  {goal}".rstrip() for name, value, goal in rows]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma list of {', '.join(CASES)} (default: all)")
    parser.add_argument("--settle", type=float, default=10, help="seconds after the viewer's first frame (default 10)")
    parser.add_argument("--measure", type=float, default=30, help="seconds measured (default 30)")
    parser.add_argument("--source", choices=["noise", "pattern"],
                        help="override every case's source (default: pattern for clean, noise for the rest)")
    parser.add_argument("--logs", help="keep every process log under this directory (default: a temporary one)")
    parser.add_argument("--json", action="store_true", help="also print each result and /api/streams as JSON")
    args = parser.parse_args()
    names = [n.strip() for n in args.cases.split(",") if n.strip()]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    lab_module = netlab()
    try:
        lab_module.check_available()
    except lab_module.LabUnavailable as error:
        print(f"lab_bench: {error}", file=sys.stderr)
        return 2

    relay_bin = Path(os.environ.get("ONAIR_RELAY_BIN", str(REPO / ".build" / "debug" / "relay")))
    for binary in (relay_bin, BROADCAST_BIN):
        if not os.access(binary, os.X_OK):
            print(f"lab_bench: {binary} is missing (swift build, or set ONAIR_RELAY_BIN / ONAIR_BROADCAST_BIN)",
                  file=sys.stderr)
            return 2
    print(f"loadavg {' '.join(open('/proc/loadavg').read().split()[:3])}; relay {relay_bin}; broadcast {BROADCAST_BIN}",
          flush=True)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as scratch:
        root = Path(args.logs or scratch)
        for name in names:
            workdir = root / name
            workdir.mkdir(parents=True, exist_ok=True)
            procs = ProcessGroup(workdir)
            try:
                with lab_module.Lab(viewers=1) as lab:
                    try:
                        case = replace(CASES[name], source=args.source) if args.source else CASES[name]
                        result = run_case(case, lab, procs, workdir, settle=args.settle, measure=args.measure,
                                          say=lambda text: print(f"  .. {text}", flush=True))
                    finally:
                        procs.stop_all()
            except Exception as error:  # one broken case does not hide the others
                failed += 1
                print(f"== {name}: ERROR {error}\n   logs: {workdir}" + ("" if args.logs else " (removed; use --logs)"),
                      flush=True)
                continue
            failed += bool(result.problems())
            print(table(result), flush=True)
            if args.json:
                print(json.dumps({"case": name, "window": result.window, "judged": result.judged,
                                  "stats": result.stats, "stream": result.stream}))
    print(f"lab namespaces left: {lab_module.lab_namespaces() or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
