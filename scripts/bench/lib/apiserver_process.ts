/**
 * Starts the real API server as a subprocess (`./scripts/deno run -A cmd/apiserver.ts`), so a
 * benchmark's clients and the server use separate CPU accounts and the server's CPU and RSS
 * can be read from `/proc/<pid>`. `BENCH_SERVER_DENO_FLAGS` (space-separated) adds Deno flags to
 * the server's command line, e.g. `--v8-flags=--perf-basic-prof` to profile it with `perf`.
 *
 * @module
 */
import { loadKubeconfig } from "../../../shared/client/kubeconfig.ts";
import { stoppable } from "./stop_child.ts";

/** Options of {@link startApiServerProcess}. */
export interface ApiServerProcessOptions {
  /** Data directory (must exist or be creatable); the caller removes it. */
  dataDir: string;
  /** Extra flags after `--data-dir`, `--secure-port=0`, `--bind-address=127.0.0.1`. */
  flags?: string[];
  /** How long to wait for the ready line, in ms. Default 120 s. */
  readyTimeoutMs?: number;
  /**
   * The source tree whose `cmd/apiserver.ts` runs (default: this one), e.g. a git worktree of
   * another revision. Deno and `node_modules` are this tree's.
   */
  tree?: string;
  /** Environment variables set for the server on top of this process's environment. */
  env?: Record<string, string>;
}

/** A running API server subprocess. */
export interface ApiServerProcess {
  /** The server's pid (the Deno process itself: `scripts/deno` execs it). */
  pid: number;
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** CA that verifies the serving certificate (PEM). */
  caPem: string;
  /** The admin bearer token, when the kubeconfig has one. Secret: never print it. */
  token?: string;
  /** The admin client certificate (PEM), when the kubeconfig has one. */
  clientCertPem?: string;
  /** Its private key (PEM). Secret: never print it. */
  clientKeyPem?: string;
  /** The last lines the server wrote to stderr (for error messages). */
  recentStderr(): string[];
  /** Stops the server (SIGTERM, then SIGKILL after 15 s) and waits for it to exit. */
  stop(): Promise<void>;
}

const READY_LINE = /apiserver ready at (\S+); admin kubeconfig: (.+)$/;
const KEPT_LINES = 50;

const ROOT = new URL("../../../", import.meta.url).pathname;

/** Starts the server and resolves once it prints its ready line. */
export async function startApiServerProcess(
  opts: ApiServerProcessOptions,
): Promise<ApiServerProcess> {
  const child = new Deno.Command(`${ROOT}scripts/deno`, {
    args: [
      "run",
      "-A",
      ...(Deno.env.get("BENCH_SERVER_DENO_FLAGS")?.split(" ").filter((f) => f !== "") ?? []),
      "cmd/apiserver.ts",
      `--data-dir=${opts.dataDir}`,
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      ...(opts.flags ?? []),
    ],
    cwd: opts.tree ?? ROOT,
    ...(opts.env ? { env: opts.env } : {}),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  let onLine: ((line: string) => void) | undefined;
  // Keep draining stderr for the server's whole life: a full pipe would block it.
  const drained = (async () => {
    let buffered = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      buffered += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        lines.push(line);
        if (lines.length > KEPT_LINES) lines.shift();
        onLine?.(line);
      }
    }
  })().catch(() => {});
  const proc = stoppable(child, 15_000);
  const status = proc.status;
  const stop = async () => {
    await proc.stop();
    await drained;
  };

  const timeoutMs = opts.readyTimeoutMs ?? 120_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ready: { url: string; kubeconfig: string };
  try {
    ready = await new Promise<{ url: string; kubeconfig: string }>((resolve, reject) => {
      onLine = (line) => {
        const m = READY_LINE.exec(line);
        if (m) resolve({ url: m[1], kubeconfig: m[2].trim() });
      };
      status.then((s) =>
        reject(new Error(`apiserver exited with code ${s.code} before it was ready`))
      );
      timer = setTimeout(
        () => reject(new Error(`apiserver not ready within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
  } catch (e) {
    await stop();
    const tail = lines.slice(-10).join("\n");
    throw new Error(`${(e as Error).message}\n${tail}`, { cause: e });
  } finally {
    clearTimeout(timer);
    onLine = undefined;
  }
  let config;
  try {
    config = await loadKubeconfig(ready.kubeconfig);
  } catch (e) {
    await stop();
    throw e;
  }
  const hasCert = !!config.clientCertPem && !!config.clientKeyPem;
  if (!config.caPem || (!config.token && !hasCert)) {
    await stop();
    throw new Error("admin kubeconfig lacks a CA, or both a token and a client certificate");
  }
  const server: ApiServerProcess = {
    pid: child.pid,
    url: ready.url,
    caPem: config.caPem,
    recentStderr: () => [...lines],
    stop,
  };
  if (config.token) server.token = config.token;
  if (hasCert) {
    server.clientCertPem = config.clientCertPem;
    server.clientKeyPem = config.clientKeyPem;
  }
  return server;
}

/**
 * An HTTP client (keep-alive pool) that trusts the server's CA and presents the admin client
 * certificate when there is one; HTTP/2 when the server offers it unless `http2` is false.
 * Close it when done.
 */
export function adminHttpClient(
  server: ApiServerProcess,
  opts: { http2?: boolean } = {},
): Deno.HttpClient {
  const http2 = opts.http2 ?? true;
  if (server.clientCertPem && server.clientKeyPem) {
    return Deno.createHttpClient({
      caCerts: [server.caPem],
      cert: server.clientCertPem,
      key: server.clientKeyPem,
      http2,
    });
  }
  return Deno.createHttpClient({ caCerts: [server.caPem], http2 });
}

/** Headers carrying the admin bearer token, when the server uses one. */
export function adminHeaders(server: ApiServerProcess, init?: HeadersInit): Headers {
  const headers = new Headers(init);
  if (server.token) headers.set("authorization", `Bearer ${server.token}`);
  return headers;
}
