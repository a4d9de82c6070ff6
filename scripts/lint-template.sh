#!/usr/bin/env bash
# Lints the SAM/CloudFormation templates (infra/*.yaml and infra/examples/*.yaml) with
# cfn-lint, installed on first use into .venv-tools at the repository root. Exit code:
# cfn-lint's (0 clean, 2 errors, 4 warnings).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-tools"
SPEC='cfn-lint==1.58.0'
if [ ! -x "$VENV/bin/cfn-lint" ]; then
  echo "lint-template: installing $SPEC into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "$SPEC" >&2
fi
"$VENV/bin/cfn-lint" --version
"$VENV/bin/cfn-lint" "$ROOT"/infra/*.yaml "$ROOT"/infra/examples/*.yaml
echo "lint-template: clean"
