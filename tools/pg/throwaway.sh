#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for tests: its own data directory, a free 127.0.0.1 port, no
# system service, nothing left behind after `stop`.
#
#   throwaway.sh start DIR [--watch PID] [--port PORT]
#       Creates DIR (missing or empty) with DIR/data, starts the server, creates database `onair`
#       (superuser onair, password onair; scram over TCP, trust on the unix socket in DIR) and
#       prints its URL, postgres://onair:onair@127.0.0.1:PORT/onair, as the only line on stdout
#       (also in DIR/url; the port in DIR/port). --watch PID: a detached watchdog does `stop DIR`
#       once PID is gone (pass the test runner's PID, so a crash leaves nothing behind).
#   throwaway.sh pause DIR            fast shutdown, data kept (a database outage)
#   throwaway.sh resume DIR           starts it again on the same port
#   throwaway.sh stop DIR             immediate shutdown, then rm -rf DIR (no-op if DIR is gone)
#   throwaway.sh createdb DIR NAME    creates database NAME (owner onair), prints its URL
#
# initdb refuses to run as root: as root, DIR is given to the `postgres` user and the server runs
# as postgres (via runuser), so every parent of DIR must be traversable by postgres (/tmp is;
# pytest's tmp_path, under a root-only 0700 directory, is not). The socket path DIR/.s.PGSQL.PORT
# must stay under 108 bytes. Chatter goes to stderr; the server's log is DIR/server.log.
# ONAIR_PG_BIN: the server's binaries (default /usr/lib/postgresql/15/bin, Debian 12 `postgresql`).
set -euo pipefail

PG_BIN=${ONAIR_PG_BIN:-/usr/lib/postgresql/15/bin}
SELF=$(readlink -f "$0")
MARKER=.onair-throwaway-postgres  # `stop` removes only directories that `start` made

log() { echo "throwaway.sh: $*" >&2; }
die() { log "$*"; exit 1; }
usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$SELF" >&2; exit 2; }

is_root() { [ "$(id -u)" = 0 ]; }
# Runs a server-side command (initdb, pg_ctl) as the data directory's owner.
as_owner() { if is_root; then runuser -u postgres -- "$@"; else "$@"; fi; }

url() { echo "postgres://onair:onair@127.0.0.1:$(cat "$DIR/port")/$1"; }

server_opts() {
  echo "-p $(cat "$DIR/port") -k '$DIR' -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=200"
}

pg_start() {
  if ! as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -o "$(server_opts)" start >&2; then
    tail -n 30 "$DIR/server.log" >&2 2>/dev/null || true
    return 1
  fi
}

pg_stop_immediate_and_remove() {
  [ -d "$DIR" ] || return 0
  [ -e "$DIR/$MARKER" ] || die "$DIR was not made by throwaway.sh start; not removing it"
  if [ -f "$DIR/data/postmaster.pid" ]; then
    as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" -m immediate -w stop >&2 || true
  fi
  rm -rf "$DIR"
}

cmd_start() {
  local watch="" port=""
  while (($#)); do
    case $1 in
      --watch) watch=${2:?--watch PID}; shift 2 ;;
      --port) port=${2:?--port PORT}; shift 2 ;;
      *) usage ;;
    esac
  done
  if [ -e "$DIR" ] && [ -n "$(ls -A "$DIR")" ]; then die "$DIR exists and is not empty"; fi
  ((${#DIR} + 18 < 108)) || die "$DIR is too long for a unix socket path (limit 107 bytes)"
  [ -x "$PG_BIN/initdb" ] || die "no $PG_BIN/initdb (tools/setup.sh installs postgresql)"
  is_root && { id postgres >/dev/null 2>&1 || die "running as root needs a 'postgres' user"; }

  mkdir -p "$DIR"
  touch "$DIR/$MARKER"
  trap 'rc=$?; ((rc == 0)) || pg_stop_immediate_and_remove; exit $rc' EXIT  # a failed start leaves nothing
  port=${port:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
  echo "$port" >"$DIR/port"
  printf 'onair\n' >"$DIR/pwfile"
  if is_root; then
    chown -R postgres:postgres "$DIR"
    runuser -u postgres -- test -w "$DIR" || die "user postgres cannot reach $DIR (a parent directory is not traversable)"
  fi

  as_owner "$PG_BIN/initdb" -D "$DIR/data" -U onair --pwfile="$DIR/pwfile" --auth-local=trust \
    --auth-host=scram-sha-256 -E UTF8 --locale=C --no-sync --no-instructions >&2
  rm -f "$DIR/pwfile"
  pg_start
  "$PG_BIN/createdb" -h "$DIR" -p "$port" -U onair onair >&2
  url onair >"$DIR/url"

  trap - EXIT
  if [ -n "$watch" ]; then
    setsid nohup "$SELF" _watch "$DIR" "$watch" </dev/null >/dev/null 2>&1 &
  fi
  cat "$DIR/url"
}

cmd_watch() {  # internal: the detached watchdog of `start --watch`
  local pid=$1
  while [ -d "$DIR" ] && kill -0 "$pid" 2>/dev/null; do sleep 1; done
  pg_stop_immediate_and_remove
}

cmd_createdb() {
  local name=${1:?createdb DIR NAME}
  [[ $name =~ ^[a-z_][a-z0-9_]{0,62}$ ]] || die "database name must match [a-z_][a-z0-9_]*: $name"
  "$PG_BIN/createdb" -h "$DIR" -p "$(cat "$DIR/port")" -U onair -O onair "$name" >&2
  url "$name"
}

(($# >= 2)) || usage
command=$1
DIR=$(readlink -m "$2")  # absolute: it goes into the server's options and the watchdog
shift 2
cd /  # the postgres user may not be allowed into the caller's working directory
case $command in
  start) cmd_start "$@" ;;
  pause) as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >&2 ;;
  resume) pg_start ;;
  stop) pg_stop_immediate_and_remove ;;
  createdb) cmd_createdb "$@" ;;
  _watch) cmd_watch "$@" ;;
  *) usage ;;
esac
