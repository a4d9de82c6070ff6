#!/usr/bin/env bash
# The outside validators of the discovery and standards tests (shared/api/tests/discovery.rs,
# shared/api/tests/standards.rs), installed on first use into .venv-discovery at the
# repository root: openapi-core (requests and answers against the MCP Registry's OpenAPI),
# openapi-schema-validator (its schemas, with rfc3339-validator for `date-time`), jsonschema
# (the AI catalog, RFC 9728 metadata), a2a-sdk (A2A agent cards), Authlib (OIDC Discovery and
# RFC 8414 metadata) and schemathesis (the served /openapi.json). Every version pinned.
# Prints the venv's python (REGISTRY_DISCOVERY_PYTHON).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-discovery"
SPECS=('openapi-core==0.23.1' 'openapi-schema-validator==0.8.1' 'jsonschema==4.26.0'
  'rfc3339-validator==0.1.4' 'a2a-sdk==1.3.0' 'protobuf==7.36.2' 'authlib==1.9.6'
  'schemathesis==4.32.5' 'hypothesis==6.170.17')
PROBE='import openapi_core, openapi_schema_validator, a2a.types, rfc3339_validator, authlib, schemathesis'
if ! "$VENV/bin/python" -c "$PROBE" 2>/dev/null; then
  echo "discovery-validators: installing ${SPECS[*]} into $VENV" >&2
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${SPECS[@]}" >&2
fi
echo "$VENV/bin/python"
