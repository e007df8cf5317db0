#!/usr/bin/env bash
# Start a throwaway PostgreSQL on 127.0.0.1 (a free port) for the store tests.
# Prints the server's URL on stdout; its data directory goes to the file named by $1 (for stopping).
set -euo pipefail
state_file=${1:-/dev/null}
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq postgresql; } >&2
fi
BIN=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n1)")
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
DATA=$(mktemp -d /tmp/arcmemo-pg.XXXXXX)
chown postgres "$DATA"
echo "$DATA" > "$state_file"
runuser -u postgres -- "$BIN/initdb" -D "$DATA" -A trust -U postgres >&2
runuser -u postgres -- "$BIN/pg_ctl" -D "$DATA" -o "-p $PORT -k $DATA -c listen_addresses=127.0.0.1" \
  -l "$DATA/log" -w start >&2
psql -h 127.0.0.1 -p "$PORT" -U postgres -qc "CREATE USER arcmemo PASSWORD 'arcmemo' SUPERUSER" >&2
psql -h 127.0.0.1 -p "$PORT" -U postgres -qc "CREATE DATABASE arcmemo OWNER arcmemo" >&2
echo "postgresql://arcmemo:arcmemo@127.0.0.1:$PORT/arcmemo"
