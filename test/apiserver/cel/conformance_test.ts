/**
 * Runs the CEL conformance suite's simple tests (from `@bufbuild/cel-spec`) through the public
 * API of `apiserver/cel`, skipping cases that need protobuf message types. Every failure must be
 * listed in `conformance_known_failures.json`; a new failure or a new pass fails the test.
 * Set `CEL_CONFORMANCE_UPDATE=1` to rewrite the known-failures file.
 */
import assert from "node:assert";
import { tests } from "@bufbuild/cel-spec/testdata/conformance.js";
import { CelEnvironment, Duration, Optional, UnsignedInt } from "../../../apiserver/cel/mod.ts";
import type { CelVariable } from "../../../apiserver/cel/mod.ts";

type Json = Record<string, unknown>;
interface Case {
  name: string;
  expr: string;
  value?: Json;
  evalError?: unknown;
  anyEvalErrors?: unknown;
  typedResult?: { result?: Json };
  bindings?: Record<string, { value?: Json }>;
  typeEnv?: Json[];
  disableCheck?: boolean;
  checkOnly?: boolean;
  container?: string;
}

const CORE = new Set([
  "basic",
  "comparisons",
  "conversions",
  "fields",
  "fp_math",
  "integer_math",
  "lists",
  "logic",
  "macros",
  "optionals",
  "parse",
  "plumbing",
  "string",
  "string_ext",
  "timestamps",
  "type_deductions",
]);

const KNOWN_FILE = new URL("./conformance_known_failures.json", import.meta.url);
const PROTO_RE =
  /TestAllTypes|NestedTestAllTypes|google\.protobuf\.(?!Timestamp|Duration)|GlobalEnum|TestRequired|proto[23]\.|\.NestedEnum|Int32Value|Int64Value|UInt32Value|UInt64Value|BoolValue|StringValue|BytesValue|FloatValue|DoubleValue|ListValue|Struct\b|Any\b/;

function skipReason(c: Case): string | undefined {
  if (c.checkOnly) return "check_only";
  if (PROTO_RE.test(c.expr)) return "proto message types in expression";
  if (c.container && /proto|conformance/.test(c.container)) return "proto container";
  const blob = JSON.stringify([c.value, c.bindings, c.typedResult]);
  if (/"@type":"type\.googleapis\.com\/(?!google\.protobuf\.(Timestamp|Duration)")/.test(blob)) {
    return "proto message value";
  }
  if (/"enumValue"/.test(blob)) return "proto enum value";
  if (c.typeEnv?.some((d) => /messageType|"function"/.test(JSON.stringify(d)))) {
    return "proto message type or function in type_env";
  }
  return undefined;
}

function celType(t: Json | undefined): string {
  if (!t) return "dyn";
  if ("primitive" in t) {
    return ({
      BOOL: "bool",
      INT64: "int",
      UINT64: "uint",
      DOUBLE: "double",
      STRING: "string",
      BYTES: "bytes",
    } as Record<string, string>)[t.primitive as string] ?? "dyn";
  }
  if ("listType" in t) return `list<${celType((t.listType as Json).elemType as Json)}>`;
  if ("mapType" in t) {
    const m = t.mapType as Json;
    return `map<${celType(m.keyType as Json)}, ${celType(m.valueType as Json)}>`;
  }
  if ("wellKnown" in t) {
    return t.wellKnown === "TIMESTAMP"
      ? "google.protobuf.Timestamp"
      : t.wellKnown === "DURATION"
      ? "google.protobuf.Duration"
      : "dyn";
  }
  if ("null" in t) return "null";
  return "dyn";
}

function fromValue(v: Json): unknown {
  if ("int64Value" in v) return BigInt(v.int64Value as string);
  if ("uint64Value" in v) return new UnsignedInt(BigInt(v.uint64Value as string));
  if ("doubleValue" in v) {
    const d = v.doubleValue;
    return d === "NaN"
      ? NaN
      : d === "Infinity"
      ? Infinity
      : d === "-Infinity"
      ? -Infinity
      : Number(d);
  }
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("nullValue" in v) return null;
  if ("bytesValue" in v) {
    return Uint8Array.from(atob(v.bytesValue as string), (c) => c.charCodeAt(0));
  }
  if ("listValue" in v) return (((v.listValue as Json).values as Json[]) ?? []).map(fromValue);
  if ("mapValue" in v) {
    const m = new Map<unknown, unknown>();
    for (const e of ((v.mapValue as Json).entries as Json[]) ?? []) {
      m.set(fromValue(e.key as Json), fromValue(e.value as Json));
    }
    return m;
  }
  if ("typeValue" in v) return { celType: v.typeValue };
  if ("objectValue" in v) {
    const o = v.objectValue as Json;
    const t = String(o["@type"]);
    if (t.endsWith("Timestamp")) return new Date(o.value as string);
    if (t.endsWith("Duration")) {
      const s = String(o.value);
      const neg = s.startsWith("-");
      const [sec, frac = ""] = s.replace(/^-/, "").replace(/s$/, "").split(".");
      const nanos = Number(frac.padEnd(9, "0"));
      return neg ? new Duration(-BigInt(sec), -nanos) : new Duration(BigInt(sec), nanos);
    }
  }
  throw new Error(`unsupported expected value ${JSON.stringify(v)}`);
}

/** Binding values: maps become plain objects when all keys are strings, as the library expects. */
function toBinding(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toBinding);
  if (v instanceof Map) {
    if ([...v.keys()].every((k) => typeof k === "string")) {
      return Object.fromEntries([...v].map(([k, x]) => [k, toBinding(x)]));
    }
    return new Map([...v].map(([k, x]) => [k, toBinding(x)]));
  }
  return v;
}

function typeName(v: unknown): string {
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (v instanceof UnsignedInt) return "uint";
  return typeof v;
}

function equal(a: unknown, b: unknown): boolean {
  if (typeof b === "object" && b !== null && "celType" in (b as Json)) {
    const name = (a as { name?: string } | null)?.name ?? String(a);
    return name === (b as Json).celType;
  }
  if (typeof a === "number" && typeof b === "number") {
    return (Number.isNaN(a) && Number.isNaN(b)) || Object.is(a, b) || a === b;
  }
  if (typeName(a) !== typeName(b)) return false;
  if (a instanceof UnsignedInt) return a.valueOf() === (b as UnsignedInt).valueOf();
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Duration) {
    return b instanceof Duration && a.seconds === b.seconds && a.nanos === b.nanos;
  }
  if (a instanceof Uint8Array) {
    return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (Array.isArray(a) || a instanceof Set) {
    const la = [...a], lb = Array.isArray(b) ? b : [];
    return la.length === lb.length && la.every((x, i) => equal(x, lb[i]));
  }
  if (a instanceof Optional) return false;
  const ea = a instanceof Map ? [...a] : Object.entries(a);
  if (!(b instanceof Map) || ea.length !== b.size) return false;
  return ea.every(([k, x]) => {
    for (const [kb, xb] of b) if (equal(k, kb)) return equal(x, xb);
    return false;
  });
}

function show(v: unknown): string {
  try {
    return Deno.inspect(v, { depth: 4, compact: true, breakLength: Infinity }).slice(0, 160);
  } catch {
    return String(v);
  }
}

interface Outcome {
  status: "pass" | "fail" | "skip";
  reason: string;
}

const envCache = new Map<string, CelEnvironment>();
function environment(vars: CelVariable[], homogeneous: boolean): CelEnvironment {
  const key = JSON.stringify([vars, homogeneous]);
  let env = envCache.get(key);
  if (!env) {
    env = CelEnvironment.create({
      variables: vars,
      homogeneousAggregateLiterals: homogeneous,
      compileCacheSize: 10,
    });
    envCache.set(key, env);
  }
  return env;
}

function runCase(c: Case): Outcome {
  const skip = skipReason(c);
  if (skip) return { status: "skip", reason: skip };
  const declared = new Map<string, string>();
  for (const d of c.typeEnv ?? []) {
    declared.set(
      String(d.name),
      c.disableCheck ? "dyn" : celType((d.ident as Json | undefined)?.type as Json),
    );
  }
  const bindings: Record<string, unknown> = {};
  for (const [k, b] of Object.entries(c.bindings ?? {})) {
    if (!b.value) return { status: "skip", reason: "binding without value" };
    bindings[k] = toBinding(fromValue(b.value));
    if (!declared.has(k)) declared.set(k, "dyn");
  }
  const vars = [...declared].map(([name, type]) => ({ name, type }));
  let env: CelEnvironment;
  try {
    // The conformance suite assumes heterogeneous literals (Kubernetes enables homogeneous ones).
    env = environment(vars, false);
  } catch (e) {
    return { status: "fail", reason: `environment: ${(e as Error).message}` };
  }
  const expectError = c.evalError !== undefined || c.anyEvalErrors !== undefined;
  const compiled = env.compile(c.expr);
  if (!compiled.ok) {
    if (expectError) return { status: "pass", reason: "" };
    return { status: "fail", reason: `compile error: ${compiled.errors[0].message}` };
  }
  const r = compiled.program.evaluate(bindings, { costLimit: Infinity });
  if (expectError) {
    return r.ok
      ? { status: "fail", reason: `expected error, got ${show(r.value)}` }
      : { status: "pass", reason: "" };
  }
  if (!r.ok) return { status: "fail", reason: `error: ${r.error.message}`.slice(0, 200) };
  const expected = c.value ?? c.typedResult?.result;
  if (!expected) return { status: "pass", reason: "" };
  const want = fromValue(expected);
  if (equal(r.value, want)) return { status: "pass", reason: "" };
  return { status: "fail", reason: `expected ${show(want)}, got ${show(r.value)}` };
}

interface Suite {
  name: string;
  suites?: Suite[];
  tests?: { original: Json }[];
}

Deno.test("conformance: the cel-spec simple tests pass except the known failures", () => {
  const known: Record<string, string> = JSON.parse(Deno.readTextFileSync(KNOWN_FILE));
  const failures: Record<string, string> = {};
  const table: string[] = [];
  let corePass = 0, coreRun = 0;
  for (const file of (tests as Suite).suites ?? []) {
    const counts = { pass: 0, fail: 0, skip: 0 };
    for (const section of file.suites ?? []) {
      for (const t of section.tests ?? []) {
        const c = t.original as unknown as Case;
        const id = `${file.name}/${section.name}/${c.name}`;
        let o: Outcome;
        try {
          o = runCase(c);
        } catch (e) {
          o = { status: "fail", reason: `threw: ${(e as Error).message}`.slice(0, 200) };
        }
        counts[o.status]++;
        if (o.status === "fail") failures[id] = o.reason;
        if (CORE.has(file.name) && o.status !== "skip") {
          coreRun++;
          if (o.status === "pass") corePass++;
        }
      }
    }
    table.push(
      `${file.name.padEnd(18)} pass ${String(counts.pass).padStart(4)}  fail ${
        String(counts.fail).padStart(4)
      }  skip ${String(counts.skip).padStart(4)}`,
    );
  }
  const rate = (100 * corePass) / coreRun;
  console.log(table.join("\n"));
  console.log(`core language: ${corePass}/${coreRun} runnable cases pass (${rate.toFixed(1)}%)`);
  if (Deno.env.get("CEL_CONFORMANCE_UPDATE") === "1") {
    const sorted = Object.fromEntries(Object.entries(failures).sort(([a], [b]) => a < b ? -1 : 1));
    Deno.writeTextFileSync(KNOWN_FILE, JSON.stringify(sorted, null, 2) + "\n");
  }
  const regressions = Object.keys(failures).filter((id) => !(id in known));
  const newPasses = Object.keys(known).filter((id) => !(id in failures));
  if (newPasses.length) {
    console.log(
      `new passes (remove from conformance_known_failures.json):\n  ${newPasses.join("\n  ")}`,
    );
  }
  assert.deepStrictEqual(
    regressions.map((id) => `${id}: ${failures[id]}`),
    [],
    "conformance regressions (not in the known-failures file)",
  );
  assert.deepStrictEqual(
    newPasses,
    [],
    "known failures that now pass: update the known-failures file",
  );
  assert.ok(rate >= 90, `core-language pass rate ${rate.toFixed(1)}% is below 90%`);
});
