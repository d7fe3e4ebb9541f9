/**
 * ValidatingAdmissionWebhook: calls the matching webhooks of every
 * ValidatingWebhookConfiguration concurrently; the request fails with the first failure in
 * configuration order (a denial, or a failed call whose `failurePolicy` is Fail).
 *
 * @module
 */
import type { AdmissionPlugin } from "../../registry/generic/admission.ts";
import {
  annotate,
  callWebhook,
  denial,
  matchConditionsAllow,
  passWarnings,
  recordAuditAnnotations,
  type WebhookCallDeps,
  withPolicy,
} from "./webhook_call.ts";
import type { WebhookConfigurations } from "./webhook_configurations.ts";
import { matchedWebhooks, type MatchingDeps } from "./matched_webhooks.ts";

/** What the validating plugin needs. */
export interface ValidatingWebhookDeps extends WebhookCallDeps, MatchingDeps {
  configurations: WebhookConfigurations;
}

const FAILED_OPEN = "failed-open.validating.webhook.admission.k8s.io";

/** The ValidatingAdmissionWebhook plugin. */
export function validatingAdmissionWebhook(deps: ValidatingWebhookDeps): AdmissionPlugin {
  return {
    name: "ValidatingAdmissionWebhook",
    async validate(attrs) {
      const set = await deps.configurations.current(attrs);
      if (set.candidates(attrs.kind.plural).length === 0) return;
      const matched = await matchedWebhooks(set, attrs, deps);
      const outcomes = await Promise.allSettled(matched.map(async (m, i) => {
        if (!(await matchConditionsAllow(m.entry, attrs, m.version, deps))) return;
        await withPolicy(m.entry, attrs, "validating", deps.metrics, async () => {
          const response = await callWebhook(m.entry, attrs, m.version, false, deps);
          recordAuditAnnotations(attrs, m.entry.name, response);
          passWarnings(attrs, response);
          if (!response.allowed) throw denial(m.entry.name, response.result);
        }, () => annotate(attrs, `${FAILED_OPEN}/round_0_index_${i}`, m.entry.name));
      }));
      for (const o of outcomes) if (o.status === "rejected") throw o.reason;
    },
  };
}
