#!/usr/bin/env bash
# Reruns the adversarial review's attacks (scripts/attack.py) against the release binary
# of `agent-registry serve` on loopback, with a fresh data directory and a reader token,
# and reports for each: answers, slowest request, memory growth, slowest /healthz.
#   scripts/attack.sh            exit 1 when any attack breaks a bound (docs/limits.md)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release -q -p agent-registry
BIN="${CARGO_TARGET_DIR:-target}/release/agent-registry"

DATA="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
ADMIN="attack-admin-$(date +%s)-token"
READER_TOKEN="$("$BIN" tokens add rita --role reader --data-dir "$DATA" 2>/dev/null)"
export READER_TOKEN
start() {
  REGISTRY_ADMIN_TOKEN="$ADMIN" RUST_LOG=warn \
    "$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$DATA" "$@" >>"$DATA/serve.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && return 0
    sleep 0.1
  done
  echo "attack: the server did not start" >&2; cat "$DATA/serve.log" >&2; exit 1
}
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
start "$@"
status=0
python3 scripts/attack.py "http://127.0.0.1:$PORT" "$ADMIN" "$SERVER" || status=1

echo
echo "kill -9 durability: every acknowledged write survives, with exactly one audit event"
python3 scripts/attack.py "http://127.0.0.1:$PORT" "$ADMIN" "$SERVER" --durability-write "$DATA/acked"
wait "$SERVER" 2>/dev/null || true
start "$@"
python3 scripts/attack.py "http://127.0.0.1:$PORT" "$ADMIN" "$SERVER" --durability-check "$DATA/acked" || status=1
exit $status
