/**
 * The resource metrics API assembled, as metrics-server would serve it but inside the API
 * server: the scraper of the node agents' `/metrics/resource`, its storage, and the
 * `metrics.k8s.io/v1beta1` kinds NodeMetrics and PodMetrics added to the registry (their local
 * APIService `v1beta1.metrics.k8s.io` follows from the registry, so discovery lists the group
 * and `kubectl top` finds it).
 *
 * The API server presents a client certificate (CN `kube-apiserver-kubelet-client`,
 * O `system:masters`, issued in memory at start) signed by the cluster CA, which node agents
 * trust for client certificates by default (their kubeconfig's CA), and verifies the agents'
 * serving certificates against the cluster CA (which signs `kubernetes.io/kubelet-serving`
 * certificates: agents with `serverTLSBootstrap`), or `--kubelet-certificate-authority`, or
 * not at all with `--kubelet-insecure-tls`.
 *
 * @module
 */
import { join } from "node:path";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { type CertificateAndKey, issueCertificate } from "../../shared/pki/issue_certificate.ts";
import type { Pki } from "../pki/bootstrap_pki.ts";
import { type Clock, systemClock } from "../registry/generic/clock.ts";
import { nodeMetricsKind } from "../registry/metrics/nodes/strategy.ts";
import { podMetricsKind } from "../registry/metrics/pods/strategy.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import { KubeletClient } from "./kubelet_client.ts";
import type { ResourceMetricsOptions } from "./metrics_options.ts";
import { MetricsScraper } from "./metrics_scraper.ts";
import { MetricsStorage } from "./metrics_storage.ts";

/** The running resource metrics pipeline. */
export interface ResourceMetrics {
  storage: MetricsStorage;
  scraper: MetricsScraper;
  /** Stops scraping and closes the connections to the agents. */
  stop(): Promise<void>;
}

/** The longest time one scrape of one agent may take (ms). */
const MAX_SCRAPE_TIMEOUT_MS = 10_000;

/** The cluster CA pair (it signs what the agents trust), else the client CA. */
export async function signingCa(pki: Pki): Promise<CertificateAndKey> {
  try {
    return {
      certPem: await Deno.readTextFile(join(pki.dir, "ca.crt")),
      keyPem: await Deno.readTextFile(join(pki.dir, "ca.key")),
    };
  } catch {
    return pki.clientCa;
  }
}

/**
 * Adds the kinds to `registry` and starts scraping (unless `start` is false: tests drive
 * {@link MetricsScraper.scrapeOnce} themselves).
 */
export async function startResourceMetrics(
  options: ResourceMetricsOptions | undefined,
  d: { registry: ResourceRegistry; pki: Pki; logger?: Logger; clock?: Clock; start?: boolean },
): Promise<ResourceMetrics> {
  const o = options ?? { resolutionMs: 15_000, kubeletInsecureTls: false };
  const clock = d.clock ?? systemClock;
  const storage = new MetricsStorage(o.resolutionMs);
  const clientCert = await issueCertificate({
    ca: await signingCa(d.pki),
    commonName: "kube-apiserver-kubelet-client",
    organizations: ["system:masters"],
    usages: "client",
  });
  const caPem = o.kubeletCertificateAuthority
    ? await Deno.readTextFile(o.kubeletCertificateAuthority)
    : d.pki.caPem ?? d.pki.serving.certPem;
  const client = new KubeletClient({
    caPem,
    insecureSkipTLSVerify: o.kubeletInsecureTls,
    clientCertPem: clientCert.certPem,
    clientKeyPem: clientCert.keyPem,
    timeoutMs: Math.min(MAX_SCRAPE_TIMEOUT_MS, Math.max(1000, o.resolutionMs * 0.9)),
  });
  const nodes = () => d.registry.lookup("", "v1", "nodes")!;
  const pods = () => d.registry.lookup("", "v1", "pods")!;
  const scraper = new MetricsScraper({
    listNodes: async (): Promise<KubeObject[]> =>
      (await nodes().list("", { plan: { mode: "latest" } })).items,
    get: (host, port, path) => client.get(host, port, path),
    storage,
    resolutionMs: o.resolutionMs,
    clock,
    logger: d.logger,
  });
  const deps = { usage: storage, nodes, pods, now: () => clock.now() };
  d.registry.add(nodeMetricsKind(deps));
  d.registry.add(podMetricsKind(deps));
  if (d.start !== false) scraper.start();
  return {
    storage,
    scraper,
    async stop() {
      const stopped = scraper.stop();
      // Closing the connections ends a scrape in progress at once.
      client.close();
      await stopped;
    },
  };
}
