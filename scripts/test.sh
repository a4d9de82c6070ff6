#!/usr/bin/env bash
# The whole test suite, as CI runs it: formatting, lints, every test (the store contract
# suite on SQLite and on a local DynamoDB-API server), and the deployment template lint.
# Installs and starts what it needs (moto's DynamoDB server, cfn-lint, Chromium) by itself.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*"; }

# One build serves every step: no incremental caches in CI (they only cost disk there),
# and the DynamoDB rerun below reuses the workspace's test binaries instead of a
# `cargo test -p` that would unify features differently and rebuild half the workspace.
if [ "${CI:-}" = "true" ]; then export CARGO_INCREMENTAL=0; fi

step "local DynamoDB-API server (moto) on 127.0.0.1"
eval "$(scripts/dynamodb-local.sh start)"
trap 'scripts/dynamodb-local.sh stop' EXIT
echo "DYNAMODB_ENDPOINT=$DYNAMODB_ENDPOINT"

step "cargo-lambda (its \`cargo lambda watch\` hosts the example tool for test-invoke)"
CARGO_LAMBDA="$(scripts/cargo-lambda.sh)"
export CARGO_LAMBDA
echo "CARGO_LAMBDA=$CARGO_LAMBDA"

step "CEL conformance cases (cel-spec's simple tests, from npm's @bufbuild/cel-spec)"
CEL_CONFORMANCE_JSON="$(scripts/cel-conformance.sh)"
export CEL_CONFORMANCE_JSON
echo "CEL_CONFORMANCE_JSON=$CEL_CONFORMANCE_JSON"

step "discovery validators (openapi-core, a2a-sdk, Authlib, schemathesis...) into .venv-discovery"
REGISTRY_DISCOVERY_PYTHON="$(scripts/discovery-validators.sh)"
export REGISTRY_DISCOVERY_PYTHON
echo "REGISTRY_DISCOVERY_PYTHON=$REGISTRY_DISCOVERY_PYTHON"

step "PyJWT (judges the principal token against the registry's JWKS)"
PYJWT_PYTHON="$(scripts/pyjwt.sh)"
export PYJWT_PYTHON
echo "PYJWT_PYTHON=$PYJWT_PYTHON"

step "Chromium and chromium-driver (the console's browser tests; installed when missing)"
chromium_env="$(scripts/chromium.sh)"   # fails the run when it cannot install
eval "$chromium_env"
echo "CHROMEDRIVER=${CHROMEDRIVER:-none}"

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy (all targets, all features, warnings are errors)"
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings

step "template lint (cfn-lint)"
scripts/lint-template.sh

step "cargo build (every test and binary of the workspace, once)"
# The end-to-end tests run the function binaries of this same build: without it they
# would build them on their own, with other features, compiling much of it again.
cargo build --workspace --all-features --locked --tests --bins
REGISTRY_E2E_BINARIES="$(cd "${CARGO_TARGET_DIR:-target}/debug" && pwd)"
export REGISTRY_E2E_BINARIES

step "cargo test (all crates, both storage backends)"
# The end-to-end tests check each function's AWS calls against its role in
# infra/template.yaml and log the grants they used (tests/README.md, "Permissions").
rm -f "$REGISTRY_E2E_BINARIES"/e2e-logs/permissions-*
# --include-ignored: the tests that need a tool installed above (`#[ignore = "needs ..."]`)
cargo test --workspace --all-features --locked -- --include-ignored

step "grants of infra/template.yaml no end-to-end call used (listed, not failed)"
cat "$REGISTRY_E2E_BINARIES/e2e-logs/permissions-unused.txt" 2>/dev/null ||
  echo "no report: no end-to-end test recorded a call" >&2

step "HTTP API tests again, on DynamoDB (the same binaries, REGISTRY_TEST_STORE=dynamodb)"
api_tests="$(mktemp)"
cargo test --workspace --all-features --locked --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("target", {})
    if m.get("reason") == "compiler-artifact" and m.get("executable") and "test" in t.get("kind", []) \
            and m["package_id"].split("#")[0].endswith("shared/api"):
        print(m["executable"])' > "$api_tests" || true
[ -s "$api_tests" ] || { echo "no registry-api test binaries found" >&2; exit 1; }
while read -r binary; do
  echo "--- $(basename "$binary")"
  (cd shared/api && REGISTRY_TEST_STORE=dynamodb "$binary" -q)
done < "$api_tests"
rm -f "$api_tests"
