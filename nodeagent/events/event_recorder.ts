/**
 * The node agent's event recorder: core/v1 Events about pods and their containers, written as
 * the kubelet's recorder writes them (`source.component: kubelet`, `source.host: <node>`,
 * `reportingComponent: kubelet`), repeats of the same event counted on the first one with a
 * patch of `count` and `lastTimestamp` (the client-go correlator's aggregation by key).
 * Writes happen in the background; failures are logged and dropped.
 *
 * @module
 */
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { resourcePath } from "../../shared/client/resource_path.ts";
import { statusErrorFromResponse } from "../../shared/errors/status_error_from_response.ts";
import { apiCall } from "../client/api_call.ts";
import type { Clock } from "../clock/clock.ts";
import { rfc3339 } from "../status/node_conditions.ts";

/** The object an event is about. */
export interface EventObject {
  /** Kind, `Pod`. */
  kind: string;
  /** API version, `v1`. */
  apiVersion: string;
  /** Namespace. */
  namespace: string;
  /** Name. */
  name: string;
  /** UID. */
  uid: string;
  /** `spec.containers{name}` for a container's events. */
  fieldPath?: string;
}

/** Records events. */
export interface EventRecorder {
  /** Records one event (in the background). */
  event(obj: EventObject, type: "Normal" | "Warning", reason: string, message: string): void;
}

/** Options of {@link ApiEventRecorder}. */
export interface ApiEventRecorderOptions {
  /** The API server client. */
  client: RestClient;
  /** This node's name (`source.host`, `reportingInstance`). */
  nodeName: string;
  /** Timestamps. */
  clock: Clock;
  /** Logger. */
  logger?: Logger;
}

/** How many distinct events are remembered for counting repeats. */
const REMEMBERED = 4096;

/** Writes events to the API server. */
export class ApiEventRecorder implements EventRecorder {
  readonly #o: ApiEventRecorderOptions;
  readonly #seen = new Map<string, { name: string; count: number }>();
  #pending = new Set<Promise<void>>();
  #serial = 0;

  /** Creates a recorder. */
  constructor(opts: ApiEventRecorderOptions) {
    this.#o = opts;
  }

  /** Records one event; a repeat of a remembered one increments its count. */
  event(obj: EventObject, type: "Normal" | "Warning", reason: string, message: string): void {
    const key = JSON.stringify([obj.namespace, obj.uid, obj.fieldPath, type, reason, message]);
    const seen = this.#seen.get(key);
    const write = seen
      ? this.#repeat(obj.namespace, seen)
      : this.#create(key, obj, type, reason, message);
    const p = write.catch((err) =>
      this.#o.logger?.warn("cannot write an event", { reason, err: String(err) })
    ).finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  /** Resolves when every event recorded so far was written (or failed). */
  async flush(): Promise<void> {
    while (this.#pending.size) await Promise.all([...this.#pending]);
  }

  async #create(
    key: string,
    obj: EventObject,
    type: string,
    reason: string,
    message: string,
  ): Promise<void> {
    const now = this.#o.clock.now();
    const name = `${obj.name}.${
      (BigInt(now) * 1_000_000n + BigInt(this.#serial++ % 1_000_000)).toString(16)
    }`;
    const entry = { name, count: 1 };
    this.#seen.set(key, entry);
    if (this.#seen.size > REMEMBERED) this.#seen.delete(this.#seen.keys().next().value!);
    const at = rfc3339(now);
    await apiCall(this.#o.client, "POST", {
      version: "v1",
      resource: "events",
      namespace: obj.namespace,
    }, {
      body: {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name, namespace: obj.namespace },
        involvedObject: obj,
        reason,
        message,
        source: { component: "kubelet", host: this.#o.nodeName },
        firstTimestamp: at,
        lastTimestamp: at,
        count: 1,
        type,
        eventTime: null,
        reportingComponent: "kubelet",
        reportingInstance: this.#o.nodeName,
      },
    });
  }

  async #repeat(namespace: string, seen: { name: string; count: number }): Promise<void> {
    seen.count++;
    const path = resourcePath({ version: "v1", resource: "events", namespace, name: seen.name });
    const res = await this.#o.client.request("PATCH", path, {
      body: JSON.stringify({ count: seen.count, lastTimestamp: rfc3339(this.#o.clock.now()) }),
      headers: { "content-type": "application/strategic-merge-patch+json" },
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status < 200 || res.status > 299) throw statusErrorFromResponse(res, "PATCH");
  }
}

/** The event object of a pod's container (or of the pod when `container` is absent). */
export function podEventObject(
  pod: { metadata: { namespace?: string; name?: string; uid?: string } },
  container?: string,
): EventObject {
  return {
    kind: "Pod",
    apiVersion: "v1",
    namespace: pod.metadata.namespace ?? "default",
    name: pod.metadata.name ?? "",
    uid: pod.metadata.uid ?? "",
    ...(container ? { fieldPath: `spec.containers{${container}}` } : {}),
  };
}
