#!/usr/bin/env node
// The baseline a Node.js registry would have: the fastest JavaScript CEL engine
// (@marcbachmann/cel-js) on the peer bench's cases, with the same CEL rules:
// the five conditions of shared/access/benches/access-cases.json, and the `refund` and
// `resolution` cases of shared/bench-peers/cases.json (first match, default deny, an
// error denies; resolution: one decision per tool, each tool with its own compiled rules).
// Two modes per case:
//   prepared : rules compiled once, evaluated against a ready JS object
//   json     : JSON.parse of the request text, then the decision (what a server does)
// Run (scripts/bench.sh installs the engine):  CEL_BENCH_DIR=<dir with node_modules> \
//   node js-cel-baseline.mjs [iterations]
// Prints one line per case and mode: "<case>\t<mode>\t<ns per decision>".
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = process.env.CEL_BENCH_DIR ?? process.cwd();
const require = createRequire(join(dir, 'package.json'));
const { parse } = await import(pathToFileURL(require.resolve('@marcbachmann/cel-js')).href);
const N = Number(process.argv[2] ?? 200000);
const read = (path) => JSON.parse(readFileSync(join(root, path), 'utf8'));
const access = read('shared/access/benches/access-cases.json');
const peers = read('shared/bench-peers/cases.json');

// first match over [allows, compiled] pairs; an error denies
function firstMatch(rules, vars) {
  for (const [allows, f] of rules) {
    let v;
    try { v = f(vars); } catch { return false; }
    if (v === true) return allows;
    if (v !== false) return false;
  }
  return false;
}
const compile = (rules) => rules.map((r) => [r.effect === 'allow', parse(r.condition ?? 'true')]);

const cases = access.cases.map((c) => {
  const f = parse(c.condition);
  return { name: c.name, text: JSON.stringify(access.context), vars: (req) => req,
           decide: (vars) => { try { return f(vars) === true; } catch { return false; } } };
});
const refund = compile(peers.refund.rules);
cases.push({ name: 'refund', text: JSON.stringify(peers.refund.request),
             vars: (req) => ({ ...req.context, call: req.call }),
             decide: (vars) => firstMatch(refund, vars) });
const tools = Array.from({ length: peers.resolution.tools }, () => compile(peers.resolution.rules));
cases.push({ name: 'resolution', text: JSON.stringify(peers.resolution.request), vars: (req) => req,
             decide: (vars) => {
               let all = true;
               for (const rules of tools) all = firstMatch(rules, vars) && all;
               return all;
             } });

function time(fn) {
  for (let i = 0; i < Math.min(N, 20000); i++) fn();
  let hits = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) if (fn() === true) hits++;
  const ns = Number(process.hrtime.bigint() - t0) / N;
  if (hits !== N) throw new Error(`expected every decision allowed, got ${hits}/${N}`);
  return ns;
}

for (const c of cases) {
  const vars = c.vars(JSON.parse(c.text));
  console.log(`${c.name}\tprepared\t${time(() => c.decide(vars)).toFixed(0)}`);
  console.log(`${c.name}\tjson\t${time(() => c.decide(c.vars(JSON.parse(c.text)))).toFixed(0)}`);
}
