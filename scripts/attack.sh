#!/usr/bin/env bash
# Reruns the adversarial review's attacks (scripts/attack.py) against the release binary
# of `agent-registry serve` on loopback, with a fresh data directory and a reader token,
# and reports for each: answers, slowest request, memory growth, slowest /healthz.
#   scripts/attack.sh            exit 1 when any attack breaks a bound (docs/hardening.md)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release -q -p agent-registry
BIN=target/release/agent-registry

DATA="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
ADMIN="attack-admin-$(date +%s)-token"
READER_TOKEN="$("$BIN" tokens add rita --role reader --data-dir "$DATA" 2>/dev/null)"
export READER_TOKEN
AGENT_REGISTRY_ADMIN_TOKEN="$ADMIN" RUST_LOG=warn \
  "$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$DATA" "$@" >"$DATA/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break
  sleep 0.1
done
python3 scripts/attack.py "http://127.0.0.1:$PORT" "$ADMIN" "$SERVER"
