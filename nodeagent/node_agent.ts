/**
 * The node agent assembled: the HTTPS server, registration, the lease controller, the status
 * reporter and the pod worker, on the `process` runtime or, with `containerRuntimeEndpoint`,
 * the `cri` one.
 *
 * @module
 */
import { RestClient } from "../shared/client/rest_client.ts";
import type { HttpsServer } from "../shared/http/https_server.ts";
import { Logger } from "../shared/log/mod.ts";
import { parseDurationMs } from "../shared/time/duration.ts";
import type { AgentOptions } from "./agent_options.ts";
import { type Clock, systemClock } from "./clock/clock.ts";
import { parseEvictionThreshold } from "./config/eviction_threshold.ts";
import { ApiEventRecorder } from "./events/event_recorder.ts";
import { LeaseController } from "./lease/lease_controller.ts";
import { PollingPodSource } from "./pods/pod_source.ts";
import { PodWorker } from "./pods/pod_worker.ts";
import { WatchPodSource } from "./pods/watch_pod_source.ts";
import { automaticLabels, buildNode, hostAddress } from "./register/node_object.ts";
import { registerNode } from "./register/register_node.ts";
import { CriRuntime } from "./runtime/cri/cri_runtime.ts";
import { ProcessRuntime } from "./runtime/process/process_runtime.ts";
import type { ContainerRuntime } from "./runtime/runtime.ts";
import { startAgentServer } from "./server/agent_server.ts";
import {
  alwaysAllow,
  ApiRequestAuthenticator,
  SubjectAccessReviewAuthorizer,
} from "./server/request_auth.ts";
import { loadServingCert } from "./server/serving_cert.ts";
import { readNodeInfo } from "./status/node_info.ts";
import { NodeStatusReporter } from "./status/node_status_reporter.ts";
import { readHostReadings } from "./status/read_host_readings.ts";
import { prepareNodeCredential } from "./bootstrap/prepare_credential.ts";
import { type CertRotation, clientCertRotation } from "./bootstrap/client_cert_rotation.ts";
import { servingCertRotation } from "./bootstrap/serving_cert_rotation.ts";
import { startServiceProxy } from "./proxy/service_proxy.ts";
import { StatsCollector } from "./stats/stats_collector.ts";

/** The version the agent reports as `kubeletVersion`. */
export const AGENT_VERSION = "v1.32.0";

/** A running agent. */
export interface RunningAgent {
  /** The node's name. */
  nodeName: string;
  /** The HTTPS port the agent listens on. */
  port: number;
  /** Resolves once the Node is registered (or the agent stopped first). */
  registered: Promise<void>;
  /** Stops everything, containers included. */
  close(): Promise<void>;
}

/** Starts the agent. */
export async function startNodeAgent(
  o: AgentOptions,
  deps: { logger?: Logger; clock?: Clock; runtime?: ContainerRuntime } = {},
): Promise<RunningAgent> {
  const logger = deps.logger ?? new Logger({ verbosity: o.verbosity });
  const clock = deps.clock ?? systemClock;
  const c = o.config;
  for (const w of o.warnings) logger.warn(w);
  await Deno.mkdir(c.rootDir, { recursive: true, mode: 0o700 });
  await prepareNodeCredential(o, logger);
  const runtime = deps.runtime ?? selectRuntime(c);
  const client = await RestClient.fromKubeconfig(o.kubeconfig);
  const hostname = o.nodeName;
  const ip = hostAddress();
  const nodeInfo = await readNodeInfo({
    containerRuntimeVersion: await runtime.version(),
    agentVersion: AGENT_VERSION,
  });
  const thresholds = Object.entries(c.evictionHard).map(([k, v]) => parseEvictionThreshold(k, v));
  const server = await startServer(o, { client, runtime, clock, logger, hostname, ip });
  logger.info("serving", { address: c.address, port: server.port, node: o.nodeName });
  const rotations = await startRotations(o, { client, server, hostname, ip, logger });

  const reporter = newStatusReporter(o, {
    client,
    runtime,
    clock,
    logger,
    hostname,
    ip,
    nodeInfo,
    thresholds,
    port: server.port,
  });
  const stop = new AbortController();
  let lease: LeaseController | undefined;
  const worker = newPodWorker(o, { client, runtime, clock, logger, ip });
  const proxy = o.proxy && startServiceProxy(o.proxy, { client, nodeIP: ip, logger });
  const registered = (async () => {
    const parts = await reporter.compute();
    const node = buildNode(o.nodeName, automaticLabels(hostname, nodeInfo, c.nodeLabels), parts);
    const stored = await registerNode(node, { client, clock, logger, signal: stop.signal });
    if (!stored || stop.signal.aborted) return;
    reporter.registered(stored, parts);
    lease = new LeaseController({
      client,
      nodeName: o.nodeName,
      nodeUid: stored.metadata.uid,
      leaseDurationSeconds: c.nodeLeaseDurationSeconds,
      clock,
      logger,
    });
    lease.start();
    reporter.start();
    worker.start();
  })();
  registered.catch((err) => logger.error("registration failed", { err: String(err) }));

  return {
    nodeName: o.nodeName,
    port: server.port,
    registered: registered.catch(() => {}),
    async close() {
      stop.abort(new Error("agent stopping"));
      for (const r of rotations) r.stop();
      await registered.catch(() => {});
      await worker.stop();
      await (await proxy)?.stop();
      await lease?.stop();
      await reporter.stop();
      await server.close();
      await runtime.close();
      client.close();
    },
  };
}

/** What the agent's parts are built from once the runtime and client exist. */
interface AgentParts {
  client: RestClient;
  runtime: ContainerRuntime;
  clock: Clock;
  logger: Logger;
  ip: string;
}

/** The container runtime the configuration selects: CRI with an endpoint, else the process one. */
function selectRuntime(c: AgentOptions["config"]): ContainerRuntime {
  // containerRuntimeEndpoint selects the CRI adapter; empty means the process runtime.
  return c.containerRuntimeEndpoint
    ? new CriRuntime(c.containerRuntimeEndpoint, {
      rootDir: c.rootDir,
      seccompDefault: c.seccompDefault,
    })
    : new ProcessRuntime({ rootDir: c.rootDir, seccompDefault: c.seccompDefault });
}

/**
 * Loads the serving certificate, builds the request authenticator and authorizer and starts
 * the HTTPS server; when it cannot listen, closes the client and runtime and throws.
 */
async function startServer(
  o: AgentOptions,
  p: AgentParts & { hostname: string },
): Promise<HttpsServer> {
  const { client, runtime, clock, logger } = p;
  const c = o.config;
  const cert = await loadServingCert({
    rootDir: c.rootDir,
    certFile: c.tlsCertFile || undefined,
    keyFile: c.tlsPrivateKeyFile || undefined,
    hostnames: [p.hostname, "localhost"],
    ips: [...new Set([p.ip, "127.0.0.1"])],
  });
  let clientCaPem: string | undefined = undefined;
  if (c.authentication.x509.clientCAFile) {
    clientCaPem = await Deno.readTextFile(c.authentication.x509.clientCAFile);
  } else clientCaPem = client.config.caPem;
  const authenticator = new ApiRequestAuthenticator({
    client,
    clientCaPem,
    webhook: c.authentication.webhook.enabled,
    anonymous: c.authentication.anonymous.enabled,
    cacheTtlMs: parseDurationMs(c.authentication.webhook.cacheTTL),
    logger,
  });
  const authorizer = c.authorization.mode === "AlwaysAllow"
    ? alwaysAllow
    : new SubjectAccessReviewAuthorizer({
      client,
      allowedTtlMs: parseDurationMs(c.authorization.webhook.cacheAuthorizedTTL),
      deniedTtlMs: parseDurationMs(c.authorization.webhook.cacheUnauthorizedTTL),
      logger,
    });
  try {
    return await startAgentServer({
      address: c.address,
      port: c.port,
      certPem: cert.certPem,
      keyPem: cert.keyPem,
      authenticator,
      authorizer,
      checkpoint: { runtime, gates: o.gates, rootDir: c.rootDir, nodeName: o.nodeName, clock },
      health: () => runtime.healthErrors(),
      stats: {
        nodeName: o.nodeName,
        collector: new StatsCollector({ runtime, clock }),
        runtime,
        logger,
      },
      logger,
    });
  } catch (err) {
    client.close();
    await runtime.close();
    throw new Error(`cannot listen on ${c.address}:${c.port}: ${(err as Error).message}`);
  }
}

/** The reporter of the Node's status, from the configuration and what was read of the host. */
function newStatusReporter(
  o: AgentOptions,
  p: AgentParts & {
    hostname: string;
    nodeInfo: Awaited<ReturnType<typeof readNodeInfo>>;
    thresholds: ReturnType<typeof parseEvictionThreshold>[];
    port: number;
  },
): NodeStatusReporter {
  const c = o.config;
  return new NodeStatusReporter({
    client: p.client,
    nodeName: o.nodeName,
    clock: p.clock,
    logger: p.logger,
    readHost: () => readHostReadings(c.rootDir),
    readyErrors: () => p.runtime.healthErrors(),
    nodeInfo: p.nodeInfo,
    addresses: [{ type: "InternalIP", address: p.ip }, { type: "Hostname", address: p.hostname }],
    port: p.port,
    resources: {
      maxPods: c.maxPods,
      systemReserved: c.systemReserved,
      kubeReserved: c.kubeReserved,
      evictionHard: p.thresholds,
    },
    thresholds: p.thresholds,
    pressureTransitionPeriodMs: parseDurationMs(c.evictionPressureTransitionPeriod),
    updateFrequencyMs: parseDurationMs(c.nodeStatusUpdateFrequency),
    reportFrequencyMs: parseDurationMs(c.nodeStatusReportFrequency),
  });
}

/** The pod worker, fed by a watch of the node's Pods (polling when the server serves no watch). */
function newPodWorker(o: AgentOptions, p: AgentParts): PodWorker {
  const { client, clock, logger } = p;
  return new PodWorker({
    client,
    runtime: p.runtime,
    // Pods by watch; the polling source when the server serves no watch.
    source: new WatchPodSource({
      client,
      nodeName: o.nodeName,
      clock,
      logger,
      fallback: () => new PollingPodSource({ client, nodeName: o.nodeName, clock, logger }),
    }),
    nodeName: o.nodeName,
    hostIP: p.ip,
    clock,
    logger,
    recorder: new ApiEventRecorder({ client, nodeName: o.nodeName, clock, logger }),
  });
}

/** Client certificate rotation (`rotateCertificates`) and the serving certificate (`serverTLSBootstrap`). */
async function startRotations(
  o: AgentOptions,
  p: { client: RestClient; server: HttpsServer; hostname: string; ip: string; logger: Logger },
): Promise<CertRotation[]> {
  const out: CertRotation[] = [];
  if (o.bootstrap?.rotateCertificates || o.config.rotateCertificates) {
    out.push(clientCertRotation({ ...p, kubeconfig: o.kubeconfig, nodeName: o.nodeName }));
  }
  if (o.config.serverTLSBootstrap) {
    out.push(
      await servingCertRotation({
        ...p,
        rootDir: o.config.rootDir,
        nodeName: o.nodeName,
        dnsNames: [p.hostname],
        ipAddresses: [...new Set([p.ip, "127.0.0.1"])],
      }),
    );
  }
  for (const r of out) await r.start();
  return out;
}
