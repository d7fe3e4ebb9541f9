/**
 * The EndpointSlice mirroring controller (kube's pkg/controller/endpointslicemirroring): the
 * Endpoints of a Service without a selector (written by hand or by another controller) are
 * mirrored into EndpointSlices labelled `endpointslice.kubernetes.io/managed-by:
 * endpointslicemirroring-controller.k8s.io` and owned by the Endpoints, so clients that read
 * only slices see them. Endpoints labelled `endpointslice.kubernetes.io/skip-mirror: "true"`
 * (the `kubernetes` Service's) are not mirrored; at most 1000 addresses of an Endpoints are.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { controllerRefTo } from "../controller_ref.ts";
import { Informer } from "../informer.ts";
import { KeyedQueue } from "../keyed_queue.ts";
import { CONTROLLER_MANAGER, controllerUser } from "../controller_identity.ts";
import { MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from "./endpoint_slice_controller.ts";
import { SERVICES } from "./service_loop.ts";
import { planSlices, type SliceEndpoint, type SlicePort } from "./slice_plan.ts";

const ENDPOINTS = "/registry/core/endpoints/";
const SLICES = "/registry/discovery.k8s.io/endpointslices/";
export const MIRRORING_MANAGED_BY = "endpointslicemirroring-controller.k8s.io";
const SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror";
const MAX_ADDRESSES = 1000;
const WRITE = {
  user: controllerUser("endpointslicemirroring-controller"),
  fieldManager: CONTROLLER_MANAGER,
};

type Address = { ip: string; nodeName?: string; hostname?: string; targetRef?: unknown };
type Subset = {
  addresses?: Address[];
  notReadyAddresses?: Address[];
  ports?: { name?: string; port: number; protocol?: string; appProtocol?: string }[];
};

/** Options of the controller. */
export interface EndpointSliceMirroringControllerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  logger?: Logger;
  resyncMs?: number;
}

/** Mirrors selector-less Services' Endpoints into EndpointSlices. */
export class EndpointSliceMirroringController {
  readonly #opts: EndpointSliceMirroringControllerOptions;
  readonly #informer: Informer;
  readonly #loop: KeyedQueue;

  constructor(opts: EndpointSliceMirroringControllerOptions) {
    this.#opts = opts;
    this.#loop = new KeyedQueue(
      "endpointslicemirroring-controller",
      (k) => this.sync(k),
      opts.logger,
    );
    this.#informer = new Informer({
      feed: opts.feed,
      prefixes: [ENDPOINTS, SERVICES, SLICES],
      handler: (prefix, obj, old) => {
        const o = (obj ?? old)!;
        if (prefix !== SLICES) return this.#loop.add(`${o.metadata.namespace}/${o.metadata.name}`);
        if (o.metadata.labels?.[MANAGED_BY_LABEL] !== MIRRORING_MANAGED_BY || obj === old) return;
        const svc = o.metadata.labels?.[SERVICE_NAME_LABEL];
        if (svc) this.#loop.add(`${o.metadata.namespace}/${svc}`);
      },
      resyncMs: opts.resyncMs ?? 30_000,
    });
  }

  /** Starts following Endpoints, Services and slices. */
  async start(): Promise<void> {
    if (!this.#loop.stopped) await this.#informer.start();
  }

  /** Stops. */
  async stop(): Promise<void> {
    this.#informer.stop();
    await this.#loop.stop();
  }

  /** Resolves when no sync runs or waits. */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  #store(): Store {
    return this.#opts.registry.lookup("discovery.k8s.io", "v1", "endpointslices")!;
  }

  /** Syncs the mirrored slices of the Endpoints `<namespace>/<name>`. */
  async sync(key: string): Promise<void> {
    const [namespace, name] = key.split("/");
    const endpoints = this.#informer.get(ENDPOINTS, namespace, name);
    const service = this.#informer.get(SERVICES, namespace, name);
    const existing = this.#informer.list(SLICES, namespace).filter((s) =>
      s.metadata.labels?.[SERVICE_NAME_LABEL] === name &&
      s.metadata.labels?.[MANAGED_BY_LABEL] === MIRRORING_MANAGED_BY
    );
    const mirrored = !!endpoints && !!service &&
      (service.spec as { selector?: unknown } | undefined)?.selector === undefined &&
      endpoints.metadata.labels?.[SKIP_MIRROR] !== "true";
    if (!mirrored) {
      for (const s of existing) await this.#delete(s);
      return;
    }
    const labels: Record<string, string> = { ...endpoints.metadata.labels };
    labels[SERVICE_NAME_LABEL] = name;
    labels[MANAGED_BY_LABEL] = MIRRORING_MANAGED_BY;
    const owner = {
      namespace,
      name,
      labels,
      ref: controllerRefTo({ ...endpoints, apiVersion: "v1", kind: "Endpoints" }),
    };
    const desired = desiredEndpoints(endpoints);
    for (const family of ["IPv4", "IPv6"]) {
      const own = existing.filter((s) => (s as { addressType?: string }).addressType === family);
      const want = desired.filter((d) =>
        (family === "IPv6") === d.endpoint.addresses[0].includes(":")
      );
      const plan = planSlices(owner, own, want, family, 100, false);
      for (const s of plan.remove) await this.#delete(s);
      for (const s of plan.update) {
        await this.#store().update(namespace, s.metadata.name!, s, WRITE).catch(ignoreGone);
      }
      for (const s of plan.create) await this.#store().create(namespace, s, WRITE);
    }
    for (const s of existing) {
      const t = (s as { addressType?: string }).addressType;
      if (t !== "IPv4" && t !== "IPv6") await this.#delete(s);
    }
  }

  async #delete(slice: KubeObject): Promise<void> {
    await this.#store().delete(slice.metadata.namespace!, slice.metadata.name!, {
      preconditions: { uid: slice.metadata.uid },
    }, WRITE).catch(ignoreGone);
  }
}

function ignoreGone(err: unknown): void {
  if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
  throw err;
}

/** The endpoints of each address of the subsets (kube's addressToEndpoint), 1000 at most. */
function desiredEndpoints(endpoints: KubeObject) {
  const out: { endpoint: SliceEndpoint; ports: SlicePort[] }[] = [];
  for (const subset of ((endpoints as { subsets?: Subset[] }).subsets ?? [])) {
    const ports = (subset.ports ?? []).map((p) => {
      const port: SlicePort = { name: p.name ?? "", port: p.port, protocol: p.protocol ?? "TCP" };
      if (p.appProtocol) port.appProtocol = p.appProtocol;
      return port;
    });
    const add = (a: Address, ready: boolean) => {
      if (out.length >= MAX_ADDRESSES) return;
      const ep: SliceEndpoint = {
        addresses: [a.ip],
        conditions: { ready },
        targetRef: (a.targetRef ?? {}) as SliceEndpoint["targetRef"],
      };
      if (!a.targetRef) delete (ep as { targetRef?: unknown }).targetRef;
      if (a.nodeName) ep.nodeName = a.nodeName;
      if (a.hostname) ep.hostname = a.hostname;
      out.push({ endpoint: ep, ports });
    };
    for (const a of subset.addresses ?? []) add(a, true);
    for (const a of subset.notReadyAddresses ?? []) add(a, false);
  }
  return out;
}
