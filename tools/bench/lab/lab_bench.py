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

Dips of v1's downlink (issue 24, "never worse than none"; Tests/Interop/lab_cases.dip_case):
dip-<1layer|simulcast>-<1500|800|300>k-<1|3|10>s-<aiortc|chromium|pion> (pion: ../shared/refpeer's
client as the viewer, its RTP packets logged by peers/rtp_sniffer.py; one layer only). Each prints the
longest freeze, the time back after the link recovered, the relay's paused seconds and layer
switches for the viewer, aiortc's longest audio gap during the dip, and a summary table at the end.
--cases takes shell patterns: --cases 'dip-*' is the whole matrix (45 cases, ~40 s each),
--cases 'dip-1layer-*-aiortc' one viewer's.

  --against pion   runs every selected single-layer `broadcast` case a second time with the Pion
                   reference relay (refpeer_bin("relay") -addr 0.0.0.0:8080 -anyip -cors) in the relay's
                   namespace (`broadcast` publishes to it; it has no /api/streams: no relay figures)
                   and prints ours and Pion's side by side: longest freeze, time back, frames/s.

  .venv-interop/bin/python tools/bench/lab/lab_bench.py --cases 'dip-1layer-*-aiortc'
  .venv-interop/bin/python tools/bench/lab/lab_bench.py --cases 'dip-1layer-800k-3s-*' --against pion

Binaries: ONAIR_RELAY_BIN, ONAIR_BROADCAST_BIN (default .build/debug/relay, .build/debug/broadcast).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import signal
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
from harness import refpeer_bin  # noqa: E402

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
    rate = "video packets/s (Pion client)" if case.viewer == "pion" else f"fps {frames}"
    rows = [(rate, f"{w['fps']:.1f}", goal(">=", case.min_fps)),
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
    rows += dip_rows(result)
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
    relay = "" if result.target == "onair" else f" [relay: {result.target}]"
    lines = [f"== {case.name}{relay}: {case.title}, {source} ({w['seconds']:g} s measured, the case took "
             f"{fmt(result.elapsed_s)} s) -> {verdict}"]
    lines += [f"  {name:<{width}}  {value:>14}  {goal}".rstrip() for name, value, goal in rows]
    return "\n".join(lines)


def dip_rows(result: Result) -> list[tuple[str, str, str]]:
    """A dip of v1's downlink: the time back, the gap at the recovery, the audio gap during
    the dip, the relay's paused seconds and switches for v1, the Pion client's packets."""
    case, d = result.case, result.dip
    if d is None:
        return []
    rows = [("time back s", "never" if d["time_back_s"] is None else f"{d['time_back_s']:.2f}",
             goal_text("<=", case.max_time_back_s) + f" (after the recovery at {d['at_s'] + d['seconds']:g} s; "
             f"{d['watched_s']:g} s watched)"),
            ("first frame after the recovery s", fmt(d.get("first_frame_s"), 2),
             "stale ones too (time back waits for frames that keep coming, 1 s)"),
            ("gap at the recovery ms", str(d["gap_at_recovery_ms"]), "the gap between frames that spans it")]
    if d.get("audio_gap_ms") is not None or case.max_audio_gap_ms is not None:
        rows += [("longest audio gap in the dip ms", str(d.get("audio_gap_ms")),
                  goal_text("<=", case.max_audio_gap_ms) + (" (audio packets)" if case.viewer == "pion" else ""))]
    if result.target == "onair":
        rows += [("relay: v1 paused s", fmt(d.get("paused_s"), 1),
                  f"over the measurement ({fmt(d.get('paused_total_s'), 1)} s in all)"
                  + (", PAUSED at the end" if d.get("paused_at_end") else "")),
                 ("relay: v1 layer switches", str(d.get("switches")),
                  f"up {d.get('switches_up')} down {d.get('switches_down')}")]
    if result.packets:
        p = result.packets
        rows += [("Pion client: video packets/s", f"{p['video_pps']:.1f}",
                  f"each sequence number once; frames (marker) {p['video_fps']:.1f}/s, {p['video_repeats']} repeated, "
                  f"{p['video_kbit_s']} kbit/s, audio {p['audio_pps']:.1f} pkt/s, "
                  f"padding {p['padding_packets']} pkts ({p['padding_kbit_s']} kbit/s), other SSRCs {p['other_packets']} pkts")]
    return rows


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


def dip_summary(results: list[Result]) -> str:
    """One line per dip run: the figures the issue judges."""
    rows = [("case", "relay", "freeze ms", "time back s", "audio gap ms", "paused s", "switches", "rate/s", "took s",
             "verdict")]
    for r in results:
        d = r.dip or {}
        rows.append((r.case.name, r.target, str(r.window["longest_freeze_ms"]),
                     "never" if d.get("time_back_s") is None else f"{d['time_back_s']:.2f}",
                     fmt(d.get("audio_gap_ms")), fmt(d.get("paused_s"), 1), fmt(d.get("switches")),
                     f"{r.window['fps']:.1f}", fmt(r.elapsed_s), "PASS" if not r.problems() else "FAIL"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows)


NO_WORSE_S = 0.25  # --against: ours counts as no worse within this much of Pion's (a frame interval is 33 ms)


def against_summary(pairs: list[tuple[str, Result | None, Result | None]]) -> str:
    """--against pion: ours and Pion's side by side per case (p50 over --reps)."""
    def figures(result: Result | None) -> tuple[str, str, str]:
        if result is None:
            return "error", "-", "-"
        back = (result.dip or {}).get("time_back_s") if result.dip else None
        return (str(result.window["longest_freeze_ms"]), "never" if result.dip and back is None else fmt(back, 2),
                f"{result.window['fps']:.1f}")
    rows = [("case", "ours: freeze ms", "time back s", "fps", "pion: freeze ms", "time back s", "fps", "ours no worse")]
    for name, ours, pion in pairs:
        verdict = "-"
        if ours is not None and pion is not None:
            worse = ours.window["longest_freeze_ms"] > pion.window["longest_freeze_ms"] + NO_WORSE_S * 1000
            if ours.dip and pion.dip:
                a, b = ours.dip["time_back_s"], pion.dip["time_back_s"]
                worse |= (a is None and b is not None) or (a is not None and b is not None and a > b + NO_WORSE_S)
            verdict = "NO" if worse else "yes"
        rows.append((name, *figures(ours), *figures(pion), verdict))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows)


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


DEFAULT_CASES = [name for name, case in ALL_CASES.items() if not (case.dip and case.bench_only)]


def select(patterns: str) -> tuple[list[str], list[str]]:
    """(case names matching the comma list of names or shell patterns, in ALL_CASES order;
    the patterns that matched nothing)."""
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    names = [name for name in ALL_CASES if any(fnmatch.fnmatchcase(name, p) for p in wanted)]
    return names, [p for p in wanted if not any(fnmatch.fnmatchcase(name, p) for name in ALL_CASES)]


def pion_runs(case) -> bool:
    """The Pion relay forwards one layer from `broadcast`: no simulcast, no Chromium publisher."""
    return case.publisher == "broadcast" and not case.simulcast and not case.needs_resent and case.menu_height is None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default=",".join(DEFAULT_CASES),
                        help=f"comma list of case names or shell patterns ('dip-*'); default: every case but the "
                             f"bench-only dips. Known: {', '.join(n for n in ALL_CASES if not ALL_CASES[n].dip)}, "
                             f"dip-<1layer|simulcast>-<1500|800|300>k-<1|3|10>s-<aiortc|chromium|pion> "
                             f"(bench only: {', '.join(n for n in BENCH_ONLY if not ALL_CASES[n].dip)}, most dips)")
    parser.add_argument("--settle", type=float,
                        help="seconds after the viewers' first frames (default: the case's own, else 10)")
    parser.add_argument("--measure", type=float, help="seconds measured (default: the case's own, else 30)")
    parser.add_argument("--reps", type=int, default=1, help="runs of every case; > 1 prints p50s across them")
    parser.add_argument("--source", choices=["noise", "pattern"],
                        help="override every case's source (default: pattern for clean, noise for the rest)")
    parser.add_argument("--against", choices=["pion"],
                        help="run every single-layer broadcast case also against the Pion reference relay "
                             "(../shared/refpeer) and print both side by side")
    parser.add_argument("--logs", help="keep every process log under this directory (default: a temporary one)")
    parser.add_argument("--json", action="store_true", help="also print each result and /api/streams as JSON")
    args = parser.parse_args()
    names, unknown = select(args.cases)
    if unknown:
        parser.error(f"no case matches {', '.join(unknown)}; known: {', '.join(ALL_CASES)}")
    if args.reps < 1:
        parser.error("--reps: at least 1")
    lab_module = netlab()
    try:
        lab_module.check_available()
    except lab_module.LabUnavailable as error:
        print(f"lab_bench: {error}", file=sys.stderr)
        return 2

    relay_bin = Path(os.environ.get("ONAIR_RELAY_BIN", str(REPO / ".build" / "debug" / "relay"))).resolve()
    needs = [relay_bin, *([BROADCAST_BIN] if any(ALL_CASES[n].publisher == "broadcast" for n in names) else [])]
    for binary in needs:
        if not os.access(binary, os.X_OK):
            print(f"lab_bench: {binary} is missing (swift build, or set ONAIR_RELAY_BIN / ONAIR_BROADCAST_BIN)",
                  file=sys.stderr)
            return 2
    targets = ["onair", *([args.against] if args.against else [])]
    pion_bin = None
    if args.against or any(ALL_CASES[n].viewer == "pion" for n in names):
        try:
            pion_bin = refpeer_bin("relay")
            refpeer_bin("client")
        except (OSError, RuntimeError) as error:
            print(f"lab_bench: the Pion reference peer: {error}", file=sys.stderr)
            return 2
    print(f"loadavg {' '.join(open('/proc/loadavg').read().split()[:3])}; relay {relay_bin}; broadcast {BROADCAST_BIN}"
          + (f"; Pion {pion_bin.parent}" if pion_bin else ""), flush=True)
    failed = 0
    runs: dict[tuple[str, str], list[Result]] = {}
    pairs: list[tuple[str, Result | None, Result | None]] = []
    # Ctrl-C (also when started in the background, where SIGINT comes ignored) and SIGTERM end the
    # run through the finally blocks: the case's processes and Chromium stopped, its lab removed.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupted)
    interrupted = False
    try:
        with tempfile.TemporaryDirectory(prefix="lab-bench-") as scratch:
            root = Path(args.logs or scratch)
            for name in names:
                for rep in range(1, args.reps + 1):
                    got: dict[str, Result | None] = {}
                    for target in targets:
                        case = replace(ALL_CASES[name], source=args.source) if args.source else ALL_CASES[name]
                        if target != "onair" and not pion_runs(case):
                            print(f"== {name} [relay: {target}]: skipped (the Pion relay forwards one layer from "
                                  "`broadcast`)", flush=True)
                            continue
                        label = (name if args.reps == 1 else f"{name} (run {rep} of {args.reps})") + \
                            ("" if target == "onair" else f" [relay: {target}]")
                        workdir = root / ((name if args.reps == 1 else f"{name}-{rep}")
                                          + ("" if target == "onair" else f"-{target}"))
                        workdir.mkdir(parents=True, exist_ok=True)
                        procs = ProcessGroup(workdir)
                        got[target] = None
                        try:
                            with lab_module.Lab(viewers=case.viewers, ipv6=bool(case.ipv6),
                                                ipv6_only=case.ipv6_only_peers) as lab:
                                try:
                                    result = run_case(case, lab, procs, workdir, settle=args.settle, measure=args.measure,
                                                      say=lambda text: print(f"  .. {text}", flush=True), target=target)
                                finally:
                                    procs.stop_all()
                        except Exception as error:  # one broken case does not hide the others
                            failed += 1
                            print(f"== {label}: ERROR {error}\n   logs: {workdir}"
                                  + ("" if args.logs else " (removed; use --logs)"), flush=True)
                            continue
                        got[target] = result
                        failed += bool(result.problems()) and target == "onair"
                        runs.setdefault((name, target), []).append(result)
                        print(table(result).replace(f"== {name}:", f"== {label}:", 1).replace(
                            f"== {name} [relay: {target}]:", f"== {label}:", 1), flush=True)
                        if args.json:
                            print(json.dumps({"case": name, "relay": target, "rep": rep, "window": result.window,
                                              "judged": result.judged, "stats": result.stats, "stream": result.stream,
                                              "figures": result.figures(), "steps": result.steps,
                                              "restore_s": result.restore_s, "second": result.second,
                                              "timeline": result.timeline, "dip": result.dip, "packets": result.packets,
                                              "elapsed_s": result.elapsed_s}))
                    if args.against and args.against in got:
                        pairs.append((name if args.reps == 1 else f"{name} #{rep}", got.get("onair"), got.get(args.against)))
    except KeyboardInterrupt as stop:
        interrupted = True
        print(f"lab_bench: interrupted ({str(stop) or 'SIGINT'}); the figures so far:", flush=True)
    if args.reps > 1:
        for (name, target), results in runs.items():
            print(summary(name + ("" if target == "onair" else f" [relay: {target}]"), results), flush=True)
    dips = [r for results in runs.values() for r in results if r.dip is not None]
    if dips:
        print("== dips of v1's downlink (freeze: longest over the measurement; time back: after the recovery; "
              "paused, switches: the relay's for v1 over the measurement; rate: fps, or the Pion client's video "
              "packets/s)")
        print(dip_summary(sorted(dips, key=lambda r: (list(ALL_CASES).index(r.case.name), r.target))), flush=True)
    if pairs:
        print(f"== ours against {args.against} (the same case in the same run; no worse: within {NO_WORSE_S:g} s)")
        print(against_summary(pairs), flush=True)
    print(f"lab namespaces left: {lab_module.lab_namespaces() or 'none'}")
    return 130 if interrupted else 1 if failed else 0


def _interrupted(sig, _frame) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(sig).name}")


if __name__ == "__main__":
    sys.exit(main())
