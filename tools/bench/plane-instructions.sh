#!/usr/bin/env bash
# Instructions per forwarded packet on the relay's per-packet path, counted by callgrind
# (repeatable whatever else the machine is doing, unlike CPU time). The in-process harness of
# tools/bench/allocations (a 3-layer simulcast publisher, three viewers, real SRTP, LL-HLS tap)
# runs twice, with 10 and 20 s of stream; the inclusive instructions of MediaPlane.receive and
# MediaPlane.readBatchComplete (everything a datagram costs from the socket's bytes to the
# viewers' protected copies, timers excluded) are divided, difference by difference, by the
# datagrams the plane built: set-up and warm-up cancel out.
#
#   tools/bench/plane-instructions.sh            # builds plane-allocations (release) first
#   PLANE_BIN=path/to/plane-allocations tools/bench/plane-instructions.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${PLANE_BIN:-}" ]; then
  swift build -c release --product plane-allocations -q
  PLANE_BIN=.build/release/plane-allocations
fi
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

declare -A ir built
for seconds in 10 20; do
  valgrind --tool=callgrind --callgrind-out-file="$work/out.$seconds" "$PLANE_BIN" --seconds "$seconds" \
    > "$work/run.$seconds.txt" 2> "$work/valgrind.$seconds.txt"
  built[$seconds]=$(sed -n 's/.*datagrams the plane built in place since it started: \([0-9]*\).*/\1/p' "$work/run.$seconds.txt")
  # Inclusive cost of the two entry points (the array receive the harness calls wraps the
  # buffer one: take the outer ones only).
  ir[$seconds]=$(callgrind_annotate --inclusive=yes --threshold=100 "$work/out.$seconds" \
    | grep -E '10MediaPlaneC7receive_4from3nowySays5UInt8V|10MediaPlaneC17readBatchComplete3nowy' \
    | awk '{gsub(",", "", $1); total += $1} END {print total + 0}')
  echo "$seconds s: ${ir[$seconds]} instructions, ${built[$seconds]} datagrams built"
done
echo "instructions per datagram built: $(( (ir[20] - ir[10]) / (built[20] - built[10]) ))"
