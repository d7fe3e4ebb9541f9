/**
 * kubectl 1.20 for end-to-end tests of the clients that read the OpenAPI v2 document (its
 * explain, and its client-side validation of `create` and `apply`): Debian's
 * `kubernetes-client` package (1.20), unpacked under `.tools/kubectl-1.20/` (it conflicts with
 * the system kubectl, so it is never installed). Where it is not there yet, one
 * `apt-get download` (with a timeout) fetches it; where that fails or yields another version,
 * the tests skip with a message. `.ci/run` fetches it ahead of the tests.
 *
 * @module
 */
/** Where the package is unpacked (its kubectl is `usr/bin/kubectl` under it). */
export const KUBECTL_120_DIR: string = `${import.meta.dirname}/../../.tools/kubectl-1.20`;

const BIN = `${KUBECTL_120_DIR}/usr/bin/kubectl`;

async function run(
  cmd: string,
  args: string[],
  cwd?: string,
  timeoutMs = 120_000,
): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(cmd, {
      args,
      cwd,
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(timeoutMs),
    }).output();
    return out.success ? new TextDecoder().decode(out.stdout) : undefined;
  } catch {
    return undefined;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** Downloads and unpacks the package; false where apt-get or dpkg fail. */
async function fetchPackage(): Promise<boolean> {
  const tmp = await Deno.makeTempDir({ prefix: "kubectl-120-" });
  try {
    if (await run("apt-get", ["download", "-q", "kubernetes-client"], tmp) === undefined) {
      return false;
    }
    const deb = [...Deno.readDirSync(tmp)].find((e) => e.name.endsWith(".deb"));
    if (!deb) return false;
    await Deno.mkdir(KUBECTL_120_DIR, { recursive: true });
    return await run("dpkg", ["-x", `${tmp}/${deb.name}`, KUBECTL_120_DIR]) !== undefined;
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

/**
 * The path of kubectl 1.20, fetching it once where needed; undefined (after printing why `what`
 * is skipped) where it cannot be had.
 */
export async function findKubectl120(what: string): Promise<string | undefined> {
  if (!await isFile(BIN) && !await fetchPackage()) {
    console.warn(`Debian's kubernetes-client (kubectl 1.20) cannot be fetched: skipping ${what}`);
    return undefined;
  }
  const version = await run(BIN, ["version", "--client", "--short"]);
  if (!version?.includes("v1.20.")) {
    console.warn(`${BIN} is not kubectl 1.20 (${version?.trim()}): skipping ${what}`);
    return undefined;
  }
  return BIN;
}
