/**
 * The Deployment controller (kube's pkg/controller/deployment): for each Deployment it claims
 * the ReplicaSets its selector matches (adopting orphans, releasing the ones that stopped
 * matching), keeps the Progressing condition's paused/resumed state, and then either scales
 * (paused, or a scaling event: the Deployment's replicas changed) or rolls out by its strategy
 * (RollingUpdate or Recreate), writing the status with kube's conditions. Deployments,
 * ReplicaSets and pods come from the change feed through an informer; a Deployment whose
 * rollout may time out is synced again at its progress deadline.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import {
  labelSelectorFromObject,
  type LabelSelectorObject,
} from "../../../shared/selectors/label_selector.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { claimObjects, controllerOf } from "../controller_ref.ts";
import { ControllerEvents } from "../workloads/controller_events.ts";
import { Informer } from "../informer.ts";
import { KeyedQueue } from "../keyed_queue.ts";
import { controllerUser } from "../controller_identity.ts";
import { isTerminal } from "../pod_state.ts";
import { isComplete, rolloutStatus } from "./deployment_status.ts";
import {
  conditionOf,
  hasProgressDeadline,
  newCondition,
  REASONS,
  setCondition,
  spec,
  status,
} from "./deployment_util.ts";
import { Rollout } from "./rollout.ts";
import { isScalingEvent, rolloutRecreate, rolloutRolling, syncScale } from "./strategies.ts";

const DEPLOYMENTS = "/registry/apps/deployments/";
const REPLICA_SETS = "/registry/apps/replicasets/";
const PODS = "/registry/core/pods/";
const COMPONENT = "deployment-controller";

/** Options of the controller. */
export interface DeploymentControllerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  logger?: Logger;
  /** Informer resync period, ms (default 30 s). */
  resyncMs?: number;
  now?: () => number;
}

/** Rolls Deployments out. */
export class DeploymentController {
  readonly #opts: DeploymentControllerOptions;
  readonly #informer: Informer;
  readonly #loop: KeyedQueue;
  readonly #events: ControllerEvents;
  readonly #now: () => number;

  constructor(opts: DeploymentControllerOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    this.#events = new ControllerEvents(
      () => opts.registry.lookup("", "v1", "events"),
      COMPONENT,
      { now: this.#now },
    );
    this.#loop = new KeyedQueue(COMPONENT, (key) => this.sync(key), opts.logger);
    this.#informer = new Informer({
      feed: opts.feed,
      prefixes: [DEPLOYMENTS, REPLICA_SETS, PODS],
      handler: (prefix, obj, old) => this.#changed(prefix, obj, old),
      resyncMs: opts.resyncMs ?? 30_000,
    });
  }

  /** Starts following; resolves once the initial state is cached and queued. */
  async start(): Promise<void> {
    if (!this.#loop.stopped) await this.#informer.start();
  }

  /** Stops and waits for the sync in progress. */
  async stop(): Promise<void> {
    this.#informer.stop();
    await this.#loop.stop();
  }

  /** Resolves when no sync runs or waits. */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  #changed(prefix: string, obj: KubeObject | undefined, old: KubeObject | undefined): void {
    const o = (obj ?? old)!;
    const ns = o.metadata.namespace!;
    if (prefix === DEPLOYMENTS) return this.#loop.add(`${ns}/${o.metadata.name}`);
    if (prefix === PODS) {
      // Recreate waits for old pods to go: a pod's deletion may unblock its Deployment.
      if (obj) return;
      const rsRef = controllerOf(o);
      const rs = rsRef?.kind === "ReplicaSet" && this.#informer.get(REPLICA_SETS, ns, rsRef.name);
      const dRef = rs ? controllerOf(rs) : undefined;
      if (dRef?.kind === "Deployment") this.#loop.add(`${ns}/${dRef.name}`);
      return;
    }
    const owners = new Set<string>();
    for (const s of [obj, old]) {
      const ref = s && controllerOf(s);
      if (ref?.kind === "Deployment") owners.add(`${ns}/${ref.name}`);
    }
    if (owners.size === 0 && obj) {
      for (const d of this.#informer.list(DEPLOYMENTS, ns)) {
        if (selectorOf(d)?.matches(obj.metadata.labels)) owners.add(`${ns}/${d.metadata.name}`);
      }
    }
    for (const k of owners) this.#loop.add(k);
  }

  /** Syncs the Deployment `<namespace>/<name>`. */
  async sync(key: string): Promise<void> {
    const [namespace, name] = key.split("/");
    const d = this.#informer.get(DEPLOYMENTS, namespace, name);
    if (!d) return;
    const user = controllerUser(COMPONENT);
    const registry = this.#opts.registry;
    const deps = {
      deployments: registry.lookup("apps", "v1", "deployments")!,
      replicaSets: registry.lookup("apps", "v1", "replicasets")!,
      events: this.#events,
      user,
      now: this.#now,
    };
    const selector = selectorOf(d);
    if (!selector || selector.empty()) {
      await this.#events.record(
        d,
        "Warning",
        "SelectingAll",
        "This deployment is selecting all pods. A non-empty selector is required.",
      ).catch(() => {});
      return;
    }
    const sets = await claimObjects(
      deps.replicaSets,
      d,
      selector,
      this.#informer.list(REPLICA_SETS, namespace),
      user,
    );
    const r = new Rollout(deps, d, sets);
    if (d.metadata.deletionTimestamp) {
      const { newRS } = await r.replicaSets(false);
      await r.writeStatus(rolloutStatus(r.d, r.sets, newRS, this.#now()));
      return;
    }
    await this.#pausedCondition(r);
    if (spec(d).paused) return await syncScale(r);
    if (await isScalingEvent(r)) return await syncScale(r);
    if ((spec(d).strategy as { type?: string } | undefined)?.type === "Recreate") {
      await rolloutRecreate(r, (olds) => this.#oldPodsRunning(namespace, olds));
    } else {
      await rolloutRolling(r);
    }
    this.#requeueStuck(key, r);
  }

  /** kube's checkPausedConditions. */
  async #pausedCondition(r: Rollout): Promise<void> {
    if (!hasProgressDeadline(r.d)) return;
    const cond = conditionOf(status(r.d).conditions, "Progressing");
    if (cond?.reason === REASONS.timedOut) return;
    const pausedExists = cond?.reason === REASONS.paused;
    const paused = !!spec(r.d).paused;
    let next;
    if (paused && !pausedExists) {
      next = newCondition(
        "Progressing",
        "Unknown",
        REASONS.paused,
        "Deployment is paused",
        this.#now(),
      );
    } else if (!paused && pausedExists) {
      next = newCondition(
        "Progressing",
        "Unknown",
        REASONS.resumed,
        "Deployment is resumed",
        this.#now(),
      );
    }
    if (!next) return;
    const conditions = setCondition(status(r.d).conditions ?? [], next);
    await r.writeStatus({ ...r.statusWithConditions(), conditions });
  }

  /** Whether a pod of an old set still runs (kube's oldPodsRunning). */
  #oldPodsRunning(namespace: string, olds: KubeObject[]): boolean {
    if (olds.some((s) => (status(s).replicas ?? 0) > 0)) return true;
    const uids = new Set(olds.map((s) => s.metadata.uid));
    return this.#informer.list(PODS, namespace).some((p) =>
      uids.has(controllerOf(p)?.uid ?? "") && !isTerminal(p)
    );
  }

  /** kube's requeueStuckDeployment: sync again when the progress deadline passes. */
  #requeueStuck(key: string, r: Rollout): void {
    if (!hasProgressDeadline(r.d)) return;
    const cond = conditionOf(status(r.d).conditions, "Progressing");
    if (!cond || cond.reason === REASONS.available || cond.reason === REASONS.timedOut) return;
    const s = rolloutStatus(r.d, r.sets, undefined, this.#now());
    if (isComplete(r.d, s)) return;
    const from = Date.parse(cond.lastUpdateTime ?? "");
    if (Number.isNaN(from)) return;
    const due = from + (spec(r.d).progressDeadlineSeconds as number) * 1000 - this.#now();
    this.#loop.after(key, Math.max(due, 0) + 1000);
  }
}

function selectorOf(d: KubeObject) {
  try {
    return labelSelectorFromObject(spec(d).selector as LabelSelectorObject);
  } catch {
    return undefined;
  }
}
