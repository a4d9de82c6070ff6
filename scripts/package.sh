#!/usr/bin/env bash
# Builds every Lambda function of the workspace for AWS Lambda (provided.al2023, arm64)
# with cargo-lambda, the same build `sam build` runs per function (BuildMethod
# rust-cargolambda). Installs cargo-lambda 1.9.2 (with zig, for cross-linking) into
# .venv-tools on first use (scripts/cargo-lambda.sh); needs the Rust target aarch64-unknown-linux-gnu
# (`rustup target add aarch64-unknown-linux-gnu`).
#
# Usage: scripts/package.sh [--x86-64]
# Output: target/lambda/<function>/bootstrap.zip (the package Lambda receives), and a
# size table on stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FUNCTIONS=(admin-api custom-resource example-tool event-forwarder gateway-interceptor)
if ! command -v cargo-lambda >/dev/null 2>&1; then
  PATH="$(dirname "$(scripts/cargo-lambda.sh)"):$PATH"
  export PATH
fi
ARCH=(--arm64)
if [ "${1:-}" = "--x86-64" ]; then
  ARCH=(--x86-64)
elif ! rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-linux-gnu; then
  echo "package: the Rust target aarch64-unknown-linux-gnu is missing:" >&2
  echo "         rustup target add aarch64-unknown-linux-gnu   (or pass --x86-64)" >&2
  exit 1
fi
PACKAGES=()
for f in "${FUNCTIONS[@]}"; do PACKAGES+=(-p "$f"); done
cargo lambda build --release --output-format zip "${ARCH[@]}" "${PACKAGES[@]}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
printf '%-20s %14s\n' function 'zip bytes'
for f in "${FUNCTIONS[@]}"; do
  printf '%-20s %14s\n' "$f" "$(stat -c %s "$TARGET_DIR/lambda/$f/bootstrap.zip")"
done
