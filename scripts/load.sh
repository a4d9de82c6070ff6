#!/usr/bin/env bash
# HTTP load test of `agent-registry serve` on the embedded store, on loopback only.
# Builds the release binary, starts it on a free port with a fresh data directory and
# the example loaded, runs wrk (installed from Debian's packages if missing) against a
# few routes for a bounded time each, prints wrk's figures, and stops the server.
#   scripts/load.sh [SECONDS_PER_ROUTE (default 10)] [CONNECTIONS (default 32)]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
DURATION="${1:-10}"
CONNECTIONS="${2:-32}"

if ! command -v wrk >/dev/null; then
  echo "load: installing wrk" >&2
  apt-get install -y -qq wrk >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq wrk; }
fi
cargo build --release -q -p agent-registry

DATA="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
export LOAD_TOKEN="load-test-$(date +%s)"
AGENT_REGISTRY_ADMIN_TOKEN="$LOAD_TOKEN" RUST_LOG=warn \
  target/release/agent-registry serve --listen "127.0.0.1:$PORT" --data-dir "$DATA" >"$DATA/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break
  sleep 0.1
done

BASE="http://127.0.0.1:$PORT"
run() { # name script url
  echo
  echo "### $1"
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "scripts/load/$2" "$3" | sed -n '/Latency Distribution/,/Transfer/p'
}
echo "agent-registry load test: $CONNECTIONS connections, ${DURATION}s per route, $(nproc) cores, loopback"
run "GET /healthz" get.lua "$BASE/healthz"
run "GET /agents/weather-agent" get.lua "$BASE/agents/weather-agent"
run "GET /tools?limit=25" get.lua "$BASE/tools?limit=25"
run "POST /agents/weather-agent/resolve" resolve.lua "$BASE/agents/weather-agent/resolve"
