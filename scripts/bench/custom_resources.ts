/**
 * Custom resource creates per second with 10 CEL validation rules (`x-kubernetes-validations`)
 * beside the same object whose definition has none, against the same API server subprocess in
 * the same run: blocks of creates alternate between the two kinds (this machine's speed drifts),
 * each figure is the median of its blocks, and the rules' cost per create is their difference.
 *
 * Usage: ./scripts/deno run -A scripts/bench/custom_resources.ts [--creates=2000] [--clients=8]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { adminHeaders, adminHttpClient, startApiServerProcess } from "./lib/apiserver_process.ts";

const GROUP = "bench.example.com";
const BLOCKS = 10;

/** Ten rules over the spec, each true for the objects the benchmark creates. */
const RULES = [
  { rule: "self.replicas >= 0" },
  { rule: "self.replicas <= 1000" },
  { rule: "self.image.size() > 0" },
  { rule: "self.image.startsWith('registry.example.com/')" },
  { rule: "self.ports.all(p, p > 0 && p < 65536)" },
  { rule: "self.ports.size() <= 16" },
  { rule: "self.env.all(k, k.size() < 64)" },
  { rule: "!has(self.paused) || self.paused == false" },
  { rule: "self.minReady <= self.replicas" },
  { rule: "self.tier in ['frontend', 'backend', 'batch']" },
];

function crd(plural: string, kind: string, rules: boolean) {
  const spec: Record<string, unknown> = {
    type: "object",
    required: ["replicas", "image", "ports", "env", "minReady", "tier"],
    properties: {
      replicas: { type: "integer" },
      minReady: { type: "integer" },
      image: { type: "string", maxLength: 256 },
      tier: { type: "string", maxLength: 16 },
      paused: { type: "boolean" },
      ports: { type: "array", maxItems: 16, items: { type: "integer" } },
      env: {
        type: "object",
        maxProperties: 32,
        additionalProperties: { type: "string", maxLength: 256 },
      },
    },
  };
  if (rules) spec["x-kubernetes-validations"] = RULES;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
      }],
    },
  };
}

function object(kind: string, name: string) {
  return {
    apiVersion: `${GROUP}/v1`,
    kind,
    metadata: { name, namespace: "default" },
    spec: {
      replicas: 3,
      minReady: 1,
      image: "registry.example.com/app:1.0",
      tier: "backend",
      ports: [80, 443, 8080],
      env: { MODE: "production", LOG_LEVEL: "info", REGION: "eu-west-1" },
    },
  };
}

/** Sends JSON; throws with the answer's message when it is not 2xx. */
type Send = (method: string, path: string, body: unknown) => Promise<Record<string, unknown>>;

async function waitEstablished(send: Send, plural: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      await send("GET", `/apis/${GROUP}/v1/namespaces/default/${plural}`, undefined);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${plural} was never served`);
}

/** Creates `n` objects with `clients` concurrent senders; returns creates per second. */
async function createBlock(
  send: Send,
  plural: string,
  kind: string,
  prefix: string,
  n: number,
  clients: number,
): Promise<number> {
  let next = 0;
  const path = `/apis/${GROUP}/v1/namespaces/default/${plural}`;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let i = next++; i < n; i = next++) {
      await send("POST", path, object(kind, `${prefix}-${i}`));
    }
  }));
  return n / ((performance.now() - t0) / 1000);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main() {
  const { values } = parseArgs({
    options: {
      creates: { type: "string", default: "2000" },
      clients: { type: "string", default: "8" },
    },
  });
  const creates = Number(values.creates);
  const clients = Number(values.clients);
  if (!Number.isInteger(creates) || creates < BLOCKS * 2) {
    throw new Error(`--creates must be an integer of at least ${BLOCKS * 2}`);
  }
  if (!Number.isInteger(clients) || clients < 1) throw new Error("--clients must be positive");
  const dataDir = await Deno.makeTempDir({ prefix: "bench-custom-resources-" });
  const server = await startApiServerProcess({ dataDir });
  const client = adminHttpClient(server);
  const send: Send = async (method, path, body) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      client,
      headers: adminHeaders(server, { "content-type": "application/json" }),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const out = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${out.message}`);
    return out;
  };
  try {
    const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    await send("POST", crds, crd("ruleds", "Ruled", true));
    await send("POST", crds, crd("plains", "Plain", false));
    await waitEstablished(send, "ruleds");
    await waitEstablished(send, "plains");
    // Warm-up, untimed.
    await createBlock(send, "ruleds", "Ruled", "warm", 100, clients);
    await createBlock(send, "plains", "Plain", "warm", 100, clients);
    const per = Math.floor(creates / BLOCKS);
    const ruled: number[] = [];
    const plain: number[] = [];
    for (let b = 0; b < BLOCKS; b++) {
      ruled.push(await createBlock(send, "ruleds", "Ruled", `b${b}`, per, clients));
      plain.push(await createBlock(send, "plains", "Plain", `b${b}`, per, clients));
    }
    const withRules = median(ruled);
    const withoutRules = median(plain);
    console.log(JSON.stringify({
      rules: RULES.length,
      createsPerKind: per * BLOCKS,
      clients,
      createsPerSecondWithRules: Math.round(withRules),
      createsPerSecondWithoutRules: Math.round(withoutRules),
      withRulesOverWithout: Number((withRules / withoutRules).toFixed(3)),
      // Wall time each create costs more with the rules, at this concurrency.
      ruleOverheadPerCreateMs: Number(((1 / withRules - 1 / withoutRules) * 1000).toFixed(3)),
    }));
  } finally {
    client.close();
    await server.stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
