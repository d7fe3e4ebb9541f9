/**
 * The RBAC objects `kubeadm init` creates for joining nodes, created at start when missing
 * (never overwritten, as kubeadm leaves them to the administrator afterwards):
 * `kube-public/cluster-info` readable by `system:anonymous`; bootstrap tokens of
 * `system:bootstrappers:kubeadm:default-node-token` may create CSRs and have their node
 * client CSRs approved; nodes have their own renewals approved.
 *
 * @module
 */
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import { RBAC_GROUP } from "../../auth/authz/rbac_types.ts";

/** The group kubeadm's tokens (and `apiserver token create`) put their users in. */
export const DEFAULT_NODE_TOKEN_GROUP = "system:bootstrappers:kubeadm:default-node-token";
const CLUSTER_INFO_ROLE = "kubeadm:bootstrap-signer-clusterinfo";

function binding(kind: string, name: string, role: string, subject: [string, string]) {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind,
    metadata: { name, ...(kind === "RoleBinding" ? { namespace: "kube-public" } : {}) },
    roleRef: {
      apiGroup: RBAC_GROUP,
      kind: kind === "RoleBinding" ? "Role" : "ClusterRole",
      name: role,
    },
    subjects: [{ kind: subject[0], apiGroup: RBAC_GROUP, name: subject[1] }],
  };
}

/** kubeadm's objects: [resource, object]. */
function kubeadmObjects(): [string, KubeObject][] {
  const nodeClient = "system:certificates.k8s.io:certificatesigningrequests:nodeclient";
  const selfNodeClient = "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient";
  return [
    ["roles", {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: "Role",
      metadata: { name: CLUSTER_INFO_ROLE, namespace: "kube-public" },
      rules: [{
        verbs: ["get"],
        apiGroups: [""],
        resources: ["configmaps"],
        resourceNames: ["cluster-info"],
      }],
    }],
    [
      "rolebindings",
      binding("RoleBinding", CLUSTER_INFO_ROLE, CLUSTER_INFO_ROLE, [
        "User",
        "system:anonymous",
      ]),
    ],
    [
      "clusterrolebindings",
      binding("ClusterRoleBinding", "kubeadm:kubelet-bootstrap", "system:node-bootstrapper", [
        "Group",
        DEFAULT_NODE_TOKEN_GROUP,
      ]),
    ],
    [
      "clusterrolebindings",
      binding("ClusterRoleBinding", "kubeadm:node-autoapprove-bootstrap", nodeClient, [
        "Group",
        DEFAULT_NODE_TOKEN_GROUP,
      ]),
    ],
    [
      "clusterrolebindings",
      binding(
        "ClusterRoleBinding",
        "kubeadm:node-autoapprove-certificate-rotation",
        selfNodeClient,
        ["Group", "system:nodes"],
      ),
    ],
  ];
}

/** Creates kubeadm's join RBAC objects that are missing. */
export async function ensureKubeadmPolicy(registry: ResourceRegistry): Promise<void> {
  for (const [resource, obj] of kubeadmObjects()) {
    const store = registry.lookup(RBAC_GROUP, "v1", resource)!;
    try {
      await store.create(obj.metadata.namespace ?? "", obj);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }
}
