#!/usr/bin/env bash
# Prints the path of a cargo-lambda binary, installing the pinned version (with zig,
# for cross-linking) from PyPI into .venv-tools on first use. Used by scripts/package.sh
# and by the tests that run functions under `cargo lambda watch`.
set -euo pipefail
# CARGO_LAMBDA set (scripts/test.sh, the README's test): that one.
if [ -n "${CARGO_LAMBDA:-}" ]; then echo "$CARGO_LAMBDA"; exit 0; fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-tools"
SPEC='cargo-lambda==1.9.2'
if [ ! -x "$VENV/bin/cargo-lambda" ]; then
  echo "cargo-lambda: installing $SPEC into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "$SPEC" >&2
fi
echo "$VENV/bin/cargo-lambda"
