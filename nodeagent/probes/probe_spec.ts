/**
 * The pod API's probe and lifecycle handler shapes, as far as the node agent reads them.
 *
 * @module
 */

/** `httpGet` of a probe or hook. */
export interface HttpGetAction {
  /** Path, default `/`. */
  path?: string;
  /** Port number or the name of a container port. */
  port: number | string;
  /** Host, default the pod IP. */
  host?: string;
  /** `HTTP` (default) or `HTTPS` (the certificate is not verified, as the kubelet does). */
  scheme?: string;
  /** Extra request headers. */
  httpHeaders?: { name: string; value: string }[];
}

/** `tcpSocket` of a probe or hook. */
export interface TcpSocketAction {
  /** Port number or the name of a container port. */
  port: number | string;
  /** Host, default the pod IP. */
  host?: string;
}

/** The actions a probe or hook may take. */
export interface ProbeHandler {
  /** Runs a command in the container; exit code 0 is success. */
  exec?: { command?: string[] };
  /** An HTTP GET; 200 to 399 is success. */
  httpGet?: HttpGetAction;
  /** A TCP connection; connecting is success. */
  tcpSocket?: TcpSocketAction;
  /** A gRPC health check (`grpc.health.v1.Health/Check`). */
  grpc?: { port: number; service?: string };
  /** Hooks only: waits this many seconds. */
  sleep?: { seconds: number };
}

/** A container probe (defaults as the API server sets them). */
export interface ProbeSpec extends ProbeHandler {
  /** Seconds after the container started before the first probe (default 0). */
  initialDelaySeconds?: number;
  /** Seconds before a probe attempt times out (default 1). */
  timeoutSeconds?: number;
  /** Seconds between probes (default 10). */
  periodSeconds?: number;
  /** Successes in a row to count as success after a failure (default 1). */
  successThreshold?: number;
  /** Failures in a row to count as failure (default 3). */
  failureThreshold?: number;
  /** Grace period when a failed liveness or startup probe kills the container. */
  terminationGracePeriodSeconds?: number;
}

/** A container as far as probes and hooks read it. */
export interface ProbedContainer {
  /** Container name. */
  name: string;
  /** Named ports (`port: "http"` resolves through them). */
  ports?: { name?: string; containerPort: number }[];
  /** Liveness probe. */
  livenessProbe?: ProbeSpec;
  /** Readiness probe. */
  readinessProbe?: ProbeSpec;
  /** Startup probe. */
  startupProbe?: ProbeSpec;
  /** Lifecycle hooks. */
  lifecycle?: { postStart?: ProbeHandler; preStop?: ProbeHandler };
}

/** The three probe kinds. */
export type ProbeKind = "liveness" | "readiness" | "startup";

/** The outcome of one probe attempt, as the kubelet's `probe.Result`. */
export type ProbeResult = "success" | "failure" | "unknown";

/** One probe attempt's outcome and what it printed or why it failed. */
export interface ProbeOutcome {
  /** Success, failure, or unknown (the probe could not be run: an error). */
  result: ProbeResult;
  /** Output of the check (exec output, the HTTP failure, the dial error). */
  output: string;
}

/**
 * Resolves a probe's port: a number, or the name of one of the container's ports.
 *
 * @throws {Error} when the name matches no port, or the number is out of range.
 */
export function resolvePort(port: number | string, c: ProbedContainer): number {
  let n: number | undefined;
  if (typeof port === "number") n = port;
  else if (/^\d+$/.test(port)) n = Number(port);
  else n = c.ports?.find((p) => p.name === port)?.containerPort;
  if (n === undefined) throw new Error(`couldn't find port: ${port} in container ${c.name}`);
  if (!Number.isInteger(n) || n <= 0 || n >= 65536) throw new Error(`invalid port number: ${n}`);
  return n;
}
