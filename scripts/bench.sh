#!/usr/bin/env bash
# Every benchmark in one go, with the ratios the performance goals are stated in
# (docs/performance.md), all measured in the same run on this machine:
#   1. criterion benches of registry-access, registry-core and bedrock-action-group, the
#      guard and the gateway interceptor, and
#      registry-discovery's tool search (its p95 over 10,000 tools, goal <= 5 ms);
#   2. the peer bench (shared/bench-peers: the registry, the plain `cel` crate, Cedar and
#      Rego on equivalent policies) and the JavaScript CEL baseline
#      (scripts/bench/js-cel-baseline.mjs, its npm package installed into a temporary
#      directory), printed as one table with the ratios and each peer goal met or not;
#   3. the HTTP load test (scripts/load.sh), with the console's page server time on the
#      same seeded registry (scripts/load/console.py, goal <= 50 ms per page).
#   scripts/bench.sh [--quick]     --quick: shorter criterion runs and 5 s load routes
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
QUICK="${1:-}"
if [ "$QUICK" = "--quick" ]; then CRIT=(--warm-up-time 1 --measurement-time 2); LOAD=5; JS_N=50000
else CRIT=(--warm-up-time 2 --measurement-time 5); LOAD=10; JS_N=200000; fi
TARGET="${CARGO_TARGET_DIR:-target}"
mkdir -p "$TARGET"
JS_ENGINE="@marcbachmann/cel-js@8.0.0"

echo "== machine: $(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
echo "== criterion"
# Only the criterion targets: the libraries' own test harnesses refuse criterion's flags.
cargo bench -q -p registry-access -p registry-core -p bedrock-action-group \
  --bench access --bench resolve --bench convert -- "${CRIT[@]}" >"$TARGET/bench-criterion.log" 2>&1 \
  || { tail -20 "$TARGET/bench-criterion.log" >&2; echo "bench: criterion failed" >&2; exit 1; }
# The call-time guard (registry-guard): its own cost per call; the principal token's
# issue and first verification (registry-token).
cargo bench -q -p registry-token --features issue --bench token -- "${CRIT[@]}" \
  >>"$TARGET/bench-criterion.log" 2>&1 \
  || { tail -20 "$TARGET/bench-criterion.log" >&2; echo "bench: criterion (token) failed" >&2; exit 1; }
cargo bench -q -p registry-guard --bench guard -- "${CRIT[@]}" \
  >>"$TARGET/bench-criterion.log" 2>&1 \
  || { tail -20 "$TARGET/bench-criterion.log" >&2; echo "bench: criterion (guard) failed" >&2; exit 1; }
# The AgentCore Gateway interceptor (functions/gateway-interceptor): its warm decision of a
# tools/call event, the store excluded.
cargo bench -q -p gateway-interceptor --bench interceptor -- "${CRIT[@]}" \
  >>"$TARGET/bench-criterion.log" 2>&1 \
  || { tail -20 "$TARGET/bench-criterion.log" >&2; echo "bench: criterion (interceptor) failed" >&2; exit 1; }
# Tool search over 10,000 tools (registry-discovery): its p95, printed by the bench.
cargo bench -q -p registry-discovery --bench search -- "${CRIT[@]}" \
  >>"$TARGET/bench-criterion.log" 2>&1 \
  || { tail -20 "$TARGET/bench-criterion.log" >&2; echo "bench: criterion (search) failed" >&2; exit 1; }
grep -E '^[^ ].*time:|^ +time:' "$TARGET/bench-criterion.log" || true

echo "== peers (criterion)"
cargo bench -q -p registry-bench-peers --bench peers -- "${CRIT[@]}" >"$TARGET/bench-peers.log" 2>&1 \
  || { tail -20 "$TARGET/bench-peers.log" >&2; echo "bench: peer bench failed" >&2; exit 1; }

echo "== JavaScript baseline ($JS_ENGINE)"
JS_DIR="$(mktemp -d)"
trap 'rm -rf "$JS_DIR"' EXIT
(cd "$JS_DIR" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund "$JS_ENGINE" >/dev/null)
CEL_BENCH_DIR="$JS_DIR" node scripts/bench/js-cel-baseline.mjs "$JS_N" | tee "$JS_DIR/js.tsv"

echo "== ratios"
python3 - "$TARGET/criterion" "$JS_DIR/js.tsv" <<'PY'
import json, os, sys
crit, js_file = sys.argv[1], sys.argv[2]
def median(bench):
    # criterion's directory names replace '/' and '>' in a bench id with '_'; a group's
    # benches live in its directory (peers/<case>/<engine>-<path>)
    group, _, name = bench.rpartition("/") if bench.startswith("peers/") else ("", "", bench)
    parts = [crit] + ([group.replace("/", "_"), name] if group else [name.replace("/", "_").replace(">", "_")])
    path = os.path.join(*parts, "new", "estimates.json")
    try:
        return json.load(open(path))["median"]["point_estimate"]
    except OSError:
        return None
js = {}
for line in open(js_file):
    case, mode, ns = line.split("\t")
    js[(case, mode)] = float(ns)
ACCESS = ["type+tier", "role-in-list", "entity-allowlist", "startsWith+size", "has+exists"]
# (row, case, the registry's engine); the last row is informative: the rule decisions
# of a resolution alone, as the peers decide it (no goals counted on it)
ROWS = [(c, c, "registry") for c in ACCESS + ["refund", "resolution"]] + \
       [("resolution, rules only", "resolution", "registry-rules")]
PEERS = ["cel", "cedar", "rego", "js"]
# (path, peer) -> the least ratio peer / registry the goals ask for
GOALS = {("json", "cel"): 3, ("json", "cedar"): 3, ("json", "rego"): 3, ("json", "js"): 2,
         ("prepared", "cel"): 2, ("prepared", "js"): 2}
fmt = lambda v: "-" if v is None else f"{v / 1000:,.2f} us" if v >= 10000 else f"{v:,.0f} ns"
met, missed = 0, []
for path, title in [("json", "request JSON -> decision"), ("prepared", "request already prepared")]:
    print(f"\npeers, {title} (median; ratio = peer / registry; goal: " +
          ", ".join(f"{p} >= {GOALS[(path, p)]}x" for p in PEERS if (path, p) in GOALS) +
          (", registry <= 100 ns on the five access cases" if path == "prepared" else "") + ")")
    print("case\tregistry\t" + "\t".join(PEERS))
    for row, case, registry in ROWS:
        counted = registry == "registry"
        ours = median(f"peers/{case}/{registry}-{path}")
        cells = [fmt(ours)]
        if path == "prepared" and case in ACCESS and ours is not None:
            ok = ours <= 100
            cells[0] += " (<= 100 ns: " + ("met" if ok else "NOT met") + ")"
            met, missed = (met + 1, missed) if ok else (met, missed + [f"{case} prepared {ours:,.0f} ns > 100 ns"])
        for p in PEERS:
            v = js.get((case, path)) if p == "js" else median(f"peers/{case}/{p}-{path}")
            cell = fmt(v)
            if v is not None and ours:
                ratio = v / ours
                cell += f" ({ratio:.1f}x"
                goal = GOALS.get((path, p)) if counted else None
                if goal:
                    ok = ratio >= goal
                    cell += " met" if ok else " NOT met"
                    met, missed = (met + 1, missed) if ok else (met, missed + [f"{case} {path} vs {p}: {ratio:.1f}x < {goal}x"])
                cell += ")"
            cells.append(cell)
        print(f"{row}\t" + "\t".join(cells))
print(f"\npeer goals: {met} met, {len(missed)} not met" + "".join(f"\n  NOT met: {m}" for m in missed))
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
line("guard_read-evaluate", 3000, "guard: a verified token's context read + 3 call rules on typed arguments")
line("guard_one-session-rule", 3000, "guard with one session rule: the same + a rule over session.* + the admitted state (no store round trip)")
line("interceptor_request-warm", 5000, "gateway interceptor per warm tools/call (event text in, output document out, decision line; store excluded)")
# token/issue per algorithm, a session's token reused, and the first verification
for bench, what in [("token_issue", "principal token issued at resolve (RS256 sign)"),
                   ("token_issue-ES256", "principal token issued at resolve (ES256 sign)"),
                   ("token_issue-EdDSA", "principal token issued at resolve (EdDSA sign)"),
                   ("token_issue-reused", "principal token of a session resolved again (reused, decision 112)"),
                   ("token_verify-first", "principal token's first verification (RS256, claims)"),
                   ("token_verify-first-ES256", "principal token's first verification (ES256, claims)"),
                   ("token_verify-first-EdDSA", "principal token's first verification (EdDSA, claims)")]:
    v = median(bench)
    print(f"{what}: " + ("not measured" if v is None else f"{v / 1000:,.1f} us (measured, no goal)"))
v, w = median("token_issue"), median("token_issue-reused")
if v is not None and w is not None:
    print(f"a session's later turns: {w / 1000:,.2f} us per token against {v / 1000:,.1f} us signed "
          f"(one signature per session: {'met' if w * 10 < v else 'NOT met'})")
p95 = next((l for l in open(os.path.join(os.path.dirname(crit), "bench-criterion.log")) if l.startswith("search p95: ")), None)
if p95 is None:
    print("tool search over 10,000 tools: not measured")
else:
    ns = int(p95.split()[2])
    verdict = "met" if ns <= 5_000_000 else "NOT met"
    print(f"tool search over 10,000 tools: p95 {ns / 1e6:.3f} ms (goal <= 5 ms: {verdict}); {p95.strip()}")
v = median("resolve/20-tools-3-rules/cache")
if v is not None:
    print(f"full resolution, 20 tools x 3 rules, in process: {v:,.0f} ns")
PY
# criterion's directory names replace '/' in a bench id with '_'.

echo "== HTTP load test"
scripts/load.sh "$LOAD" 32
