#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and for local runs on PostgreSQL.
#
#   tests/pg/postgres.sh start    start (idempotent): a new cluster in a temp dir, and the database "hcs"
#   tests/pg/postgres.sh env      print the export: eval "$(bash tests/pg/postgres.sh env)"
#                                 (HCS_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:<port>/hcs)
#   tests/pg/postgres.sh status   exit 0 when the server answers
#   tests/pg/postgres.sh stop     stop the server and remove the work dir
#
# Debian's postgresql package is installed when it is missing (apt-get, as root). The cluster is made with
# `initdb -A trust --no-sync` and started with fsync off (-F) on 127.0.0.1 only, with its socket in the work
# dir: nothing it holds survives, so durability would only cost time (it starts in about a second). initdb
# refuses to run as root, so as root it runs as the `postgres` user the package creates. Everything lives in
# HCS_PG_DIR (default /tmp/hcs-postgres): data, socket, port, log.
set -euo pipefail

WORK="${HCS_PG_DIR:-/tmp/hcs-postgres}"
DB="${HCS_PG_DATABASE:-hcs}"
DATA="$WORK/data"
RUN="$WORK/run"
LOG="$WORK/postgres.log"

log() { echo "[postgres] $*" >&2; }
die() { echo "[postgres] error: $*" >&2; exit 1; }

# Newest installed server binaries (Debian keeps them per major version, off PATH).
bin_dir() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  [ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
}

install_server() {
  [ "$(id -u)" = 0 ] || die "PostgreSQL is not installed and this is not root; install Debian's package: apt-get install -y postgresql"
  log "installing Debian's postgresql package"
  # The package would create and start a system-wide 'main' cluster; the tests only ever use their own.
  if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    mkdir -p /etc/postgresql-common
    echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.conf
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
}

# Runs a server binary as the cluster's owner: `postgres` when we are root, else ourselves.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null \
    || node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

port() { cat "$WORK/port" 2>/dev/null; }

up() {
  local bin p
  bin="$(bin_dir)" || return 1
  p="$(port)" || return 1
  [ -n "$p" ] || return 1
  "$bin/pg_isready" -q -h 127.0.0.1 -p "$p" -t 2
}

start() {
  local bin
  bin="$(bin_dir)" || { install_server; bin="$(bin_dir)" || die "no initdb under /usr/lib/postgresql/*/bin after installing"; }
  if up; then
    log "already running on port $(port) (work dir $WORK)"
    return 0
  fi
  if [ -d "$WORK" ]; then
    log "removing a stale work dir $WORK"
    stop_server "$bin"
    rm -rf "$WORK"
  fi
  local started p
  started=$(date +%s.%N)
  mkdir -p "$RUN"
  [ "$(id -u)" = 0 ] && chown -R postgres: "$WORK"
  chmod 700 "$WORK"
  p="$(free_port)"
  echo "$p" >"$WORK/port"
  # C locale: text sorts by bytes, as on SQLite (the schema asks for it per column too).
  as_owner "$bin/initdb" -D "$DATA" -A trust --no-sync -U postgres -E UTF8 --locale=C >"$WORK/initdb.log" 2>&1 \
    || die "initdb failed; see $WORK/initdb.log"
  as_owner "$bin/pg_ctl" -D "$DATA" -l "$LOG" -w -t 30 start \
    -o "-k $RUN -p $p -c listen_addresses=127.0.0.1 -F" >/dev/null \
    || die "the server did not start; see $LOG"
  as_owner "$bin/psql" -h 127.0.0.1 -p "$p" -U postgres -d postgres -v ON_ERROR_STOP=1 -qc "CREATE DATABASE $DB" \
    || die "CREATE DATABASE $DB failed; see $LOG"
  log "PostgreSQL ready at 127.0.0.1:$p in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $started}")s (work dir $WORK)"
}

# The cluster is disposable: an immediate stop skips the shutdown checkpoint.
stop_server() {
  local bin="$1"
  [ -f "$DATA/postmaster.pid" ] || return 0
  as_owner "$bin/pg_ctl" -D "$DATA" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
}

stop() {
  [ -d "$WORK" ] || { log "not running (no $WORK)"; return 0; }
  local bin
  if bin="$(bin_dir)"; then stop_server "$bin"; fi
  rm -rf "$WORK"
  log "stopped and removed $WORK"
}

print_env() {
  up || die "not running; start it with: bash tests/pg/postgres.sh start"
  echo "export HCS_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$(port)/$DB"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) print_env ;;
  status) up && { log "running on port $(port)"; exit 0; } || { log "not running"; exit 1; } ;;
  *) echo "usage: $0 start|stop|env|status" >&2; exit 2 ;;
esac
