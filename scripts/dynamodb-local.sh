#!/usr/bin/env bash
# Local DynamoDB-API server for tests and laptops: moto's server mode on 127.0.0.1.
#
#   scripts/dynamodb-local.sh start [--owner-pid PID]   install (once) and start; prints
#                                                       `export DYNAMODB_ENDPOINT=...`
#   scripts/dynamodb-local.sh stop                      stop the server `start` left running
#   scripts/dynamodb-local.sh install                   only install moto into .venv-moto
#
# `start` installs moto into `.venv-moto` at the repository root (skipped when already
# there), picks a free port, starts moto's server (requests serialized, see SERIAL_SERVER)
# in the background and waits until it answers. Without --owner-pid the PID and port go
# to $STATE_DIR (default ${TMPDIR:-/tmp}/registry-dynamodb-local) for `stop`. With
# --owner-pid the server is private to that process (the test harness passes its own
# PID) and is stopped as soon as that process exits. Non-interactive; fails with a
# message when anything goes wrong. Clients need fake credentials and a region, e.g.
#   export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-moto"
MOTO_SPEC='moto[server,dynamodb]==5.2.5'
# One server per checkout: two clones on one machine never stop each other's.
STATE_DIR="${STATE_DIR:-${TMPDIR:-/tmp}/registry-dynamodb-local-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)}"

# moto_server with every request serialized: moto's in-memory backend is not thread-safe
# (a cancelled TransactWriteItems restores a table copy taken before it started, which
# can erase a concurrent commit), while real DynamoDB transactions are serializable.
SERIAL_SERVER='
import sys, threading
import moto.server
from moto.moto_server.werkzeug_app import DomainDispatcherApplication
lock = threading.Lock()
handle = DomainDispatcherApplication.__call__
def serialized(self, environ, start_response):
    with lock:
        return list(handle(self, environ, start_response))
DomainDispatcherApplication.__call__ = serialized
moto.server.main(sys.argv[1:])
'

log() { echo "dynamodb-local: $*" >&2; }
die() { log "error: $*"; exit 1; }

install() {
  [ -x "$VENV/bin/moto_server" ] && return 0
  command -v python3 >/dev/null || die "python3 is not installed"
  mkdir -p "$STATE_DIR"
  # Several test binaries may start at once: install under a lock.
  exec 9>"$STATE_DIR/install.lock"
  flock 9
  if [ ! -x "$VENV/bin/moto_server" ]; then
    log "installing $MOTO_SPEC into $VENV"
    python3 -m venv "$VENV" || die "python3 -m venv failed (is python3-venv installed?)"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "$MOTO_SPEC" >&2 \
      || die "pip install $MOTO_SPEC failed"
  fi
  flock -u 9
  [ -x "$VENV/bin/moto_server" ] || die "moto_server missing after install"
}

free_port() {
  "$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

wait_ready() { # pid port
  local i
  for i in $(seq 1 150); do
    kill -0 "$1" 2>/dev/null || return 1
    if "$VENV/bin/python" - "$2" <<'PY' 2>/dev/null; then return 0; fi
import sys, urllib.request
urllib.request.urlopen("http://127.0.0.1:%s/moto-api/" % sys.argv[1], timeout=1).read()
PY
    sleep 0.2
  done
  return 1
}

start() {
  local owner=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --owner-pid) owner="${2:-}"; shift 2 || die "--owner-pid needs a PID" ;;
      *) die "unknown option $1" ;;
    esac
  done
  install
  mkdir -p "$STATE_DIR"
  if [ -z "$owner" ] && [ -f "$STATE_DIR/pid" ] && kill -0 "$(cat "$STATE_DIR/pid")" 2>/dev/null; then
    log "already running (pid $(cat "$STATE_DIR/pid"))"
    echo "export DYNAMODB_ENDPOINT=http://127.0.0.1:$(cat "$STATE_DIR/port")"
    fake_credentials
    return 0
  fi
  local port pid logf attempt
  for attempt in 1 2 3; do
    port="$(free_port)"
    logf="$STATE_DIR/moto-$port.log"
    # setsid: the server must not die with the caller's process group or terminal.
    setsid "$VENV/bin/python" -c "$SERIAL_SERVER" -H 127.0.0.1 -p "$port" >"$logf" 2>&1 </dev/null &
    pid=$!
    if wait_ready "$pid" "$port"; then break; fi
    kill "$pid" 2>/dev/null || true
    log "moto_server on port $port did not come up (attempt $attempt); log: $logf"
    tail -n 20 "$logf" >&2 || true
    pid=""
  done
  [ -n "$pid" ] || die "could not start moto_server"
  if [ -n "$owner" ]; then
    # Stop the private server when its owner exits.
    setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill "$2" 2>/dev/null' \
      _ "$owner" "$pid" >/dev/null 2>&1 </dev/null &
  else
    echo "$pid" >"$STATE_DIR/pid"
    echo "$port" >"$STATE_DIR/port"
  fi
  log "moto_server pid $pid listening on 127.0.0.1:$port"
  echo "export DYNAMODB_ENDPOINT=http://127.0.0.1:$port"
  echo "export DYNAMODB_LOCAL_PID=$pid"
  fake_credentials
}

# For `eval "$(scripts/dynamodb-local.sh start)"`: fake credentials unless set already.
fake_credentials() {
  echo 'export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-test}"'
  echo 'export AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-test}"'
  echo 'export AWS_REGION="${AWS_REGION:-us-east-1}"'
}

stop() {
  if [ -f "$STATE_DIR/pid" ]; then
    local pid
    pid="$(cat "$STATE_DIR/pid")"
    if kill "$pid" 2>/dev/null; then
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -9 "$pid" 2>/dev/null || true
      log "stopped pid $pid"
    else
      log "pid $pid was not running"
    fi
    rm -f "$STATE_DIR/pid" "$STATE_DIR/port"
  else
    log "nothing to stop"
  fi
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) stop ;;
  install) install ;;
  *) echo "usage: $0 start [--owner-pid PID] | stop | install" >&2; exit 2 ;;
esac
