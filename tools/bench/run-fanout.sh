#!/bin/sh
# Builds the relay and fanout-bench in release mode and runs the fan-out benchmark against
# the OnAir relay and (if built) the Pion reference relay. Extra arguments go to fanout-bench,
# e.g.  tools/bench/run-fanout.sh --levels 50,200 --window 5
# SCRATCH=.build-bench keeps these release builds apart from your usual .build.
set -e
cd "$(dirname "$0")/../.."
scratch=${SCRATCH:-.build}
swift build -c release --product relay --scratch-path "$scratch"
swift build -c release --product fanout-bench --scratch-path "$scratch"
# PION_BIN= (empty) skips the Pion comparison.
pion=${PION_BIN-/tmp/refpeer/bin/relay}
if [ -n "$pion" ] && [ ! -x "$pion" ]; then
    if command -v go >/dev/null 2>&1 && [ -d /usr/share/gocode/src/github.com/pion/webrtc ] \
        && [ "$pion" = /tmp/refpeer/bin/relay ]; then
        /work/shared/refpeer/build.sh /tmp/refpeer
    else
        echo "run-fanout: no Pion relay at $pion; install golang-go golang-github-pion-webrtc.v3-dev and run" \
             "/work/shared/refpeer/build.sh /tmp/refpeer to compare; running OnAir only" >&2
        pion=""
    fi
fi
exec "$scratch/release/fanout-bench" --relay-bin "$scratch/release/relay" --pion-bin "$pion" "$@"
