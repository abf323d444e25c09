#!/usr/bin/env bash
# Instructions per forwarded packet on the relay's per-packet path, counted by callgrind
# (repeatable whatever else the machine is doing, unlike CPU time). The in-process harness of
# tools/bench/allocations (a 3-layer simulcast publisher, three viewers, real SRTP, LL-HLS tap)
# runs under callgrind; the instructions of the calls it counts for allocations (every
# MediaPlane.receive of an RTP datagram and every MediaPlane.readBatchComplete in the counted
# window, everything they call included: SRTP, admission, the tap, rewriting, protect, the
# sink) are read from callgrind's call edges and divided by the RTP datagrams taken in, the
# read batches, and the datagrams the plane built in that window. Timers (tick) are not in it.
#
#   tools/bench/plane-instructions.sh            # builds plane-allocations (release) first
#   PLANE_BIN=path/to/plane-allocations tools/bench/plane-instructions.sh
#   tools/bench/plane-instructions.sh --no-tap   # without the LL-HLS tap
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${PLANE_BIN:-}" ]; then
  swift build -c release --product plane-allocations -q
  PLANE_BIN=.build/release/plane-allocations
fi
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 1; }
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

seconds=20
valgrind --tool=callgrind --callgrind-out-file="$work/out" "$PLANE_BIN" --seconds "$seconds" "$@" \
  > "$work/run.txt" 2> "$work/valgrind.txt"
field() { sed -n "s/.*$1: \\([0-9]*\\).*/\\1/p" "$work/run.txt" | head -1; }
rtp=$(field "RTP datagrams taken in")
batches=$(field "read batches fanned out")
built=$(field "datagrams the plane built in the counted window")
built=${built:-${BUILT:?this plane-allocations does not print the datagrams it built in the window: give BUILT=N}}
# The call edges from the harness's counted closures: "=> ...receive... (2,800x)".
edge() {
  callgrind_annotate --inclusive=yes --threshold=100 --tree=calling "$work/out" 2>/dev/null \
    | grep -E "=> .*$1.* \\($(printf "%'d" "$2" | tr -d "'" | sed 's/\B\(\([0-9]\{3\}\)\+$\)/,\1/')x\\)" \
    | head -1 | awk '{gsub(",", "", $1); print $1}'
}
receive=$(edge '10MediaPlaneC7receive_4from3nowySays5UInt8V' "$rtp")
fanout=$(edge '10MediaPlaneC17readBatchComplete3now' "$batches")
if [ -z "$receive" ] || [ -z "$fanout" ]; then
  echo "could not find the counted calls in callgrind's output (kept in $work)"; KEEP=1; exit 1
fi
echo "$seconds s counted: $rtp RTP datagrams in, $batches read batches, $built datagrams built"
echo "receive: $receive instructions, $(( receive / rtp )) per RTP datagram taken in"
echo "readBatchComplete: $fanout instructions, $(( fanout / batches )) per read batch"
echo "instructions per datagram built: $(( (receive + fanout) / built ))"
