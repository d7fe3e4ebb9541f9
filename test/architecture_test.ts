/**
 * The import rules of the layout: cmd → apiserver | nodeagent → shared; inside the server
 * http → registry → storage; only storage/libsql imports the libSQL drivers.
 */
import assert from "node:assert/strict";

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sources(path);
    else if (e.name.endsWith(".ts")) yield path;
  }
}

function resolve(from: string, spec: string): string {
  if (!spec.startsWith(".")) return spec;
  const parts = from.split("/").slice(0, -1);
  for (const p of spec.split("/")) {
    if (p === "..") parts.pop();
    else if (p !== ".") parts.push(p);
  }
  return parts.join("/");
}

async function imports(): Promise<{ file: string; target: string }[]> {
  const out: { file: string; target: string }[] = [];
  for (const root of ["cmd", "apiserver", "nodeagent", "shared"]) {
    for await (const file of sources(root)) {
      const text = await Deno.readTextFile(file);
      for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^;]*?from\s+"([^"]+)"/g)) {
        out.push({ file, target: resolve(file, m[1]) });
      }
      for (const m of text.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)) {
        out.push({ file, target: resolve(file, m[1]) });
      }
    }
  }
  return out;
}

const RULES: { name: string; from: RegExp; forbidden: RegExp; except?: RegExp }[] = [
  {
    name: "shared imports nothing else of the repo",
    from: /^shared\//,
    forbidden: /^(cmd|apiserver|nodeagent)\//,
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
    name: "the registry does not import the HTTP layer",
    from: /^apiserver\/registry\//,
    forbidden: /^apiserver\/http\//,
  },
  {
    name: "only storage/libsql imports the libSQL drivers (@libsql/client, libsql)",
    from: /./,
    forbidden: /^(npm:)?(@libsql\/client|libsql)(@|\/|$)/,
    except: /^apiserver\/storage\/libsql\//,
  },
];

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
});
