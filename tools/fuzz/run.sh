#!/usr/bin/env bash
# Builds OnAir's libFuzzer targets (tools/fuzz, a package of its own) and runs them.
#
#   tools/fuzz/run.sh --smoke          build, then every target for FUZZ_SMOKE_SECONDS (12) over a
#                                      temporary copy of the committed corpus, two at a time (CI)
#   tools/fuzz/run.sh                  every target for FUZZ_SECONDS (600), one at a time, over
#                                      tools/fuzz/out/corpus/<target> (kept between runs)
#   tools/fuzz/run.sh --time 60 sdp    chosen targets, chosen seconds
#   tools/fuzz/run.sh --minutes 30     the long mode: every target for 30 minutes
#   options: --jobs N (targets run at once), --no-build, --nice (run at nice 10)
#
# Exits non-zero when a target crashes (or trips an invariant, leaks, or hangs over 10 s on
# one input) and prints the reproducer. The committed corpus is never written to.
# Turning a crash into a regression test: tools/fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")"
FUZZ_DIR=$PWD
ALL_TARGETS=(stun rtp rtcp sdp dtls srtp h264 chat webhook tcpframing turn token)

seconds=${FUZZ_SECONDS:-600}
jobs=1
smoke=0
build=1
nice_cmd=()
targets=()
while (($#)); do
  case "$1" in
    --smoke) smoke=1; seconds=${FUZZ_SMOKE_SECONDS:-12}; jobs=2 ;;
    --time) seconds=$2; shift ;;
    --minutes) seconds=$(($2 * 60)); shift ;;
    --jobs) jobs=$2; shift ;;
    --no-build) build=0 ;;
    --nice) nice_cmd=(nice -n "${FUZZ_NICE:-10}") ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
((${#targets[@]})) || targets=("${ALL_TARGETS[@]}")
for t in "${targets[@]}"; do
  [ -d "Sources/fuzz-$t" ] || { echo "run.sh: no target fuzz-$t (have: ${ALL_TARGETS[*]})" >&2; exit 2; }
done

# SwiftPM's --sanitize=fuzzer keeps executables' `main` (libFuzzer provides it) instead of
# renaming it to <module>_main; it passes only the last -sanitize to the frontend, so the
# full list (coverage + ASan) comes again through -Xswiftc.
BUILD=(swift build -c release --package-path "$FUZZ_DIR" --scratch-path "$FUZZ_DIR/.build"
       --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
if ((build)); then
  echo "fuzz: building ${#targets[@]} target(s) with libFuzzer + AddressSanitizer"
  start=$SECONDS
  products=()  # swift build takes one --product; several targets build them all
  ((${#targets[@]} == 1)) && products=(--product "fuzz-${targets[0]}")
  if ! log=$("${nice_cmd[@]}" "${BUILD[@]}" "${products[@]}" 2>&1); then
    echo "$log" | grep -vE "^\[[0-9]+/[0-9]+\] (Compiling|Write|Emitting|Linking|Building)" >&2
    echo "fuzz: build failed" >&2
    exit 1
  fi
  echo "fuzz: built in $((SECONDS - start)) s"
fi
BIN=$("${BUILD[@]}" --show-bin-path)

OUT="$FUZZ_DIR/out"
mkdir -p "$OUT/logs"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# libFuzzer prints the stack itself; Swift's own backtracer would also run (and can hang).
export SWIFT_BACKTRACE=enable=no

# Runs one target; writes its log and leaves "<rc>" in $TMP/<target>.rc.
run_target() {
  local t=$1 corpus log rc
  if ((smoke)); then
    corpus="$TMP/corpus-$t"
  else
    corpus="$OUT/corpus/$t"
  fi
  mkdir -p "$corpus" "$OUT/artifacts/$t"
  cp -n "corpus/$t/"* "$corpus/" 2>/dev/null || true
  local args=(-max_total_time="$seconds" -timeout=10 -print_final_stats=1
              -artifact_prefix="$OUT/artifacts/$t/")
  [ -f "dict/$t.dict" ] && args+=(-dict="dict/$t.dict")
  [ "$t" = sdp ] && args+=(-max_len=16384)
  log="$OUT/logs/$t.log"
  rc=0
  "${nice_cmd[@]}" "$BIN/fuzz-$t" "${args[@]}" "$corpus" >"$log" 2>&1 || rc=$?
  echo "$rc" >"$TMP/$t.rc"
}

summary() {
  local t=$1 log="$OUT/logs/$1.log" rc runs speed cov
  rc=$(cat "$TMP/$t.rc")
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1 || true)
  if [ "$rc" = 0 ]; then
    printf 'fuzz-%-5s ok     %9s runs %7s exec/s  %s\n' "$t" "${runs:-?}" "${speed:-?}" "$cov"
    return 0
  fi
  printf 'fuzz-%-5s FAILED (exit %s) after %s runs; log: %s\n' "$t" "$rc" "${runs:-?}" "$log"
  grep -E "invariant|Fatal error|runtime failure|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|SUMMARY" "$log" | head -5 | sed 's/^/    /'
  local artifact
  artifact=$(sed -n "s/.*Test unit written to \(.*\)$/\1/p" "$log" | tail -1)
  if [ -n "$artifact" ]; then
    echo "    reproducer: $artifact"
    echo "    replay:     $BIN/fuzz-$t $artifact"
  fi
  return 1
}

echo "fuzz: ${#targets[@]} target(s), ${seconds} s each, ${jobs} at a time"
start=$SECONDS
failed=0
pending=("${targets[@]}")
while ((${#pending[@]})); do
  batch=("${pending[@]:0:jobs}")
  pending=("${pending[@]:jobs}")
  for t in "${batch[@]}"; do run_target "$t" & done
  wait
  for t in "${batch[@]}"; do summary "$t" || failed=1; done
done
echo "fuzz: ran in $((SECONDS - start)) s"
if ((failed)); then
  echo "fuzz: FAILED - make the reproducer a regression test (tools/fuzz/README.md) and fix the parser" >&2
  exit 1
fi
