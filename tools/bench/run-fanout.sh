#!/bin/sh
# Builds the relay and fanout-bench in release mode and runs the fan-out benchmark against
# the OnAir relay and (if it can be built) the Pion reference relay. Extra arguments go to
# fanout-bench, e.g.  tools/bench/run-fanout.sh --levels 50,200 --window 5
# SCRATCH=.build-bench keeps these release builds apart from your usual .build.
# Exit status 3: some viewer received less than 98 % of the video packets published.
set -e
cd "$(dirname "$0")/../.."
scratch=${SCRATCH:-.build}
swift build -c release --product relay --scratch-path "$scratch"
swift build -c release --product fanout-bench --scratch-path "$scratch"
# The Pion relay comes from ../shared/refpeer beside the repository, built into .build/refpeer
# (as the interop tests' harness.refpeer_bin does). PION_BIN= (empty) skips the comparison.
default_pion=.build/refpeer/bin/relay
pion=${PION_BIN-$default_pion}
if [ -n "$pion" ] && [ ! -x "$pion" ]; then
    if [ "$pion" = "$default_pion" ] && [ -f ../shared/refpeer/build.sh ] && command -v go >/dev/null 2>&1 \
        && [ -d /usr/share/gocode/src/github.com/pion/webrtc ]; then
        sh ../shared/refpeer/build.sh .build/refpeer
    else
        echo "run-fanout: no Pion relay at $pion; install golang-go golang-github-pion-webrtc.v3-dev and run" \
             "../shared/refpeer/build.sh .build/refpeer to compare; running OnAir only" >&2
        pion=""
    fi
fi
# One media worker: the figures stay comparable with Pion's one process and with earlier runs
# (a room lives on one worker whatever their number). To compare worker counts instead, e.g.
#   tools/bench/run-fanout.sh --workers 1,2,4 --levels 50,200   (--workers wins over the env below)
exec "$scratch/release/fanout-bench" --relay-bin "$scratch/release/relay" --pion-bin "$pion" \
    --relay-env ONAIR_MEDIA_WORKERS=1 "$@"
