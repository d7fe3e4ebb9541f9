/**
 * NamespaceLifecycle admission: nothing is created in a missing namespace (404) or in one that
 * is terminating (403), and the system namespaces cannot be deleted.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/generic/admission.ts";
import type { Store } from "../registry/generic/store.ts";

/** Namespaces that may never be deleted. */
export const IMMORTAL_NAMESPACES = ["default", "kube-system", "kube-public"];

/** Builds the plugin; `namespaces` is the Namespace store. */
export function namespaceLifecycle(namespaces: () => Store): AdmissionPlugin {
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
      let ns;
      try {
        ns = await namespaces().get("", a.namespace);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) {
          throw StatusError.notFound({ group: "", resource: "namespaces" }, a.namespace);
        }
        throw err;
      }
      if (ns.metadata.deletionTimestamp) {
        throw StatusError.forbidden(
          { group: a.kind.group, resource: a.kind.plural },
          a.name,
          `unable to create new content in namespace ${a.namespace} because it is being terminated`,
        );
      }
    },
  };
}
