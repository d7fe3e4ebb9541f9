/**
 * The ResourceQuota admission plugin, as kube-apiserver's: a write that a quota of its
 * namespace selects is checked against the quota (see check_request.ts) and, when allowed,
 * charged to the quota's `status.used` by a compare-and-swap update of the quota before the
 * object is written. A swap that loses to a concurrent one (another write charged first)
 * re-reads the quotas and checks again, so concurrent creates can never take the quota past
 * `status.hard`. Checks of one namespace run one at a time in this process, so its own
 * concurrent writes rarely need the retry. A dry run is checked but never charged.
 * Subresources, events and virtual kinds are never counted, as in kube.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/generic/admission.ts";
import type { Store } from "../../registry/generic/store.ts";
import { type Charge, checkRequest } from "./check_request.ts";
import { EvaluatorRegistry } from "./evaluators.ts";
import type { PendingCharges } from "./pending_charges.ts";
import { toJson } from "./resource_list.ts";

/** How many times a charge that loses to concurrent ones is checked again (then 500). */
const MAX_CHARGE_ATTEMPTS = 10;

/** Kinds kube's quota never counts: virtual kinds, and events (never quota-ed). */
const IGNORED = new Set([
  "/bindings",
  "/componentstatuses",
  "/events",
  "events.k8s.io/events",
  "authentication.k8s.io/tokenreviews",
  "authentication.k8s.io/selfsubjectreviews",
  "authorization.k8s.io/subjectaccessreviews",
  "authorization.k8s.io/selfsubjectaccessreviews",
  "authorization.k8s.io/localsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectrulesreviews",
]);

/** Where the plugin finds the ResourceQuota store (the registry). */
export interface QuotaStoreLookup {
  lookup(group: string, version: string, resource: string): Store | undefined;
}

/** Runs `fn` after every earlier call for the same key has finished. */
class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(fn);
    const tail = mine.catch(() => {});
    this.#tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}

/** Builds the plugin over the registry's ResourceQuota store. */
export function resourceQuota(kinds: QuotaStoreLookup, pending?: PendingCharges): AdmissionPlugin {
  const evaluators = new EvaluatorRegistry();
  const lock = new KeyedLock();
  return {
    name: "ResourceQuota",
    async validate(a) {
      if (a.subresource || !a.namespace || !a.kind.namespaced || !a.object) return;
      if (IGNORED.has(`${a.kind.group}/${a.kind.plural}`)) return;
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      const quotas = kinds.lookup("", "v1", "resourcequotas");
      if (!quotas) return;
      const evaluator = evaluators.get(a.kind.group, a.kind.plural);
      if (!evaluator.handles(a)) return;
      // Most namespaces have no quota: the watch cache answers that without waiting (as kube's
      // quota informer does); the check itself reads the latest state.
      const cached = await quotas.list(a.namespace, { plan: { mode: "any" } });
      if (cached.items.length === 0) return;
      await lock.run(a.namespace, () => admit(a, quotas, evaluator, pending));
    },
  };
}

async function admit(
  a: AdmissionAttributes,
  quotas: Store,
  evaluator: ReturnType<EvaluatorRegistry["get"]>,
  pending?: PendingCharges,
): Promise<void> {
  const charged = new Set<string>();
  for (let attempt = 1;; attempt++) {
    const list = await quotas.list(a.namespace, { plan: { mode: "latest" } });
    const unchecked = list.items.filter((q) => !charged.has(q.metadata.name!));
    if (unchecked.length === 0) return;
    const w = { ...a, group: a.kind.group, resource: a.kind.plural, now: Date.now() };
    const charges = checkRequest(unchecked, w, evaluator);
    if (charges.length === 0 || a.dryRun) return;
    if (await chargeTracked(a, quotas, charges, charged, pending)) return;
    if (attempt >= MAX_CHARGE_ATTEMPTS) {
      throw StatusError.internal(
        "resource quota evaluation failed: too many concurrent quota updates",
      );
    }
  }
}

/**
 * Charges, recording the charge as pending first (the controller must not recount from the
 * moment a swap commits until the object is stored); false when a swap lost.
 */
async function chargeTracked(
  a: AdmissionAttributes,
  quotas: Store,
  charges: Charge[],
  charged: Set<string>,
  pending?: PendingCharges,
): Promise<boolean> {
  const entry = pending?.add(a.namespace, a.kind.group, a.kind.plural, a.name);
  let result = { revision: 0, complete: false };
  try {
    result = await chargeAll(quotas, a.namespace, charges, charged);
  } finally {
    // Whatever was charged holds the namespace until the object is seen written.
    if (entry && result.revision > 0) pending!.charged(entry, result.revision);
    else if (entry) pending!.cancel(a.namespace, entry);
  }
  return result.complete;
}

/**
 * Writes each charge with a compare-and-swap on the quota revision it was checked against;
 * answers the last revision written and whether every swap won. The quotas charged are added
 * to `charged`: a retry checks and charges only the others.
 */
async function chargeAll(
  quotas: Store,
  namespace: string,
  charges: Charge[],
  charged: Set<string>,
): Promise<{ revision: number; complete: boolean }> {
  let revision = 0;
  for (const { quota, used } of charges) {
    const next: KubeObject = structuredClone(quota);
    next.status = { ...(next.status as Record<string, unknown> ?? {}), used: toJson(used) };
    try {
      const { object } = await quotas.update(namespace, quota.metadata.name!, next, {
        subresource: "status",
      });
      charged.add(quota.metadata.name!);
      revision = Math.max(revision, Number(object.metadata.resourceVersion));
    } catch (err) {
      if (err instanceof StatusError && (err.code === 409 || err.code === 404)) {
        return { revision, complete: false };
      }
      throw err;
    }
  }
  return { revision, complete: true };
}
