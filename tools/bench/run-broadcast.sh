#!/bin/sh
# Builds the relay, broadcast and media-bench in release mode, then runs
#   1. media-bench: Opus and x264 encode cost per frame, the same-size scale copy;
#   2. broadcast/broadcast_cpu.py: CPU of `broadcast start --input FILE` against the ffmpeg CLI
#      with the same x264/Opus settings, 720p30 and 1080p30 at 2.5 and 4.5 Mbit/s.
# Needs ffmpeg (apt-get install ffmpeg) and python3.
#
#   tools/bench/run-broadcast.sh                        # everything, defaults
#   ONAIR_BUILD_DIR=.build-bench tools/bench/run-broadcast.sh   # keep these builds out of .build
#   MEDIA_BENCH_ARGS="--frames 300" CPU_BENCH_ARGS="--reps 1 --cases 720:2500" tools/bench/run-broadcast.sh
#   SKIP_BUILD=1 ...                                    # use the binaries already built
set -e
cd "$(dirname "$0")/../.."
build=${ONAIR_BUILD_DIR:-.build}
export ONAIR_BUILD_DIR="$build"
jobs=${JOBS:-2}
if [ -z "$SKIP_BUILD" ]; then
    for product in relay broadcast media-bench; do
        swift build -c release -j "$jobs" --scratch-path "$build" --product "$product"
    done
fi
python=${PYTHON:-python3}
# The test files, made once (minutes the first time); media-bench also encodes the 720p one.
"$python" tools/bench/broadcast/broadcast_cpu.py --prepare
media_file=$("$python" tools/bench/broadcast/broadcast_cpu.py --prepare --cases 720:2500)

echo "== media-bench"
# shellcheck disable=SC2086  # word splitting of the extra arguments is intended
"$build/release/media-bench" --input "$media_file" $MEDIA_BENCH_ARGS

echo
echo "== broadcast vs ffmpeg CPU"
# shellcheck disable=SC2086
"$python" tools/bench/broadcast/broadcast_cpu.py --broadcast "$build/release/broadcast" \
    --relay "$build/release/relay" $CPU_BENCH_ARGS
