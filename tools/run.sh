#!/usr/bin/env bash
# The one run command (README): installs what is missing, builds, starts the relay and the
# chat sidecar on loopback (the relay's stream webhooks signed and delivered to the chat),
# goes live on room 42 with `broadcast start` (the test pattern), and prints where to watch.
# Ctrl-C ends the broadcast (the relay reports the stream ended, the chat closes room 42) and
# stops everything. Server logs: .run/relay.log, .run/chat.log.
#   tools/run.sh                 relay 127.0.0.1:8080 (HTTP) + :10000 (UDP), chat :8081, broadcast to room 42
#   tools/run.sh --no-broadcast  servers only: publish yourself (`broadcast start --room 42`, OBS, a browser)
#   ONAIR_HTTP_PORT=... etc.     any relay setting (config/relay.yaml), chat: config/chat.yaml
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
echo "run: building (the first build takes a few minutes)"
swift build --product relay -q
swift build --product chat -q
swift build --product broadcast -q

mkdir -p .run
secret_file=.run/webhook-secret
[ -s "$secret_file" ] || echo "whsec_$(head -c 32 /dev/urandom | base64)" > "$secret_file"
secret=$(cat "$secret_file")
port="${ONAIR_HTTP_PORT:-8080}"
chat_port="${ONAIR_CHAT_PORT:-8081}"

pids=()
broadcast=""
# Ctrl-C ends the broadcast first (it DELETEs its WHIP session: the relay emits stream.ended,
# the chat closes room 42), then the servers. The servers run in their own session (setsid)
# so the terminal's Ctrl-C reaches only the broadcast and this script.
cleanup() {
  trap - EXIT INT TERM
  if [ -n "$broadcast" ]; then
    kill -INT "$broadcast" 2>/dev/null || true
    wait "$broadcast" 2>/dev/null || true
    sleep 0.5  # the stream.ended webhook on its way to the chat
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

ONAIR_CHAT_PORT="$chat_port" ONAIR_CHAT_DATABASE=.run/chat.sqlite ONAIR_CHAT_WEBHOOK_SECRET="$secret" \
  setsid .build/debug/chat serve --config config/chat.yaml >.run/chat.log 2>&1 &
pids+=($!)
ONAIR_DATABASE=.run/relay.sqlite ONAIR_WEBHOOK_URL="http://127.0.0.1:$chat_port/hooks/relay" ONAIR_WEBHOOK_SECRET="$secret" \
  setsid .build/debug/relay serve --config config/relay.yaml >.run/relay.log 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done

curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 || { echo "run: the relay did not start:"; tail -20 .run/relay.log; exit 1; }

cat <<INFO

  Watch room 42:    http://127.0.0.1:$port/rooms/42        (LL-HLS: http://127.0.0.1:$port/rooms/42?hls)
  Publish (WHIP):   http://127.0.0.1:$port/whip/42   (OBS: Settings > Stream > WHIP)
  LL-HLS playlist:  http://127.0.0.1:$port/hls/42/index.m3u8
  Chat (room 42):   ws://127.0.0.1:$chat_port/rooms/42/ws   (the room page shows it)
  Stream state:     http://127.0.0.1:$port/api/streams
  Logs:             .run/relay.log  .run/chat.log
  Ctrl-C stops.
INFO

if [ "${1:-}" = "--no-broadcast" ]; then
  wait "${pids[1]}"
else
  # `--demo` (older spelling) and no argument both go live with the test pattern.
  echo "run: going live on room 42 with the test pattern (barcode = capture time, beep each second)"
  ONAIR_BROADCAST_TOKEN="${ONAIR_PUBLISH_TOKEN:-}" .build/debug/broadcast start --room 42 --relay "http://127.0.0.1:$port" &
  broadcast=$!
  wait "$broadcast" || true
  broadcast=""
fi
