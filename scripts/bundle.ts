/**
 * `deno task bundle`: the air-gapped bundle, `dist/<name>-<version>-linux-x64.tar.gz` and its
 * `.sha256` (in `sha256sum -c` format). Unpacked, it holds:
 *
 * - `deno/deno`: the pinned Deno binary (the one `scripts/deno` installed into `.tools/`);
 * - `app/`: the source of `cmd/`, `apiserver/`, `nodeagent/` and `shared/`, a `deno.json`
 *   whose imports are the npm packages the executables use, the `deno.lock` pruned to them,
 *   and `node_modules/` with those packages (libsql's native addon included);
 * - `bin/apiserver`, `bin/nodeagent`: launchers that run the bundled Deno with `--cached-only
 *   --frozen`, so nothing is fetched and nothing changes at run time;
 * - `install.sh`, `uninstall.sh` (see README: "Air-gapped install"), `README.md`, `BUILD`.
 *
 * Building needs the npm packages in Deno's cache (any earlier `deno task …` run puts them
 * there) or the npm registry. `--out-dir=<dir>` writes elsewhere than `dist/`.
 *
 * @module
 */
import { BUILD_COMMIT_ENV, PROJECT_NAME, PROJECT_VERSION } from "../shared/build_info.ts";
import { gitCommit, TARGETS } from "./compile.ts";

const SOURCE_DIRS = ["cmd", "apiserver", "nodeagent", "shared"];
const DENO_BINARY_DIR = ".tools/deno-%v/node_modules/@deno/linux-x64-glibc/deno";

/** The bundle's base name: `<name>-<version>-linux-x64`. */
export const BUNDLE_BASE = `${PROJECT_NAME}-${PROJECT_VERSION}-linux-x64`;

/** Every module the executables start from: entry points and worker modules. */
export function roots(): string[] {
  return TARGETS.flatMap((t) => [t.entry, ...t.include]);
}

async function run(cmd: string, args: string[], cwd?: string): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** Copies the `.ts` files under `from` into `to`, keeping the tree. */
async function copySources(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copySources(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile && e.name.endsWith(".ts")) {
      await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
    }
  }
}

/** The bare specifiers the module graph of `roots` imports (`yaml`, `@libsql/client`, …). */
async function bareSpecifiers(cwd: string): Promise<Set<string>> {
  const found = new Set<string>();
  for (const root of roots()) {
    const info = JSON.parse(await run(Deno.execPath(), ["info", "--json", root], cwd));
    for (const m of info.modules as { dependencies?: { specifier: string }[] }[]) {
      for (const d of m.dependencies ?? []) {
        if (!/^(\.|\/|[a-z]+:)/.test(d.specifier)) found.add(d.specifier);
      }
    }
  }
  return found;
}

/** Writes `app/deno.json` with only the imports the executables use. */
async function writeConfig(app: string): Promise<void> {
  const config = JSON.parse(await Deno.readTextFile("deno.json"));
  const used = await bareSpecifiers(".");
  const imports = Object.fromEntries(
    Object.entries(config.imports as Record<string, string>).filter(([k]) =>
      [...used].some((s) => s === k || s.startsWith(`${k}/`))
    ),
  );
  const out = { nodeModulesDir: "auto", imports, compilerOptions: config.compilerOptions };
  await Deno.writeTextFile(`${app}/deno.json`, JSON.stringify(out, null, 2) + "\n");
}

/** A launcher: the bundled Deno, offline, on the bundled config and lockfile. */
export function launcher(entry: string, commit: string): string {
  return `#!/bin/sh
# Runs ${entry} from this bundle with the bundled Deno, with no network access needed.
here=$(cd "$(dirname "$0")/.." && pwd)
export DENO_NO_UPDATE_CHECK=1
export ${BUILD_COMMIT_ENV}="\${${BUILD_COMMIT_ENV}:-${commit}}"
exec "$here/deno/deno" run -A --cached-only --frozen --config "$here/app/deno.json" \\
  "$here/app/${entry}" "$@"
`;
}

/** Lays out the bundle's tree in `dir`. */
async function stage(dir: string, commit: string): Promise<void> {
  const app = `${dir}/app`;
  for (const d of SOURCE_DIRS) await copySources(d, `${app}/${d}`);
  await writeConfig(app);
  await Deno.copyFile("deno.lock", `${app}/deno.lock`);
  // Installs the packages of the pruned config (from Deno's cache where present) and prunes
  // the lockfile to them; the versions stay the ones the repository's lockfile pins.
  await run(Deno.execPath(), ["install", "--entrypoint", ...roots()], app);
  const denoVersion = Deno.version.deno;
  await Deno.mkdir(`${dir}/deno`, { recursive: true });
  await Deno.copyFile(DENO_BINARY_DIR.replace("%v", denoVersion), `${dir}/deno/deno`);
  await Deno.chmod(`${dir}/deno/deno`, 0o755);
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  for (const t of TARGETS) {
    await Deno.writeTextFile(`${dir}/bin/${t.name}`, launcher(t.entry, commit), { mode: 0o755 });
  }
  for (const f of ["install.sh", "install_units.sh", "uninstall.sh"]) {
    await Deno.copyFile(`scripts/${f}`, `${dir}/${f}`);
    await Deno.chmod(`${dir}/${f}`, 0o755);
  }
  await Deno.copyFile("README.md", `${dir}/README.md`);
  await Deno.writeTextFile(
    `${dir}/BUILD`,
    `name=${PROJECT_NAME}\nversion=${PROJECT_VERSION}\ncommit=${commit}\ndeno=${denoVersion}\n`,
  );
}

/** Builds the bundle into `outDir`; returns the tarball's path. */
export async function buildBundle(outDir: string): Promise<string> {
  await Deno.mkdir(outDir, { recursive: true });
  const work = await Deno.makeTempDir({ prefix: "bundle-" });
  try {
    await stage(`${work}/${BUNDLE_BASE}`, await gitCommit());
    const tarball = `${outDir}/${BUNDLE_BASE}.tar.gz`;
    await run("tar", [
      "--owner=0",
      "--group=0",
      "--numeric-owner",
      "-czf",
      tarball,
      "-C",
      work,
      BUNDLE_BASE,
    ]);
    const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(tarball));
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    await Deno.writeTextFile(`${tarball}.sha256`, `${hex}  ${BUNDLE_BASE}.tar.gz\n`);
    return tarball;
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

if (import.meta.main) {
  const outDir = Deno.args.find((a) => a.startsWith("--out-dir="))?.slice(10) ?? "dist";
  const tarball = await buildBundle(outDir);
  console.log(`built ${tarball} (${(await Deno.stat(tarball)).size} bytes) and its .sha256`);
}
