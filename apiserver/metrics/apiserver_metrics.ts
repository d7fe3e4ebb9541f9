/**
 * The API server's own metrics, defined once: request counts and latencies, deprecated API
 * use, authentication attempts and the storage size.
 *
 * @module
 */
import type { Counter, Gauge, Histogram, Labels } from "./metric.ts";
import type { MetricsRegistry } from "./metrics_registry.ts";
import { createSliMetrics, type SliMetrics } from "./sli_metrics.ts";

/** Kubernetes' buckets for `apiserver_request_duration_seconds`. */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.005,
  0.025,
  0.05,
  0.1,
  0.2,
  0.4,
  0.6,
  0.8,
  1.0,
  1.25,
  1.5,
  2,
  3,
  4,
  5,
  6,
  8,
  10,
  15,
  20,
  30,
  45,
  60,
];

const VALID_VERBS = new Set([
  "APPLY",
  "CONNECT",
  "CREATE",
  "DELETE",
  "DELETECOLLECTION",
  "GET",
  "LIST",
  "PATCH",
  "POST",
  "PROXY",
  "PUT",
  "UPDATE",
  "WATCH",
  "WATCHLIST",
]);
const CONNECT_SUBRESOURCES = new Set(["log", "exec", "portforward", "attach", "proxy"]);

/** One finished request, as the HTTP layer knows it. */
export interface RequestObservation {
  /** HTTP method (`GET`, `POST`, ...). */
  method: string;
  /** `resource` (named object or create), `namespace`, `cluster`, or empty for non-resource. */
  scope: "resource" | "namespace" | "cluster" | "";
  /** API group; empty for the core group. */
  group: string;
  /** API version. */
  version: string;
  /** Resource (plural). */
  resource: string;
  /** Subresource, or empty. */
  subresource?: string;
  /** Default `apiserver`. */
  component?: string;
  /** HTTP status code of the response. */
  code: number;
  /** Time from receipt to the end of the response, in seconds. */
  durationSeconds: number;
  /** A watch request (`?watch=true` or a legacy watch path). */
  watch?: boolean;
  /** The request's Content-Type (a PATCH with `application/apply-patch+yaml` is APPLY). */
  contentType?: string;
  /** Values of the `dryRun` query parameter. */
  dryRun?: readonly string[];
  /** The requested group/version/resource is deprecated. */
  deprecated?: boolean;
  /** Release in which a deprecated API is removed, if known. */
  removedRelease?: string;
}

/**
 * The verb label Kubernetes reports: GET and HEAD on a collection are LIST, watches WATCH,
 * apply patches APPLY, connect subresources CONNECT; anything else outside the known set
 * is `other`.
 */
export function reportedVerb(
  obs: Pick<
    RequestObservation,
    "method" | "scope" | "watch" | "contentType" | "subresource"
  >,
): string {
  let verb = obs.method.toUpperCase();
  if (verb === "GET" || verb === "HEAD") {
    verb = obs.scope !== "resource" && obs.scope !== "" ? "LIST" : "GET";
  }
  if (obs.watch) return "WATCH";
  if (
    verb === "PATCH" && obs.contentType?.split(";")[0].trim() === "application/apply-patch+yaml"
  ) {
    verb = "APPLY";
  }
  if (obs.scope !== "" && obs.subresource && CONNECT_SUBRESOURCES.has(obs.subresource)) {
    verb = "CONNECT";
  }
  return VALID_VERBS.has(verb) ? verb : "other";
}

/** The dry_run label: empty, the sorted distinct values (only `All` is valid), or `invalid`. */
export function dryRunLabel(values: readonly string[] | undefined): string {
  if (!values || values.length === 0) return "";
  if (values.some((v) => v !== "All")) return "invalid";
  return [...new Set(values)].sort().join(",");
}

/** Handles to the API server's metrics. */
export interface ApiServerMetrics {
  /** The registry they live in (`/metrics`), with the lifecycle's meta metrics. */
  registry: MetricsRegistry;
  /** The component SLI metrics (`/metrics/slis`), in a registry of their own. */
  sli: SliMetrics;
  /** `apiserver_request_total`. */
  requestTotal: Counter;
  /** `apiserver_request_duration_seconds`. */
  requestDuration: Histogram;
  /** `apiserver_requested_deprecated_apis`. */
  requestedDeprecatedApis: Gauge;
  /** `authentication_attempts{result}`: `success`, `failure` or `error`. */
  authenticationAttempts: Counter;
  /** `authentication_duration_seconds{result}`. */
  authenticationDuration: Histogram;
  /** `apiserver_storage_size_bytes{storage_cluster_id}`, filled by the storage size hook. */
  storageSize: Gauge;
  /** `apiserver_storage_group_commit_duration_seconds{where}`. */
  groupCommitDuration: Histogram;
  /** `apiserver_storage_group_commit_writes{where}`: writes per group commit. */
  groupCommitWrites: Histogram;
  /** `apiserver_storage_slow_group_commits_total{where}`. */
  slowGroupCommits: Counter;
  /** Records one group commit of the storage (`where`: inline, worker or server). */
  observeGroupCommit(
    commit: { where: string; writes: number; seconds: number; slow: boolean },
  ): void;
  /** Records one finished request in the request metrics. */
  observeRequest(obs: RequestObservation): void;
  /** Records one authentication attempt. */
  observeAuthentication(result: "success" | "failure" | "error", durationSeconds: number): void;
  /**
   * Installs the storage size hook: called at each scrape, it returns the database size in
   * bytes (per cluster id, default `storage-0`). A hook that throws omits the metric.
   */
  setStorageSizeGetter(
    getter: (() => Promise<number> | number) | undefined,
    clusterId?: string,
  ): void;
}

/**
 * Defines the API server's metrics in `registry`, with the meta metrics of its lifecycle
 * (`registered_metrics_total`...), and the SLI metrics in a registry of their own.
 */
export function createApiServerMetrics(registry: MetricsRegistry): ApiServerMetrics {
  registry.registerMetaMetrics();
  const sli = createSliMetrics(registry);
  const { requestTotal, requestDuration, requestedDeprecatedApis } = defineRequestMetrics(
    registry,
  );
  const { authenticationAttempts, authenticationDuration } = defineAuthenticationMetrics(
    registry,
  );
  const { storageSize, groupCommitDuration, groupCommitWrites, slowGroupCommits } =
    defineStorageMetrics(registry);

  return {
    registry,
    sli,
    requestTotal,
    requestDuration,
    requestedDeprecatedApis,
    authenticationAttempts,
    authenticationDuration,
    storageSize,
    groupCommitDuration,
    groupCommitWrites,
    slowGroupCommits,
    observeGroupCommit({ where, writes, seconds, slow }) {
      groupCommitDuration.observe({ where }, seconds);
      groupCommitWrites.observe({ where }, writes);
      if (slow) slowGroupCommits.inc({ where });
    },
    observeRequest(obs) {
      const base: Labels = {
        verb: reportedVerb(obs),
        dry_run: dryRunLabel(obs.dryRun),
        group: obs.group,
        version: obs.version,
        resource: obs.resource,
        subresource: obs.subresource ?? "",
        scope: obs.scope,
        component: obs.component ?? "apiserver",
      };
      requestTotal.inc({ ...base, code: String(obs.code) });
      requestDuration.observe(base, obs.durationSeconds);
      if (obs.deprecated) {
        requestedDeprecatedApis.set({
          group: obs.group,
          version: obs.version,
          resource: obs.resource,
          subresource: obs.subresource ?? "",
          removed_release: obs.removedRelease ?? "",
        }, 1);
      }
    },
    observeAuthentication(result, durationSeconds) {
      authenticationAttempts.inc({ result });
      authenticationDuration.observe({ result }, durationSeconds);
    },
    setStorageSizeGetter(getter, clusterId = "storage-0") {
      storageSize.setCollector(
        getter && (async () => [[{ storage_cluster_id: clusterId }, await getter()] as const]),
      );
    },
  };
}

/** The labels of the request metrics (`apiserver_request_total` adds `code`). */
const REQUEST_LABELS = [
  "verb",
  "dry_run",
  "group",
  "version",
  "resource",
  "subresource",
  "scope",
  "component",
];

/** `apiserver_request_total`, `apiserver_request_duration_seconds` and deprecated API use. */
function defineRequestMetrics(
  registry: MetricsRegistry,
): Pick<ApiServerMetrics, "requestTotal" | "requestDuration" | "requestedDeprecatedApis"> {
  const requestTotal = registry.counter({
    name: "apiserver_request_total",
    help:
      "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
    labels: [...REQUEST_LABELS, "code"],
    stabilityLevel: "STABLE",
  });
  const requestDuration = registry.histogram({
    name: "apiserver_request_duration_seconds",
    help:
      "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
    labels: [...REQUEST_LABELS],
    buckets: REQUEST_DURATION_BUCKETS,
    stabilityLevel: "STABLE",
  });
  const requestedDeprecatedApis = registry.gauge({
    name: "apiserver_requested_deprecated_apis",
    help:
      "Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.",
    labels: ["group", "version", "resource", "subresource", "removed_release"],
    stabilityLevel: "STABLE",
  });
  return { requestTotal, requestDuration, requestedDeprecatedApis };
}

/** `authentication_attempts` and `authentication_duration_seconds`. */
function defineAuthenticationMetrics(
  registry: MetricsRegistry,
): Pick<ApiServerMetrics, "authenticationAttempts" | "authenticationDuration"> {
  const authenticationAttempts = registry.counter({
    name: "authentication_attempts",
    help: "Counter of authenticated attempts.",
    labels: ["result"],
  });
  const authenticationDuration = registry.histogram({
    name: "authentication_duration_seconds",
    help: "Authentication duration in seconds broken out by result.",
    labels: ["result"],
    buckets: [
      0.001,
      0.002,
      0.004,
      0.008,
      0.016,
      0.032,
      0.064,
      0.128,
      0.256,
      0.512,
      1.024,
      2.048,
      4.096,
      8.192,
      16.384,
    ],
  });
  return { authenticationAttempts, authenticationDuration };
}

/** The storage size and its group commits' duration, size and slowness. */
function defineStorageMetrics(
  registry: MetricsRegistry,
): Pick<
  ApiServerMetrics,
  "storageSize" | "groupCommitDuration" | "groupCommitWrites" | "slowGroupCommits"
> {
  const storageSize = registry.gauge({
    name: "apiserver_storage_size_bytes",
    help: "Size of the storage database file physically allocated in bytes.",
    labels: ["storage_cluster_id"],
    stabilityLevel: "STABLE",
  });
  const groupCommitDuration = registry.histogram({
    name: "apiserver_storage_group_commit_duration_seconds",
    help:
      "Duration of the storage's group-commit transactions, commit and sync included, by where they ran (inline on the server's thread, on the write worker, or on a libSQL server).",
    labels: ["where"],
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  });
  const groupCommitWrites = registry.histogram({
    name: "apiserver_storage_group_commit_writes",
    help: "Writes committed together in one storage transaction.",
    labels: ["where"],
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
  });
  const slowGroupCommits = registry.counter({
    name: "apiserver_storage_slow_group_commits_total",
    help:
      "Group commits slower than the storage's slow-commit limit; each moves the following commits to the write worker for a while.",
    labels: ["where"],
  });
  return { storageSize, groupCommitDuration, groupCommitWrites, slowGroupCommits };
}
