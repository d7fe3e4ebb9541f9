/**
 * The pvc-protection and pv-protection controllers of kube-controller-manager: a
 * PersistentVolumeClaim being deleted loses its `kubernetes.io/pvc-protection` finalizer once
 * no scheduled, unfinished pod of its namespace uses it; a PersistentVolume being deleted loses
 * `kubernetes.io/pv-protection` once it is not Bound. Follows claims, volumes and pods on the
 * change feed.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { ChangeEvent, KeyValue } from "../storage/interface.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import {
  PV_PROTECTION_FINALIZER,
  PVC_PROTECTION_FINALIZER,
} from "../admission/storage_object_in_use_protection.ts";
import { WorkQueue } from "./work_queue.ts";

const PVCS = "/registry/core/persistentvolumeclaims/";
const PVS = "/registry/core/persistentvolumes/";
const PODS = "/registry/core/pods/";

/** Removes the storage protection finalizers of objects no longer in use. */
export class StorageProtectionController {
  readonly #registry: ResourceRegistry;
  readonly #feed: ChangeFeed;
  readonly #queue: WorkQueue<string>;
  /** Namespaces holding a claim kept by its finalizer: only their pods' changes matter. */
  readonly #held = new Set<string>();
  #unsubscribe?: () => void;

  constructor(deps: { registry: ResourceRegistry; feed: ChangeFeed; logger?: Logger }) {
    this.#registry = deps.registry;
    this.#feed = deps.feed;
    this.#queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => deps.logger?.error("storage protection sync failed", { key, err: String(err) }),
    );
  }

  /** Follows claims, volumes and pods (their initial state included). */
  async start(): Promise<void> {
    if (this.#queue.stopped || this.#unsubscribe) return;
    const mark = (keys: string[]) => {
      for (const key of keys) {
        if (key.startsWith(PVS)) this.#queue.add(`pv:${key.slice(PVS.length)}`);
        else if (key.startsWith(PVCS)) {
          this.#queue.add(`pvcs:${key.slice(PVCS.length).split("/")[0]}`);
        } else if (key.startsWith(PODS)) {
          const ns = key.slice(PODS.length).split("/")[0];
          if (this.#held.has(ns)) this.#queue.add(`pvcs:${ns}`);
        }
      }
    };
    this.#unsubscribe = await this.#feed.follow([PVCS, PVS, PODS], {
      reset: (items: KeyValue[]) =>
        mark(items.filter((kv) => !kv.key.startsWith(PODS)).map((kv) => kv.key)),
      changes: (events: ChangeEvent[]) => mark(events.map((e) => e.key)),
    });
  }

  /** Stops following and waits for the sync in progress. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await this.#queue.stop();
  }

  /** Syncs `pv:<name>` or `pvcs:<namespace>`. */
  async sync(key: string): Promise<void> {
    const [kind, rest] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
    if (kind === "pv") return await this.#syncVolume(rest);
    const claims = this.#registry.lookup("", "v1", "persistentvolumeclaims")!;
    const list = await claims.list(rest, { plan: { mode: "latest" } });
    const deleting = list.items.filter((c) => protectedAndDeleting(c, PVC_PROTECTION_FINALIZER));
    this.#held.delete(rest);
    if (deleting.length === 0) return;
    const pods = this.#registry.lookup("", "v1", "pods")!;
    const running = (await pods.list(rest, { plan: { mode: "latest" } })).items.filter(usesClaims);
    for (const claim of deleting) {
      const name = claim.metadata.name!;
      if (running.some((p) => claimsOf(p).includes(name))) {
        this.#held.add(rest);
        continue;
      }
      await this.#release(claims, rest, name, PVC_PROTECTION_FINALIZER);
    }
  }

  async #syncVolume(name: string): Promise<void> {
    const volumes = this.#registry.lookup("", "v1", "persistentvolumes")!;
    const pv = await volumes.get("", name).catch(() => undefined);
    if (!pv || !protectedAndDeleting(pv, PV_PROTECTION_FINALIZER)) return;
    if (isObject(pv.status) && pv.status.phase === "Bound") return;
    await this.#release(volumes, "", name, PV_PROTECTION_FINALIZER);
  }

  async #release(
    store: NonNullable<ReturnType<ResourceRegistry["lookup"]>>,
    namespace: string,
    name: string,
    finalizer: string,
  ): Promise<void> {
    try {
      await store.guaranteedUpdate(namespace, name, (current) => {
        if (!current || !current.metadata.finalizers?.includes(finalizer)) return undefined;
        current.metadata.finalizers = current.metadata.finalizers.filter((f) => f !== finalizer);
        return current;
      });
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }
}

function protectedAndDeleting(obj: KubeObject, finalizer: string): boolean {
  return !!obj.metadata.deletionTimestamp && !!obj.metadata.finalizers?.includes(finalizer);
}

/** A scheduled pod that has not finished (kube counts only those as users of a claim). */
function usesClaims(pod: KubeObject): boolean {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const phase = isObject(pod.status) ? pod.status.phase : undefined;
  return !!spec.nodeName && phase !== "Succeeded" && phase !== "Failed";
}

/** The claims a pod's volumes use (ephemeral volumes' claims are `<pod>-<volume>`). */
function claimsOf(pod: KubeObject): string[] {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const volumes = Array.isArray(spec.volumes) ? spec.volumes.filter(isObject) : [];
  return volumes.flatMap((v) => {
    if (isObject(v.persistentVolumeClaim)) return [String(v.persistentVolumeClaim.claimName)];
    if (isObject(v.ephemeral)) return [`${pod.metadata.name}-${v.name}`];
    return [];
  });
}
