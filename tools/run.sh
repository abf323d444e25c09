#!/usr/bin/env bash
# The one run command (README): installs what is missing, builds, starts the relay and the
# chat sidecar on loopback (the relay's stream webhooks signed and delivered to the chat),
# and prints where to publish and where to watch. Ctrl-C stops everything.
#   tools/run.sh           relay 127.0.0.1:8080 (HTTP) + :10000 (UDP), chat 127.0.0.1:8081
#   tools/run.sh --demo    also publishes a synthetic test stream (aiortc) to room 42
#   ONAIR_HTTP_PORT=... etc.  any relay setting (config/relay.yaml), chat: config/chat.yaml
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
echo "run: building (the first build takes a few minutes)"
swift build --product relay -q
swift build --product chat -q

mkdir -p .run
secret_file=.run/webhook-secret
[ -s "$secret_file" ] || echo "whsec_$(head -c 32 /dev/urandom | base64)" > "$secret_file"
secret=$(cat "$secret_file")
port="${ONAIR_HTTP_PORT:-8080}"
chat_port="${ONAIR_CHAT_PORT:-8081}"

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

ONAIR_CHAT_PORT="$chat_port" ONAIR_CHAT_DATABASE=.run/chat.sqlite ONAIR_CHAT_WEBHOOK_SECRET="$secret" \
  .build/debug/chat serve --config config/chat.yaml &
pids+=($!)
ONAIR_DATABASE=.run/relay.sqlite ONAIR_WEBHOOK_URL="http://127.0.0.1:$chat_port/hooks/relay" ONAIR_WEBHOOK_SECRET="$secret" \
  .build/debug/relay serve --config config/relay.yaml &
pids+=($!)
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

  Watch room 42:    http://127.0.0.1:$port/rooms/42        (LL-HLS: http://127.0.0.1:$port/rooms/42?hls)
  Publish (WHIP):   http://127.0.0.1:$port/whip/42   (OBS: Settings > Stream > WHIP)
  LL-HLS playlist:  http://127.0.0.1:$port/hls/42/index.m3u8
  Chat (room 42):   ws://127.0.0.1:$chat_port/rooms/42/ws   (the room page shows it)
  Stream state:     http://127.0.0.1:$port/api/streams
  Ctrl-C stops.
INFO
wait "${pids[1]}"
