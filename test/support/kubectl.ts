/**
 * Runs the real kubectl in end-to-end tests: found on PATH (or at /usr/bin/kubectl), run with
 * only a kubeconfig and a temp HOME in its environment, and skipped with a message where it
 * is absent.
 *
 * ```ts
 * Deno.test({ name: "...", ignore: skipWithoutKubectl("the kubectl foo tests"), async fn() {
 *   const s = await startTestServer();
 *   const r = await runKubectl(kubectlFor(s), ["get", "ns"]);
 * } });
 * ```
 *
 * @module
 */
import assert from "node:assert/strict";

/** The path of kubectl on PATH (or /usr/bin/kubectl), undefined where there is none. */
export function findKubectl(path: string = Deno.env.get("PATH") ?? ""): string | undefined {
  for (const dir of [...path.split(":"), "/usr/bin"]) {
    if (!dir) continue;
    try {
      if (Deno.statSync(`${dir}/kubectl`).isFile) return `${dir}/kubectl`;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** kubectl on this machine, undefined where there is none. */
export const KUBECTL: string | undefined = findKubectl();

/**
 * True where kubectl is absent, after printing that `what` is skipped: use as a test's
 * `ignore`.
 */
export function skipWithoutKubectl(what: string): boolean {
  if (KUBECTL !== undefined) return false;
  console.warn(`kubectl is not on PATH: skipping ${what}`);
  return true;
}

/** The cluster kubectl talks to and the HOME it keeps its cache in (a temp directory). */
export interface KubectlTarget {
  /** The kubeconfig file (KUBECONFIG). */
  kubeconfig: string;
  /** A temp directory used as HOME. */
  home: string;
  /** The kubectl to run (default: the one on PATH). */
  bin?: string;
}

/** The target of a test server: its admin kubeconfig, with its data directory as HOME. */
export function kubectlFor(t: { server: { kubeconfigPath: string }; dir: string }): KubectlTarget {
  return { kubeconfig: t.server.kubeconfigPath, home: t.dir };
}

/** What one kubectl run printed and its exit code. */
export interface KubectlRun {
  code: number;
  stdout: string;
  stderr: string;
}

function command(target: KubectlTarget, args: string[], stdin: boolean): Deno.Command {
  const bin = target.bin ?? KUBECTL;
  if (bin === undefined) throw new Error("kubectl is not on PATH");
  return new Deno.Command(bin, {
    args,
    env: { KUBECONFIG: target.kubeconfig, HOME: target.home },
    clearEnv: true,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  });
}

/** Runs kubectl to its end, writing `stdin` (when given) to its standard input. */
export async function runKubectl(
  target: KubectlTarget,
  args: string[],
  stdin?: string,
): Promise<KubectlRun> {
  const child = command(target, args, stdin !== undefined).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Starts kubectl (stdout and stderr piped) for a caller that reads it as it runs. */
export function spawnKubectl(target: KubectlTarget, args: string[]): Deno.ChildProcess {
  return command(target, args, false).spawn();
}

/** Asserts that a run succeeded and returns its stdout. */
export function kubectlOk(r: KubectlRun): string {
  assert.equal(r.code, 0, `kubectl failed (${r.code}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}
