/**
 * How kube's Endpoints and EndpointSlice controllers match pods to a Service (pkg/controller/
 * util/endpoint and endpointslice/util): the Service's selector, which pods belong in its
 * endpoints, a pod's port for a Service port (`targetPort` by number or by container port
 * name), the hostname rule, and a pod's address of an IP family.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { LabelSelector, labelSelectorFromSet } from "../../../shared/selectors/label_selector.ts";
import { isTerminal } from "../pod_state.ts";

/** A Service port. */
export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  appProtocol?: string;
  targetPort?: number | string;
}

/** The Service's spec. */
export function serviceSpec(svc: KubeObject): {
  selector?: Record<string, string>;
  ports?: ServicePort[];
  clusterIP?: string;
  publishNotReadyAddresses?: boolean;
  ipFamilies?: string[];
  type?: string;
} {
  return (svc.spec ?? {}) as ReturnType<typeof serviceSpec>;
}

/** The Service's selector, or undefined when it has none (its endpoints are not managed). */
export function serviceSelector(svc: KubeObject): LabelSelector | undefined {
  const sel = serviceSpec(svc).selector;
  if (!sel || serviceSpec(svc).type === "ExternalName") return undefined;
  // An empty selector map selects every pod, as kube's AsSelectorPreValidated does.
  return Object.keys(sel).length === 0 ? LabelSelector.everything() : labelSelectorFromSet(sel);
}

interface PodSpec {
  restartPolicy?: string;
  hostname?: string;
  subdomain?: string;
  nodeName?: string;
  containers?: { ports?: { name?: string; containerPort: number; protocol?: string }[] }[];
}

/** The pod's spec. */
export function podSpec(pod: KubeObject): PodSpec {
  return (pod.spec ?? {}) as PodSpec;
}

/** The pod's IPs (`status.podIPs`, else `status.podIP`). */
export function podIPs(pod: KubeObject): string[] {
  const st = (pod.status ?? {}) as { podIP?: string; podIPs?: { ip: string }[] };
  const ips = (st.podIPs ?? []).map((p) => p.ip).filter((ip) => !!ip);
  return ips.length > 0 ? ips : st.podIP ? [st.podIP] : [];
}

/** The pod's address of `family` ("IPv4" or "IPv6"). */
export function podIPOf(pod: KubeObject, family: string): string | undefined {
  return podIPs(pod).find((ip) => (family === "IPv6") === ip.includes(":"));
}

/** kube's ShouldPodBeInEndpoints. */
export function shouldPodBeInEndpoints(pod: KubeObject, includeTerminating: boolean): boolean {
  if (podIPs(pod).length === 0) return false;
  if (!includeTerminating && pod.metadata.deletionTimestamp) return false;
  const phase = ((pod.status ?? {}) as { phase?: string }).phase;
  const policy = podSpec(pod).restartPolicy;
  if (policy === "Never") return !isTerminal(pod);
  if (policy === "OnFailure") return phase !== "Succeeded";
  return true;
}

/** kube's ShouldSetHostname: the pod's hostname, when its subdomain is the Service. */
export function hostnameFor(pod: KubeObject, svc: KubeObject): string | undefined {
  const s = podSpec(pod);
  return s.hostname && s.subdomain === svc.metadata.name &&
      pod.metadata.namespace === svc.metadata.namespace
    ? s.hostname
    : undefined;
}

/** kube's FindPort: the pod's port for a Service port, or undefined. */
export function findPort(pod: KubeObject, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === "number") return target;
  const asNumber = Number(target);
  if (target !== "" && Number.isInteger(asNumber)) return asNumber;
  const protocol = sp.protocol ?? "TCP";
  for (const c of podSpec(pod).containers ?? []) {
    for (const p of c.ports ?? []) {
      if (p.name === target && (p.protocol ?? "TCP") === protocol) return p.containerPort;
    }
  }
  return undefined;
}

/** The pod's endpoint ports for the Service (ports it has no match for are left out). */
export function endpointPorts(pod: KubeObject, svc: KubeObject) {
  const out: { name: string; port: number; protocol: string; appProtocol?: string }[] = [];
  for (const sp of serviceSpec(svc).ports ?? []) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    const p: (typeof out)[number] = { name: sp.name ?? "", port, protocol: sp.protocol ?? "TCP" };
    if (sp.appProtocol) p.appProtocol = sp.appProtocol;
    out.push(p);
  }
  return out;
}

/** The pod's reference as endpoints carry it. */
export function podRef(pod: KubeObject) {
  return {
    kind: "Pod",
    namespace: pod.metadata.namespace,
    name: pod.metadata.name,
    uid: pod.metadata.uid,
  };
}
