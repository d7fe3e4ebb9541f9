/**
 * Creating and deleting a controller's pods (kube's PodControl and ControllerExpectations):
 * pods are made from the controller's template with its controller reference, in kube's
 * slow-start batches (1, 2, 4, ... until a batch fails), and every create and delete is
 * recorded as kube's `SuccessfulCreate`/`FailedCreate`/`SuccessfulDelete`/`FailedDelete`
 * event on the controller. Expectations hold a controller's next sync until the pods it made
 * or deleted have come back through its informer (or 5 minutes passed).
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { UserInfo } from "../../shared/api/authentication/v1/user_info.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { Store } from "../registry/generic/store.ts";
import { controllerRefTo } from "./controller_ref.ts";
import { podFromTemplate } from "./workloads/pod_from_template.ts";
import { CONTROLLER_MANAGER } from "./controller_identity.ts";
import type { ControllerEvents } from "./workloads/controller_events.ts";

/** How long unmet expectations hold a controller (kube's ExpectationsTimeout). */
const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

/** Pods a controller is waiting to see created or deleted, by controller key. */
export class ControllerExpectations {
  readonly #entries = new Map<string, { add: number; del: Set<string>; at: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Expects `adds` creations and the deletion of the pods with keys `dels`. */
  expect(key: string, adds: number, dels: readonly string[] = []): void {
    this.#entries.set(key, { add: adds, del: new Set(dels), at: this.#now() });
  }

  /** A pod of the controller was seen created. */
  created(key: string): void {
    const e = this.#entries.get(key);
    if (e) e.add--;
  }

  /** A pod of the controller (`podKey` `<namespace>/<name>`) was seen deleted. */
  deleted(key: string, podKey: string): void {
    this.#entries.get(key)?.del.delete(podKey);
  }

  /** One fewer creation expected (it failed or was skipped). */
  lowerAdds(key: string, n: number): void {
    const e = this.#entries.get(key);
    if (e) e.add -= n;
  }

  /** Whether the controller may sync: nothing pending, or it waited too long. */
  satisfied(key: string): boolean {
    const e = this.#entries.get(key);
    if (!e) return true;
    return (e.add <= 0 && e.del.size === 0) || this.#now() - e.at > EXPECTATIONS_TIMEOUT_MS;
  }

  /** Forgets the controller. */
  forget(key: string): void {
    this.#entries.delete(key);
  }
}

/** What pod control writes with. */
export interface PodControlOptions {
  pods: () => Store;
  events: ControllerEvents;
  /** The controller's identity (kube's controller service account). */
  user: UserInfo;
}

/** Creates and deletes a controller's pods. */
export class PodControl {
  readonly #opts: PodControlOptions;

  constructor(opts: PodControlOptions) {
    this.#opts = opts;
  }

  /** Creates one pod from `template` for `owner`; answers the error, if any. */
  async create(owner: KubeObject, template: KubeObject): Promise<unknown> {
    const pod = podFromTemplate(template, owner, controllerRefTo(owner));
    try {
      const created = await this.#opts.pods().create(owner.metadata.namespace!, pod, {
        user: this.#opts.user,
        fieldManager: CONTROLLER_MANAGER,
      });
      await this.#event(
        owner,
        "Normal",
        "SuccessfulCreate",
        `Created pod: ${created.metadata.name}`,
      );
      return undefined;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await this.#event(owner, "Warning", "FailedCreate", `Error creating: ${message}`);
      return err;
    }
  }

  /**
   * Creates `count` pods in slow-start batches (1, 2, 4, ...), stopping after a batch with a
   * failure; answers how many were created and the first error.
   */
  async createBatch(
    owner: KubeObject,
    template: KubeObject,
    count: number,
  ): Promise<{ created: number; error?: unknown }> {
    let created = 0;
    for (let batch = 1; created < count; batch *= 2) {
      const n = Math.min(batch, count - created);
      const errors = (await Promise.all(
        Array.from({ length: n }, () => this.create(owner, template)),
      )).filter((e) => e !== undefined);
      created += n - errors.length;
      if (errors.length > 0) return { created, error: errors[0] };
    }
    return { created };
  }

  /** Deletes `pod` of `owner` (a pod already gone counts as deleted); answers the error. */
  async delete(owner: KubeObject, pod: KubeObject): Promise<unknown> {
    try {
      await this.#opts.pods().delete(pod.metadata.namespace!, pod.metadata.name!, {
        preconditions: { uid: pod.metadata.uid },
      }, { user: this.#opts.user, fieldManager: CONTROLLER_MANAGER });
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      const message = err instanceof Error ? err.message : String(err);
      await this.#event(owner, "Warning", "FailedDelete", `Error deleting: ${message}`);
      return err;
    }
    await this.#event(owner, "Normal", "SuccessfulDelete", `Deleted pod: ${pod.metadata.name}`);
    return undefined;
  }

  async #event(owner: KubeObject, type: "Normal" | "Warning", reason: string, message: string) {
    await this.#opts.events.record(owner, type, reason, message).catch(() => {});
  }
}
