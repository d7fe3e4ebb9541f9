/**
 * The aggregation layer's parts, built for one server: the followed APIServices, the HTTPS
 * transport to extension API servers (with the front-proxy client certificate), the proxy the
 * handler asks first, the local APIService registration and the availability controller.
 *
 * @module
 */
import type { CertificateAndKey } from "../../shared/pki/issue_certificate.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { registryEndpointSource } from "../webhook/service_resolver.ts";
import { ApiServiceCache } from "./api_service_cache.ts";
import { AvailabilityController } from "./availability_controller.ts";
import { LocalApiServices } from "./local_api_services.ts";
import { AggregatorProxy } from "./proxy_handler.ts";
import { ProxyTransport } from "./proxy_transport.ts";
import { RemoteDiscovery } from "./remote_discovery.ts";
import type { OpenApiDoc } from "./remote_openapi.ts";
import { compareKubeAwareVersions } from "../http/version_priority.ts";
import type { AggregatedGroups } from "../http/discovery.ts";
import type { MetricsRegistry } from "../metrics/mod.ts";
import { aggregatorMetrics } from "./aggregator_metrics.ts";

/** What the aggregator is built from. */
export interface AggregatorDeps {
  registry: ResourceRegistry;
  /** The server's change feed (started). */
  feed: ChangeFeed;
  /** The front-proxy client certificate. */
  proxyClient: CertificateAndKey;
  /** The availability controller's resync period, ms (default 30 s). */
  resyncMs?: number;
  logger?: Logger;
  /** Where the aggregator's metrics are defined (none: not exported). */
  metrics?: MetricsRegistry;
}

/** The running aggregator. */
export interface Aggregator {
  cache: ApiServiceCache;
  transport: ProxyTransport;
  proxy: AggregatorProxy;
  /** The remote group versions and the priorities, for discovery. */
  groups: AggregatedGroups;
  /** The OpenAPI v3 documents of the remote group versions, by path. */
  openApiDocs(): ReadonlyMap<string, OpenApiDoc>;
  /** The remote OpenAPI v2 documents, by priority, and their generation. */
  openApiV2Docs(): { generation: number; docs: Record<string, unknown>[] };
  /** Registers the local APIServices and starts checking the remote ones. */
  startControllers(): Promise<void>;
  stop(): Promise<void>;
}

/** Builds the aggregator and loads the APIServices. */
export async function startAggregator(deps: AggregatorDeps): Promise<Aggregator> {
  const { registry, logger } = deps;
  const store = registry.lookup("apiregistration.k8s.io", "v1", "apiservices");
  if (!store) throw new Error("the aggregator needs the apiservices kind");
  const cache = new ApiServiceCache(store.prefix);
  await cache.start(deps.feed);
  const endpoints = registryEndpointSource(registry);
  const transport = new ProxyTransport({
    endpoints,
    clientCertPem: deps.proxyClient.certPem,
    clientKeyPem: deps.proxyClient.keyPem,
  });
  const proxy = new AggregatorProxy({ cache, transport, logger });
  const local = new LocalApiServices({ registry, cache, logger });
  const availability = new AvailabilityController({
    registry,
    cache,
    feed: deps.feed,
    endpoints,
    transport,
    resyncMs: deps.resyncMs,
    logger,
    metrics: deps.metrics && aggregatorMetrics(deps.metrics, cache),
  });
  const remote = new RemoteDiscovery({ cache, transport, logger, refreshMs: deps.resyncMs });
  return {
    cache,
    transport,
    proxy,
    groups: {
      remote: () => remote.groupVersions(),
      priority: (group, version) => remote.priority(group, version),
      compareVersions: compareKubeAwareVersions,
    },
    openApiDocs: () => remote.openApiDocs(),
    openApiV2Docs: () => remote.openApiV2Docs(),
    async startControllers() {
      await local.start();
      await availability.start();
      remote.start();
    },
    async stop() {
      await remote.stop();
      await availability.stop();
      await local.stop();
      cache.stop();
      transport.close();
    },
  };
}
