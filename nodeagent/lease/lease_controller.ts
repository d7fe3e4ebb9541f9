/**
 * The node lease controller (the kubelet's `component-helpers/apimachinery/lease` controller):
 * keeps `kube-node-lease/<node>` renewed.
 *
 * - The lease is owned by the Node (ownerReference), held by the node (`holderIdentity`), with
 *   `leaseDurationSeconds` (default 40).
 * - Every quarter of the duration (10 s, plus up to 4 % jitter) the cached lease is updated with
 *   a fresh `renewTime`; up to 5 immediate retries, and a 409 re-reads the lease first.
 * - When the update keeps failing (or there is no cached lease yet) the lease is read or created
 *   with the exponential backoff of {@link LeaseBackoff} (200 ms doubling to 7 s) until the
 *   server answers again; the controller never gives up, so an agent survives its server being
 *   down for any time.
 *
 * @module
 */
import type { KubeObject, OwnerReference } from "../../shared/api/meta/v1/types.ts";
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { apiCall, isStatus } from "../client/api_call.ts";
import type { Clock } from "../clock/clock.ts";
import { LeaseBackoff, renewInterval, retryWithBackoff } from "./backoff.ts";

/** The namespace of node leases. */
export const NODE_LEASE_NAMESPACE = "kube-node-lease";
/** Immediate update retries before falling back to the backoff (kubelet: maxUpdateRetries). */
export const MAX_UPDATE_RETRIES = 5;

const LEASES = { group: "coordination.k8s.io", version: "v1", resource: "leases" } as const;

/** Options of {@link LeaseController}. */
export interface LeaseControllerOptions {
  client: RestClient;
  /** The node's name (lease name and holder identity). */
  nodeName: string;
  /** The Node's uid for the ownerReference; looked up when absent. */
  nodeUid?: string;
  /** `leaseDurationSeconds` (default 40). */
  leaseDurationSeconds?: number;
  clock: Clock;
  logger?: Logger;
  /** Jitter source (tests pass a constant). */
  random?: () => number;
  /** Deadline of each request (default: the renew interval, as the kubelet). */
  requestTimeoutMs?: number;
  /** Told of every successful renewal with its latency in milliseconds. */
  onRenew?: (latencyMs: number, lease: KubeObject) => void;
}

/** MicroTime: RFC 3339 with microseconds, as `renewTime` is serialized. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** Keeps one node's lease renewed until stopped. */
export class LeaseController {
  readonly #o: LeaseControllerOptions;
  readonly #duration: number;
  #lease?: KubeObject;
  #abort = new AbortController();
  #loop?: Promise<void>;

  /** Creates a stopped controller. */
  constructor(opts: LeaseControllerOptions) {
    this.#o = opts;
    this.#duration = opts.leaseDurationSeconds ?? 40;
  }

  /** The lease as last written or read. */
  get lease(): KubeObject | undefined {
    return this.#lease;
  }

  /** Starts the renew loop (the first sync happens at once). */
  start(): void {
    if (this.#loop) return;
    this.#loop = this.#run();
  }

  /** Stops the loop and waits for it. */
  async stop(): Promise<void> {
    this.#abort.abort(new Error("lease controller stopped"));
    await this.#loop;
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      await this.sync();
      try {
        await this.#o.clock.sleep(renewInterval(this.#duration, this.#o.random), signal);
      } catch {
        return;
      }
    }
  }

  /** One renewal: update the cached lease, falling back to read-or-create with backoff. */
  async sync(): Promise<void> {
    const signal = this.#abort.signal;
    if (this.#lease) {
      if (await this.#retryUpdate(this.#lease)) return;
      this.#o.logger?.warn("failed to update lease using latest lease, fallback to ensure lease", {
        node: this.#o.nodeName,
      });
    }
    const ensured = await this.#backoffEnsure();
    if (!ensured || signal.aborted) return;
    if (ensured.created) return;
    await this.#retryUpdate(ensured.lease);
  }

  #timeout(): number {
    return this.#o.requestTimeoutMs ?? this.#duration * 250;
  }

  async #backoffEnsure(): Promise<{ lease: KubeObject; created: boolean } | undefined> {
    return await retryWithBackoff(() => this.#ensure(), {
      clock: this.#o.clock,
      signal: this.#abort.signal,
      backoff: new LeaseBackoff(),
      onError: (err, wait) =>
        this.#o.logger?.warn("failed to ensure lease exists, will retry", {
          node: this.#o.nodeName,
          err: String(err),
          retryInMs: wait,
        }),
    });
  }

  async #ensure(): Promise<{ lease: KubeObject; created: boolean }> {
    const ref = { ...LEASES, namespace: NODE_LEASE_NAMESPACE, name: this.#o.nodeName };
    const signal = this.#abort.signal;
    try {
      const lease = await apiCall<KubeObject>(this.#o.client, "GET", ref, {
        timeoutMs: this.#timeout(),
        signal,
      });
      this.#lease = lease;
      return { lease, created: false };
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
    }
    const started = performance.now();
    const lease = await apiCall<KubeObject>(this.#o.client, "POST", { ...ref, name: undefined }, {
      body: await this.#newLease(),
      timeoutMs: this.#timeout(),
      signal,
    });
    this.#lease = lease;
    this.#o.onRenew?.(performance.now() - started, lease);
    return { lease, created: true };
  }

  async #newLease(): Promise<KubeObject> {
    const owner = await this.#ownerReference();
    return {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        name: this.#o.nodeName,
        namespace: NODE_LEASE_NAMESPACE,
        ...(owner ? { ownerReferences: [owner] } : {}),
      },
      spec: {
        holderIdentity: this.#o.nodeName,
        leaseDurationSeconds: this.#duration,
        renewTime: microTime(this.#o.clock.now()),
      },
    };
  }

  async #ownerReference(): Promise<OwnerReference | undefined> {
    let uid = this.#o.nodeUid;
    if (!uid) {
      try {
        const node = await apiCall<KubeObject>(this.#o.client, "GET", {
          version: "v1",
          resource: "nodes",
          name: this.#o.nodeName,
        }, { timeoutMs: this.#timeout(), signal: this.#abort.signal });
        uid = node.metadata.uid;
      } catch (err) {
        // Like the kubelet: without the Node the lease is created unowned, and gets its owner
        // on a later renewal.
        if (!isStatus(err, 404)) throw err;
      }
    }
    if (!uid) return undefined;
    this.#o.nodeUid = uid;
    return { apiVersion: "v1", kind: "Node", name: this.#o.nodeName, uid };
  }

  /** Updates `base` with a new renewTime; true on success. A 409 re-reads the lease. */
  async #retryUpdate(base: KubeObject): Promise<boolean> {
    const signal = this.#abort.signal;
    for (let i = 0; i < MAX_UPDATE_RETRIES && !signal.aborted; i++) {
      const spec = { ...(base.spec as Record<string, unknown>) };
      spec.holderIdentity = this.#o.nodeName;
      spec.leaseDurationSeconds = this.#duration;
      spec.renewTime = microTime(this.#o.clock.now());
      const metadata = { ...base.metadata };
      if (!metadata.ownerReferences?.length) {
        try {
          const owner = await this.#ownerReference();
          if (owner) metadata.ownerReferences = [owner];
        } catch { /* keep it unowned this time */ }
      }
      const started = performance.now();
      try {
        const lease = await apiCall<KubeObject>(this.#o.client, "PUT", {
          ...LEASES,
          namespace: NODE_LEASE_NAMESPACE,
          name: this.#o.nodeName,
        }, { body: { ...base, metadata, spec }, timeoutMs: this.#timeout(), signal });
        this.#lease = lease;
        this.#o.onRenew?.(performance.now() - started, lease);
        return true;
      } catch (err) {
        if (signal.aborted) return false;
        this.#o.logger?.v(2).info("failed to update lease", {
          node: this.#o.nodeName,
          attempt: i + 1,
          err: String(err),
        });
        if (isStatus(err, 409)) {
          const fresh = await this.#backoffEnsure();
          if (!fresh) return false;
          if (fresh.created) return true;
          base = fresh.lease;
        } else if (isStatus(err, 404)) {
          this.#lease = undefined;
          return false;
        }
      }
    }
    return false;
  }
}
