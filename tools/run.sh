#!/usr/bin/env bash
# The one run command (README): installs what is missing, builds, starts the relay and the
# chat sidecar on loopback (the relay's stream webhooks signed and delivered to the chat),
# goes live on room 42 with `broadcast start` (the test pattern), and prints where to watch.
# Ctrl-C ends the broadcast (the relay reports the stream ended, the chat closes room 42) and
# stops everything. Server logs: .run/relay.log, .run/chat.log. Release binaries
# (ONAIR_RUN_CONFIG=debug for the debug build); ONAIR_RUN_DIR moves .run.
#   tools/run.sh                 relay 127.0.0.1:8080 (HTTP) + :10000 (UDP), chat :8081, broadcast to room 42
#   tools/run.sh --no-broadcast  servers only: publish yourself (`broadcast start --room 42`, OBS, a browser)
#   ONAIR_HTTP_PORT=... etc.     any relay setting (config/relay.yaml), chat: config/chat.yaml
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
config="${ONAIR_RUN_CONFIG:-release}"   # the tests run it on their debug build
bin=".build/$config"
echo "run: building $config binaries (the first release build takes about 6 minutes on 2 cores; later ones seconds)"
# SwiftPM rebuilds whatever it built under a different environment (40 s for the chat alone
# after one ONAIR_FOO=1; a shell's SHLVL is enough), so the build gets a steady one: only what a
# build uses, never the ONAIR_* settings that configure the servers below.
build_env=()
for name in $(compgen -e); do
  case $name in
    HOME|PATH|TMPDIR|LANG|LC_*|USER|SWIFT*|GIT_*|SSL_*|CURL_*|XDG_*|*_proxy|*_PROXY) build_env+=("$name=${!name}") ;;
  esac
done
for product in relay chat broadcast; do
  env -i "${build_env[@]}" swift build -c "$config" --product "$product" -q
done

run_dir="${ONAIR_RUN_DIR:-.run}"
mkdir -p "$run_dir"
secret_file=$run_dir/webhook-secret
[ -s "$secret_file" ] || echo "whsec_$(head -c 32 /dev/urandom | base64)" > "$secret_file"
secret=$(cat "$secret_file")
port="${ONAIR_HTTP_PORT:-8080}"
chat_port="${ONAIR_CHAT_PORT:-8081}"

relay=""
chat=""
broadcast=""
# Stops process $1 with SIGTERM and waits up to $2 seconds for it (a second Ctrl-C: at once),
# then SIGKILL.
stop() {
  local pid=$1 tenths=$(($2 * 10))
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null && [ "$tenths" -gt 0 ] && [ -z "$hurry" ]; do sleep 0.1; tenths=$((tenths - 1)); done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
hurry=""
# The stop order: broadcast ends first (it DELETEs its WHIP session: the relay emits
# stream.ended with publisher_deleted); then the relay, which ends whatever is still live and
# delivers what it owes the chat before it exits; the chat last, so that it takes those
# deliveries and closes room 42. A terminal's Ctrl-C reaches broadcast too (one process group):
# it gets SIGTERM here, its clean end as well, never a second SIGINT (which exits at once).
# Output may go to a pipe whose reader died with the same Ctrl-C (`tools/run.sh | tee run.log`):
# a write must then fail quietly, never end this script before it has stopped what it started.
cleanup() {
  set +e
  trap '' PIPE
  trap - EXIT TERM
  trap 'hurry=1' INT
  if [ -n "$broadcast" ]; then stop "$broadcast" 10; fi
  stop "$relay" 15
  stop "$chat" 5
  echo "run: stopped (logs in $run_dir/)" 2>/dev/null
}
trap cleanup EXIT INT TERM

# The servers run in a session of their own (setsid): a terminal's Ctrl-C reaches only
# broadcast and this script, which stops them in order.
ONAIR_CHAT_PORT="$chat_port" ONAIR_CHAT_DATABASE="$run_dir/chat.sqlite" ONAIR_CHAT_WEBHOOK_SECRET="$secret" \
  setsid "$bin/chat" serve --config config/chat.yaml >"$run_dir/chat.log" 2>&1 &
chat=$!
ONAIR_DATABASE="$run_dir/relay.sqlite" ONAIR_WEBHOOK_URL="http://127.0.0.1:$chat_port/hooks/relay" ONAIR_WEBHOOK_SECRET="$secret" \
  setsid "$bin/relay" serve --config config/relay.yaml >"$run_dir/relay.log" 2>&1 &
relay=$!
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done

curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 || { echo "run: the relay did not start:"; tail -20 "$run_dir/relay.log"; exit 1; }

cat <<INFO

  Watch room 42:    http://127.0.0.1:$port/rooms/42        (LL-HLS: http://127.0.0.1:$port/rooms/42?hls)
  Publish (WHIP):   http://127.0.0.1:$port/whip/42   (OBS: Settings > Stream > WHIP)
  LL-HLS playlist:  http://127.0.0.1:$port/hls/42/index.m3u8
  Chat (room 42):   ws://127.0.0.1:$chat_port/rooms/42/ws   (the room page shows it)
  Stream state:     http://127.0.0.1:$port/api/streams
  Logs:             $run_dir/relay.log  $run_dir/chat.log
  Ctrl-C stops.
INFO

if [ "${1:-}" = "--no-broadcast" ]; then
  wait "$relay"
else
  # `--demo` (older spelling) and no argument both go live with the test pattern.
  echo "run: going live on room 42 with the test pattern (barcode = capture time, beep each second)"
  ONAIR_BROADCAST_TOKEN="${ONAIR_PUBLISH_TOKEN:-}" "$bin/broadcast" start --room 42 --relay "http://127.0.0.1:$port" &
  broadcast=$!
  wait "$broadcast" || true
  broadcast=""
fi
