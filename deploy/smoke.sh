#!/usr/bin/env bash
# Smoke test of the deployment in deploy/: PostgreSQL, two replicas sharing
# one key ring, Caddy in front (deploy/Caddyfile).
#
#   deploy/smoke.sh           with Docker: deploy/compose.yaml, built from deploy/Dockerfile
#   deploy/smoke.sh --local   without Docker: the same binary flags, two serve
#                             processes on loopback, Caddy from the PATH, a
#                             fresh database on a local PostgreSQL
#                             (SMOKE_PG_ADMIN_URL)
#
# Steps, the same in both modes: bring it up; wait until the proxy and each
# replica answer /health; create an API key with the admin command on
# replica 1; call GET /v1/connectors through the proxy with only replica 1
# running, then with only replica 2, then with both; revoke the key on
# replica 2 and see it refused through the proxy on both replicas; check the
# MCP host is proxied; tear everything down. Exits non-zero on the first
# failure. The API key is never printed.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=docker
[ "${1:-}" = "--local" ] && mode=local
HTTP_PORT=${SMOKE_HTTP_PORT:-18080}
MCP_PORT=${SMOKE_MCP_PORT:-18081}
PROXY="http://127.0.0.1:$HTTP_PORT"
MCP_PROXY="http://127.0.0.1:$MCP_PORT"

say() { echo "smoke: $*"; }
fail() { echo "smoke: FAIL: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
have curl || fail "curl is needed"
random_b64() { head -c 32 /dev/urandom | base64 | tr -d '\n'; }
random_hex() { head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

SWITCHBOARD_SECRET_KEYS="smoke:$(random_b64)"
POSTGRES_PASSWORD="$(random_hex)"
export SWITCHBOARD_SECRET_KEYS POSTGRES_PASSWORD

# --- the two backends: up, down, admin on a replica, stop/start a replica ---

if [ "$mode" = docker ]; then
  if docker compose version >/dev/null 2>&1; then compose=(docker compose); elif have docker-compose; then compose=(docker-compose); else fail "docker compose is needed"; fi
  docker info >/dev/null 2>&1 || fail "the Docker daemon does not answer (try: deploy/smoke.sh --local)"
  compose+=(-p "switchboard-smoke-$$" -f deploy/compose.yaml)
  export PROXY_HTTP_PORT=$HTTP_PORT PROXY_MCP_PORT=$MCP_PORT PROXY_BIND=127.0.0.1
  export SWITCHBOARD_BASE_URL=$PROXY SWITCHBOARD_MCP_URL=$MCP_PROXY

  up() { "${compose[@]}" up -d --build; }
  down() { "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true; }
  admin() { local r=$1; shift; "${compose[@]}" exec -T "replica$r" /switchboard admin "$@"; }
  replica_health() { "${compose[@]}" exec -T "replica$1" /switchboard health >/dev/null 2>&1; }
  stop_replica() { "${compose[@]}" stop "replica$1" >/dev/null; }
  start_replica() { "${compose[@]}" start "replica$1" >/dev/null; }
  logs() { "${compose[@]}" logs --tail 50 >&2 || true; }
else
  have caddy || fail "caddy is needed on the PATH (Debian: apt-get install caddy)"
  have psql || fail "psql is needed"
  have go || fail "go is needed"
  PG_ADMIN_URL=${SMOKE_PG_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
  work=$(mktemp -d)
  db="sb_smoke_$$"
  bin="$work/switchboard"
  declare -A pids=()
  R1=${SMOKE_REPLICA_PORT:-18090}
  rport() { echo $((R1 + ($1 - 1) * 2)); }      # REST port of replica N
  mport() { echo $((R1 + ($1 - 1) * 2 + 1)); }  # MCP port of replica N
  dburl() { echo "${PG_ADMIN_URL%%/postgres\?*}/$db?sslmode=disable"; }

  # replica_env N sets RENV to replica N's environment (nothing else is passed).
  replica_env() {
    RENV=(PATH="$PATH" SWITCHBOARD_DATABASE_URL="$(dburl)" SWITCHBOARD_SECRET_KEYS="$SWITCHBOARD_SECRET_KEYS"
      SWITCHBOARD_ADDR="127.0.0.1:$(rport "$1")" SWITCHBOARD_MCP_ADDR="127.0.0.1:$(mport "$1")"
      SWITCHBOARD_BASE_URL="$PROXY" SWITCHBOARD_MCP_URL="$MCP_PROXY" SWITCHBOARD_LOG_FORMAT=json)
  }
  start_replica() {
    replica_env "$1"
    env -i "${RENV[@]}" "$bin" serve >>"$work/replica$1.out" 2>>"$work/replica$1.log" &
    pids[r$1]=$!
  }
  stop_replica() {
    local pid=${pids[r$1]:-}
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    unset "pids[r$1]"
  }
  up() {
    # The Dockerfile's build, on this machine.
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin" ./cmd/switchboard
    psql "$PG_ADMIN_URL" -v ON_ERROR_STOP=1 -qc "CREATE DATABASE $db"
    start_replica 1
    start_replica 2
    SWITCHBOARD_UPSTREAMS="127.0.0.1:$(rport 1) 127.0.0.1:$(rport 2)" \
      SWITCHBOARD_MCP_UPSTREAMS="127.0.0.1:$(mport 1) 127.0.0.1:$(mport 2)" \
      PROXY_HTTP_PORT=$HTTP_PORT PROXY_MCP_PORT=$MCP_PORT \
      caddy run --config deploy/Caddyfile --adapter caddyfile >"$work/caddy.log" 2>&1 &
    pids[caddy]=$!
  }
  down() {
    stop_replica 1
    stop_replica 2
    if [ -n "${pids[caddy]:-}" ]; then kill -TERM "${pids[caddy]}" 2>/dev/null || true; wait "${pids[caddy]}" 2>/dev/null || true; fi
    psql "$PG_ADMIN_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
  }
  admin() {
    local r=$1; shift
    replica_env "$r"
    env -i "${RENV[@]}" "$bin" admin "$@"
  }
  replica_health() {
    replica_env "$1"
    env -i "${RENV[@]}" "$bin" health >/dev/null 2>&1
  }
  logs() { tail -n 20 "$work"/*.log >&2 2>/dev/null || true; }
fi

# --- the checks ---

wait_for() { # wait_for DESCRIPTION SECONDS COMMAND…
  local what=$1 secs=$2; shift 2
  for _ in $(seq 1 "$secs"); do "$@" && return 0; sleep 1; done
  fail "$what: not within ${secs}s"
}
proxy_ok() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$PROXY/health")" = 200 ]; }
# call_connectors KEY: the HTTP status of GET /v1/connectors through the proxy.
call_connectors() {
  curl -s -o "$bodyfile" -w '%{http_code}' -H "Authorization: Bearer $1" "$PROXY/v1/connectors"
}
bodyfile=$(mktemp)
cleanup() {
  local status=$?
  rm -f "$bodyfile"
  if [ "$status" -ne 0 ]; then logs; fi
  say "tearing down"
  down
  exit "$status"
}
trap cleanup EXIT

say "bringing it up ($mode)"
up
wait_for "replica 1 healthy" 180 replica_health 1
wait_for "replica 2 healthy" 60 replica_health 2
wait_for "proxy answers /health" 60 proxy_ok
say "proxy and both replicas healthy"

projects=$(admin 1 project list --json)
project=$(printf '%s' "$projects" | grep -o '"id": *"[^"]*"' | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/')
[ -n "$project" ] || fail "no project after first start"
created=$(admin 1 key create --project "$project" --name smoke --json)
key=$(printf '%s' "$created" | grep -o '"key": *"sb_[0-9a-f]*"' | sed 's/.*"\(sb_[0-9a-f]*\)"$/\1/')
key_id=$(printf '%s' "$created" | grep -o '"id": *"[^"]*"' | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/')
if [ -z "$key" ] || [ -z "$key_id" ]; then fail "admin key create printed no key"; fi
say "API key $key_id created on replica 1 for project $project"

expect_connectors() { # expect_connectors KEY STATUS WHERE
  local code
  code=$(call_connectors "$1")
  [ "$code" = "$2" ] || fail "GET /v1/connectors $3: HTTP $code, want $2: $(head -c 300 "$bodyfile")"
  if [ "$2" = 200 ]; then grep -q '"data"' "$bodyfile" || fail "GET /v1/connectors $3: no data"; fi
}

# Only one replica up at a time, so each call is known to land on it.
for only in 1 2; do
  other=$((3 - only))
  stop_replica "$other"
  for i in 1 2 3; do expect_connectors "$key" 200 "on replica $only alone (call $i)"; done
  say "GET /v1/connectors through the proxy on replica $only alone: 200 x3"
  start_replica "$other"
  wait_for "replica $other healthy again" 60 replica_health "$other"
  # The proxy remembers failed dials to a stopped replica for 5s
  # (fail_duration in deploy/Caddyfile); let that lapse before stopping the
  # other one, or for a moment neither would take requests.
  sleep 6
done
for i in 1 2 3 4; do expect_connectors "$key" 200 "on both replicas (call $i)"; done
say "GET /v1/connectors through the proxy on both replicas: 200 x4"

admin 2 key revoke "$key_id" --json >/dev/null
# Replicas cache verified keys and drop a revoked one when PostgreSQL's
# notification arrives (milliseconds; tests/replicas holds it to 500 ms).
sleep 0.5
for i in 1 2 3 4; do expect_connectors "$key" 401 "after revoking on replica 2 (call $i)"; done
say "key revoked on replica 2: 401 through the proxy x4 (both replicas)"

code=$(curl -s -o "$bodyfile" -w '%{http_code}' -X POST -H 'Content-Type: application/json' -d '{}' "$MCP_PROXY/no-such-endpoint/u1")
[ "$code" = 401 ] || fail "MCP host through the proxy without a key: HTTP $code, want 401"
say "MCP host proxied (401 without a key)"

say "PASS"
