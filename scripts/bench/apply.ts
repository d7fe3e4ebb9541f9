/**
 * Server-side apply throughput: a ConfigMap of 50 data fields applied by 3 managers (each owns a
 * third and changes its values every round), against PUT of the same 50-field object, in the
 * same run and against the same API server subprocess; plus the in-process field manager alone.
 *
 * Usage: ./scripts/deno run -A scripts/bench/apply.ts [--rounds=100]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { builtinSchemaModel } from "../../shared/api/schema/builtin_model.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { FieldManager } from "../../apiserver/fieldmanager/field_manager.ts";
import { kindSchema } from "../../apiserver/fieldmanager/schema_from_model.ts";
import { adminHeaders, adminHttpClient, startApiServerProcess } from "./lib/apiserver_process.ts";

const FIELDS = 50;
const MANAGERS = 3;

function keysOf(m: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < FIELDS; i++) {
    if (i % MANAGERS === m) out.push(`key${String(i).padStart(2, "0")}`);
  }
  return out;
}

function config(name: string, m: number, round: number): Record<string, unknown> {
  const data: Record<string, string> = {};
  for (const k of keysOf(m)) data[k] = `value-${k}-${round}`;
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data };
}

function fullObject(name: string, round: number): Record<string, unknown> {
  const data: Record<string, string> = {};
  for (let i = 0; i < FIELDS; i++) data[`key${String(i).padStart(2, "0")}`] = `value-${i}-${round}`;
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data };
}

async function main() {
  const { values } = parseArgs({ options: { rounds: { type: "string", default: "100" } } });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new Error("--rounds must be a positive integer");
  }

  // In-process: the field manager alone (no HTTP, no storage).
  const fm = new FieldManager({
    schema: kindSchema(builtinSchemaModel(), "", "v1", "ConfigMap"),
    group: "",
    version: "v1",
    kind: "ConfigMap",
  });
  let live: KubeObject | undefined;
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (let m = 0; m < MANAGERS; m++) {
      live = fm.apply(live, config("x", m, r), `manager-${m}`, false);
      live.metadata.uid ??= "bench";
    }
  }
  const engineRate = (rounds * MANAGERS) / ((performance.now() - t0) / 1000);

  const dataDir = await Deno.makeTempDir({ prefix: "bench-apply-" });
  const server = await startApiServerProcess({ dataDir });
  const client = adminHttpClient(server);
  try {
    const base = `${server.url}/api/v1/namespaces/default/configmaps`;
    const send = async (method: string, path: string, type: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        client,
        headers: adminHeaders(server, { "content-type": type }),
        body: JSON.stringify(body),
      });
      const out = await res.json();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${out.message}`);
      return out;
    };
    // Warm up both paths.
    for (let m = 0; m < MANAGERS; m++) {
      await send(
        "PATCH",
        `/applied?fieldManager=manager-${m}`,
        "application/apply-patch+yaml",
        config("applied", m, -1),
      );
    }
    let put = await send("POST", "", "application/json", fullObject("put", -1));

    const a0 = performance.now();
    for (let r = 0; r < rounds; r++) {
      for (let m = 0; m < MANAGERS; m++) {
        await send(
          "PATCH",
          `/applied?fieldManager=manager-${m}`,
          "application/apply-patch+yaml",
          config("applied", m, r),
        );
      }
    }
    const applySecs = (performance.now() - a0) / 1000;

    const p0 = performance.now();
    for (let i = 0; i < rounds * MANAGERS; i++) {
      const body = fullObject("put", i);
      (body.metadata as Record<string, unknown>).resourceVersion = put.metadata.resourceVersion;
      put = await send("PUT", "/put", "application/json", body);
    }
    const putSecs = (performance.now() - p0) / 1000;
    const ops = rounds * MANAGERS;
    console.log(JSON.stringify({
      fields: FIELDS,
      managers: MANAGERS,
      operations: ops,
      applyPerSecond: Math.round(ops / applySecs),
      putPerSecond: Math.round(ops / putSecs),
      applyOverPut: Number((putSecs / applySecs).toFixed(2)),
      inProcessFieldManagerAppliesPerSecond: Math.round(engineRate),
    }));
  } finally {
    client.close();
    await server.stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
