/**
 * Where the agent learns which pods are bound to its node. The interface lets the agent switch
 * to a watch once the API server serves one; {@link PollingPodSource} lists pods with
 * `fieldSelector=spec.nodeName=<node>` every second and reports the set when its
 * resourceVersion moved.
 *
 * @module
 */
import type { KubeList, KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { apiCall } from "../client/api_call.ts";
import type { Clock } from "../clock/clock.ts";

/** A feed of the pods bound to this node. */
export interface PodSource {
  /** Starts the feed; `onPods` gets the full current set whenever it may have changed. */
  start(onPods: (pods: KubeObject[]) => void): void;
  /** Stops the feed. */
  stop(): Promise<void>;
}

/** Options of {@link PollingPodSource}. */
export interface PollingPodSourceOptions {
  client: RestClient;
  nodeName: string;
  clock: Clock;
  logger?: Logger;
  /** Poll interval (default 1 s). */
  intervalMs?: number;
}

/** Lists this node's pods every interval. */
export class PollingPodSource implements PodSource {
  readonly #o: PollingPodSourceOptions;
  #abort = new AbortController();
  #loop?: Promise<void>;
  #lastVersion = "";

  /** Creates a stopped source. */
  constructor(opts: PollingPodSourceOptions) {
    this.#o = opts;
  }

  /** Starts polling. */
  start(onPods: (pods: KubeObject[]) => void): void {
    if (!this.#loop) this.#loop = this.#run(onPods);
  }

  /** Stops polling. */
  async stop(): Promise<void> {
    this.#abort.abort(new Error("pod source stopped"));
    await this.#loop;
  }

  async #run(onPods: (pods: KubeObject[]) => void): Promise<void> {
    const signal = this.#abort.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const list = await apiCall<KubeList>(this.#o.client, "GET", {
          version: "v1",
          resource: "pods",
        }, { query: { fieldSelector: `spec.nodeName=${this.#o.nodeName}` }, signal });
        failures = 0;
        const version = list.metadata?.resourceVersion ?? "";
        if (version === "" || version !== this.#lastVersion) {
          this.#lastVersion = version;
          onPods(list.items);
        }
      } catch (err) {
        if (signal.aborted) return;
        if (failures++ % 30 === 0) {
          this.#o.logger?.warn("cannot list pods of this node", { err: String(err) });
        }
      }
      try {
        await this.#o.clock.sleep(this.#o.intervalMs ?? 1_000, signal);
      } catch {
        return;
      }
    }
  }
}
