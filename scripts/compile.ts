/**
 * Compiles both executables into `dist/` with `deno compile`: `deno task compile` builds
 * `dist/apiserver` and `dist/nodeagent` for linux-x64; `--target=aarch64-unknown-linux-gnu`
 * builds `dist/aarch64-unknown-linux-gnu/{apiserver,nodeagent}`. `--no-check` skips the type
 * check (`deno task check` does it).
 *
 * Every module is embedded: the entry point's static graph, plus the worker modules (which
 * `deno compile` does not follow) listed in {@link TARGETS}; `test/scripts/compile_test.ts`
 * proves nothing else is loaded. The build commit goes in through an embedded env file.
 *
 * `deno compile` needs Deno's runtime binary (`denort`). On machines that cannot download it
 * (air-gapped), point `DENORT_BIN` at a local copy: Deno itself honours that variable.
 *
 * @module
 */
import { BUILD_COMMIT_ENV } from "../shared/build_info.ts";

/** An executable: its entry point, its output name and the worker modules it starts. */
export interface CompileTarget {
  entry: string;
  name: string;
  /** Modules started as workers (`new Worker(new URL(…))`), embedded with `--include`. */
  include: string[];
}

/** Both executables. */
export const TARGETS: CompileTarget[] = [
  {
    entry: "cmd/apiserver.ts",
    name: "apiserver",
    include: ["apiserver/storage/libsql/write_worker.ts", "apiserver/http/yaml_worker.ts"],
  },
  { entry: "cmd/nodeagent.ts", name: "nodeagent", include: [] },
];

/** The platforms built for; the first is the default (`dist/<name>`). */
export const PLATFORMS = ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"];

/** The `deno compile` arguments of `t` for `platform`, writing into `outDir`. */
export function compileArgs(
  t: CompileTarget,
  o: { platform: string; outDir: string; envFile: string; check: boolean },
): string[] {
  return [
    "compile",
    "-A",
    ...(o.check ? [] : ["--no-check"]),
    "--target",
    o.platform,
    `--env-file=${o.envFile}`,
    ...t.include.flatMap((f) => ["--include", f]),
    "--output",
    `${o.outDir}/${t.name}`,
    t.entry,
  ];
}

/** The commit of the tree in `dir` (`-dirty` when it has changes), or "unknown". */
export async function gitCommit(dir = "."): Promise<string> {
  const git = (...args: string[]) =>
    new Deno.Command("git", { args: ["-C", dir, ...args], stdout: "piped", stderr: "null" })
      .output().then((o) => o.success ? new TextDecoder().decode(o.stdout).trim() : undefined)
      .catch(() => undefined);
  const head = await git("rev-parse", "HEAD");
  if (!head) return "unknown";
  const status = await git("status", "--porcelain", "--untracked-files=no");
  return status ? `${head}-dirty` : head;
}

async function main(args: string[]): Promise<number> {
  const targetArg = args.find((a) => a.startsWith("--target="))?.slice("--target=".length);
  const platform = targetArg ?? PLATFORMS[0];
  if (!PLATFORMS.includes(platform)) {
    console.error(`error: --target must be one of ${PLATFORMS.join(", ")}`);
    return 2;
  }
  if (!Deno.env.get("DENORT_BIN")) {
    console.error(
      "note: DENORT_BIN is not set; deno compile will try to download denort, which fails on " +
        "air-gapped machines. Set DENORT_BIN=/path/to/denort to use a local copy.",
    );
  }
  const outDir = platform === PLATFORMS[0] ? "dist" : `dist/${platform}`;
  await Deno.mkdir(outDir, { recursive: true });
  const envFile = await Deno.makeTempFile({ prefix: "compile-", suffix: ".env" });
  await Deno.writeTextFile(envFile, `${BUILD_COMMIT_ENV}=${await gitCommit()}\n`);
  let failed = false;
  try {
    for (const t of TARGETS) {
      const check = !args.includes("--no-check");
      const { code } = await new Deno.Command(Deno.execPath(), {
        args: compileArgs(t, { platform, outDir, envFile, check }),
        stdout: "inherit",
        stderr: "inherit",
      }).output();
      if (code !== 0) failed = true;
      else console.log(`built ${outDir}/${t.name}`);
    }
  } finally {
    await Deno.remove(envFile);
  }
  return failed ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
