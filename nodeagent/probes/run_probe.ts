/**
 * Runs one probe or hook action against a container: exec through the runtime's `execSync`,
 * `httpGet`, `tcpSocket`, `grpc`; the host defaults to the pod IP.
 *
 * @module
 */
import type { ContainerRuntime } from "../runtime/runtime.ts";
import { grpcProbe } from "./grpc_probe.ts";
import { httpProbe } from "./http_probe.ts";
import {
  type ProbedContainer,
  type ProbeHandler,
  type ProbeOutcome,
  resolvePort,
} from "./probe_spec.ts";
import { tcpProbe } from "./tcp_probe.ts";

/** Where a probe runs. */
export interface ProbeTarget {
  /** The runtime (for exec). */
  runtime: Pick<ContainerRuntime, "execSync">;
  /** The runtime's container id. */
  containerId: string;
  /** The container spec (named ports). */
  container: ProbedContainer;
  /** The pod IP (the default host). */
  podIP: string;
}

/** Runs `handler` with a timeout; errors (a bad port, no exec support) give `unknown`. */
export async function runProbe(
  handler: ProbeHandler,
  target: ProbeTarget,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  try {
    if (handler.exec) return await execProbe(handler.exec.command ?? [], target, timeoutMs);
    if (handler.httpGet) {
      const port = resolvePort(handler.httpGet.port, target.container);
      return await httpProbe(
        handler.httpGet,
        handler.httpGet.host || target.podIP,
        port,
        timeoutmsOr(timeoutMs),
      );
    }
    if (handler.tcpSocket) {
      const port = resolvePort(handler.tcpSocket.port, target.container);
      return await tcpProbe(handler.tcpSocket.host || target.podIP, port, timeoutmsOr(timeoutMs));
    }
    if (handler.grpc) {
      const port = resolvePort(handler.grpc.port, target.container);
      return await grpcProbe(
        target.podIP,
        port,
        handler.grpc.service ?? "",
        timeoutmsOr(timeoutMs),
      );
    }
    return { result: "unknown", output: "missing probe handler" };
  } catch (err) {
    return { result: "unknown", output: (err as Error).message };
  }
}

function timeoutmsOr(ms: number): number {
  return ms > 0 ? ms : 1_000;
}

async function execProbe(
  command: string[],
  target: ProbeTarget,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  if (!target.runtime.execSync) {
    return { result: "unknown", output: "the container runtime cannot run exec probes" };
  }
  const r = await target.runtime.execSync(target.containerId, command, timeoutmsOr(timeoutMs));
  if (r.timedOut) {
    return { result: "failure", output: `command ${JSON.stringify(command.join(" "))} timed out` };
  }
  const output = r.stdout + r.stderr;
  return { result: r.exitCode === 0 ? "success" : "failure", output };
}
