/**
 * Builds the authorizer chain from the authorization options: the `system:masters` superuser
 * bypass first (as Kubernetes does), then the modes in flag order, or the authorizers of the
 * `--authorization-config` file (kept in step with the file by authorization_config_controller.ts). The RBAC index is built
 * whatever the modes (escalation checks and the aggregation controller need it); the Node
 * graph only with mode Node. Both are fed from a ResourceFeed, never from storage per request,
 * once {@link BuiltAuthorization.follow} is called; the server passes a ChangeFeedResourceFeed
 * over the watch caches' change feed, so with a shared database every API server's RBAC and
 * pod changes reach every server's indexes.
 *
 * @module
 */
import { AbacAuthorizer } from "./abac_authorizer.ts";
import type { AuthorizationOptions } from "./authorization_options.ts";
import { type Authorizer, AuthorizerChain } from "./authorizer.ts";
import { NodeAuthorizer } from "./node_authorizer.ts";
import { NodeGraph, POD_PREFIX } from "./node_graph.ts";
import { RbacAuthorizer } from "./rbac_authorizer.ts";
import { RBAC_PREFIXES, RbacIndex } from "./rbac_index.ts";
import type { ResourceFeed } from "./resource_feed.ts";
import { loadKubeconfig } from "../../../shared/client/kubeconfig.ts";
import {
  WebhookAuthorizer,
  type WebhookAuthorizerMetrics,
  webhookAuthorizerMetrics,
  webhookFromConfig,
} from "./webhook_authorizer.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { type DecisionCounter, decisionCounter } from "./instrumented_authorizer.ts";
import type { MetricsRegistry } from "../../metrics/mod.ts";
import {
  AuthorizationConfigController,
  authorizationConfigMetrics,
} from "./authorization_config_controller.ts";
import {
  AlwaysAllowAuthorizer,
  AlwaysAllowPathsAuthorizer,
  AlwaysDenyAuthorizer,
  PrivilegedGroupsAuthorizer,
} from "./static_authorizers.ts";
import type { ClientConfig } from "../../../shared/client/kubeconfig.ts";

/** The path SubjectAccessReviews are posted to on the main server. */
export const SUBJECT_ACCESS_REVIEW_PATH = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

/**
 * Extension-server mode's authorization (`--authorization-kubeconfig`): the always-allowed
 * paths and groups, then a SubjectAccessReview to the main server, before this server's modes.
 */
export interface DelegatedAuthorization {
  /** The main server (base URL and credential). */
  config: ClientConfig;
  allowCacheTtlMs: number;
  denyCacheTtlMs: number;
  alwaysAllowPaths: string[];
  alwaysAllowGroups: string[];
}

/** The built authorization: the chain and the parts other components use. */
export interface BuiltAuthorization {
  /** The chain that authorizes requests and answers the review APIs. */
  chain: AuthorizerChain;
  /** The RBAC index (always present). */
  index: RbacIndex;
  /** The RBAC authorizer over the index (the rule resolver of escalation checks). */
  rbac: RbacAuthorizer;
  /** The Node authorizer's graph, with mode Node. */
  nodeGraph?: NodeGraph;
  /** Starts feeding the indexes from `feed`; resolves once they hold the initial state. */
  follow(feed: ResourceFeed): Promise<void>;
  /** Stops following the feed. */
  stop(): void;
}

/**
 * Builds the chain; its indexes stay empty (every RBAC and Node check denies) until
 * {@link BuiltAuthorization.follow} has delivered the initial state.
 */
export async function buildAuthorizer(
  opts: AuthorizationOptions,
  deps: { logger?: Logger; metrics?: MetricsRegistry; delegated?: DelegatedAuthorization } = {},
): Promise<BuiltAuthorization> {
  const index = new RbacIndex();
  const rbac = new RbacAuthorizer(index);
  const webhookMetrics = deps.metrics && webhookAuthorizerMetrics(deps.metrics);
  const delegated = deps.delegated && delegatedWebhook(deps.delegated, webhookMetrics);
  const head: Authorizer[] = deps.delegated
    ? [
      new AlwaysAllowPathsAuthorizer(deps.delegated.alwaysAllowPaths),
      new PrivilegedGroupsAuthorizer(deps.delegated.alwaysAllowGroups),
      delegated!,
    ]
    : [new PrivilegedGroupsAuthorizer()];
  const authorizers: Authorizer[] = [...head];
  const count = decisionCounter(deps.metrics);
  const { fixed, webhooks, nodeGraph } = await buildModes(
    opts,
    rbac,
    authorizers,
    { metrics: webhookMetrics, count },
  );
  const chain = new AuthorizerChain(authorizers);
  const stops: (() => void)[] = [() => delegated?.close()];
  if (opts.configFile && opts.configText !== undefined) {
    const controller = new AuthorizationConfigController({
      file: opts.configFile,
      text: opts.configText,
      chain,
      head,
      fixed,
      webhooks,
      intervalMs: opts.configReloadIntervalMs,
      metrics: deps.metrics && authorizationConfigMetrics(deps.metrics),
      webhookMetrics,
      count,
      logger: deps.logger,
    }).start();
    stops.push(() => controller.close());
  } else stops.push(() => webhooks.forEach((w) => w.close()));
  const stop = () => {
    for (const s of stops.splice(0)) s();
  };
  return {
    chain,
    index,
    rbac,
    nodeGraph,
    async follow(feed: ResourceFeed): Promise<void> {
      try {
        stops.push(await feed.follow(Object.values(RBAC_PREFIXES), (e) => index.apply(e)));
        const graph = nodeGraph;
        if (graph) stops.push(await feed.follow([POD_PREFIX], (e) => graph.apply(e)));
      } catch (err) {
        stop();
        throw err;
      }
    },
    stop,
  };
}

/** SubjectAccessReview against the main server (extension-server mode). */
function delegatedWebhook(
  d: DelegatedAuthorization,
  metrics?: WebhookAuthorizerMetrics,
): WebhookAuthorizer {
  const base = d.config.server.replace(/\/+$/, "");
  return new WebhookAuthorizer({
    name: "delegated",
    config: { ...d.config, server: base + SUBJECT_ACCESS_REVIEW_PATH },
    subjectAccessReviewVersion: "v1",
    authorizedTTLMs: d.allowCacheTtlMs,
    unauthorizedTTLMs: d.denyCacheTtlMs,
    timeoutMs: 10_000,
    failurePolicy: "NoOpinion",
    metrics,
  });
}

/** The webhook of `--authorization-mode=Webhook` and the `--authorization-webhook-*` flags. */
async function flagWebhook(
  opts: AuthorizationOptions,
  metrics?: WebhookAuthorizerMetrics,
): Promise<WebhookAuthorizer> {
  const file = opts.webhookConfigFile ?? "";
  let config;
  try {
    config = await loadKubeconfig(file);
  } catch (err) {
    throw new Error(`--authorization-webhook-config-file: ${file}: ${(err as Error).message}`);
  }
  return new WebhookAuthorizer({
    config,
    subjectAccessReviewVersion: opts.webhookVersion ?? "v1beta1",
    authorizedTTLMs: opts.webhookAuthorizedTtlMs ?? 300_000,
    unauthorizedTTLMs: opts.webhookUnauthorizedTtlMs ?? 30_000,
    failurePolicy: "NoOpinion",
    metrics,
  });
}

/** The authorizers of the modes or of the file, appended to `out` in order. */
async function buildModes(
  opts: AuthorizationOptions,
  rbac: RbacAuthorizer,
  out: Authorizer[],
  { metrics, count }: { metrics?: WebhookAuthorizerMetrics; count: DecisionCounter },
) {
  const fixed = new Map<string, Authorizer>();
  const webhooks: WebhookAuthorizer[] = [];
  let nodeGraph: NodeGraph | undefined;
  const entries = opts.config ?? opts.modes.map((type) => ({ type, name: type.toLowerCase() }));
  for (const entry of entries) {
    let a: Authorizer;
    switch (entry.type) {
      case "AlwaysAllow":
        a = new AlwaysAllowAuthorizer();
        break;
      case "AlwaysDeny":
        a = new AlwaysDenyAuthorizer();
        break;
      case "ABAC":
        a = await AbacAuthorizer.fromFile(opts.policyFile ?? "");
        break;
      case "RBAC":
        a = rbac;
        break;
      case "Node":
        nodeGraph = new NodeGraph();
        a = new NodeAuthorizer(nodeGraph);
        break;
      default: {
        const webhook = "webhook" in entry && entry.webhook
          ? await webhookFromConfig(entry.name, entry.webhook, metrics)
          : await flagWebhook(opts, metrics);
        webhooks.push(webhook);
        a = webhook;
      }
    }
    const counted = count(a, entry.type, entry.name);
    out.push(counted);
    if (entry.type !== "Webhook") fixed.set(entry.type, counted);
  }
  return { fixed, webhooks, nodeGraph };
}
