#!/usr/bin/env bash
# The whole test suite, as CI runs it: formatting, lints, every test (the store contract
# suite on SQLite and on a local DynamoDB-API server), and the deployment template lint.
# Installs and starts what it needs (moto's DynamoDB server, cfn-lint) by itself.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*"; }

step "local DynamoDB-API server (moto) on 127.0.0.1"
eval "$(scripts/dynamodb-local.sh start)"
trap 'scripts/dynamodb-local.sh stop' EXIT
echo "DYNAMODB_ENDPOINT=$DYNAMODB_ENDPOINT"

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy (all targets, all features, warnings are errors)"
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings

step "template lint (cfn-lint)"
scripts/lint-template.sh

step "cargo test (all crates, both storage backends)"
cargo test --workspace --all-features --locked

step "HTTP API tests again, on DynamoDB (the same suite, REGISTRY_TEST_STORE=dynamodb)"
REGISTRY_TEST_STORE=dynamodb cargo test -p registry-api --all-features --locked
