#!/usr/bin/env bash
# A throwaway PostgreSQL server on 127.0.0.1 for the test suite (PostgresStore /
# PostgresSaver tests). Idempotent: reuses a server it already started.
#
#   scripts/start_postgres.sh [start] [--no-install]   start it (installing Debian's
#                                                      postgresql when missing and
#                                                      allowed); print the DSN on stdout
#   scripts/start_postgres.sh status                   exit 0 if it is running
#   scripts/start_postgres.sh stop                     stop it (data dir kept)
#
# Env: TOOLSEARCH_PG_PORT (default 55432), TOOLSEARCH_PG_DIR (default
# ${TMPDIR:-/tmp}/toolsearch-pg-$PORT). User and password are "toolsearch".
# Logs go to stderr; on failure nothing is printed on stdout and the exit code is 1.
set -euo pipefail

cmd=start
install=1
for arg in "$@"; do
  case "$arg" in
    start | stop | status) cmd=$arg ;;
    --no-install) install=0 ;;
    *) echo "usage: $0 [start|stop|status] [--no-install]" >&2; exit 2 ;;
  esac
done

PORT=${TOOLSEARCH_PG_PORT:-55432}
DIR=${TOOLSEARCH_PG_DIR:-${TMPDIR:-/tmp}/toolsearch-pg-$PORT}
DATA=$DIR/data
DSN="postgresql://toolsearch:toolsearch@127.0.0.1:$PORT/postgres"

log() { echo "start_postgres: $*" >&2; }

pg_bin() {  # the newest server bin dir (Debian keeps them out of PATH)
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v pg_ctl)"; return 0
  fi
  return 1
}

RUNUSER=$(command -v runuser || echo /usr/sbin/runuser)
as_owner() {  # the server refuses to run as root: use the postgres account then
  if [ "$(id -u)" = 0 ]; then
    "$RUNUSER" -u postgres -- "$@"
  else
    "$@"
  fi
}

running() { [ -n "${BIN:-}" ] && [ -f "$DATA/PG_VERSION" ] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

BIN=$(pg_bin || true)

case "$cmd" in
  status) running; exit $? ;;
  stop)
    if running; then as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >&2; fi
    exit 0 ;;
esac

if [ -z "$BIN" ]; then
  if [ "$install" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian's postgresql package"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2 || { log "apt-get install postgresql failed"; exit 1; }
    BIN=$(pg_bin || true)
  fi
  if [ -z "$BIN" ]; then
    log "no PostgreSQL server binaries (install Debian's postgresql, or run as root to let this script do it)"
    exit 1
  fi
fi

if ! running; then
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    log "no 'postgres' account to run the server as"; exit 1
  fi
  mkdir -p "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres: "$DIR"
  chmod 700 "$DIR"
  if [ ! -f "$DATA/PG_VERSION" ]; then
    rm -rf "$DATA"
    as_owner sh -c "umask 077; echo toolsearch > '$DIR/pwfile'"
    as_owner "$BIN/initdb" -D "$DATA" -U toolsearch --pwfile="$DIR/pwfile" \
      --auth=scram-sha-256 -E UTF8 --no-locale >"$DIR/initdb.log" 2>&1 \
      || { log "initdb failed:"; cat "$DIR/initdb.log" >&2; exit 1; }
  fi
  as_owner "$BIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR" start >/dev/null \
    || { log "the server did not start:"; tail -n 20 "$DIR/server.log" >&2; exit 1; }
  log "PostgreSQL $("$BIN/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$PORT (data $DATA)"
fi
echo "$DSN"
