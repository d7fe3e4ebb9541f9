/**
 * The Endpoints controller (kube's pkg/controller/endpoint): for every Service with a selector
 * it writes the Endpoints object of the same name: the matching pods that have an IP, ready
 * ones under `addresses` and the others under `notReadyAddresses` (all ready with
 * `publishNotReadyAddresses`), each with its node, hostname and pod reference, grouped into
 * subsets by the ports they serve (Service ports resolved per pod, named target ports by the
 * container's port name). The Service's labels are copied (plus `service.kubernetes.io/
 * headless` for a headless one); more than 1000 addresses are truncated and annotated
 * `endpoints.kubernetes.io/over-capacity: truncated`. Endpoints of a deleted Service go too.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { CONTROLLER_MANAGER, controllerUser } from "../controller_identity.ts";
import { isReady } from "../pod_state.ts";
import { PODS, ServiceLoop, type ServiceSyncInput } from "./service_loop.ts";
import {
  endpointPorts,
  hostnameFor,
  podIPOf,
  podRef,
  serviceSelector,
  serviceSpec,
  shouldPodBeInEndpoints,
} from "./service_pods.ts";

/** Most addresses an Endpoints object holds (kube's maxCapacity). */
const MAX_CAPACITY = 1000;
const OVER_CAPACITY = "endpoints.kubernetes.io/over-capacity";
const TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";
const HEADLESS = "service.kubernetes.io/headless";

type Address = { ip: string; nodeName?: string; hostname?: string; targetRef: unknown };
type Port = { name?: string; port: number; protocol: string; appProtocol?: string };
type Subset = { addresses?: Address[]; notReadyAddresses?: Address[]; ports?: Port[] };

/** Options of the controller. */
export interface EndpointsControllerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  logger?: Logger;
  resyncMs?: number;
  now?: () => number;
}

/** Keeps Services' Endpoints. */
export class EndpointsController {
  readonly #opts: EndpointsControllerOptions;
  readonly #loop: ServiceLoop;

  constructor(opts: EndpointsControllerOptions) {
    this.#opts = opts;
    this.#loop = new ServiceLoop({
      feed: opts.feed,
      name: "endpoints-controller",
      sync: (input) => this.sync(input),
      resyncMs: opts.resyncMs,
      logger: opts.logger,
    });
  }

  /** Starts following Services and pods. */
  start(): Promise<void> {
    return this.#loop.start();
  }

  /** Stops. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** Resolves when no sync runs or waits. */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  #store(): Store {
    return this.#opts.registry.lookup("", "v1", "endpoints")!;
  }

  /** Syncs one Service's Endpoints. */
  async sync({ namespace, name, service, informer }: ServiceSyncInput): Promise<void> {
    const user = controllerUser("endpoint-controller");
    if (!service) {
      await this.#store().delete(namespace, name, {}, { user, fieldManager: CONTROLLER_MANAGER })
        .catch((err) => {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        });
      return;
    }
    const selector = serviceSelector(service);
    if (!selector) return;
    const pods = informer.list(PODS, namespace).filter((p) => selector.matches(p.metadata.labels));
    const { subsets, truncated } = endpointSubsets(service, pods);
    const labels: Record<string, string> = { ...service.metadata.labels };
    if (serviceSpec(service).clusterIP === "None") labels[HEADLESS] = "";
    const now = new Date((this.#opts.now ?? Date.now)()).toISOString().replace(/\.\d+Z$/, "Z");
    try {
      await this.#store().guaranteedUpdate(
        namespace,
        name,
        (cur) => {
          const next = cur ??
            { apiVersion: "v1", kind: "Endpoints", metadata: { name, namespace } } as KubeObject;
          const old = cur as (KubeObject & { subsets?: Subset[] }) | undefined;
          const annotations = { ...next.metadata.annotations };
          delete annotations[OVER_CAPACITY];
          if (truncated) annotations[OVER_CAPACITY] = "truncated";
          const sameSubsets = deepEqual(old?.subsets ?? [], subsets);
          if (
            cur && sameSubsets && deepEqual(cur.metadata.labels ?? {}, labels) &&
            deepEqual(cur.metadata.annotations ?? {}, withTrigger(annotations, cur))
          ) {
            return undefined;
          }
          if (!sameSubsets || !cur) annotations[TRIGGER_TIME] = now;
          next.metadata.labels = Object.keys(labels).length > 0 ? labels : undefined;
          next.metadata.annotations = Object.keys(annotations).length > 0 ? annotations : undefined;
          (next as { subsets?: Subset[] }).subsets = subsets.length > 0 ? subsets : undefined;
          return next;
        },
        {},
        { user, allowCreate: true, fieldManager: CONTROLLER_MANAGER },
      );
    } catch (err) {
      if (err instanceof StatusError && (err.code === 409 || err.code === 404)) return;
      throw err;
    }
  }
}

/** The annotations with the stored trigger time kept (it changes only with the subsets). */
function withTrigger(annotations: Record<string, string>, cur: KubeObject): Record<string, string> {
  const t = cur.metadata.annotations?.[TRIGGER_TIME];
  return t === undefined ? annotations : { ...annotations, [TRIGGER_TIME]: t };
}

/** The subsets of the Service's pods, repacked by port set (kube's RepackSubsets). */
export function endpointSubsets(
  svc: KubeObject,
  pods: readonly KubeObject[],
): { subsets: Subset[]; truncated: boolean } {
  const spec = serviceSpec(svc);
  const tolerate = !!spec.publishNotReadyAddresses;
  const family = spec.ipFamilies?.[0] ?? "IPv4";
  const groups = new Map<string, { ports: Port[]; ready: Address[]; notReady: Address[] }>();
  let total = 0;
  let truncated = false;
  const sorted = [...pods].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  for (const pod of sorted) {
    if (!shouldPodBeInEndpoints(pod, tolerate)) continue;
    const ip = podIPOf(pod, family);
    if (!ip) continue;
    const address: Address = { ip, targetRef: podRef(pod) };
    const node = (pod.spec as { nodeName?: string }).nodeName;
    if (node) address.nodeName = node;
    const hostname = hostnameFor(pod, svc);
    if (hostname) address.hostname = hostname;
    let ports: Port[] = endpointPorts(pod, svc).map((p) => {
      const { name, ...rest } = p;
      return name ? { name, ...rest } : rest;
    });
    if ((spec.ports ?? []).length === 0) {
      if (spec.clusterIP !== "None") continue;
      ports = [];
    } else if (ports.length === 0) continue;
    if (total >= MAX_CAPACITY) {
      truncated = true;
      continue;
    }
    total++;
    ports.sort((a, b) => (a.name ?? "").localeCompare(b.name ?? "") || a.port - b.port);
    const key = JSON.stringify(ports);
    const g = groups.get(key) ?? { ports, ready: [], notReady: [] };
    groups.set(key, g);
    (tolerate || isReady(pod) ? g.ready : g.notReady).push(address);
  }
  const byIp = (a: Address, b: Address) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0);
  const subsets = [...groups.values()].map((g) => {
    const s: Subset = {};
    if (g.ready.length > 0) s.addresses = g.ready.sort(byIp);
    if (g.notReady.length > 0) s.notReadyAddresses = g.notReady.sort(byIp);
    if (g.ports.length > 0) s.ports = g.ports;
    return s;
  });
  return { subsets, truncated };
}
