/**
 * The import rules of the layout: cmd → apiserver | nodeagent → shared; inside the server
 * http → registry → auth and storage; only storage/libsql imports the libSQL drivers; no
 * module imports itself through a chain of others.
 */
import assert from "node:assert/strict";

const ROOTS = ["cmd", "apiserver", "nodeagent", "shared"];

/** One import: the importing file and what it imports (a repo path, or `npm:`/`node:` spec). */
interface Import {
  file: string;
  target: string;
  /** A file referenced by `new URL(…, import.meta.url)` (a worker) rather than imported. */
  url?: boolean;
}

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sources(path);
    else if (e.name.endsWith(".ts")) yield path;
  }
}

/** Relative specifiers become repo paths; bare ones go through deno.json's import map. */
function resolve(from: string, spec: string, importMap: Record<string, string>): string {
  if (!spec.startsWith(".")) {
    const bare = Object.keys(importMap).find((k) => spec === k || spec.startsWith(`${k}/`));
    return bare === undefined ? spec : importMap[bare] + spec.slice(bare.length);
  }
  const parts = from.split("/").slice(0, -1);
  for (const p of spec.split("/")) {
    if (p === "..") parts.pop();
    else if (p !== ".") parts.push(p);
  }
  return parts.join("/");
}

const SPECIFIERS = [
  /(?:^|\n)\s*(?:import|export)[^;]*?from\s+"([^"]+)"/g, // import … from "x", export … from "x"
  /(?:^|\n)\s*import\s+"([^"]+)"/g, // import "x" (for its side effects)
  /\bimport\(\s*"([^"]+)"\s*\)/g, // import("x")
];
const FILE_URL = /new URL\("([^"]+)", import\.meta\.url\)/g; // workers and files next to a module

async function imports(): Promise<Import[]> {
  const importMap = JSON.parse(await Deno.readTextFile("deno.json")).imports ?? {};
  const out: Import[] = [];
  for (const root of ROOTS) {
    for await (const file of sources(root)) {
      const text = await Deno.readTextFile(file);
      for (const re of SPECIFIERS) {
        for (const m of text.matchAll(re)) {
          out.push({ file, target: resolve(file, m[1], importMap) });
        }
      }
      for (const m of text.matchAll(FILE_URL)) {
        out.push({ file, target: resolve(file, m[1], importMap), url: true });
      }
    }
  }
  return out;
}

const RULES: { name: string; from: RegExp; forbidden: RegExp; except?: RegExp }[] = [
  {
    name: "shared imports nothing of the repo outside shared",
    from: /^shared\//,
    // A target without a scheme (npm:, node:) is a file of the repo.
    forbidden: /^(?![a-z]+:)(?!shared\/)/,
  },
  {
    name: "the node agent does not import the API server",
    from: /^nodeagent\//,
    forbidden: /^(apiserver|cmd)\//,
  },
  {
    name: "the API server does not import the node agent",
    from: /^apiserver\//,
    forbidden: /^(nodeagent|cmd)\//,
  },
  {
    name: "storage never sees HTTP or the registry",
    from: /^apiserver\/storage\//,
    forbidden: /^apiserver\/(http|registry|auth|admission|watch)\//,
  },
  {
    name: "registry, fieldmanager, storage, watch, cel and auth never import the HTTP layer",
    from: /^apiserver\/(registry|fieldmanager|storage|watch|cel|auth)\//,
    forbidden: /^apiserver\/http\//,
  },
  {
    name: "auth never imports the registry (the registry and the wiring pass implementations in)",
    from: /^apiserver\/auth\//,
    forbidden: /^apiserver\/registry\//,
  },
  {
    name: "the field manager does not import the HTTP layer",
    from: /^apiserver\/fieldmanager\//,
    forbidden: /^apiserver\/http\//,
  },
  {
    name: "only storage/libsql imports the libSQL drivers (@libsql/client, libsql)",
    from: /./,
    forbidden: /^(npm:)?(@libsql\/client|libsql)(@|\/|$)/,
    except: /^apiserver\/storage\/libsql\//,
  },
];

/**
 * The import cycles: strongly connected components (Tarjan) of more than one file, or a file
 * importing itself, each a sorted list of files. Type-only imports count (they are arrows too); a
 * worker started with `new URL(…)` runs in a module graph of its own, so that is not an import.
 */
function cycles(all: Import[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const { file, target, url } of all) {
    if (!edges.has(file)) edges.set(file, []);
    if (!url && /^(cmd|apiserver|nodeagent|shared)\//.test(target)) {
      edges.get(file)!.push(target);
    }
  }
  const index = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], onStack = new Set<string>(), found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

Deno.test("imports follow the layering rules", async (t) => {
  const all = await imports();
  for (const rule of RULES) {
    await t.step(rule.name, () => {
      const bad = all.filter((i) =>
        rule.from.test(i.file) && rule.forbidden.test(i.target) && !(rule.except?.test(i.file))
      ).map((i) => `${i.file} → ${i.target}`);
      assert.deepEqual(bad, []);
    });
  }
  await t.step("no module imports itself through others (no import cycles)", () => {
    assert.deepEqual(cycles(all), []);
  });
});

Deno.test("cycles() finds the files of every cycle, and none in a chain", () => {
  const chain = [
    { file: "shared/a.ts", target: "shared/b.ts" },
    { file: "shared/b.ts", target: "shared/c.ts" },
  ];
  assert.deepEqual(cycles(chain), []);
  assert.deepEqual(
    cycles([
      ...chain,
      { file: "shared/c.ts", target: "shared/a.ts" },
      { file: "shared/d.ts", target: "shared/d.ts" },
      { file: "shared/e.ts", target: "shared/f.ts", url: true },
      { file: "shared/f.ts", target: "shared/e.ts" },
    ]),
    [["shared/a.ts", "shared/b.ts", "shared/c.ts"], ["shared/d.ts"]],
  );
});
