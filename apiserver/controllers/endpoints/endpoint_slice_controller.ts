/**
 * The EndpointSlice controller (kube's pkg/controller/endpointslice): for every Service with a
 * selector it keeps EndpointSlices (`<service>-<random>`, owned by the Service, labelled
 * `kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by:
 * endpointslice-controller.k8s.io`) holding an endpoint per matching pod with an IP, with the
 * `ready`, `serving` and `terminating` conditions, node, zone, hostname and pod reference;
 * pods serving different port sets go to different slices, at most 100 endpoints a slice. An
 * endpoint stays in the slice it is in; new ones fill slices with room before new slices are
 * made; emptied slices are deleted, keeping one (empty) slice per Service.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { controllerOf } from "../controller_ref.ts";
import { CONTROLLER_MANAGER, controllerUser } from "../controller_identity.ts";
import { isReady } from "../pod_state.ts";
import { Informer } from "../informer.ts";
import { NODES, PODS, ServiceLoop, type ServiceSyncInput } from "./service_loop.ts";
import {
  endpointPorts,
  hostnameFor,
  podIPOf,
  podRef,
  serviceSelector,
  serviceSpec,
  shouldPodBeInEndpoints,
} from "./service_pods.ts";
import { planSlices, type SliceEndpoint, type SliceOwner, type SlicePort } from "./slice_plan.ts";
import { controllerRefTo } from "../controller_ref.ts";

export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
export const MANAGED_BY = "endpointslice-controller.k8s.io";
const SLICES = "/registry/discovery.k8s.io/endpointslices/";
const ZONE = "topology.kubernetes.io/zone";

/** Options of the controller. */
export interface EndpointSliceControllerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  logger?: Logger;
  /** Most endpoints per slice (kube's `--max-endpoints-per-slice`, 100). */
  maxEndpointsPerSlice?: number;
  resyncMs?: number;
}

/** Keeps Services' EndpointSlices. */
export class EndpointSliceController {
  readonly #opts: EndpointSliceControllerOptions;
  readonly #loop: ServiceLoop;
  readonly #slices: Informer;

  constructor(opts: EndpointSliceControllerOptions) {
    this.#opts = opts;
    this.#loop = new ServiceLoop({
      feed: opts.feed,
      name: "endpointslice-controller",
      sync: (input) => this.sync(input),
      nodes: true,
      resyncMs: opts.resyncMs,
      logger: opts.logger,
    });
    // A managed slice changed or deleted by someone else brings its Service back in line.
    this.#slices = new Informer({
      feed: opts.feed,
      prefixes: [SLICES],
      handler: (_, obj, old) => {
        const o = (obj ?? old)!;
        const svc = o.metadata.labels?.[SERVICE_NAME_LABEL];
        if (svc && o.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY && (!obj || obj !== old)) {
          this.#loop.add(`${o.metadata.namespace}/${svc}`);
        }
      },
    });
  }

  /** Starts following Services, pods, nodes and slices. */
  async start(): Promise<void> {
    await this.#slices.start();
    await this.#loop.start();
  }

  /** Stops. */
  async stop(): Promise<void> {
    this.#slices.stop();
    await this.#loop.stop();
  }

  /** Resolves when no sync runs or waits. */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  #store(): Store {
    return this.#opts.registry.lookup("discovery.k8s.io", "v1", "endpointslices")!;
  }

  /** Syncs one Service's slices. */
  async sync({ namespace, name, service, informer }: ServiceSyncInput): Promise<void> {
    const existing = this.#slices.list(SLICES, namespace).filter((s) =>
      s.metadata.labels?.[SERVICE_NAME_LABEL] === name &&
      s.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY
    );
    const selector = service && serviceSelector(service);
    if (!service || !selector) {
      // Gone (the garbage collector also deletes owned slices) or no longer selecting.
      for (const s of existing) await this.#delete(s);
      return;
    }
    const mine = existing.filter((s) => controllerOf(s)?.uid === service.metadata.uid);
    for (const s of existing.filter((x) => !mine.includes(x))) await this.#delete(s);
    const family = serviceSpec(service).ipFamilies?.[0] ?? "IPv4";
    const pods = informer.list(PODS, namespace).filter((p) => selector.matches(p.metadata.labels));
    const endpoints = pods.flatMap((p) => {
      const ep = podEndpoint(p, service, family, informer);
      return ep ? [ep] : [];
    });
    const plan = planSlices(
      serviceSliceOwner(service),
      mine,
      endpoints,
      family,
      this.#opts.maxEndpointsPerSlice ?? 100,
    );
    const user = controllerUser("endpointslice-controller");
    for (const s of plan.remove) await this.#delete(s);
    for (const s of plan.update) {
      await this.#store().update(namespace, s.metadata.name!, s, {
        user,
        fieldManager: CONTROLLER_MANAGER,
      }).catch(
        ignoreGoneOrConflict,
      );
    }
    for (const s of plan.create) {
      await this.#store().create(namespace, s, { user, fieldManager: CONTROLLER_MANAGER });
    }
  }

  async #delete(slice: KubeObject): Promise<void> {
    await this.#store().delete(slice.metadata.namespace!, slice.metadata.name!, {
      preconditions: { uid: slice.metadata.uid },
    }, {
      user: controllerUser("endpointslice-controller"),
      fieldManager: CONTROLLER_MANAGER,
    }).catch(ignoreGoneOrConflict);
  }
}

function ignoreGoneOrConflict(err: unknown): void {
  if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
  throw err;
}

/** kube's podToEndpoint, with the ports the pod serves. */
function podEndpoint(
  pod: KubeObject,
  svc: KubeObject,
  family: string,
  informer: Informer,
): { endpoint: SliceEndpoint; ports: SlicePort[] } | undefined {
  if (!shouldPodBeInEndpoints(pod, true)) return undefined;
  const ip = podIPOf(pod, family);
  if (!ip) return undefined;
  const serving = isReady(pod);
  const terminating = !!pod.metadata.deletionTimestamp;
  const ready = !!serviceSpec(svc).publishNotReadyAddresses || (serving && !terminating);
  const endpoint: SliceEndpoint = {
    addresses: [ip],
    conditions: { ready, serving, terminating },
    targetRef: podRef(pod),
  };
  const nodeName = (pod.spec as { nodeName?: string }).nodeName;
  if (nodeName) {
    endpoint.nodeName = nodeName;
    const zone = informer.get(NODES, "", nodeName)?.metadata.labels?.[ZONE];
    if (zone) endpoint.zone = zone;
  }
  const hostname = hostnameFor(pod, svc);
  if (hostname) endpoint.hostname = hostname;
  const ports = endpointPorts(pod, svc);
  if ((serviceSpec(svc).ports ?? []).length > 0 && ports.length === 0) return undefined;
  return { endpoint, ports };
}

/** The Service as its slices' owner: its labels, kube's slice labels, its controller reference. */
function serviceSliceOwner(svc: KubeObject): SliceOwner {
  const labels: Record<string, string> = { ...svc.metadata.labels };
  if (serviceSpec(svc).clusterIP === "None") labels["service.kubernetes.io/headless"] = "";
  labels[SERVICE_NAME_LABEL] = svc.metadata.name!;
  labels[MANAGED_BY_LABEL] = MANAGED_BY;
  return {
    namespace: svc.metadata.namespace!,
    name: svc.metadata.name!,
    labels,
    ref: controllerRefTo({ ...svc, apiVersion: "v1", kind: "Service" }),
  };
}
