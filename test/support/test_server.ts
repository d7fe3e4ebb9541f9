/**
 * Starts the real API server for end-to-end tests: a temp data directory (real libSQL file),
 * a free port on 127.0.0.1, HTTPS with the generated CA, and a RestClient with the admin
 * credential. `close()` stops it and removes the directory.
 *
 * @module
 */
import { parseServerOptions, type ServerOptions } from "../../apiserver/options.ts";
import { type RunningServer, startServer } from "../../apiserver/server.ts";
import { RestClient } from "../../shared/client/rest_client.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { Logger } from "../../shared/log/mod.ts";

/** A started test server. */
export interface TestServer {
  server: RunningServer;
  /** A client with the admin credential. */
  client: RestClient;
  /** The data directory. */
  dir: string;
  /** Fetch with the server's CA trusted and the admin token (unless `auth: false`). */
  fetch(path: string, init?: RequestInit & { auth?: boolean }): Promise<Response>;
  close(): Promise<void>;
}

/** Starts a server with extra flags (e.g. `--history-window=2s`). */
export async function startTestServer(
  flags: string[] = [],
  opts: {
    dir?: string;
    keepDir?: boolean;
    optionsHook?: (o: ServerOptions) => void;
    /** The server's logger (default: silent). */
    logger?: Logger;
  } = {},
): Promise<TestServer> {
  const dir = opts.dir ?? await Deno.makeTempDir({ prefix: "apiserver-test-" });
  const parsed = parseServerOptions([
    `--data-dir=${dir}`,
    "--secure-port=0",
    "--bind-address=127.0.0.1",
    ...flags,
  ]);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  opts.optionsHook?.(parsed.options);
  const server = await startServer(parsed.options, {
    logger: opts.logger ?? new Logger({ verbosity: 0, sink: () => {} }),
  });
  await server.ready;
  const config = await loadKubeconfig(server.kubeconfigPath);
  const client = new RestClient(config);
  const httpClient = Deno.createHttpClient({ caCerts: [server.caPem] });
  return {
    server,
    client,
    dir,
    async fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.auth !== false && !headers.has("authorization")) {
        headers.set("authorization", `Bearer ${server.adminToken}`);
      }
      return await fetch(server.url + path, { ...init, headers, client: httpClient });
    },
    async close() {
      client.close?.();
      httpClient.close();
      await server.close();
      if (!opts.keepDir) await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
