#!/usr/bin/env bash
# A long random campaign of the rule engine's oracles, apart from the test command (whose
# draws are fixed, .cargo/config.toml): the differential test against the unmodified
# `cel` crate and the compiled-form-against-interpreter test, over and over with fresh
# seeds, for a given time. Each round prints its seed and case counts; a failure prints
# its seed and proptest's minimised case, and stops with exit 1. Run before a release
# (docs/rules.md).
#   scripts/campaign.sh [MINUTES] [CASES]   defaults: 60 minutes, 100000 cases a test a round
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MINUTES="${1:-60}"
CASES="${2:-100000}"
TARGET="${CARGO_TARGET_DIR:-target}"
mkdir -p "$TARGET"
LOG="$TARGET/campaign.log"

echo "== build (release)"
cargo test --release -q -p registry-access --test differential --test compiled --no-run

end=$(( $(date +%s) + MINUTES * 60 ))
rounds=0
: >"$LOG"
echo "== campaign: $MINUTES min, $CASES cases per test per round, $(nproc) cores, $(date -u +%FT%TZ)"
while [ "$(date +%s)" -lt "$end" ]; do
  seed="$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')"
  start=$(date +%s)
  if ! PROPTEST_RNG_SEED="$seed" CEL_DIFFERENTIAL_CASES="$CASES" CEL_COMPILED_CASES="$CASES" \
      cargo test --release -q -p registry-access --test differential --test compiled \
      -- --nocapture >"$TARGET/campaign-round.log" 2>&1; then
    cat "$TARGET/campaign-round.log"
    echo "campaign: DIVERGENCE with seed $seed (replay: PROPTEST_RNG_SEED=$seed" \
      "CEL_DIFFERENTIAL_CASES=$CASES CEL_COMPILED_CASES=$CASES cargo test --release" \
      "-p registry-access --test differential --test compiled); keep the minimised case" \
      "above in the test's REGRESSIONS once fixed" >&2
    exit 1
  fi
  rounds=$((rounds + 1))
  line="round $rounds: seed $seed, $CASES differential + $CASES compiled cases, $(( $(date +%s) - start )) s"
  echo "$line" | tee -a "$LOG"
done
echo "== campaign: $rounds rounds, $((rounds * CASES)) differential and $((rounds * CASES)) compiled cases, no divergence (seeds in $LOG)"
