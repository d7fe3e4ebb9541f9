/**
 * The API Priority and Fairness configuration every Kubernetes 1.32 API server ensures at
 * start: the mandatory objects (`exempt` and `catch-all` of both kinds) and the suggested ones.
 * Names, precedences, shares and queuing figures are Kubernetes' (k8s.io/apiserver's bootstrap
 * defaults), fully defaulted, each annotated `apf.kubernetes.io/autoupdate-spec: "true"`.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";

/** The annotation that says whether the server keeps a configuration object's spec current. */
export const AUTOUPDATE_SPEC_ANNOTATION = "apf.kubernetes.io/autoupdate-spec";

type Subject = Record<string, unknown>;
type Rule = Record<string, unknown>;

const group = (name: string): Subject => ({ kind: "Group", group: { name } });
const user = (name: string): Subject => ({ kind: "User", user: { name } });
const kubeSystemSA = (name: string): Subject => ({
  kind: "ServiceAccount",
  serviceAccount: { namespace: "kube-system", name },
});

function resourceRule(
  verbs: string[],
  apiGroups: string[],
  resources: string[],
  namespaces: string[],
  clusterScope: boolean,
): Rule {
  return { verbs, apiGroups, resources, ...(clusterScope ? { clusterScope } : {}), namespaces };
}

const EVERYTHING = { resourceRules: [resourceRule(["*"], ["*"], ["*"], ["*"], true)] };
const ALL_URLS = { nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] };
const ALL_REQUESTS = { ...EVERYTHING, ...ALL_URLS };
const EVERYONE = [group("system:unauthenticated"), group("system:authenticated")];
const GET_CREATE_UPDATE = ["get", "create", "update"];

function meta(name: string) {
  return { name, annotations: { [AUTOUPDATE_SPEC_ANNOTATION]: "true" } };
}

function flowSchema(
  name: string,
  priorityLevel: string,
  matchingPrecedence: number,
  distinguisher: string,
  rule: Rule,
): KubeObject {
  return {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1",
    kind: "FlowSchema",
    metadata: meta(name),
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rule],
    },
  };
}

function limited(
  name: string,
  shares: number,
  lendablePercent: number,
  queuing?: [number, number, number],
): KubeObject {
  const limitResponse = queuing
    ? {
      type: "Queue",
      queuing: { queues: queuing[0], handSize: queuing[1], queueLengthLimit: queuing[2] },
    }
    : { type: "Reject" };
  return {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1",
    kind: "PriorityLevelConfiguration",
    metadata: meta(name),
    spec: {
      type: "Limited",
      limited: { nominalConcurrencyShares: shares, limitResponse, lendablePercent },
    },
  };
}

/** The mandatory priority levels, `catch-all` and `exempt`. */
export function mandatoryPriorityLevels(): KubeObject[] {
  return [
    limited("catch-all", 5, 0),
    {
      apiVersion: "flowcontrol.apiserver.k8s.io/v1",
      kind: "PriorityLevelConfiguration",
      metadata: meta("exempt"),
      spec: { type: "Exempt", exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
    },
  ];
}

/** The mandatory flow schemas, `exempt` and `catch-all`. */
export function mandatoryFlowSchemas(): KubeObject[] {
  return [
    flowSchema("exempt", "exempt", 1, "", { subjects: [group("system:masters")], ...ALL_REQUESTS }),
    flowSchema("catch-all", "catch-all", 10000, "ByUser", { subjects: EVERYONE, ...ALL_REQUESTS }),
  ];
}

/** The suggested priority levels. */
export function suggestedPriorityLevels(): KubeObject[] {
  return [
    limited("system", 30, 33, [64, 6, 50]),
    limited("node-high", 40, 25, [64, 6, 50]),
    limited("leader-election", 10, 0, [16, 4, 50]),
    limited("workload-high", 40, 50, [128, 6, 50]),
    limited("workload-low", 100, 90, [128, 6, 50]),
    limited("global-default", 20, 50, [128, 6, 50]),
  ];
}

/** The suggested flow schemas. */
export function suggestedFlowSchemas(): KubeObject[] {
  const leases = resourceRule(GET_CREATE_UPDATE, ["coordination.k8s.io"], ["leases"], ["*"], false);
  return [
    flowSchema("system-nodes", "system", 500, "ByUser", {
      subjects: [group("system:nodes")],
      ...ALL_REQUESTS,
    }),
    flowSchema("system-node-high", "node-high", 400, "ByUser", {
      subjects: [group("system:nodes")],
      resourceRules: [
        resourceRule(["*"], [""], ["nodes", "nodes/status"], ["*"], true),
        resourceRule(["*"], ["coordination.k8s.io"], ["leases"], ["*"], false),
      ],
    }),
    flowSchema("probes", "exempt", 2, "", {
      subjects: EVERYONE,
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz", "/livez"] }],
    }),
    flowSchema("system-leader-election", "leader-election", 100, "ByUser", {
      subjects: [
        user("system:kube-controller-manager"),
        user("system:kube-scheduler"),
        kubeSystemSA("*"),
      ],
      resourceRules: [leases],
    }),
    flowSchema("workload-leader-election", "leader-election", 200, "ByUser", {
      subjects: [kubeSystemSA("*")],
      resourceRules: [
        resourceRule(GET_CREATE_UPDATE, [""], ["endpoints", "configmaps"], ["*"], false),
        leases,
      ],
    }),
    flowSchema("endpoint-controller", "workload-high", 150, "ByUser", {
      subjects: [
        user("system:kube-controller-manager"),
        kubeSystemSA("endpoint-controller"),
        kubeSystemSA("endpointslicemirroring-controller"),
      ],
      resourceRules: [resourceRule(GET_CREATE_UPDATE, [""], ["endpoints"], ["*"], false)],
    }),
    flowSchema("kube-controller-manager", "workload-high", 800, "ByNamespace", {
      subjects: [user("system:kube-controller-manager")],
      ...ALL_REQUESTS,
    }),
    flowSchema("kube-scheduler", "workload-high", 800, "ByNamespace", {
      subjects: [user("system:kube-scheduler")],
      ...ALL_REQUESTS,
    }),
    flowSchema("kube-system-service-accounts", "workload-high", 900, "ByNamespace", {
      subjects: [kubeSystemSA("*")],
      ...ALL_REQUESTS,
    }),
    flowSchema("service-accounts", "workload-low", 9000, "ByUser", {
      subjects: [group("system:serviceaccounts")],
      ...ALL_REQUESTS,
    }),
    flowSchema("global-default", "global-default", 9900, "ByUser", {
      subjects: EVERYONE,
      ...ALL_REQUESTS,
    }),
  ];
}
