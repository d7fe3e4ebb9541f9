/**
 * Runs the transcribed structured-merge-diff scenarios (test/testdata/ssa/smd_*.json) through
 * the Updater and reports, per case, whether the final object, managed fields and conflicts
 * match. Shared by the test and by the report script.
 *
 * @module
 */
import { ConflictError } from "../../../apiserver/fieldmanager/conflict.ts";
import { extractItems } from "../../../apiserver/fieldmanager/extract_items.ts";
import { FieldSet } from "../../../apiserver/fieldmanager/field_set.ts";
import type { ManagedFieldSets } from "../../../apiserver/fieldmanager/managed_fields_set.ts";
import { mergeValues } from "../../../apiserver/fieldmanager/merge_values.ts";
import {
  deserializePathElement,
  type PathElement,
  pathToString,
  serializePathElement,
} from "../../../apiserver/fieldmanager/path_element.ts";
import {
  type NamedType,
  Schema,
  type TypeRef,
  UNTYPED_DEDUCED,
} from "../../../apiserver/fieldmanager/schema.ts";
import { Updater } from "../../../apiserver/fieldmanager/updater.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";

/** One transcribed operation. */
export interface ScenarioOp {
  op: string;
  manager?: string;
  apiVersion?: string;
  object?: unknown;
  objectUnsupported?: boolean;
  parser?: Scenario["parser"];
  conflicts?: { manager: string; path: string[] }[];
}

/** One transcribed scenario. */
export interface Scenario {
  test: string;
  name: string;
  parser: { schema?: { types: NamedType[] }; root?: string; deduced?: boolean; unknown?: string };
  converter?: string;
  ops: ScenarioOp[];
  object?: unknown;
  apiVersion?: string;
  managed?: Record<string, { paths: string[][]; apiVersion: string; applied: boolean }>;
  ignore?: Record<string, { exclude?: string[][]; unsupported?: string }>;
  returnInputOnNoop?: boolean;
  /** The scenario must fail (invalid input). */
  expectError?: boolean;
}

/** The outcome of a scenario. */
export type Outcome = { status: "pass" } | { status: "fail"; reason: string } | {
  status: "skip";
  reason: string;
};

const DIR = new URL("../../testdata/ssa/", import.meta.url);

/** Every transcribed scenario with its file name. */
export function loadScenarios(): { file: string; scenario: Scenario }[] {
  const out: { file: string; scenario: Scenario }[] = [];
  const files = [...Deno.readDirSync(DIR)].map((e) => e.name).filter((n) =>
    n.startsWith("smd_") && n.endsWith(".json")
  ).sort();
  for (const f of files) {
    const data = JSON.parse(Deno.readTextFileSync(new URL(f, DIR))) as { cases: Scenario[] };
    for (const s of data.cases) out.push({ file: f, scenario: s });
  }
  return out;
}

function pathOf(keys: string[]): PathElement[] {
  return keys.map((k) => {
    const pe = deserializePathElement(k);
    if (typeof pe === "symbol") throw new Error(`bad path element ${k}`);
    return pe;
  });
}

function setOf(paths: string[][]): FieldSet {
  return FieldSet.of(...paths.map(pathOf));
}

function setText(s: FieldSet): string {
  return s.paths().map(pathToString).join(" ");
}

/** Runs one scenario. */
export function runScenario(sc: Scenario): Outcome {
  if (sc.converter) return { status: "skip", reason: `version converter ${sc.converter}` };
  if (sc.returnInputOnNoop) return { status: "skip", reason: "ReturnInputOnNoop option" };
  if (sc.parser.unknown) return { status: "skip", reason: `parser ${sc.parser.unknown}` };
  for (const op of sc.ops) {
    if (op.objectUnsupported) return { status: "skip", reason: "typed object operand" };
  }
  if (sc.expectError) {
    const r = runOps(sc);
    return r.status === "fail"
      ? { status: "pass" }
      : { status: "fail", reason: "expected an error" };
  }
  return runOps(sc);
}

function rootOf(p: Scenario["parser"], version: string): TypeRef {
  if (p.deduced) return { namedType: UNTYPED_DEDUCED };
  return { namedType: p.root ?? version };
}

function runOps(sc: Scenario): Outcome {
  let parser = sc.parser;
  let schema = new Schema(parser.schema?.types ?? []);
  let ignore: FieldSet | undefined;
  for (const f of Object.values(sc.ignore ?? {})) {
    if (f.unsupported) return { status: "skip", reason: `ignore filter ${f.unsupported}` };
    ignore = setOf(f.exclude ?? []);
  }
  let live: unknown = null;
  let managers: ManagedFieldSets = new Map();
  for (const [i, op] of sc.ops.entries()) {
    if (op.op === "changeParser") {
      if (!op.parser || op.parser.unknown) return { status: "skip", reason: "unknown parser" };
      parser = op.parser;
      schema = new Schema(parser.schema?.types ?? []);
      continue;
    }
    const manager = op.manager ?? "";
    const version = op.apiVersion ?? "v1";
    const root = rootOf(parser, version);
    const updater = new Updater(schema, root, ignore);
    try {
      if (op.op === "update") {
        managers = updater.update(live, op.object, version, managers, manager);
        live = op.object;
      } else {
        let config = op.object;
        let force = op.op === "forceApply";
        if (op.op === "extractApply") {
          force = true;
          if (live !== null) {
            const owned = managers.get(manager);
            const extracted = extractItems(schema, root, live, owned?.set ?? new FieldSet());
            config = mergeValues(schema, root, extracted, op.object);
          }
        }
        const res = updater.apply(live, config, version, managers, manager, force);
        managers = res.managers;
        if (res.object !== undefined) live = res.object;
      }
      if (op.conflicts) return { status: "fail", reason: `op ${i}: expected conflicts` };
    } catch (err) {
      if (err instanceof ConflictError && op.conflicts) {
        const got = err.conflicts.map((c) =>
          `${c.manager}:${c.path.map(serializePathElement).join("/")}`
        ).sort();
        const want = op.conflicts.map((c) => `${c.manager}:${c.path.join("/")}`).sort();
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          return { status: "fail", reason: `op ${i}: conflicts ${got} != ${want}` };
        }
        continue;
      }
      return { status: "fail", reason: `op ${i}: ${(err as Error).message}` };
    }
  }
  if (sc.object !== undefined && !deepEqual(normalize(live), normalize(sc.object))) {
    return {
      status: "fail",
      reason: `object ${JSON.stringify(live)} != ${JSON.stringify(sc.object)}`,
    };
  }
  if (sc.managed) {
    for (const [m, want] of Object.entries(sc.managed)) {
      const got = managers.get(m);
      const w = setOf(want.paths);
      if (!got) {
        if (w.empty()) continue;
        return { status: "fail", reason: `manager ${m} missing` };
      }
      if (!got.set.equals(w)) {
        return {
          status: "fail",
          reason: `manager ${m}: got ${setText(got.set)} want ${setText(w)}`,
        };
      }
      if (got.apiVersion !== want.apiVersion) {
        return { status: "fail", reason: `manager ${m}: version ${got.apiVersion}` };
      }
    }
    for (const [m, got] of managers) {
      if (!sc.managed[m] && !got.set.empty()) {
        return { status: "fail", reason: `unexpected manager ${m}: ${setText(got.set)}` };
      }
    }
  }
  for (const [m, got] of managers) {
    if (got.set.empty()) return { status: "fail", reason: `empty set for ${m}` };
  }
  return { status: "pass" };
}

/** null and an empty object at the root are the same empty object. */
function normalize(v: unknown): unknown {
  return v === null || v === undefined ? {} : v;
}

if (import.meta.main) {
  const all = loadScenarios();
  const counts = { pass: 0, fail: 0, skip: 0 };
  for (const { file, scenario } of all) {
    const r = runScenario(scenario);
    counts[r.status]++;
    if (r.status !== "pass") {
      console.log(
        `${r.status} ${file} ${scenario.test}/${scenario.name}: ${"reason" in r ? r.reason : ""}`,
      );
    }
  }
  console.log(JSON.stringify({ total: all.length, ...counts }));
}
