#!/usr/bin/env bash
# Prints the path of a Python that has PyJWT (with its RSA support, `cryptography`):
# an outside JWT library that judges the registry's principal tokens against its
# /.well-known/jwks.json (cli/tests/principal_token.rs reads PYJWT_PYTHON). Installs it
# into .venv-pyjwt at the repository root on first use; nothing of it is committed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SPEC="PyJWT[crypto]==2.10.1"
VENV="$PWD/.venv-pyjwt"
if ! "$VENV/bin/python" -c 'import jwt, cryptography' 2>/dev/null; then
  command -v python3 >/dev/null || { echo "pyjwt: python3 is not installed" >&2; exit 1; }
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "$SPEC" >&2
fi
echo "$VENV/bin/python"
