#!/usr/bin/env bash
# The one test command (README, .ci/run): installs what is missing, builds, runs every test.
#   tools/test.sh            unit tests (swift test) + the media plane's allocation check (release)
#                            + interop tests with real peers + fuzz smoke
#   ONAIR_SKIP_INTEROP=1     unit tests only (for quick local runs)
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's start, in seconds since the command began: where the suite's time goes.
phase() { echo "== $1 (at $SECONDS s)"; }
bash tools/setup.sh

phase "build"
mkdir -p .build
swift build --build-tests 2>&1 | tee .build/test-build.log | grep -vE "^\[[0-9]+/[0-9]+\] (Compiling|Write|Emitting|Linking|Building)" || true
swift build --build-tests -q   # fails loudly if the filtered build above failed
# Our own targets build without a warning (dependencies' warnings are theirs). An incremental
# build shows only the files it compiled again; CI builds everything from a clean clone.
ours=$(grep -E "^$PWD/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" .build/test-build.log | sort -u || true)
if [ -n "$ours" ]; then
  echo "$ours"
  echo "build: $(echo "$ours" | wc -l) compiler warning(s) in our targets: fix them"
  exit 1
fi

phase "unit tests (swift test)"
swift test --skip-build

phase "media plane allocations (release build)"
swift build -c release --product plane-allocations -q
.build/release/plane-allocations
.build/release/plane-allocations --workers 2
.build/release/plane-allocations --rtx --workers 2

if [ -z "${ONAIR_SKIP_FUZZ:-}" ] && [ -x tools/fuzz/run.sh ]; then
  phase "fuzz smoke"
  bash tools/fuzz/run.sh --smoke
fi

if [ -z "${ONAIR_SKIP_INTEROP:-}" ] && [ -d Tests/Interop ]; then
  phase "interop tests (aiortc, Chromium, ffprobe)"
  export ONAIR_RELAY_BIN="$PWD/.build/debug/relay"
  .venv-interop/bin/python -m pytest -q -x Tests/Interop
fi
phase "done"
