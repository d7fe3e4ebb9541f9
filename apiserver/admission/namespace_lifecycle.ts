/**
 * NamespaceLifecycle admission: nothing is created in a missing namespace (404) or in one that
 * is terminating (403), and the system namespaces cannot be deleted.
 *
 * Namespaces known to be active are remembered in memory, so a create does not read its
 * namespace from storage every time. The index follows this process's
 * commits of Namespaces (`Store.onCommit`, delivered before the committing call returns), so it
 * never answers "exists" for a namespace this process deleted or marked terminating; only
 * "active" is served from memory, everything else is read from storage, and a read never
 * overwrites a newer commit. Another API server sharing the storage is seen through reads only
 * after this one last saw the namespace change, as Kubernetes' informer-backed plugin sees
 * other servers' writes only after its watch delivers them.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { ChangeEvent } from "../storage/interface.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/generic/admission.ts";
import type { Store } from "../registry/generic/store.ts";

/** Namespaces that may never be deleted. */
export const IMMORTAL_NAMESPACES = ["default", "kube-system", "kube-public"];

const LOCAL_ACCESS_REVIEWS = "localsubjectaccessreviews";

/** What the index knows of a namespace, as of a revision. */
interface Known {
  revision: number;
  active: boolean;
}

/** Builds the plugin; `namespaces` is the Namespace store. */
export function namespaceLifecycle(namespaces: () => Store): AdmissionPlugin {
  const known = new Map<string, Known>();
  let subscribed: Store | undefined;
  const learn = (name: string, revision: number, active: boolean) => {
    const prev = known.get(name);
    if (prev && prev.revision >= revision) return;
    known.set(name, { revision, active });
  };
  const follow = (events: ChangeEvent[], prefix: string) => {
    for (const e of events) {
      const name = e.key.slice(prefix.length);
      learn(name, e.revision, e.type !== "DELETED" && !isTerminating(e.value));
    }
  };
  const store = (): Store => {
    const s = namespaces();
    if (subscribed !== s) {
      subscribed = s;
      known.clear();
      s.onCommit((events) => follow(events, s.prefix));
    }
    return s;
  };
  return {
    name: "NamespaceLifecycle",
    async validate(a: AdmissionAttributes): Promise<void> {
      if (a.kind.kind === "Namespace" && a.operation === "DELETE") {
        if (IMMORTAL_NAMESPACES.includes(a.name)) {
          throw StatusError.forbidden(
            { group: "", resource: "namespaces" },
            a.name,
            "this namespace may not be deleted",
          );
        }
        return;
      }
      if (!a.kind.namespaced || a.operation !== "CREATE") return;
      // Access reviews answer about a namespace without revealing whether it exists, as kube's.
      if (a.kind.group === "authorization.k8s.io" && a.kind.plural === LOCAL_ACCESS_REVIEWS) return;
      const nsStore = store();
      if (known.get(a.namespace)?.active) return;
      let ns;
      try {
        ns = await nsStore.get("", a.namespace);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) {
          throw StatusError.notFound({ group: "", resource: "namespaces" }, a.namespace);
        }
        throw err;
      }
      const terminating = !!ns.metadata.deletionTimestamp;
      const revision = Number(ns.metadata.resourceVersion);
      if (Number.isSafeInteger(revision)) learn(a.namespace, revision, !terminating);
      if (terminating) {
        throw StatusError.forbidden(
          { group: a.kind.group, resource: a.kind.plural },
          a.name,
          `unable to create new content in namespace ${a.namespace} because it is being terminated`,
        );
      }
    },
  };
}

/** Whether a stored Namespace value carries a deletionTimestamp (unreadable: treated so). */
function isTerminating(value: string): boolean {
  try {
    const obj = JSON.parse(value) as { metadata?: { deletionTimestamp?: unknown } };
    return !!obj?.metadata?.deletionTimestamp;
  } catch {
    return true;
  }
}
