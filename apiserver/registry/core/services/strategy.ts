/**
 * Service: a stable virtual address (ClusterIP) and ports for a set of pods, or a DNS alias
 * (ExternalName). Defaults as Kubernetes' SetDefaults_Service; ClusterIPs and NodePorts come
 * from the server's allocator (`allocator.ts`), written with the Service.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { nameIsDNS1035Label } from "../../../../shared/api/validation/name_validators.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { type KindDef, STATUS_SUBRESOURCE } from "../../generic/kind.ts";
import { PROXY_VERBS, unavailableSubresource } from "../../generic/unavailable_subresource.ts";
import type { ServiceAllocator } from "./allocator.ts";
import { SERVICE_COLUMNS } from "./table.ts";
import { portsOf, specOf, validateService, validateServiceUpdate } from "./validation.ts";

/** Defaults of a Service spec, as SetDefaults_Service. */
export function defaultService(obj: KubeObject): void {
  if (!isObject(obj.spec)) obj.spec = {};
  const spec = specOf(obj);
  spec.type ||= "ClusterIP";
  spec.sessionAffinity ||= "None";
  for (const p of portsOf(spec)) {
    p.protocol ||= "TCP";
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === "") {
      p.targetPort = p.port;
    }
  }
  if (spec.type === "NodePort" || spec.type === "LoadBalancer") {
    spec.externalTrafficPolicy ||= "Cluster";
  }
  if (spec.type !== "ExternalName") spec.internalTrafficPolicy ??= "Cluster";
  if (spec.type === "LoadBalancer") spec.allocateLoadBalancerNodePorts ??= true;
  if (spec.sessionAffinity === "ClientIP") {
    const cfg = isObject(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig : {};
    const clientIP = isObject(cfg.clientIP) ? cfg.clientIP : {};
    clientIP.timeoutSeconds ??= 10800;
    spec.sessionAffinityConfig = { ...cfg, clientIP };
  }
  if (typeof spec.clusterIP !== "string" && Array.isArray(spec.clusterIPs)) {
    spec.clusterIP = spec.clusterIPs[0];
  }
  if (typeof spec.clusterIP === "string" && spec.clusterIP && !Array.isArray(spec.clusterIPs)) {
    spec.clusterIPs = [spec.clusterIP];
  }
  defaultIPFamilies(spec);
}

/** ipFamilies and ipFamilyPolicy of a single-stack IPv4 server. */
function defaultIPFamilies(spec: Record<string, unknown>): void {
  if (spec.type === "ExternalName") {
    delete spec.ipFamilies;
    delete spec.ipFamilyPolicy;
    return;
  }
  const headlessWithoutSelector = spec.clusterIP === "None" &&
    (!isObject(spec.selector) || Object.keys(spec.selector).length === 0);
  if (headlessWithoutSelector) {
    spec.ipFamilyPolicy ??= "RequireDualStack";
    spec.ipFamilies ??= ["IPv4", "IPv6"];
    return;
  }
  spec.ipFamilyPolicy ??= "SingleStack";
  spec.ipFamilies ??= ["IPv4"];
}

/**
 * On update, values the server allocated that the new spec leaves out are kept (as
 * Kubernetes' patchAllocatedValues): the ClusterIPs, and the NodePort of a port that stays.
 */
function keepAllocated(obj: KubeObject, old: KubeObject): void {
  const spec = specOf(obj), prev = specOf(old);
  const needsIP = spec.type !== "ExternalName" && prev.type !== "ExternalName";
  if (needsIP && !spec.clusterIP && prev.clusterIP) {
    spec.clusterIP = prev.clusterIP;
    spec.clusterIPs = prev.clusterIPs;
  }
  if (spec.type === "NodePort" || spec.type === "LoadBalancer") {
    const before = portsOf(prev);
    for (const p of portsOf(spec)) {
      if (p.nodePort) continue;
      const same = before.find((q) => q.port === p.port && q.protocol === p.protocol) ??
        (before.length === 1 && portsOf(spec).length === 1 ? before[0] : undefined);
      if (same?.nodePort) p.nodePort = same.nodePort;
    }
    if (!spec.healthCheckNodePort && prev.healthCheckNodePort) {
      spec.healthCheckNodePort = prev.healthCheckNodePort;
    }
  }
}

/**
 * A type change drops the fields the new type does not use where the client left them as
 * they were (kube's dropTypeDependentFields), so `type: ClusterIP` alone turns a NodePort
 * Service into a ClusterIP one.
 */
function dropTypeDependentFields(obj: KubeObject, old: KubeObject): void {
  const spec = specOf(obj), prev = specOf(old);
  if (spec.type === prev.type) return;
  const same = (k: string) => JSON.stringify(spec[k]) === JSON.stringify(prev[k]);
  const nodePorts = spec.type === "NodePort" ||
    (spec.type === "LoadBalancer" && spec.allocateLoadBalancerNodePorts !== false);
  if (!nodePorts) {
    const before = portsOf(prev);
    for (const p of portsOf(spec)) {
      const q = before.find((q) => q.port === p.port && q.protocol === p.protocol);
      if (p.nodePort && q?.nodePort === p.nodePort) delete p.nodePort;
    }
  }
  const external = spec.type === "NodePort" || spec.type === "LoadBalancer";
  if (!external && same("externalTrafficPolicy")) delete spec.externalTrafficPolicy;
  if (spec.type !== "LoadBalancer") {
    for (const k of ["healthCheckNodePort", "allocateLoadBalancerNodePorts", "loadBalancerClass"]) {
      if (same(k)) delete spec[k];
    }
  }
  if (spec.type === "ExternalName") {
    const ipFields = [
      "clusterIP",
      "clusterIPs",
      "ipFamilies",
      "ipFamilyPolicy",
      "internalTrafficPolicy",
    ];
    for (const k of ipFields) {
      if (same(k)) delete spec[k];
    }
  }
}

/** The Service kind, allocating from `allocator`. */
export function serviceKind(allocator: ServiceAllocator): KindDef {
  return {
    group: "",
    version: "v1",
    kind: "Service",
    plural: "services",
    singular: "service",
    shortNames: ["svc"],
    categories: ["all"],
    namespaced: true,
    returnDeletedObject: true,
    nameValidator: nameIsDNS1035Label,
    subresources: [
      STATUS_SUBRESOURCE,
      unavailableSubresource("services/proxy", PROXY_VERBS, "ServiceProxyOptions"),
    ],
    claims: allocator,
    strategy: {
      selectableFields: (obj) => {
        const spec = isObject(obj.spec) ? obj.spec : {};
        return {
          "spec.clusterIP": String(spec.clusterIP ?? ""),
          "spec.type": String(spec.type ?? ""),
        };
      },
      selectableFieldNames: ["spec.clusterIP", "spec.type"],
      tableColumns: SERVICE_COLUMNS,
      prepareForCreate(obj) {
        defaultService(obj);
        obj.status = { loadBalancer: {} };
      },
      prepareForUpdate(obj, old) {
        dropTypeDependentFields(obj, old);
        defaultService(obj);
        keepAllocated(obj, old);
      },
      validate: validateService,
      validateUpdate: validateServiceUpdate,
    },
  };
}
