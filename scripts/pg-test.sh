#!/usr/bin/env bash
# A private, throwaway PostgreSQL server for the tests of the fleet store, started without root.
#
#   scripts/pg-test.sh start DIR   initdb a cluster in DIR/data, start it on a free port of 127.0.0.1 (TCP only: no
#                                  Unix socket, whose path could pass the 107 bytes a deep DIR makes), and print WITNESS_TEST_PG_URL=postgres://witness:…@127.0.0.1:PORT/postgres
#   scripts/pg-test.sh restart DIR stop it at once (as a crash would) and start it again, same port and data
#   scripts/pg-test.sh stop DIR    stop it and remove DIR
#   scripts/pg-test.sh bindir      print the folder of PostgreSQL's server programs (exit 3 when not installed)
#
# PostgreSQL refuses to run as root: as root, the cluster belongs to a system user `witnesspg` (created when missing).
# The superuser `witness` logs in over TCP with a password (scram-sha-256), so passwords in the tests are real.
# WITNESS_PG_BIN names the programs' folder; else the newest /usr/lib/postgresql/*/bin, else initdb on the PATH.
# The tests run it with fsync off (fast, and a crash of the machine loses only throwaway data); WITNESS_PG_FSYNC=on
# starts it durable, as a lab's server runs (`witness bench fleet` measures on such a one).
set -euo pipefail

bindir() {
  if [ -n "${WITNESS_PG_BIN:-}" ] && [ -x "$WITNESS_PG_BIN/initdb" ]; then echo "$WITNESS_PG_BIN"; return 0; fi
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
  echo "pg-test: PostgreSQL's server programs (initdb, pg_ctl) are not installed (Debian: apt-get install postgresql)" >&2
  return 3
}

# Runs a command as the cluster's owner: this user, or witnesspg when this is root.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u witnesspg -- "$@"; else "$@"; fi
}

start() {
  local dir="$1" bin port pw
  bin="$(bindir)"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if [ "$(id -u)" -eq 0 ]; then
    id witnesspg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin witnesspg
    chown witnesspg "$dir"
    # Every folder above it must let the owner through.
    local up="$dir"
    while [ "$up" != "/" ]; do
      up="$(dirname "$up")"
      runuser -u witnesspg -- test -x "$up" || chmod o+x "$up"
    done
  fi
  local fsync="${WITNESS_PG_FSYNC:-off}"
  case "$fsync" in on | off) ;; *)
    echo "pg-test: WITNESS_PG_FSYNC must be on or off, not $fsync" >&2
    return 2
    ;;
  esac
  pw="$(head -c 18 /dev/urandom | base64 | tr -d '/+=')"
  printf '%s\n' "$pw" >"$dir/pw"
  chmod 644 "$dir/pw"
  as_owner "$bin/initdb" -D "$dir/data" -U witness --pwfile="$dir/pw" --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    return 1
  }
  rm -f "$dir/pw"
  for _ in 1 2 3 4 5 6 7 8; do
    port=$((20000 + RANDOM % 40000))
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
      -o "-p $port -c unix_socket_directories= -c listen_addresses=127.0.0.1 -c fsync=$fsync -c max_connections=200" start >/dev/null; then
      echo "$port" >"$dir/port"
      echo "WITNESS_TEST_PG_URL=postgres://witness:$pw@127.0.0.1:$port/postgres"
      return 0
    fi
  done
  echo "pg-test: the server did not start (see $dir/server.log):" >&2
  tail -n 20 "$dir/server.log" >&2 || true
  return 1
}

restart() {
  local dir="$1" bin
  bin="$(bindir)"
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m immediate -w -t 30 restart >/dev/null
}

stop() {
  local dir="$1" bin
  bin="$(bindir)"
  if [ -d "$dir/data" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start "${2:?usage: pg-test.sh start DIR}" ;;
  restart) restart "${2:?usage: pg-test.sh restart DIR}" ;;
  stop) stop "${2:?usage: pg-test.sh stop DIR}" ;;
  bindir) bindir ;;
  *)
    echo "usage: pg-test.sh start DIR | restart DIR | stop DIR | bindir" >&2
    exit 2
    ;;
esac
