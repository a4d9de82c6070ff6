#!/usr/bin/env bash
# Every benchmark in one go, with the ratios the performance goals are stated in
# (docs/performance.md), all measured in the same run on this machine:
#   1. criterion benches of registry-access, registry-core and bedrock-action-group;
#   2. the JavaScript CEL baseline (shared/bench/js-cel-baseline.mjs), after installing
#      its one npm package into a temporary directory;
#   3. the HTTP load test (scripts/load.sh), with the console's page server time on the
#      same seeded registry (scripts/load/console.py, goal <= 50 ms per page).
#   scripts/bench.sh [--quick]     --quick: shorter criterion runs and 5 s load routes
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
QUICK="${1:-}"
if [ "$QUICK" = "--quick" ]; then CRIT=(--warm-up-time 1 --measurement-time 2); LOAD=5; JS_N=50000
else CRIT=(--warm-up-time 2 --measurement-time 5); LOAD=10; JS_N=200000; fi
TARGET="${CARGO_TARGET_DIR:-target}"
SHARED="${BENCH_SHARED_DIR:-../shared/bench}"
[ -f "$SHARED/js-cel-baseline.mjs" ] || { echo "bench: $SHARED/js-cel-baseline.mjs not found (set BENCH_SHARED_DIR)" >&2; exit 1; }

echo "== machine: $(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
echo "== criterion"
# Only the criterion targets: the libraries' own test harnesses refuse criterion's flags.
cargo bench -q -p registry-access -p registry-core -p bedrock-action-group \
  --bench access --bench resolve --bench convert -- "${CRIT[@]}" >"$TARGET/bench-criterion.log" 2>&1 \
  || { tail -20 "$TARGET/bench-criterion.log" >&2; echo "bench: criterion failed" >&2; exit 1; }
# The call-time guard (feature `guard` of bedrock-action-group): its own cost per call.
cargo bench -q -p bedrock-action-group --features guard --bench guard -- "${CRIT[@]}" \
  >>"$TARGET/bench-criterion.log" 2>&1 \
  || { tail -20 "$TARGET/bench-criterion.log" >&2; echo "bench: criterion (guard) failed" >&2; exit 1; }
grep -E '^[^ ].*time:|^ +time:' "$TARGET/bench-criterion.log" || true

echo "== JavaScript baseline"
JS_DIR="$(mktemp -d)"
trap 'rm -rf "$JS_DIR"' EXIT
(cd "$JS_DIR" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund @marcbachmann/cel-js@8.0.0 >/dev/null)
CEL_BENCH_DIR="$JS_DIR" node "$SHARED/js-cel-baseline.mjs" "$SHARED/access-cases.json" "$JS_N" | tee "$JS_DIR/js.tsv"

echo "== ratios"
python3 - "$TARGET/criterion" "$JS_DIR/js.tsv" <<'PY'
import json, os, sys
crit, js_file = sys.argv[1], sys.argv[2]
def median(bench):
    # criterion's directory names replace '/' and '>' in a bench id with '_'
    path = os.path.join(crit, bench.replace("/", "_").replace(">", "_"), "new", "estimates.json")
    try:
        return json.load(open(path))["median"]["point_estimate"]
    except OSError:
        return None
js = {}
for line in open(js_file):
    case, mode, ns = line.split("\t")
    js[(case, mode)] = float(ns)
cases = sorted({c for c, _ in js})
print("case\tours eval\tJS eval\tJS/ours (goal >= 5x, ours <= 100 ns)\tours from JSON\tJS json+eval\tJS/ours (goal >= 3x, ours <= 1.5 us)")
for case in cases:
    ev = median(f"evaluate_{case}")
    dj = median(f"decision-from-json_{case}")
    jev, jjson = js[(case, "eval")], js[(case, "json+eval")]
    fmt = lambda v: "-" if v is None else f"{v:,.0f} ns"
    ratio = lambda a, b: "-" if b is None else f"{a / b:.1f}x"
    print(f"{case}\t{fmt(ev)}\t{jev:,.0f} ns\t{ratio(jev, ev)}\t{fmt(dj)}\t{jjson:,.0f} ns\t{ratio(jjson, dj)}")
def line(bench, goal_ns, what):
    v = median(bench)
    if v is None:
        print(f"{what}: not measured ({bench})")
    else:
        verdict = "met" if v <= goal_ns else "NOT met"
        print(f"{what}: {v:,.0f} ns (goal <= {goal_ns:,} ns: {verdict})")
line("context_prepare", 1000, "prepared context from a typed RequestContext")
line("context_prepare-from-json", 1000, "prepared context from JSON text (parse included)")
line("event-text-to-response-bytes", 3000, "action-group event text -> response bytes (the path `run` uses)")
line("guard_check-warm", 3000, "guard per warm call (Guard::check: remembered token, cached rules, decision line)")
line("guard_verify-read-evaluate", 3000, "guard: verify signed context + read it + 3 call rules on typed arguments (nothing remembered)")
line("guard_one-session-rule", 3000, "guard with one session rule: the same + a rule over session.* + the admitted state (no store round trip)")
v = median("resolve/20-tools-3-rules/cache")
if v is not None:
    print(f"full resolution, 20 tools x 3 rules, in process: {v:,.0f} ns")
PY
# criterion's directory names replace '/' in a bench id with '_'.

echo "== HTTP load test"
scripts/load.sh "$LOAD" 32
