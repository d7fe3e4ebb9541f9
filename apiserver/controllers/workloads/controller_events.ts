/**
 * Writes core/v1 Events about any object as kube-controller-manager's controllers do
 * (`source.component` and `reportingComponent` the controller's name, such as `job-controller`),
 * so `kubectl describe` and `kubectl events` show what the controllers did.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import type { Store } from "../../registry/generic/store.ts";
import { type Clock, rfc3339, systemClock } from "../../registry/generic/clock.ts";

/** Records events of one controller; a failed write is logged, never thrown. */
export class ControllerEvents {
  readonly #events: () => Store | undefined;
  readonly #component: string;
  readonly #clock: Clock;
  readonly #logger?: Logger;

  /** `events` answers the core/v1 events store; `component` is the controller's name. */
  constructor(
    events: () => Store | undefined,
    component: string,
    clock: Clock = systemClock,
    logger?: Logger,
  ) {
    this.#events = events;
    this.#component = component;
    this.#clock = clock;
    this.#logger = logger;
  }

  /** Records a `Normal` event about `obj`. */
  normal(obj: KubeObject, reason: string, message: string): Promise<void> {
    return this.record(obj, "Normal", reason, message);
  }

  /** Records a `Warning` event about `obj`. */
  warning(obj: KubeObject, reason: string, message: string): Promise<void> {
    return this.record(obj, "Warning", reason, message);
  }

  /** Records an event of `type` about `obj` (which has apiVersion and kind). */
  async record(obj: KubeObject, type: string, reason: string, message: string): Promise<void> {
    const store = this.#events();
    if (!store) return;
    const ns = obj.metadata.namespace || "default";
    const time = rfc3339(this.#clock.now());
    const suffix = [...crypto.getRandomValues(new Uint8Array(8))]
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    try {
      await store.create(ns, {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `${obj.metadata.name}.${suffix}`, namespace: ns },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          namespace: obj.metadata.namespace,
          name: obj.metadata.name,
          uid: obj.metadata.uid,
          resourceVersion: obj.metadata.resourceVersion,
        },
        reason,
        message,
        type,
        source: { component: this.#component },
        reportingComponent: this.#component,
        reportingInstance: "",
        firstTimestamp: time,
        lastTimestamp: time,
        count: 1,
      });
    } catch (err) {
      this.#logger?.warn("event not recorded", { reason, err: String(err) });
    }
  }
}
