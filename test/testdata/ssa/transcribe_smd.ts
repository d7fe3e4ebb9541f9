/**
 * One-time transcription of structured-merge-diff's multi-step merge scenarios (the Go test
 * literals in `merge/*_test.go` of kubernetes-sigs/structured-merge-diff, Apache-2.0) into this
 * project's JSON format: per case the schema, the operations (manager, apiVersion, object,
 * expected conflicts), the expected object and each manager's expected fields as fieldsV1.
 *
 * Usage: ./scripts/deno run -A test/testdata/ssa/transcribe_smd.ts <smd-checkout> <out-dir>
 *
 * @module
 */
import { parse as parseYaml } from "yaml";

type Tok = { t: "id" | "str" | "num" | "p"; v: string };

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
    } else if (src.startsWith("//", i)) {
      i = src.indexOf("\n", i);
      if (i < 0) break;
    } else if (src.startsWith("/*", i)) {
      i = src.indexOf("*/", i) + 2;
    } else if (c === "`") {
      const j = src.indexOf("`", i + 1);
      out.push({ t: "str", v: src.slice(i + 1, j) });
      i = j + 1;
    } else if (c === '"') {
      let j = i + 1;
      while (src[j] !== '"') j += src[j] === "\\" ? 2 : 1;
      out.push({ t: "str", v: JSON.parse(src.slice(i, j + 1)) });
      i = j + 1;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9.]+/.exec(src.slice(i))!;
      out.push({ t: "num", v: m[0] });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_0-9]+/.exec(src.slice(i))!;
      out.push({ t: "id", v: m[0] });
      i += m[0].length;
    } else {
      out.push({ t: "p", v: c });
      i++;
    }
  }
  return out;
}

type Node =
  | { k: "lit"; type: string; elems: { key?: Node; value: Node }[] }
  | { k: "call"; fn: string; args: Node[] }
  | { k: "id"; name: string }
  | { k: "str"; v: string }
  | { k: "num"; v: number };

class P {
  i = 0;
  constructor(readonly toks: Tok[]) {}
  peek(o = 0): Tok | undefined {
    return this.toks[this.i + o];
  }
  eat(v?: string): Tok {
    const t = this.toks[this.i++];
    if (v !== undefined && t?.v !== v) throw new Error(`expected ${v}, got ${t?.v} at ${this.i}`);
    return t;
  }
  type(): string {
    const t = this.peek()!;
    if (t.v === "[") {
      this.eat("[");
      this.eat("]");
      return "[]" + this.type();
    }
    if (t.v === "*") {
      this.eat();
      return this.type();
    }
    if (t.v === "map") {
      this.eat();
      this.eat("[");
      const k = this.type();
      this.eat("]");
      return `map[${k}]${this.type()}`;
    }
    let name = this.eat().v;
    while (this.peek()?.v === "." && this.peek(1)?.t === "id") {
      this.eat();
      name += "." + this.eat().v;
    }
    return name;
  }
  elems(): { key?: Node; value: Node }[] {
    this.eat("{");
    const out: { key?: Node; value: Node }[] = [];
    while (this.peek()?.v !== "}") {
      let value: Node;
      if (this.peek()?.v === "{") value = { k: "lit", type: "", elems: this.elems() };
      else value = this.expr();
      if (this.peek()?.v === ":") {
        this.eat();
        const v2 = this.peek()?.v === "{"
          ? { k: "lit" as const, type: "", elems: this.elems() }
          : this.expr();
        out.push({ key: value, value: v2 });
      } else out.push({ value });
      if (this.peek()?.v === ",") this.eat();
    }
    this.eat("}");
    return out;
  }
  expr(): Node {
    const t = this.peek()!;
    if (t.v === "&") {
      this.eat();
      return this.expr();
    }
    if (t.v === "-") {
      this.eat();
      return { k: "num", v: -Number(this.eat().v) };
    }
    if (t.t === "str") {
      this.eat();
      return { k: "str", v: t.v };
    }
    if (t.t === "num") {
      this.eat();
      return { k: "num", v: Number(t.v) };
    }
    if (t.v === "[" || t.v === "map" || t.v === "*") {
      const type = this.type();
      return { k: "lit", type, elems: this.elems() };
    }
    const name = this.type();
    if (this.peek()?.v === "{") return { k: "lit", type: name, elems: this.elems() };
    if (this.peek()?.v === "(") {
      this.eat();
      const args: Node[] = [];
      while (this.peek()?.v !== ")") {
        args.push(this.expr());
        if (this.peek()?.v === ",") this.eat();
      }
      this.eat(")");
      let n: Node = { k: "call", fn: name, args };
      while (this.peek()?.v === "." && this.peek(1)?.t === "id") {
        this.eat();
        const m = this.eat().v;
        if (this.peek()?.v === "(") {
          this.eat();
          const a2: Node[] = [];
          while (this.peek()?.v !== ")") {
            a2.push(this.expr());
            if (this.peek()?.v === ",") this.eat();
          }
          this.eat(")");
          n = { k: "call", fn: `(${name}).${m}`, args: [n, ...a2] };
        }
      }
      return n;
    }
    return { k: "id", name };
  }
}

function fixTabs(s: string): string {
  let lines = s.split("\n");
  if (lines[0] === "" && lines.length > 1) lines = lines.slice(1);
  const prefix = /^\t*/.exec(lines[0])![0];
  return lines.map((l, i) => {
    if (i === lines.length - 1 && l.trim() === "") return "";
    return l.startsWith(prefix) ? l.slice(prefix.length) : l;
  }).join("\n");
}

function yamlValue(s: string): unknown {
  const text = fixTabs(s).replace(/^(\t+)/gm, (m) => "  ".repeat(m.length));
  const v = parseYaml(text);
  return v === undefined ? null : v;
}

type PE = string;

function pathElem(n: Node): PE {
  if (n.k === "str") return "f:" + n.v;
  if (n.k === "num") return "i:" + n.v;
  if (n.k === "call" && n.fn === "_V") return "v:" + JSON.stringify(val(n.args[0]));
  if (n.k === "call" && n.fn === "_KBF") {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < n.args.length; i += 2) o[(n.args[i] as { v: string }).v] = val(n.args[i + 1]);
    const keys = Object.keys(o).sort();
    return "k:{" + keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(o[k])}`).join(",") + "}";
  }
  throw new Error(`unknown path element ${JSON.stringify(n)}`);
}

function val(n: Node): unknown {
  if (n.k === "str") return n.v;
  if (n.k === "num") return n.v;
  if (n.k === "id" && (n.name === "true" || n.name === "false")) return n.name === "true";
  if (n.k === "id" && n.name === "nil") return null;
  if (n.k === "id" && /^v[0-9]+$/.test(n.name)) return n.name;
  throw new Error(`unknown value ${JSON.stringify(n)}`);
}

function path(n: Node): PE[] {
  if (n.k !== "call" || (n.fn !== "_P" && n.fn !== "fieldpath.MakePathOrDie")) {
    throw new Error(`expected path, got ${JSON.stringify(n).slice(0, 80)}`);
  }
  return n.args.map(pathElem);
}

/** A set as our JSON: list of paths (each a list of fieldsV1 keys). */
function set(n: Node): PE[][] {
  if (n.k === "call" && (n.fn === "_NS" || n.fn === "fieldpath.NewSet")) return n.args.map(path);
  throw new Error(`expected set, got ${JSON.stringify(n).slice(0, 80)}`);
}

function field(elems: { key?: Node; value: Node }[], name: string): Node | undefined {
  return elems.find((e) => e.key?.k === "id" && e.key.name === name)?.value;
}

const OPS: Record<string, string> = {
  Apply: "apply",
  ForceApply: "forceApply",
  Update: "update",
  ExtractApply: "extractApply",
  ApplyObject: "applyObject",
  UpdateObject: "updateObject",
  ForceApplyObject: "forceApplyObject",
  ChangeParser: "changeParser",
};

function op(n: Node, parsers: Record<string, unknown>): Record<string, unknown> {
  if (n.k !== "lit") throw new Error("operation must be a literal");
  const name = n.type.replace(/^fixture\./, "");
  const kind = OPS[name];
  if (!kind) throw new Error(`unknown operation ${name}`);
  if (kind === "changeParser") {
    const p = field(n.elems, "Parser");
    return { op: kind, parser: p ? describeParser(p, parsers) : null };
  }
  const out: Record<string, unknown> = { op: kind };
  const m = field(n.elems, "Manager");
  const v = field(n.elems, "APIVersion");
  const o = field(n.elems, "Object");
  if (m) out.manager = val(m);
  if (v) out.apiVersion = val(v);
  if (o?.k === "str") out.object = yamlValue(o.v);
  else if (o) out.objectUnsupported = true;
  const c = field(n.elems, "Conflicts");
  if (c && c.k === "lit") {
    out.conflicts = c.elems.map((e) => {
      const cl = e.value as { elems: { key?: Node; value: Node }[] };
      return { manager: val(field(cl.elems, "Manager")!), path: path(field(cl.elems, "Path")!) };
    });
  }
  return out;
}

function describeParser(n: Node, parsers: Record<string, unknown>): unknown {
  if (n.k === "id") {
    if (n.name === "DeducedParser") return { deduced: true };
    return parsers[n.name] ?? { unknown: n.name };
  }
  if (n.k === "lit" && /SameVersionParser$/.test(n.type)) {
    return describeParser(field(n.elems, "T")!, parsers);
  }
  if (n.k === "call" && n.fn.endsWith(".Type")) {
    const inner = n.args[0];
    const base = inner.k === "call" ? describeParser(inner, parsers) : describeParser(
      { k: "id", name: n.fn.slice(1, n.fn.indexOf(")")) },
      parsers,
    );
    return { ...(base as object), root: val(n.args[1]) };
  }
  if (n.k === "call" && /\.Type$/.test(n.fn)) {
    const v = n.fn.slice(0, -5);
    return { ...(parsers[v] as object), root: val(n.args[0]) };
  }
  if (n.k === "call" && n.fn === "typed.DeducedParseableType") return { deduced: true };
  return { unknown: JSON.stringify(n).slice(0, 60) };
}

function testCase(n: Node, parsers: Record<string, unknown>): Record<string, unknown> {
  if (n.k !== "lit") throw new Error("test case must be a literal");
  const out: Record<string, unknown> = {};
  const ops = field(n.elems, "Ops");
  out.ops = ops && ops.k === "lit" ? ops.elems.map((e) => op(e.value, parsers)) : [];
  const o = field(n.elems, "Object");
  if (o?.k === "str") out.object = yamlValue(o.v);
  const v = field(n.elems, "APIVersion");
  if (v) out.apiVersion = val(v);
  const m = field(n.elems, "Managed");
  if (m && m.k === "lit") {
    const managed: Record<string, unknown> = {};
    for (const e of m.elems) {
      const vs = e.value as Node;
      if (vs.k !== "call") throw new Error("managed entry must be NewVersionedSet");
      managed[val(e.key!) as string] = {
        paths: set(vs.args[0]),
        apiVersion: val(vs.args[1]),
        applied: val(vs.args[2]),
      };
    }
    out.managed = managed;
  }
  const ig = field(n.elems, "IgnoreFilter");
  if (ig && ig.k === "lit") {
    const filters: Record<string, unknown> = {};
    for (const e of ig.elems) {
      const call = e.value as { fn: string; args: Node[] };
      filters[val(e.key!) as string] = call.fn.endsWith("NewExcludeSetFilter")
        ? { exclude: set(call.args[0]) }
        : { unsupported: call.fn };
    }
    out.ignore = filters;
  }
  if (field(n.elems, "ReturnInputOnNoop")) out.returnInputOnNoop = true;
  return out;
}

function findParsers(src: string): Record<string, unknown> {
  const parsers: Record<string, unknown> = {};
  const re = /var (\w+) = func\(\) [\w.*]+ \{([\s\S]*?)\n\s*\}\(\)/g;
  for (const m of src.matchAll(re)) {
    const body = m[2];
    const y = /NewParser\(`([\s\S]*?)`\)/.exec(body);
    if (!y) continue;
    const schema = parseYaml(y[1]);
    const t = /\.Type\("([^"]+)"\)/.exec(body);
    parsers[m[1]] = { schema, ...(t ? { root: t[1] } : {}) };
  }
  return parsers;
}

function transcribeFile(file: string, src: string, extra: Record<string, unknown>) {
  const parsers = { ...extra, ...findParsers(src) };
  const cases: Record<string, unknown>[] = [];
  const problems: string[] = [];
  const fnRe = /\nfunc (Test\w+)\(t \*testing\.T\) \{/g;
  const starts = [...src.matchAll(fnRe)];
  starts.forEach((m, idx) => {
    const body = src.slice(m.index!, starts[idx + 1]?.index ?? src.length);
    const run = /\.(Test|TestWithConverter)\(([^\n]*)\)\s*;?\s*(?:err|\n|!=|==)/.exec(body);
    const expectError = /\.Test\([^\n]*\) == nil/.test(body);
    let parser: unknown = { unknown: "none" };
    let converter: string | undefined;
    if (run) {
      const argsToks = tokenize(run[2]);
      const p = new P(argsToks);
      try {
        parser = describeParser(p.expr(), parsers);
        if (run[1] === "TestWithConverter") {
          if (p.peek()?.v === ",") p.eat();
          converter = argsToks.slice(p.i).map((t) => t.v).join("");
        }
      } catch (err) {
        problems.push(`${m[1]}: parser: ${(err as Error).message}`);
      }
    }
    const toks = tokenize(body);
    for (let i = 0; i < toks.length; i++) {
      const isMap = toks[i].v === "map" && toks[i + 1]?.v === "[" && toks[i + 2]?.v === "string" &&
        (toks[i + 4]?.v === "TestCase" ||
          (toks[i + 4]?.v === "fixture" && toks[i + 6]?.v === "TestCase"));
      if (!isMap) continue;
      const p = new P(toks);
      p.i = i;
      try {
        const lit = p.expr() as Extract<Node, { k: "lit" }>;
        for (const e of lit.elems) {
          const name = val(e.key!) as string;
          try {
            cases.push({
              test: m[1],
              name,
              parser,
              ...(converter ? { converter } : {}),
              ...(expectError ? { expectError: true } : {}),
              ...testCase(e.value, parsers),
            });
          } catch (err) {
            problems.push(`${m[1]}/${name}: ${(err as Error).message}`);
          }
        }
        i = p.i;
      } catch (err) {
        problems.push(`${m[1]}: ${(err as Error).message}`);
      }
    }
  });
  return { file, cases, problems };
}

if (import.meta.main) {
  const [root, outDir] = Deno.args;
  const files = [...Deno.readDirSync(`${root}/merge`)].map((e) => e.name)
    .filter((n) => n.endsWith("_test.go")).sort();
  let all: Record<string, unknown> = {};
  for (const f of files) all = { ...all, ...findParsers(Deno.readTextFileSync(`${root}/merge/${f}`)) };
  for (const f of files) {
    const src = Deno.readTextFileSync(`${root}/merge/${f}`);
    const r = transcribeFile(f, src, all);
    if (r.cases.length === 0) {
      console.log(`${f}: no scenarios ${r.problems.join("; ")}`);
      continue;
    }
    const out = {
      source: `kubernetes-sigs/structured-merge-diff v4.4.2 merge/${f} (Apache-2.0); transcribed`,
      cases: r.cases,
    };
    Deno.writeTextFileSync(
      `${outDir}/smd_${f.replace(/_test\.go$/, "")}.json`,
      JSON.stringify(out, null, 1) + "\n",
    );
    console.log(`${f}: ${r.cases.length} scenarios${r.problems.length ? `, problems: ${r.problems.join("; ")}` : ""}`);
  }
}
