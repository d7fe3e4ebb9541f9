/**
 * The informer and queue the Endpoints and EndpointSlice controllers share: Services and pods
 * (and, for the slices' zones, nodes) from the change feed; a Service is queued when it
 * changes, and when a pod its selector matches (before or after the change) is added, changed
 * or deleted; every Service is queued again at the resync period.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { Informer } from "../informer.ts";
import { KeyedQueue } from "../keyed_queue.ts";
import { serviceSelector } from "./service_pods.ts";

export const SERVICES = "/registry/core/services/";
export const PODS = "/registry/core/pods/";
export const NODES = "/registry/core/nodes/";

/** What a Service's sync is given. */
export interface ServiceSyncInput {
  namespace: string;
  name: string;
  /** The Service, or undefined when it is gone. */
  service?: KubeObject;
  /** The informer, to read pods and nodes. */
  informer: Informer;
}

/** Options of the loop. */
export interface ServiceLoopOptions {
  feed: ChangeFeed;
  name: string;
  sync: (input: ServiceSyncInput) => Promise<void>;
  /** Also cache nodes. */
  nodes?: boolean;
  resyncMs?: number;
  logger?: Logger;
}

/** Queues Services as they and their pods change. */
export class ServiceLoop {
  readonly informer: Informer;
  readonly #loop: KeyedQueue;

  constructor(opts: ServiceLoopOptions) {
    this.#loop = new KeyedQueue(opts.name, (key) => {
      const [namespace, name] = key.split("/");
      const service = this.informer.get(SERVICES, namespace, name);
      return opts.sync({ namespace, name, service, informer: this.informer });
    }, opts.logger);
    this.informer = new Informer({
      feed: opts.feed,
      prefixes: [SERVICES, PODS, ...(opts.nodes ? [NODES] : [])],
      handler: (prefix, obj, old) => this.#changed(prefix, obj, old),
      resyncMs: opts.resyncMs ?? 30_000,
    });
  }

  /** Starts following. */
  async start(): Promise<void> {
    if (!this.#loop.stopped) await this.informer.start();
  }

  /** Stops and waits for the sync in progress. */
  async stop(): Promise<void> {
    this.informer.stop();
    await this.#loop.stop();
  }

  /** Queues the Service `<namespace>/<name>`. */
  add(key: string): void {
    this.#loop.add(key);
  }

  /** Resolves when no sync runs or waits. */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  #changed(prefix: string, obj: KubeObject | undefined, old: KubeObject | undefined): void {
    const o = (obj ?? old)!;
    if (prefix === NODES) return;
    const ns = o.metadata.namespace!;
    if (prefix === SERVICES) return this.#loop.add(`${ns}/${o.metadata.name}`);
    if (obj && old && obj !== old && sameForEndpoints(obj, old)) return;
    for (const svc of this.informer.list(SERVICES, ns)) {
      const sel = serviceSelector(svc);
      if (!sel) continue;
      if (
        (obj && sel.matches(obj.metadata.labels)) || (old && sel.matches(old.metadata.labels))
      ) {
        this.#loop.add(`${ns}/${svc.metadata.name}`);
      }
    }
  }
}

/** Whether two versions of a pod give the same endpoints (labels, IPs, readiness, deletion). */
function sameForEndpoints(a: KubeObject, b: KubeObject): boolean {
  const view = (p: KubeObject) => {
    const st = (p.status ?? {}) as Record<string, unknown>;
    const ready = ((st.conditions ?? []) as { type: string; status: string }[])
      .find((c) => c.type === "Ready")?.status;
    return JSON.stringify([
      p.metadata.labels,
      p.metadata.deletionTimestamp,
      st.podIP,
      st.podIPs,
      st.phase,
      ready,
      (p.spec as Record<string, unknown> | undefined)?.nodeName,
    ]);
  };
  return view(a) === view(b);
}
