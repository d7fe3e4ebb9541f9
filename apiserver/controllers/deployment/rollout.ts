/**
 * One sync of one Deployment (kube's sync.go): finding or creating the new ReplicaSet with its
 * revision, scaling sets with kube's `ScalingReplicaSet` events, the revision history clean-up,
 * and writing the Deployment's revision annotation and status.
 *
 * @module
 */
import { CONTROLLER_MANAGER } from "../controller_identity.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import type { Store } from "../../registry/generic/store.ts";
import { controllerOf, controllerRefTo } from "../controller_ref.ts";
import type { ControllerEvents } from "../workloads/controller_events.ts";
import { revisionHash } from "../workloads/controller_revisions.ts";
import type { DeploymentStatus } from "./deployment_status.ts";
import {
  equalIgnoreHash,
  findNewReplicaSet,
  maxRevision,
  maxSurge,
  newCondition,
  POD_TEMPLATE_HASH,
  REASONS,
  replicas,
  REVISION,
  revisionOf,
  setCondition,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  spec,
  status,
} from "./deployment_util.ts";

/** What a sync writes with. */
export interface RolloutDeps {
  deployments: Store;
  replicaSets: Store;
  events: ControllerEvents;
  user: UserInfo;
  now: () => number;
}

/** The state of one sync: the Deployment (a copy) and its ReplicaSets. */
export class Rollout {
  readonly deps: RolloutDeps;
  d: KubeObject;
  sets: KubeObject[];

  constructor(deps: RolloutDeps, d: KubeObject, sets: KubeObject[]) {
    this.deps = deps;
    this.d = structuredClone(d);
    this.sets = sets;
  }

  /**
   * kube's getAllReplicaSetsAndSyncRevision: the new set (created when `create` and missing,
   * its annotations brought up to date otherwise) and the old ones; the Deployment's revision
   * annotation follows the new set's.
   */
  async replicaSets(create: boolean): Promise<{ newRS?: KubeObject; olds: KubeObject[] }> {
    const found = findNewReplicaSet(this.d, this.sets);
    const olds = this.sets.filter((s) => s !== found);
    const revision = maxRevision(olds) + 1;
    let newRS = found ? await this.#syncExisting(found, revision) : undefined;
    if (!newRS && create) newRS = await this.#create(olds, revision);
    if (newRS) await this.#setDeploymentRevision(newRS.metadata.annotations?.[REVISION] ?? "");
    return { newRS, olds };
  }

  async #syncExisting(rs: KubeObject, revision: number): Promise<KubeObject> {
    const copy = structuredClone(rs);
    const minReady = spec(this.d).minReadySeconds ?? 0;
    let changed = setNewReplicaSetAnnotations(this.d, copy, revision, true);
    if ((spec(copy).minReadySeconds ?? 0) !== minReady) {
      spec(copy).minReadySeconds = minReady;
      changed = true;
    }
    let out = rs;
    if (changed) out = await this.#updateSet(copy);
    if (
      !(status(this.d).conditions ?? []).some((c) => c.type === "Progressing") && this.#deadline()
    ) {
      this.#condition(
        "Progressing",
        "True",
        REASONS.found,
        `Found new replica set "${out.metadata.name}"`,
      );
      await this.writeStatus(this.statusWithConditions());
    }
    return out;
  }

  #deadline(): boolean {
    const s = spec(this.d).progressDeadlineSeconds;
    return typeof s === "number" && s !== 2147483647;
  }

  #condition(type: string, st: string, reason: string, message: string): void {
    const s = status(this.d);
    s.conditions = setCondition(
      s.conditions ?? [],
      newCondition(type, st, reason, message, this.deps.now()),
    );
    this.d.status = s;
  }

  /** The Deployment's current status, as stored plus this sync's conditions. */
  statusWithConditions(): DeploymentStatus {
    return { ...(status(this.d) as unknown as DeploymentStatus) };
  }

  /** Creates the new set (kube: `<name>-<hash>`, selector and labels with the hash). */
  async #create(olds: KubeObject[], revision: number): Promise<KubeObject | undefined> {
    const d = this.d;
    const template = structuredClone(spec(d).template ?? {}) as KubeObject;
    const collisions = status(d).collisionCount;
    const hash = revisionHash(spec(d).template, collisions);
    template.metadata ??= {};
    template.metadata.labels = { ...template.metadata.labels, [POD_TEMPLATE_HASH]: hash };
    const selector = structuredClone(spec(d).selector ?? {}) as {
      matchLabels?: Record<string, string>;
    };
    selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH]: hash };
    const rs = {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace: d.metadata.namespace,
        labels: template.metadata.labels,
        ownerReferences: [controllerRefTo(d)],
      },
      spec: { replicas: 0, minReadySeconds: spec(d).minReadySeconds ?? 0, selector, template },
    } as unknown as KubeObject;
    const all = [...olds];
    const count = newReplicasCount(d, all, undefined);
    spec(rs).replicas = count;
    setNewReplicaSetAnnotations(d, rs, revision, false);
    let created: KubeObject;
    try {
      created = await this.deps.replicaSets.create(d.metadata.namespace!, rs, {
        user: this.deps.user,
        fieldManager: CONTROLLER_MANAGER,
      });
    } catch (err) {
      if (err instanceof StatusError && err.code === 409) return await this.#collision(rs);
      const msg = `Failed to create new replica set "${rs.metadata.name}": ${
        (err as Error).message
      }`;
      this.#condition("Progressing", "False", REASONS.createError, msg);
      await this.writeStatus(this.statusWithConditions());
      await this.#event("Warning", REASONS.createError, msg);
      throw err;
    }
    this.sets.push(created);
    if (count > 0) {
      await this.#event(
        "Normal",
        "ScalingReplicaSet",
        `Scaled up replica set ${created.metadata.name} from 0 to ${count}`,
      );
    }
    if (this.#deadline()) {
      this.#condition(
        "Progressing",
        "True",
        REASONS.created,
        `Created new replica set "${created.metadata.name}"`,
      );
      await this.writeStatus(this.statusWithConditions());
    }
    return created;
  }

  /** A set of that name exists: ours with this template is the new one; else count a collision. */
  async #collision(rs: KubeObject): Promise<KubeObject | undefined> {
    const existing = await this.deps.replicaSets.get(rs.metadata.namespace!, rs.metadata.name!)
      .catch(() => undefined);
    if (
      existing && controllerOf(existing)?.uid === this.d.metadata.uid &&
      equalIgnoreHash(spec(existing).template, spec(this.d).template)
    ) {
      return existing;
    }
    const s = status(this.d);
    s.collisionCount = (s.collisionCount ?? 0) + 1;
    this.d.status = s;
    await this.writeStatus(this.statusWithConditions());
    return undefined;
  }

  async #setDeploymentRevision(revision: string): Promise<void> {
    if (!revision || this.d.metadata.annotations?.[REVISION] === revision) return;
    const { object } = await this.deps.deployments.guaranteedUpdate(
      this.d.metadata.namespace!,
      this.d.metadata.name!,
      (cur) => {
        if (!cur || cur.metadata.uid !== this.d.metadata.uid) return undefined;
        cur.metadata.annotations = { ...cur.metadata.annotations, [REVISION]: revision };
        return cur;
      },
      {},
      { user: this.deps.user, fieldManager: CONTROLLER_MANAGER },
    );
    this.d.metadata = {
      ...this.d.metadata,
      annotations: object.metadata.annotations,
      resourceVersion: object.metadata.resourceVersion,
    };
  }

  async #updateSet(rs: KubeObject): Promise<KubeObject> {
    const { object } = await this.deps.replicaSets.update(
      rs.metadata.namespace!,
      rs.metadata.name!,
      rs,
      {
        user: this.deps.user,
        fieldManager: CONTROLLER_MANAGER,
      },
    );
    this.sets = this.sets.map((s) => s.metadata.uid === object.metadata.uid ? object : s);
    return object;
  }

  /**
   * kube's scaleReplicaSetAndRecordEvent: sets `spec.replicas` and the replicas annotations;
   * answers whether the size changed (and records ScalingReplicaSet).
   */
  async scaleSet(
    rs: KubeObject,
    to: number,
    op?: "up" | "down",
  ): Promise<{ scaled: boolean; rs: KubeObject }> {
    const copy = structuredClone(rs);
    const from = replicas(rs);
    const resize = from !== to;
    const annotations = setReplicasAnnotations(
      copy,
      replicas(this.d),
      replicas(this.d) + maxSurge(this.d),
    );
    if (!resize && !annotations) return { scaled: false, rs };
    spec(copy).replicas = to;
    const out = await this.#updateSet(copy);
    if (resize) {
      const verb = op ?? (from < to ? "up" : "down");
      await this.#event(
        "Normal",
        "ScalingReplicaSet",
        `Scaled ${verb} replica set ${rs.metadata.name} from ${from} to ${to}`,
      );
    }
    return { scaled: resize, rs: out };
  }

  /** kube's cleanupDeployment: deletes the oldest empty sets beyond `revisionHistoryLimit`. */
  async cleanup(olds: readonly KubeObject[]): Promise<void> {
    const limit = spec(this.d).revisionHistoryLimit;
    if (typeof limit !== "number") return;
    const cleanable = olds.filter((s) => !s.metadata.deletionTimestamp)
      .sort((a, b) =>
        revisionOf(a) - revisionOf(b) ||
        (Date.parse(a.metadata.creationTimestamp!) - Date.parse(b.metadata.creationTimestamp!))
      );
    const diff = cleanable.length - limit;
    for (const rs of cleanable.slice(0, Math.max(diff, 0))) {
      const st = status(rs);
      if ((st.replicas ?? 0) !== 0 || replicas(rs) !== 0) continue;
      if ((rs.metadata.generation ?? 0) > (st.observedGeneration ?? 0)) continue;
      await this.deps.replicaSets.delete(rs.metadata.namespace!, rs.metadata.name!, {
        preconditions: { uid: rs.metadata.uid },
      }, { user: this.deps.user, fieldManager: CONTROLLER_MANAGER }).catch((err) => {
        if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      });
    }
  }

  /** Writes `next` as the Deployment's status when it differs from the stored one. */
  async writeStatus(next: DeploymentStatus): Promise<void> {
    const { object } = await this.deps.deployments.guaranteedUpdate(
      this.d.metadata.namespace!,
      this.d.metadata.name!,
      (cur) => {
        if (!cur || cur.metadata.uid !== this.d.metadata.uid) return undefined;
        const merged = { ...(cur.status ?? {}), ...next };
        for (const [k, v] of Object.entries(merged)) {
          if (v === undefined) delete (merged as Record<string, unknown>)[k];
        }
        if (deepEqual(merged, cur.status)) return undefined;
        cur.status = merged;
        return cur;
      },
      {},
      { subresource: "status", user: this.deps.user, fieldManager: CONTROLLER_MANAGER },
    );
    this.d.status = object.status;
  }

  async #event(type: "Normal" | "Warning", reason: string, message: string): Promise<void> {
    await this.deps.events.record(this.d, type, reason, message).catch(() => {});
  }
}

/** kube's NewRSNewReplicas: the new set's size for this step of the rollout. */
export function newReplicasCount(
  d: KubeObject,
  all: readonly KubeObject[],
  newRS: KubeObject | undefined,
): number {
  const want = replicas(d);
  const current = replicas(newRS);
  if (!spec(d).strategy || (spec(d).strategy as { type?: string }).type !== "Recreate") {
    const total = all.reduce((n, s) => n + replicas(s), 0) +
      (newRS && !all.includes(newRS) ? current : 0);
    const maxTotal = want + maxSurge(d);
    if (total >= maxTotal) return current;
    const up = Math.min(maxTotal - total, want - current);
    return current + Math.max(up, 0);
  }
  return want;
}
