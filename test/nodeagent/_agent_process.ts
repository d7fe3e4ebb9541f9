/**
 * Runs `cmd/nodeagent.ts` as a real child process for end-to-end tests and reads the port it
 * listens on from its log.
 *
 * @module
 */
import type { PollOptions } from "../support/eventually.ts";

/** A running agent process. */
export interface AgentProcess {
  /** The agent's HTTPS port. */
  port: number;
  /** Everything the agent logged so far. */
  logs: () => string;
  /** Sends a signal and waits for the exit. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

/** Options of {@link startAgentProcess}. */
export interface AgentProcessOptions {
  kubeconfig: string;
  rootDir: string;
  nodeName: string;
  /** YAML of the --config file (written under rootDir's parent). */
  config?: string;
  /** YAML lines appended to the default (fast) configuration. */
  extraConfig?: string;
  /** Extra flags. */
  args?: string[];
}

const FAST_CONFIG = "apiVersion: kubelet.config.k8s.io/v1beta1\n" +
  "kind: KubeletConfiguration\nnodeLeaseDurationSeconds: 4\nnodeStatusUpdateFrequency: 1s\n";

/** Starts the agent and resolves once it serves (rejects if it exits first). */
export async function startAgentProcess(o: AgentProcessOptions): Promise<AgentProcess> {
  const configFile = `${o.rootDir}.conf.yaml`;
  await Deno.writeTextFile(configFile, o.config ?? FAST_CONFIG + (o.extraConfig ?? ""));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../cmd/nodeagent.ts", import.meta.url).pathname,
      `--kubeconfig=${o.kubeconfig}`,
      `--config=${configFile}`,
      `--root-dir=${o.rootDir}`,
      `--hostname-override=${o.nodeName}`,
      "--port=0",
      // The service proxy binds ports and assigns addresses: off unless a test asks for it.
      ...((o.args ?? []).some((a) => a.startsWith("--proxy-mode")) ? [] : ["--proxy-mode=none"]),
      ...(o.args ?? []),
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  let resolvePort: (p: number) => void;
  const portSeen = new Promise<number>((r) => resolvePort = r);
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      const m = /"msg":"serving".*?"port":(\d+)/.exec(text);
      if (m) resolvePort(Number(m[1]));
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const status = child.status.then(async (s) => {
    await pumps;
    return s;
  });
  const port = await Promise.race([
    portSeen,
    status.then((s) => {
      throw new Error(`node agent exited with ${s.code} before serving:\n${text}`);
    }),
  ]);
  return {
    port,
    logs: () => text,
    async stop(signal: Deno.Signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
      return await status;
    },
  };
}

/** How tests poll what an agent does: for a minute, every 200 ms, a failing try meaning "not yet". */
export const AGENT_POLL: PollOptions = { timeoutMs: 60_000, intervalMs: 200, retryErrors: true };
