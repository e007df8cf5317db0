#!/usr/bin/env bash
# Start a throwaway PostgreSQL on 127.0.0.1:54329 (user/password/db: arcmemo) for the store tests.
set -euo pipefail
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  (apt-get update -qq && apt-get install -y -qq postgresql >/dev/null) || exit 1
fi
BIN=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n1)")
DATA=$(mktemp -d /tmp/arcmemo-pg.XXXXXX)
chown postgres "$DATA"
runuser -u postgres -- "$BIN/initdb" -D "$DATA" -A trust -U postgres >/dev/null
runuser -u postgres -- "$BIN/pg_ctl" -D "$DATA" -o "-p 54329 -k /tmp -c listen_addresses=127.0.0.1" -l "$DATA/log" -w start >/dev/null
psql -h 127.0.0.1 -p 54329 -U postgres -qc "CREATE USER arcmemo PASSWORD 'arcmemo' SUPERUSER" >/dev/null
psql -h 127.0.0.1 -p 54329 -U postgres -qc "CREATE DATABASE arcmemo OWNER arcmemo" >/dev/null
echo "ci: PostgreSQL running on 127.0.0.1:54329 ($DATA)"
