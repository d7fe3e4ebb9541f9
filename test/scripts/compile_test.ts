/**
 * `deno task compile`: where `DENORT_BIN` is set, builds both executables and runs `--version`;
 * everywhere, proves from `deno info --json` that what the binaries need is embedded: every
 * module resolves, none is imported dynamically, nothing is read beside the source through
 * `import.meta`, and every worker module is listed for `--include`.
 */
import assert from "node:assert/strict";
import { TARGETS } from "../../scripts/compile.ts";

const ROOT = new URL("../../", import.meta.url);
const ROOT_PATH = ROOT.pathname;

interface InfoModule {
  specifier: string;
  kind?: string;
  error?: string;
  dependencies?: { specifier: string; isDynamic?: boolean; code?: { error?: string } }[];
}

async function graph(entry: string): Promise<InfoModule[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT_PATH,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout)).modules;
}

/** `import.meta` uses that would read or load a file beside the source at run time. */
const META_USE = /import\.meta\.(url|dirname|filename|resolve)/g;
const WORKER_URL = /new Worker\(\s*new URL\(\s*"([^"]+)",\s*import\.meta\.url\s*\)/g;

async function problemsOf(entry: string, include: string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const m of await graph(entry)) {
    if (m.error) problems.push(`${m.specifier}: ${m.error}`);
    for (const d of m.dependencies ?? []) {
      if (d.isDynamic) problems.push(`${m.specifier}: dynamic import of ${d.specifier}`);
      if (d.code?.error) problems.push(`${m.specifier}: ${d.specifier}: ${d.code.error}`);
    }
    if (!m.specifier.startsWith("file:") || !m.specifier.startsWith(ROOT.href)) continue;
    const source = await Deno.readTextFile(new URL(m.specifier));
    const workers = [...source.matchAll(WORKER_URL)];
    const uses = [...source.matchAll(META_USE)].length;
    if (uses !== workers.length) problems.push(`${m.specifier}: import.meta used to find a file`);
    for (const w of workers) {
      const target = new URL(w[1], m.specifier).href.slice(ROOT.href.length);
      if (!include.includes(target)) problems.push(`${m.specifier}: worker ${target} not included`);
    }
  }
  return problems;
}

for (const t of TARGETS) {
  Deno.test(`compile: ${t.name}'s module graph is closed and static, workers included`, async () => {
    const problems = await problemsOf(t.entry, t.include);
    for (const w of t.include) problems.push(...await problemsOf(w, t.include));
    assert.deepEqual(problems, []);
  });
}

Deno.test({
  name: "deno task compile builds both executables, which print --version",
  ignore: !Deno.env.get("DENORT_BIN"),
  async fn() {
    const built = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/compile.ts", "--no-check"],
      cwd: ROOT_PATH,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(built.success, new TextDecoder().decode(built.stderr));
    for (const t of TARGETS) {
      const out = await new Deno.Command(`${ROOT_PATH}dist/${t.name}`, {
        args: ["--version"],
        stdout: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout);
      assert.match(text, new RegExp(`^${t.name} \\S+ \\d+\\.\\d+\\.\\d+$`, "m"));
      assert.match(text, /^kubernetes: v1\.32\.\d+$/m);
      assert.match(text, new RegExp(`^deno: ${Deno.version.deno} `, "m"));
      assert.match(text, /^commit: ([0-9a-f]{40}(-dirty)?|unknown)$/m);
    }
  },
});

if (!Deno.env.get("DENORT_BIN")) {
  console.error("compile_test: DENORT_BIN is not set: the build itself is skipped");
}
