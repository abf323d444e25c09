#!/usr/bin/env python3
"""Network-lab benchmark: the cases of Tests/Interop/test_lab.py (one implementation,
Tests/Interop/lab_cases.py) and the bench-only ones, each in a fresh lab (tools/netlab),
printed as a table: `broadcast` in the publisher's namespace -> our relay -> aiortc WHEP
viewers, with the publisher's uplink or viewer v1's downlink impaired, judged as a viewer
sees it. Needs root.

  .venv-interop/bin/python tools/bench/lab/lab_bench.py [--cases clean,uplink-loss5] [--settle 10] [--measure 30]
  .venv-interop/bin/python tools/bench/lab/lab_bench.py --cases downlink-drop-5to1 --reps 3

The Chromium cases (chromium-viewer-1mbit, chromium-publisher-600k) run headless Chromium in
its lab namespace (Tests/Interop/chromium.py); a known relay defect is named in the verdict.
Bench-only chromium-viewer-1mbit-join6s: the Chromium viewer joins 6 s after the start, which
showed that defect (its estimate at the 30 kbit/s floor, video paused ~14 s) in 2 of 5 runs.

Bench-only: downlink-drop-5to1 (v1's downlink 5 Mbit/s, 1 Mbit/s from 10 s, no limit from
25 s): the downswitch time (the drop -> v1's first frame under 720 lines), the longest gap
around the drop, the upswitch time (the lift -> the first 720-line frame). --reps N runs
every case N times and prints the p50 of each figure across the runs.

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
from statistics import median

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "Tests" / "Interop"))
from harness import ProcessGroup, netlab  # noqa: E402
from lab_cases import (ALL_CASES, BENCH_ONLY, BROADCAST_BIN, FREEZE_MS, MENU_WATCH, Result, browser_text,  # noqa: E402
                       fmt, fmt_share, menu_text, publisher_layers_text, run_case, session_text, step_text)

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
    frames = "presented" if case.viewer == "chromium" else "decoded"  # Chromium: its <video>'s frames
    rows = [(f"fps {frames}", f"{w['fps']:.1f}", goal(">=", case.min_fps)),
            ("longest freeze ms", str(w["longest_freeze_ms"]), goal("<=", case.max_freeze_ms)),
            (f"freezes > {FREEZE_MS} ms", str(w["freezes"]), ""),
            ("latency p50 ms", fmt(w["p50_ms"]), goal("<=", case.max_p50_ms)),
            ("latency p95 ms", fmt(w["p95_ms"]), ""),
            ("latency from", f"{w['latency_from']}", f"{w['latencies']} of {w['frames']} frames")]
    if w["sr_offset_ms"] is not None:
        rows += [("sender report - barcode ms", str(w["sr_offset_ms"]), "p50; the two clocks agree when ~0")]
    if case.change_to_kbit or case.judge_from_start:
        after = (f"from {case.judge_after:g} s after the change" if case.change_to_kbit
                 else f"from {case.judge_from_start:g} s in")
        rows += [(f"fps, {after}", f"{j['fps']:.1f}", goal(">=", case.min_fps)),
                 (f"longest freeze ms, {after}", str(j["longest_freeze_ms"]), goal("<=", case.max_freeze_ms)),
                 (f"freezes > {FREEZE_MS} ms, {after}", str(j["freezes"]), "")]
    rows += viewer_rows(result)
    if case.publisher == "chromium":
        rows += [("Chromium publisher layers", "", publisher_layers_text(result.publisher))]
    else:
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
    source = "noisy 1280x720 file (Chromium's fake camera)" if case.publisher == "chromium" else case.source
    verdict = "PASS" if not problems else "FAIL: " + "; ".join(problems)
    if problems and len(result.defect_problems()) == len(problems):
        verdict = f"FAIL (known relay defect: {case.known_defect}): " + "; ".join(problems)
    lines = [f"== {case.name}: {case.title}, {source} ({w['seconds']:g} s measured) -> {verdict}"]
    lines += [f"  {name:<{width}}  {value:>14}  {goal}".rstrip() for name, value, goal in rows]
    return "\n".join(lines)


def viewer_rows(result: Result) -> list[tuple[str, str, str]]:
    """The viewer side: v1's link and decoded sizes, each downlink change, the restore, v2,
    and the relay's view of each viewer (its viewer_sessions entry and layer timeline)."""
    case, w = result.case, result.window
    if not case.viewer_side:
        return []
    rows = [("v1 decoded sizes (frames)", "", " ".join(f"{k} {v}" for k, v in w["sizes"].items()))]
    if case.downlink_kbit and result.downlink.get("kind") == "tbf":
        rows += [("v1 downlink tbf kbit/s out", str(result.downlink["kbit_s"]),
                  f"limit {case.downlink_kbit:g}" + (" (until the first change)" if case.downlink_changes else "")),
                 ("v1 downlink tbf drops", str(result.downlink["drops"]), "")]
    if case.downlink_loss:
        rows += [("v1 downlink random loss %", f"{case.downlink_loss:g}", "")]
    if result.expect is not None:
        e = result.expect
        rows += [(f"v1 share of {case.expect_height}-line frames", fmt_share(e["share"]),
                  f"> 50 % ({e['frames']} frames {result.expect_span()})")]
    for i, step in enumerate(result.steps, 1):
        rows += [(f"change {i}: {step['direction']}switch s", fmt(step["switch_s"], 2), step_text(step)),
                 (f"change {i}: longest gap ms", str(step["freeze_ms"]), "1 s before to 10 s after")]
    if case.below_height is not None:
        rows += [(f"v1 frames >= {case.below_height} lines", str(result.below_off), "0")]
    if result.browser is not None:
        rows += [("v1 getStats (Chromium)", "", browser_text(result.browser))]
        if result.browser.get("samples"):
            rows += [("v1 getStats framesPerSecond mean", f"{result.browser['fps_mean']:.1f}",
                      goal_text(">=", case.stats_min_fps)),
                     ("v1 getStats frameWidth at the end", str(result.browser["last_width"]),
                      f"= {case.stats_width}, in >= 80 % of samples "
                      f"(here {fmt_share(result.browser['width_share'])})" if case.stats_width else "")]
    if result.menu is not None:
        rows += [(f"quality menu {case.menu_height} s", fmt(result.menu.get("seconds"), 2), menu_text(result.menu))]
        if result.menu_frames:
            rows += [(f"fps presented {MENU_WATCH:g} s after it", f"{result.menu_frames['fps']:.1f}",
                      f"sizes {result.menu_frames['sizes']}")]
    if case.restore_height is not None:
        rows += [(f"restore {case.restore_height} lines s", fmt(result.restore_s, 2),
                  f"<= {case.restore_within:g}" if case.restore_within is not None
                  else f"after the last change ({fmt(result.restore_window_s, 1)} s watched)")]
    if result.second is not None:
        v2 = result.second
        rows += [("v2 fps decoded", f"{v2['fps']:.1f}", goal_text(">=", case.second_min_fps)),
                 ("v2 longest freeze ms", str(v2["longest_freeze_ms"]), goal_text("<=", case.second_max_freeze_ms)),
                 ("v2 decoded sizes (frames)", "", " ".join(f"{k} {v}" for k, v in v2["sizes"].items()))]
        if case.second_height is not None:
            rows += [(f"v2 frames not {case.second_height} lines", str(result.second_off_height), "0")]
    for name, session in sorted(result.sessions.items()):
        rows += [(f"relay {name}", "", session_text(session))]
    for name, changes in sorted(result.timeline.items()):
        rows += [(f"relay {name} timeline", "", ", ".join(
            f"{at:g}s {layer or '-'}{'' if target in (None, layer) else '->' + target}{' paused' if paused else ''} "
            f"{fmt(estimate)}k" for at, layer, target, paused, estimate in changes))]
    return rows


def goal_text(op: str, value) -> str:
    return "" if value is None else f"{op} {value:g}"


def summary(name: str, results: list[Result]) -> str:
    """p50 (min..max) of each figure across repetitions."""
    keys = list(dict.fromkeys(k for r in results for k in r.figures()))
    lines = [f"== {name}: p50 over {len(results)} runs ({sum(not r.problems() for r in results)} passed)"]
    width = max((len(k) for k in keys), default=0)
    for key in keys:
        values = [v for r in results if (v := r.figures().get(key)) is not None]
        if not values:
            lines.append(f"  {key:<{width}}  {'-':>10}  (none in {len(results)} runs)")
            continue
        lines.append(f"  {key:<{width}}  {median(values):>10.2f}  min {min(values):.2f} max {max(values):.2f} "
                     f"({len(values)} of {len(results)} runs)")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default=",".join(ALL_CASES),
                        help=f"comma list of {', '.join(ALL_CASES)} "
                             f"(default: all; bench only: {', '.join(BENCH_ONLY)})")
    parser.add_argument("--settle", type=float,
                        help="seconds after the viewers' first frames (default: the case's own, else 10)")
    parser.add_argument("--measure", type=float, help="seconds measured (default: the case's own, else 30)")
    parser.add_argument("--reps", type=int, default=1, help="runs of every case; > 1 prints p50s across them")
    parser.add_argument("--source", choices=["noise", "pattern"],
                        help="override every case's source (default: pattern for clean, noise for the rest)")
    parser.add_argument("--logs", help="keep every process log under this directory (default: a temporary one)")
    parser.add_argument("--json", action="store_true", help="also print each result and /api/streams as JSON")
    args = parser.parse_args()
    names = [n.strip() for n in args.cases.split(",") if n.strip()]
    unknown = [n for n in names if n not in ALL_CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(ALL_CASES)}")
    if args.reps < 1:
        parser.error("--reps: at least 1")
    lab_module = netlab()
    try:
        lab_module.check_available()
    except lab_module.LabUnavailable as error:
        print(f"lab_bench: {error}", file=sys.stderr)
        return 2

    relay_bin = Path(os.environ.get("ONAIR_RELAY_BIN", str(REPO / ".build" / "debug" / "relay")))
    needs = [relay_bin, *([BROADCAST_BIN] if any(ALL_CASES[n].publisher == "broadcast" for n in names) else [])]
    for binary in needs:
        if not os.access(binary, os.X_OK):
            print(f"lab_bench: {binary} is missing (swift build, or set ONAIR_RELAY_BIN / ONAIR_BROADCAST_BIN)",
                  file=sys.stderr)
            return 2
    print(f"loadavg {' '.join(open('/proc/loadavg').read().split()[:3])}; relay {relay_bin}; broadcast {BROADCAST_BIN}",
          flush=True)
    failed = 0
    runs: dict[str, list[Result]] = {}
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as scratch:
        root = Path(args.logs or scratch)
        for name in names:
            for rep in range(1, args.reps + 1):
                label = name if args.reps == 1 else f"{name} (run {rep} of {args.reps})"
                workdir = root / (name if args.reps == 1 else f"{name}-{rep}")
                workdir.mkdir(parents=True, exist_ok=True)
                procs = ProcessGroup(workdir)
                case = replace(ALL_CASES[name], source=args.source) if args.source else ALL_CASES[name]
                try:
                    with lab_module.Lab(viewers=case.viewers) as lab:
                        try:
                            result = run_case(case, lab, procs, workdir, settle=args.settle, measure=args.measure,
                                              say=lambda text: print(f"  .. {text}", flush=True))
                        finally:
                            procs.stop_all()
                except Exception as error:  # one broken case does not hide the others
                    failed += 1
                    print(f"== {label}: ERROR {error}\n   logs: {workdir}"
                          + ("" if args.logs else " (removed; use --logs)"), flush=True)
                    continue
                failed += bool(result.problems())
                runs.setdefault(name, []).append(result)
                print(table(result).replace(f"== {name}:", f"== {label}:", 1), flush=True)
                if args.json:
                    print(json.dumps({"case": name, "rep": rep, "window": result.window, "judged": result.judged,
                                      "stats": result.stats, "stream": result.stream, "figures": result.figures(),
                                      "steps": result.steps, "restore_s": result.restore_s,
                                      "second": result.second, "timeline": result.timeline}))
    if args.reps > 1:
        for name, results in runs.items():
            print(summary(name, results), flush=True)
    print(f"lab namespaces left: {lab_module.lab_namespaces() or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
