#!/usr/bin/env bash
# The one run command (README): installs what is missing, builds, and starts the relay on
# loopback, printing where to publish and where to watch. Ctrl-C stops everything.
#   tools/run.sh                 relay on 127.0.0.1:8080 (HTTP) and :10000 (UDP)
#   ONAIR_HTTP_PORT=... etc.     any relay setting (see config/relay.yaml)
#   tools/run.sh --demo          also publish a synthetic test stream (aiortc) to room 42
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
echo "run: building (the first build takes a few minutes)"
swift build --product relay -q

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

.build/debug/relay serve --config config/relay.yaml &
pids+=($!)
port="${ONAIR_HTTP_PORT:-8080}"
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done

if [ "${1:-}" = "--demo" ]; then
  .venv-interop/bin/python Tests/Interop/peers/whip_publisher.py --url "http://127.0.0.1:$port/whip/42" --duration 0 >/dev/null &
  pids+=($!)
  echo "run: publishing a synthetic test stream to room 42"
fi

cat <<INFO

  Watch room 42:    http://127.0.0.1:$port/rooms/42
  Publish (WHIP):   http://127.0.0.1:$port/whip/42   (OBS: Settings > Stream > WHIP)
  Stream state:     http://127.0.0.1:$port/api/streams
  Ctrl-C stops.
INFO
wait "${pids[0]}"
