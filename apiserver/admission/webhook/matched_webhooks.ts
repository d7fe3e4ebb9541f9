/**
 * The webhooks of a set that a request matches, in order, each with the version it is called
 * in: the rules (with `matchPolicy`), then the object selector, then the namespace selector
 * (read once per request). Match conditions are evaluated at call time.
 *
 * @module
 */
import type { AdmissionAttributes } from "../../registry/generic/admission.ts";
import type { KindDef } from "../../registry/generic/kind.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { WebhookEntry, WebhookSet } from "./webhook_configurations.ts";
import {
  type MatchedVersion,
  matchVersion,
  namespaceSelectorMatches,
  objectSelectorMatches,
} from "./webhook_matching.ts";

/** A webhook the request matched, and the version it sees the object in. */
export interface MatchedWebhook {
  entry: WebhookEntry;
  version: MatchedVersion;
}

function sameKind(a: KindDef, b: KindDef): boolean {
  return a.group === b.group && a.version === b.version && a.plural === b.plural;
}

/** The other served versions of the request's stored resource (for `matchPolicy: Equivalent`). */
function equivalentsOf(kinds: ResourceRegistry, stored: KindDef): () => KindDef[] {
  let found: KindDef[] | undefined;
  return () =>
    found ??= kinds.all().map((s) => s.def).filter((d) =>
      d.servedFrom !== undefined && sameKind(d.servedFrom.storage, stored)
    );
}

/** Reads a Namespace's labels through the registry, once per request. */
function namespaceLabelsOf(kinds: ResourceRegistry) {
  const cache = new Map<string, Promise<Record<string, string> | undefined>>();
  return (name: string) => {
    let got = cache.get(name);
    if (!got) {
      const store = kinds.lookup("", "v1", "namespaces");
      got = store
        ? store.get("", name).then(
          (ns) => ns.metadata?.labels ?? {},
          (err) => {
            if ((err as { code?: number }).code === 404) return undefined;
            throw err;
          },
        )
        : Promise.resolve(undefined);
      cache.set(name, got);
    }
    return got;
  };
}

/** The webhooks of `set` the request matches, in order. */
export async function matchedWebhooks(
  set: WebhookSet,
  attrs: AdmissionAttributes,
  kinds: ResourceRegistry,
): Promise<MatchedWebhook[]> {
  const candidates = set.candidates(attrs.kind.plural);
  if (candidates.length === 0) return [];
  const others = equivalentsOf(kinds, attrs.kind);
  const labels = namespaceLabelsOf(kinds);
  const out: MatchedWebhook[] = [];
  for (const entry of candidates) {
    const version = matchVersion(entry.hook.rules, entry.hook.matchPolicy, attrs, others);
    if (!version) continue;
    if (!objectSelectorMatches(entry.objectSelector, attrs)) continue;
    if (!(await namespaceSelectorMatches(entry.namespaceSelector, attrs, labels))) continue;
    out.push({ entry, version });
  }
  return out;
}
