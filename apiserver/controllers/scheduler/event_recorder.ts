/**
 * Writes core/v1 Events about pods as kube-scheduler's recorder does (`source.component` and
 * `reportingComponent` `default-scheduler`), so `kubectl describe pod` and `kubectl events`
 * show them.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { Store } from "../../registry/generic/store.ts";

/** The component name the scheduler reports. */
export const SCHEDULER_NAME = "default-scheduler";

/** What an event says. */
export interface EventNote {
  type: "Normal" | "Warning";
  reason: string;
  action: string;
  message: string;
}

function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Records events about pods in the events store. */
export class EventRecorder {
  readonly #events: () => Store | undefined;
  readonly #user: UserInfo;
  readonly #now: () => number;

  constructor(events: () => Store | undefined, user: UserInfo, now: () => number = Date.now) {
    this.#events = events;
    this.#user = user;
    this.#now = now;
  }

  /** Records `note` about `pod`; failures are the caller's to log. */
  async record(pod: KubeObject, note: EventNote): Promise<void> {
    const store = this.#events();
    if (!store) return;
    const ns = pod.metadata.namespace ?? "default";
    const time = new Date(this.#now()).toISOString().replace(/\.\d+Z$/, "Z");
    await store.create(ns, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${pod.metadata.name}.${randomSuffix()}`, namespace: ns },
      involvedObject: {
        apiVersion: "v1",
        kind: "Pod",
        namespace: ns,
        name: pod.metadata.name,
        uid: pod.metadata.uid,
        resourceVersion: pod.metadata.resourceVersion,
      },
      reason: note.reason,
      message: note.message,
      type: note.type,
      action: note.action,
      source: { component: SCHEDULER_NAME },
      reportingComponent: SCHEDULER_NAME,
      reportingInstance: SCHEDULER_NAME,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    } as unknown as KubeObject, { user: this.#user });
  }
}
