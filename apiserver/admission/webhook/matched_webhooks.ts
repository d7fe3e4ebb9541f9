/**
 * The webhooks of a set that a request matches, in order, each with the version it is called
 * in, through the shared admission matching (rules with `matchPolicy`, object selector, then
 * namespace selector). Writes of the admission configuration kinds are never matched. Match
 * conditions are evaluated at call time.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { AdmissionAttributes } from "../../registry/generic/admission.ts";
import type { KindDef } from "../../registry/generic/kind.ts";
import {
  convertObject,
  type EquivalentResources,
  matchRequestOf,
  resourceOf,
} from "../matching/match_request.ts";
import type { NamespaceLabels } from "../matching/resource_matcher.ts";
import { isExemptAdmissionConfigurationResource } from "../matching/rules.ts";
import type { WebhookEntry, WebhookSet } from "./webhook_configurations.ts";

/**
 * The version a webhook's rule matched, and the conversions of objects (in the form of the
 * request's stored kind) to and from it; a conversion may call a conversion webhook.
 */
export interface MatchedVersion {
  def: KindDef;
  toVersion(obj: KubeObject): Promise<KubeObject>;
  fromVersion(obj: KubeObject): Promise<KubeObject>;
}

/** A webhook the request matched, and the version it sees the object in. */
export interface MatchedWebhook {
  entry: WebhookEntry;
  version: MatchedVersion;
}

/** What matching reads. */
export interface MatchingDeps {
  namespaceLabels: NamespaceLabels;
  equivalents: EquivalentResources;
}

function versionOf(attrs: AdmissionAttributes, def: KindDef): MatchedVersion {
  return {
    def,
    toVersion: (obj) => convertObject(obj, attrs.kind, def),
    fromVersion: (obj) => convertObject(obj, def, attrs.kind),
  };
}

/** Reads each namespace's labels once per request. */
function cached(lookup: NamespaceLabels): NamespaceLabels {
  const seen = new Map<string, ReturnType<NamespaceLabels>>();
  return (name) => {
    if (!seen.has(name)) seen.set(name, lookup(name));
    return seen.get(name)!;
  };
}

/** The webhooks of `set` the request matches, in order. */
export async function matchedWebhooks(
  set: WebhookSet,
  attrs: AdmissionAttributes,
  deps: MatchingDeps,
): Promise<MatchedWebhook[]> {
  const candidates = set.candidates(attrs.kind.plural);
  if (candidates.length === 0) return [];
  if (isExemptAdmissionConfigurationResource(resourceOf(attrs.kind))) return [];
  const req = matchRequestOf(attrs);
  const matchDeps = { ...deps, namespaceLabels: cached(deps.namespaceLabels) };
  const out: MatchedWebhook[] = [];
  for (const entry of candidates) {
    const r = await entry.matcher.matches(req, matchDeps);
    if (r.error !== undefined) throw StatusError.internal(r.error);
    if (r.matches) out.push({ entry, version: versionOf(attrs, r.def) });
  }
  return out;
}
