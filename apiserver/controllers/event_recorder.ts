/**
 * Writes core/v1 Events about any object as kube's controllers' recorders do: the involved
 * object's reference, `source.component` and `reportingComponent` the controller's name
 * (`replicaset-controller`, `deployment-controller`, ...), so `kubectl describe` and
 * `kubectl events` show them.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Store } from "../registry/generic/store.ts";

/** Options of a recorder. */
export interface ControllerEventRecorderOptions {
  /** The events store (core/v1). */
  events: () => Store | undefined;
  /** The controller's name, as kube reports it. */
  component: string;
  now?: () => number;
}

function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Records events about objects. */
export class ControllerEventRecorder {
  readonly #opts: ControllerEventRecorderOptions;

  constructor(opts: ControllerEventRecorderOptions) {
    this.#opts = opts;
  }

  /** Records an event about `obj`; failures are the caller's to log or ignore. */
  async record(
    obj: KubeObject,
    type: "Normal" | "Warning",
    reason: string,
    message: string,
  ): Promise<void> {
    const store = this.#opts.events();
    if (!store) return;
    const ns = obj.metadata.namespace || "default";
    const time = new Date((this.#opts.now ?? Date.now)()).toISOString().replace(/\.\d+Z$/, "Z");
    const component = this.#opts.component;
    await store.create(ns, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${obj.metadata.name}.${randomSuffix()}`, namespace: ns },
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
      source: { component },
      reportingComponent: component,
      reportingInstance: component,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    } as unknown as KubeObject);
  }
}
