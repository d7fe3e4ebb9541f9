/**
 * The two webhook admission plugins and what they share: one HTTPS client (keep-alive
 * connections per webhook configuration; Services resolved through the registry), the match
 * conditions' CEL environment, the metrics, and the following of both configuration kinds.
 *
 * @example
 * ```ts
 * const webhooks = new AdmissionWebhooks({ feed: () => feed, metrics });
 * new ResourceRegistry({ storage, admissionPlugins: (kinds) => [
 *   webhooks.mutating(kinds), webhooks.validating(kinds),
 * ] });
 * // at shutdown
 * webhooks.close();
 * ```
 *
 * @module
 */
import type { RequestCelAuthorizer } from "./match_conditions.ts";
import type { ResourceFeed } from "../../auth/authz/resource_feed.ts";
import type { MetricsRegistry } from "../../metrics/metrics_registry.ts";
import type { AdmissionPlugin } from "../../registry/generic/admission.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import { registryEndpointSource } from "../../webhook/service_resolver.ts";
import { WebhookClient } from "../../webhook/webhook_client.ts";
import { EquivalentResources } from "../matching/match_request.ts";
import { namespaceLabelsFrom } from "../matching/namespace_labels.ts";
import { matchConditionEnvironment, WebhookConfigurations } from "./webhook_configurations.ts";
import { WebhookMetrics } from "./webhook_metrics.ts";
import { mutatingAdmissionWebhook } from "./mutating_webhook.ts";
import { validatingAdmissionWebhook } from "./validating_webhook.ts";

/** Options of {@link AdmissionWebhooks}. */
export interface AdmissionWebhooksOptions {
  /** The change feed the configurations are followed through (running by the first request). */
  feed: () => ResourceFeed;
  /** Where the webhook metrics are defined (none recorded without). */
  metrics?: MetricsRegistry;
  /**
   * A new per-request authorizer for match conditions' `authorizer` variable (over the
   * server's authorizer chain, e.g. ValidatingAdmissionPolicy's PrefetchingAuthorizer).
   */
  celAuthorizer?: () => RequestCelAuthorizer;
}

/** Builds the MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins. */
export class AdmissionWebhooks {
  readonly #opts: AdmissionWebhooksOptions;
  readonly #env = matchConditionEnvironment();
  readonly #metrics?: WebhookMetrics;
  readonly #closers: (() => void)[] = [];

  constructor(opts: AdmissionWebhooksOptions) {
    this.#opts = opts;
    this.#metrics = opts.metrics ? new WebhookMetrics(opts.metrics) : undefined;
  }

  #deps(kinds: ResourceRegistry, plural: string) {
    const client = new WebhookClient({ endpoints: registryEndpointSource(kinds) });
    const configurations = new WebhookConfigurations({
      prefix: () => kinds.lookup("admissionregistration.k8s.io", "v1", plural)?.prefix,
      feed: this.#opts.feed,
      env: this.#env,
    });
    const equivalents = new EquivalentResources(() => kinds.all().map((s) => s.def));
    const unsubscribe = kinds.onChange(() => equivalents.invalidate());
    this.#closers.push(() => client.close(), () => configurations.close(), unsubscribe);
    return {
      client,
      configurations,
      equivalents,
      namespaceLabels: namespaceLabelsFrom(() => kinds.lookup("", "v1", "namespaces")),
      env: this.#env,
      metrics: this.#metrics,
      celAuthorizer: this.#opts.celAuthorizer,
    };
  }

  /** The MutatingAdmissionWebhook plugin over `kinds`. */
  mutating(kinds: ResourceRegistry): AdmissionPlugin {
    return mutatingAdmissionWebhook(this.#deps(kinds, "mutatingwebhookconfigurations"));
  }

  /** The ValidatingAdmissionWebhook plugin over `kinds`. */
  validating(kinds: ResourceRegistry): AdmissionPlugin {
    return validatingAdmissionWebhook(this.#deps(kinds, "validatingwebhookconfigurations"));
  }

  /** Stops following the configurations and closes the webhooks' connections. */
  close(): void {
    for (const c of this.#closers) c();
  }
}
