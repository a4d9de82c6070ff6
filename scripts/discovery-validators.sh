#!/usr/bin/env bash
# The outside validators of the discovery tests (shared/api/tests/discovery.rs), installed
# on first use into .venv-discovery at the repository root: openapi-schema-validator (the
# MCP Registry OpenAPI's schemas, with rfc3339-validator for `date-time`) and a2a-sdk
# (A2A agent cards). Prints the venv's python (REGISTRY_DISCOVERY_PYTHON).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-discovery"
SPECS=('openapi-schema-validator==0.9.0' 'jsonschema==4.26.0' 'rfc3339-validator==0.1.4' 'a2a-sdk==1.3.0' 'protobuf==7.36.2')
if ! "$VENV/bin/python" -c 'import openapi_schema_validator, a2a.types, rfc3339_validator' 2>/dev/null; then
  echo "discovery-validators: installing ${SPECS[*]} into $VENV" >&2
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${SPECS[@]}" >&2
fi
echo "$VENV/bin/python"
