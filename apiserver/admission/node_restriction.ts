/**
 * NodeRestriction admission: narrows what node agents (`system:node:<name>` in
 * `system:nodes`) may write. A node may create, update and delete only its own Node object
 * (and may not set or change `node-restriction.kubernetes.io/` labels or other restricted
 * `kubernetes.io`/`k8s.io` labels), create only mirror pods bound to itself that reference no
 * secrets, config maps, claims or service accounts, update the status of and delete only pods
 * bound to itself, and write only its own Lease.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { nodeIdentity } from "../auth/authz/node_authorizer.ts";
import { podReferences } from "../auth/authz/node_graph.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/generic/admission.ts";

/** The annotation marking a mirror pod. */
export const MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror";

const ALLOWED_LABELS = new Set([
  "kubernetes.io/hostname",
  "kubernetes.io/arch",
  "kubernetes.io/os",
  "beta.kubernetes.io/arch",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/instance-type",
  "failure-domain.beta.kubernetes.io/zone",
  "failure-domain.beta.kubernetes.io/region",
  "topology.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "node.kubernetes.io/instance-type",
]);
const ALLOWED_PREFIXES = ["kubelet.kubernetes.io/", "node.kubernetes.io/"];

/** Whether a node agent may not set or change the label `key`. */
export function isRestrictedNodeLabel(key: string): boolean {
  const slash = key.indexOf("/");
  if (slash < 0) return false;
  const domain = key.slice(0, slash);
  if (
    domain === "node-restriction.kubernetes.io" ||
    domain.endsWith(".node-restriction.kubernetes.io")
  ) {
    return true;
  }
  if (ALLOWED_LABELS.has(key) || ALLOWED_PREFIXES.some((p) => key.startsWith(p))) return false;
  return domain === "kubernetes.io" || domain.endsWith(".kubernetes.io") || domain === "k8s.io" ||
    domain.endsWith(".k8s.io");
}

function nodeNameOf(pod: KubeObject | undefined): string {
  const spec = pod?.spec as Record<string, unknown> | undefined;
  return typeof spec?.nodeName === "string" ? spec.nodeName : "";
}

function forbid(a: AdmissionAttributes, msg: string): never {
  throw StatusError.forbidden({ group: a.kind.group, resource: a.kind.plural }, a.name, msg);
}

function changedLabels(
  next: Record<string, string> | undefined,
  prev: Record<string, string> | undefined,
): string[] {
  const keys = new Set([...Object.keys(next ?? {}), ...Object.keys(prev ?? {})]);
  return [...keys].filter((k) => (next ?? {})[k] !== (prev ?? {})[k]);
}

function admitPod(a: AdmissionAttributes, node: string): void {
  switch (a.operation) {
    case "CREATE": {
      if (a.subresource) return;
      const pod = a.object!;
      if (!pod.metadata.annotations?.[MIRROR_POD_ANNOTATION]) {
        forbid(
          a,
          `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`,
        );
      }
      if (nodeNameOf(pod) !== node) {
        forbid(a, `node "${node}" can only create pods with spec.nodeName set to itself`);
      }
      const refs = podReferences(pod);
      for (
        const [kind, word] of [
          ["serviceaccounts/", "service accounts"],
          ["secrets/", "secrets"],
          ["configmaps/", "configmaps"],
          ["persistentvolumeclaims/", "persistentvolumeclaims"],
        ]
      ) {
        if (refs.some((r) => r.startsWith(kind))) {
          forbid(a, `node "${node}" can not create pods that reference ${word}`);
        }
      }
      return;
    }
    case "UPDATE":
      if (a.subresource === "status") {
        if (nodeNameOf(a.oldObject) !== node) {
          forbid(
            a,
            `node "${node}" can only update pod status for pods with spec.nodeName set to itself`,
          );
        }
        return;
      }
      forbid(a, `node "${node}" can only update pod status`);
      return;
    case "DELETE":
      if (nodeNameOf(a.oldObject) !== node) {
        forbid(a, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      }
      return;
  }
}

function admitNode(a: AdmissionAttributes, node: string): void {
  if (a.name !== node) forbid(a, `node "${node}" is not allowed to modify node "${a.name}"`);
  if (a.operation === "CREATE") {
    const bad = Object.keys(a.object?.metadata.labels ?? {}).filter(isRestrictedNodeLabel).sort();
    if (bad.length > 0) {
      forbid(a, `node "${node}" is not allowed to set the following labels: ${bad.join(", ")}`);
    }
  }
  if (a.operation === "UPDATE" && a.object && a.oldObject) {
    const bad = changedLabels(a.object.metadata.labels, a.oldObject.metadata.labels)
      .filter(isRestrictedNodeLabel).sort();
    if (bad.length > 0) {
      forbid(a, `node "${node}" is not allowed to modify labels: ${bad.join(", ")}`);
    }
  }
}

/** Builds the plugin. */
export function nodeRestriction(): AdmissionPlugin {
  return {
    name: "NodeRestriction",
    validate(a: AdmissionAttributes): void {
      if (!a.user) return;
      const node = nodeIdentity(a.user);
      if (node === undefined) return;
      if (node === "") forbid(a, "could not determine node from user");
      const gk = `${a.kind.group}/${a.kind.kind}`;
      if (gk === "/Pod") admitPod(a, node);
      else if (gk === "/Node") admitNode(a, node);
      else if (gk === "coordination.k8s.io/Lease") {
        if (a.name !== node) {
          forbid(a, "can only access node lease with the same name as the requesting node");
        }
      }
    },
  };
}
