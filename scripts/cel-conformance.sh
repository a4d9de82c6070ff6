#!/usr/bin/env bash
# Prints the path of the CEL conformance cases as one JSON file: cel-spec's
# tests/simple/testdata (Apache-2.0, google/cel-spec), as the npm package
# @bufbuild/cel-spec ships them. Installs that package under the target directory on
# first use; nothing of it is committed. shared/access/tests/conformance.rs reads the
# file named by CEL_CONFORMANCE_JSON.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VERSION=0.6.1
dir="${CARGO_TARGET_DIR:-target}/cel-spec-$VERSION"
out="$dir/conformance.json"
if [ ! -s "$out" ]; then
  mkdir -p "$dir"
  (cd "$dir" && npm init -y >/dev/null &&
    npm install --silent --no-audit --no-fund "@bufbuild/cel-spec@$VERSION" >/dev/null)
  node -e 'process.stdout.write(JSON.stringify(require(process.argv[1]).tests))' \
    "$(cd "$dir" && pwd)/node_modules/@bufbuild/cel-spec/dist/cjs/testdata/conformance.js" >"$out.tmp"
  mv "$out.tmp" "$out"
fi
echo "$(cd "$dir" && pwd)/conformance.json"
