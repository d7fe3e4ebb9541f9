/**
 * MutatingAdmissionWebhook: calls the matching webhooks of every
 * MutatingWebhookConfiguration in order (configurations by name), applies their JSON patches
 * to the object (in the version each webhook matched, then back), sets the object's defaults
 * again after a change, and reinvokes once, after the others, every `reinvocationPolicy:
 * IfNeeded` webhook that a later webhook's change followed.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { applyJsonPatch } from "../../../shared/patch/json_patch.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/generic/admission.ts";
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
import { type MatchedWebhook, matchedWebhooks, type MatchingDeps } from "./matched_webhooks.ts";

/** What the mutating plugin needs. */
export interface MutatingWebhookDeps extends WebhookCallDeps, MatchingDeps {
  configurations: WebhookConfigurations;
}

const ANNOTATION = "mutation.webhook.admission.k8s.io";
const FAILED_OPEN = "failed-open.mutation.webhook.admission.k8s.io";
const PATCH_ANNOTATION = "patch.webhook.admission.k8s.io";

/** Replaces the contents of `target` with `source` (the store holds `target`). */
function replaceContents(target: KubeObject, source: KubeObject): void {
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, source);
}

/** Applies a webhook's patch to the request's object; answers whether it changed. */
async function applyPatch(
  m: MatchedWebhook,
  attrs: AdmissionAttributes,
  patch: unknown,
): Promise<boolean> {
  if (!Array.isArray(patch) || patch.length === 0) return false;
  const name = m.entry.name;
  if (!attrs.object) {
    throw StatusError.internal(
      `admission webhook ${
        JSON.stringify(name)
      } attempted to modify the object, which is not supported for this operation`,
    );
  }
  let patched: unknown;
  try {
    patched = applyJsonPatch(await m.version.toVersion(attrs.object), patch);
  } catch (err) {
    throw StatusError.internal((err as Error).message);
  }
  if (typeof patched !== "object" || patched === null || Array.isArray(patched)) {
    throw StatusError.internal(`admission webhook ${JSON.stringify(name)} returned a non-object`);
  }
  const back = await m.version.fromVersion(patched as KubeObject);
  if (deepEqual(back, attrs.object)) return false;
  back.metadata ??= {};
  replaceContents(attrs.object, back);
  if (attrs.subresource === "") {
    const strategy = attrs.kind.strategy;
    if (attrs.operation === "CREATE") strategy.prepareForCreate?.(attrs.object, attrs.user);
    else if (attrs.oldObject) strategy.prepareForUpdate?.(attrs.object, attrs.oldObject);
  }
  return true;
}

/** Calls one webhook; answers whether it changed the object. */
async function invoke(
  m: MatchedWebhook,
  attrs: AdmissionAttributes,
  deps: MutatingWebhookDeps,
  round: number,
  index: number,
): Promise<boolean> {
  const { entry } = m;
  if (!(await matchConditionsAllow(entry, attrs, m.version, deps))) return false;
  const at = `round_${round}_index_${index}`;
  const configuration = entry.configName, webhook = entry.name;
  let mutated = false;
  try {
    await withPolicy(entry, attrs, "admit", deps.metrics, async () => {
      const response = await callWebhook(entry, attrs, m.version, true, deps);
      recordAuditAnnotations(attrs, webhook, response);
      passWarnings(attrs, response);
      if (!response.allowed) throw denial(webhook, response.result);
      mutated = await applyPatch(m, attrs, response.patch);
      if (Array.isArray(response.patch) && response.patch.length > 0) {
        const patch = response.patch, patchType = "JSONPatch";
        const value = JSON.stringify({ configuration, webhook, patch, patchType });
        annotate(attrs, `${PATCH_ANNOTATION}/${at}`, value);
      }
    }, () => annotate(attrs, `${FAILED_OPEN}/${at}`, webhook));
  } finally {
    const value = JSON.stringify({ configuration, webhook, mutated });
    annotate(attrs, `${ANNOTATION}/${at}`, value);
  }
  return mutated;
}

/** The MutatingAdmissionWebhook plugin. */
export function mutatingAdmissionWebhook(deps: MutatingWebhookDeps): AdmissionPlugin {
  return {
    name: "MutatingAdmissionWebhook",
    async admit(attrs) {
      const set = await deps.configurations.current(attrs);
      if (set.candidates(attrs.kind.plural).length === 0) return;
      const matched = await matchedWebhooks(set, attrs, deps);
      const reinvocable: string[] = [];
      const reinvoke = new Set<string>();
      for (const [i, m] of matched.entries()) {
        if (await invoke(m, attrs, deps, 0, i)) {
          for (const uid of reinvocable) reinvoke.add(uid);
        }
        if (m.entry.hook.reinvocationPolicy === "IfNeeded") reinvocable.push(m.entry.uid);
      }
      if (reinvoke.size === 0) return;
      for (const [i, m] of matched.entries()) {
        if (reinvoke.has(m.entry.uid)) await invoke(m, attrs, deps, 1, i);
      }
    },
  };
}
