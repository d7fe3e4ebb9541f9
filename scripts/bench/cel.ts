/**
 * CEL evaluation throughput: three typical validation rules (a field comparison, `all()` over a
 * 100-element list, a regex match), each with and without cost tracking, in one run.
 *
 * Run: `./scripts/deno run -A scripts/bench/cel.ts [--rounds 10] [--chunk-ms 20]`
 *
 * The machine is shared, so chunks of each case are interleaved round-robin and both the best
 * and the median chunk are reported.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { crdValidationEnvironment } from "../../apiserver/cel/mod.ts";
import type { CelProgram } from "../../apiserver/cel/mod.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "10" },
    "chunk-ms": { type: "string", default: "20" },
  },
});
const rounds = Number(values.rounds);
const chunkMs = Number(values["chunk-ms"]);

const schema = {
  type: "object",
  properties: {
    replicas: { type: "integer" },
    maxReplicas: { type: "integer" },
    metadata: { type: "object", properties: { name: { type: "string", maxLength: 253 } } },
    items: {
      type: "array",
      maxItems: 100,
      items: {
        type: "object",
        properties: { name: { type: "string", maxLength: 64 }, size: { type: "integer" } },
      },
    },
  },
};
const env = crdValidationEnvironment(schema, { oldSelf: false });
const object = {
  replicas: 3,
  maxReplicas: 5,
  metadata: { name: "my-app-123" },
  items: Array.from({ length: 100 }, (_, i) => ({ name: `a-${i}`, size: i })),
};
const vars = env.activation({ self: object });

const rules: [string, string][] = [
  ["field comparison", "self.replicas <= self.maxReplicas"],
  ["all() over 100 items", "self.items.all(i, i.name.startsWith('a') && i.size < 100)"],
  ["regex match", "self.metadata.name.matches('^[a-z0-9-]+$')"],
];

interface Case {
  label: string;
  program: CelProgram;
  track: boolean;
  n: number;
  rates: number[];
  cost: number;
}

const cases: Case[] = [];
for (const [label, expr] of rules) {
  const c = env.compile(expr);
  if (!c.ok) throw new Error(c.errors[0].detail);
  for (const track of [false, true]) {
    const r = c.program.evaluate(vars, { trackCost: track });
    if (!r.ok || r.value !== true) throw new Error(`${expr} did not evaluate to true`);
    cases.push({
      label: `${label} [${expr}]`,
      program: c.program,
      track,
      n: 1,
      rates: [],
      cost: r.cost,
    });
  }
}

// Calibrate: evaluations per chunk.
for (const c of cases) {
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < c.n; i++) c.program.evaluate(vars, { trackCost: c.track });
    if (performance.now() - t0 >= chunkMs / 4) {
      c.n = Math.max(1, Math.round((c.n * chunkMs) / Math.max(0.001, performance.now() - t0)));
      break;
    }
    c.n *= 2;
  }
}
for (let r = 0; r < rounds; r++) {
  for (const c of cases) {
    const t0 = performance.now();
    for (let i = 0; i < c.n; i++) c.program.evaluate(vars, { trackCost: c.track });
    c.rates.push((c.n * 1000) / (performance.now() - t0));
  }
}

const fmt = (x: number) =>
  x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : x >= 1e3 ? `${(x / 1e3).toFixed(1)} k` : x.toFixed(0);
console.log(
  `Deno ${Deno.version.deno}, V8 ${Deno.version.v8}; ${rounds} interleaved rounds of ~${chunkMs} ms chunks`,
);
console.log("| rule | cost tracking | evals/s best | evals/s median | cost units |");
console.log("|---|---|---:|---:|---:|");
for (const c of cases) {
  const sorted = [...c.rates].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(
    `| ${c.label} | ${c.track ? "on" : "off"} | ${fmt(sorted[sorted.length - 1])} | ${
      fmt(median)
    } | ${c.track ? c.cost : "-"} |`,
  );
}
