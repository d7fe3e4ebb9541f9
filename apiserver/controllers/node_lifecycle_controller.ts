/**
 * The node lifecycle controller: watches over node heartbeats (the node's Lease in
 * `kube-node-lease` and the Ready condition's `lastHeartbeatTime`) and
 * - when neither moved within the grace period (`--node-monitor-grace-period`, default 40 s),
 *   sets Ready and the pressure conditions to Unknown (`NodeStatusUnknown`, "Kubelet stopped
 *   posting node status.") and taints the node `node.kubernetes.io/unreachable` with NoSchedule
 *   and NoExecute;
 * - when the node has reported Ready=False for the grace period, taints it
 *   `node.kubernetes.io/not-ready` (NoSchedule and NoExecute);
 * - when the node is Ready again, removes both taints.
 *
 * Like kube-controller-manager it measures heartbeats with its own clock: a heartbeat counts
 * when the controller sees the lease's `renewTime` or the heartbeat time change, so skew between
 * the node's clock and the server's does not matter. A node seen for the first time gets a full
 * grace period.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { type Clock, rfc3339, systemClock } from "../registry/generic/clock.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";

/** The taint of a node whose heartbeats stopped. */
export const TAINT_UNREACHABLE = "node.kubernetes.io/unreachable";
/** The taint of a node that reports Ready=False. */
export const TAINT_NOT_READY = "node.kubernetes.io/not-ready";
/** The namespace of node leases. */
export const NODE_LEASE_NAMESPACE = "kube-node-lease";

const UNKNOWN_TYPES = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

/** Options of the controller. */
export interface NodeLifecycleControllerOptions {
  registry: ResourceRegistry;
  /** How long a node may stay silent before it is Unknown (ms, default 40 s). */
  gracePeriodMs?: number;
  /** How often nodes are checked (ms, default 5 s, as `--node-monitor-period`). */
  monitorPeriodMs?: number;
  /** Time source (injected in tests). */
  clock?: Clock;
  logger?: Logger;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

interface Health {
  /** Last heartbeat signature seen (lease renewTime + Ready heartbeat). */
  signature: string;
  /** Controller time when the signature last changed. */
  probeAt: number;
  /** Controller time since when Ready=False has been observed without interruption. */
  notReadySince?: number;
}

/** Marks silent nodes Unknown and keeps the unreachable and not-ready taints in step. */
export class NodeLifecycleController {
  readonly #opts: NodeLifecycleControllerOptions;
  readonly #clock: Clock;
  readonly #grace: number;
  readonly #health = new Map<string, Health>();
  #timer?: ReturnType<typeof setInterval>;
  #running: Promise<void> = Promise.resolve();
  #busy = false;

  /** Creates a stopped controller. */
  constructor(opts: NodeLifecycleControllerOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#grace = opts.gracePeriodMs ?? 40_000;
  }

  /** Starts periodic monitoring. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#tick(), this.#opts.monitorPeriodMs ?? 5_000);
    this.#tick();
  }

  /** Stops monitoring and waits for the pass in progress. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #tick(): void {
    if (this.#busy) return;
    this.#busy = true;
    this.#running = this.monitor()
      .catch((err) => this.#opts.logger?.error("node monitor failed", { err: String(err) }))
      .finally(() => this.#busy = false);
  }

  /** Runs one monitoring pass over every node. */
  async monitor(): Promise<void> {
    const nodes = this.#opts.registry.lookup("", "v1", "nodes");
    const leases = this.#opts.registry.lookup("coordination.k8s.io", "v1", "leases");
    if (!nodes) return;
    const nodeList = await nodes.list("", { plan: { mode: "latest" } });
    const leaseList = leases
      ? await leases.list(NODE_LEASE_NAMESPACE, { plan: { mode: "latest" } })
      : { items: [] as KubeObject[] };
    const renewTimes = new Map<string, string>();
    for (const l of leaseList.items) {
      const spec = (l.spec ?? {}) as { renewTime?: string };
      renewTimes.set(l.metadata.name!, spec.renewTime ?? "");
    }
    const seen = new Set<string>();
    for (const node of nodeList.items) {
      const name = node.metadata.name!;
      seen.add(name);
      try {
        await this.#monitorNode(node, renewTimes.get(name) ?? "");
      } catch (err) {
        if (err instanceof StatusError && err.code === 409) continue; // next pass retries
        this.#opts.logger?.error("node monitor failed", { node: name, err: String(err) });
      }
    }
    for (const name of [...this.#health.keys()]) if (!seen.has(name)) this.#health.delete(name);
  }

  async #monitorNode(node: KubeObject, renewTime: string): Promise<void> {
    const name = node.metadata.name!;
    const now = this.#clock.now();
    const conditions = (((node.status ?? {}) as { conditions?: Condition[] }).conditions ?? [])
      .map((c) => ({ ...c }));
    const ready = conditions.find((c) => c.type === "Ready");
    const signature = `${renewTime}|${ready?.lastHeartbeatTime ?? ""}|${ready?.status ?? ""}`;
    let h = this.#health.get(name);
    if (!h) {
      h = { signature, probeAt: now };
      this.#health.set(name, h);
    } else if (h.signature !== signature) {
      h.signature = signature;
      h.probeAt = now;
    }

    let status = ready?.status ?? "Unknown";
    const silent = now - h.probeAt > this.#grace;
    const stale = !ready ||
      conditions.some((c) => UNKNOWN_TYPES.includes(c.type) && c.status !== "Unknown");
    if (silent && stale) {
      await this.#markUnknown(node, conditions, now);
      status = "Unknown";
      // Our own write changes the signature; do not count it as a heartbeat.
      const after = conditions.find((c) => c.type === "Ready");
      h.signature = `${renewTime}|${after?.lastHeartbeatTime ?? ""}|Unknown`;
    }

    if (status === "False") h.notReadySince ??= now;
    else h.notReadySince = undefined;

    let want: string | undefined;
    if (status === "Unknown" && silent) want = TAINT_UNREACHABLE;
    else if (status === "False" && now - h.notReadySince! >= this.#grace) want = TAINT_NOT_READY;
    else if (status === "True") want = "";
    if (want !== undefined) await this.#setTaints(name, want, now);
  }

  async #markUnknown(node: KubeObject, conditions: Condition[], now: number): Promise<void> {
    const nodes = this.#opts.registry.lookup("", "v1", "nodes")!;
    const at = rfc3339(now);
    for (const type of UNKNOWN_TYPES) {
      const c = conditions.find((x) => x.type === type);
      if (c) {
        if (c.status === "Unknown") continue;
        c.status = "Unknown";
        c.reason = "NodeStatusUnknown";
        c.message = "Kubelet stopped posting node status.";
        c.lastTransitionTime = at;
      } else {
        conditions.push({
          type,
          status: "Unknown",
          reason: "NodeStatusNeverUpdated",
          message: "Kubelet never posted node status.",
          lastHeartbeatTime: node.metadata.creationTimestamp,
          lastTransitionTime: at,
        });
      }
    }
    const body: KubeObject = {
      ...node,
      status: { ...(node.status as Record<string, unknown> ?? {}), conditions },
    };
    await nodes.update("", node.metadata.name!, body, { subresource: "status" });
    this.#opts.logger?.info("node stopped posting status", { node: node.metadata.name });
  }

  /** Makes the node carry exactly the taints of `key` (both effects), or none of ours when "". */
  async #setTaints(name: string, key: string, now: number): Promise<void> {
    const nodes = this.#opts.registry.lookup("", "v1", "nodes")!;
    let changed = false;
    await nodes.guaranteedUpdate("", name, (node) => {
      const spec = { ...(node?.spec as Record<string, unknown> ?? {}) };
      const next = taintsWith((spec.taints as Taint[] | undefined) ?? [], key, now);
      changed = !!next;
      if (!node || !next) return undefined;
      if (next.length) spec.taints = next;
      else delete spec.taints;
      return { ...node, spec };
    });
    if (!changed) return;
    this.#opts.logger?.info(key ? "node tainted" : "node taints removed", {
      node: name,
      taint: key,
    });
  }
}

/** `taints` with exactly the taints of `key` (both effects) among ours; undefined if unchanged. */
function taintsWith(taints: Taint[], key: string, now: number): Taint[] | undefined {
  const ours = [TAINT_UNREACHABLE, TAINT_NOT_READY];
  const kept = taints.filter((t) => !ours.includes(t.key) || t.key === key);
  if (key) {
    for (const effect of ["NoSchedule", "NoExecute"]) {
      if (!kept.some((t) => t.key === key && t.effect === effect)) {
        kept.push(
          effect === "NoExecute" ? { key, effect, timeAdded: rfc3339(now) } : { key, effect },
        );
      }
    }
  }
  return JSON.stringify(kept) === JSON.stringify(taints) ? undefined : kept;
}
