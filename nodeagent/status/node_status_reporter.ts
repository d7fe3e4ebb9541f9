/**
 * The node status loop: every `nodeStatusUpdateFrequency` the agent reads its host, computes
 * capacity, allocatable and the five conditions, and writes `nodes/<name>/status` when anything
 * but heartbeat times changed or `nodeStatusReportFrequency` (5 min) has passed since the last
 * write. The write is a PUT of the status subresource built on the cached Node; a 409 re-reads
 * the Node and tries again (up to 5 times, the kubelet's `nodeStatusUpdateRetry`).
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { apiCall, isStatus } from "../client/api_call.ts";
import type { Clock } from "../clock/clock.ts";
import type { EvictionThreshold } from "../config/eviction_threshold.ts";
import { type NodeAddress, nodeStatus, type NodeStatusParts } from "../register/node_object.ts";
import type { HostReadings } from "./host_readings.ts";
import {
  computeNodeConditions,
  type NodeCondition,
  type PressureObservations,
} from "./node_conditions.ts";
import type { NodeSystemInfo } from "./node_info.ts";
import { nodeResources, type ResourceSettings } from "./node_resources.ts";
import { type ReportedStatus, statusNeedsWrite } from "./status_needs_write.ts";

/** Attempts of one status write before waiting for the next tick. */
export const NODE_STATUS_UPDATE_RETRY = 5;

/** Options of {@link NodeStatusReporter}. */
export interface NodeStatusReporterOptions {
  client: RestClient;
  nodeName: string;
  clock: Clock;
  logger?: Logger;
  /** Reads the host (tests may pass fixed readings). */
  readHost: () => Promise<HostReadings>;
  /** Problems that make the node not ready (the runtime's health). */
  readyErrors: () => Promise<string[]>;
  nodeInfo: NodeSystemInfo;
  addresses: NodeAddress[];
  port: number;
  resources: ResourceSettings;
  thresholds: EvictionThreshold[];
  pressureTransitionPeriodMs: number;
  updateFrequencyMs: number;
  reportFrequencyMs: number;
}

/** Computes and writes the node's status. */
export class NodeStatusReporter {
  readonly #o: NodeStatusReporterOptions;
  #node?: KubeObject;
  #conditions: NodeCondition[] = [];
  #observations: PressureObservations = {};
  #lastWrite?: { status: ReportedStatus; at: number };
  #lastParts?: NodeStatusParts;
  #abort = new AbortController();
  #loop?: Promise<void>;

  /** Creates a stopped reporter. */
  constructor(opts: NodeStatusReporterOptions) {
    this.#o = opts;
  }

  /** Computes the status now (also used for registration). */
  async compute(): Promise<NodeStatusParts> {
    let readings: HostReadings | undefined;
    const readyErrors: string[] = [];
    try {
      readings = await this.#o.readHost();
    } catch (err) {
      this.#o.logger?.warn("cannot read host status", { err: String(err) });
    }
    try {
      readyErrors.push(...await this.#o.readyErrors());
    } catch (err) {
      readyErrors.push(`container runtime status check failed: ${String(err)}`);
    }
    const now = this.#o.clock.now();
    const { conditions, observations } = computeNodeConditions({
      previous: this.#conditions,
      observations: this.#observations,
      readings,
      thresholds: this.#o.thresholds,
      pressureTransitionPeriodMs: this.#o.pressureTransitionPeriodMs,
      readyErrors,
      networkErrors: [],
      now,
    });
    this.#conditions = conditions;
    this.#observations = observations;
    const resources = readings ? nodeResources(readings, this.#o.resources) : {
      capacity: this.#lastParts?.capacity ?? {},
      allocatable: this.#lastParts?.allocatable ?? {},
    };
    const parts: NodeStatusParts = {
      ...resources,
      conditions,
      addresses: this.#o.addresses,
      nodeInfo: this.#o.nodeInfo,
      port: this.#o.port,
    };
    this.#lastParts = parts;
    return parts;
  }

  /** Remembers the Node as registered, and the status it was registered with. */
  registered(node: KubeObject, parts: NodeStatusParts): void {
    this.#node = node;
    this.#lastWrite = { status: reported(parts), at: this.#o.clock.now() };
  }

  /** Starts the periodic loop. */
  start(): void {
    if (this.#loop) return;
    this.#loop = this.#run();
  }

  /** Stops the loop and waits for it. */
  async stop(): Promise<void> {
    this.#abort.abort(new Error("status reporter stopped"));
    await this.#loop;
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      try {
        await this.#o.clock.sleep(this.#o.updateFrequencyMs, signal);
      } catch {
        return;
      }
      try {
        await this.sync();
      } catch (err) {
        if (!signal.aborted) {
          this.#o.logger?.warn("error updating node status, will retry", { err: String(err) });
        }
      }
    }
  }

  /** Computes the status and writes it when needed; true when written. */
  async sync(): Promise<boolean> {
    const parts = await this.compute();
    const next = reported(parts);
    const now = this.#o.clock.now();
    if (!statusNeedsWrite(this.#lastWrite, next, now, this.#o.reportFrequencyMs)) return false;
    await this.#write(parts);
    this.#lastWrite = { status: next, at: now };
    return true;
  }

  async #write(parts: NodeStatusParts): Promise<void> {
    const ref = { version: "v1", resource: "nodes", name: this.#o.nodeName };
    const signal = this.#abort.signal;
    let lastErr: unknown;
    for (let i = 0; i < NODE_STATUS_UPDATE_RETRY && !signal.aborted; i++) {
      try {
        if (!this.#node) {
          this.#node = await apiCall<KubeObject>(this.#o.client, "GET", ref, { signal });
        }
        this.#node = await apiCall<KubeObject>(this.#o.client, "PUT", {
          ...ref,
          subresource: "status",
        }, { body: { ...this.#node, status: nodeStatus(parts) }, signal });
        return;
      } catch (err) {
        lastErr = err;
        if (isStatus(err, 409) || isStatus(err, 404)) this.#node = undefined;
        else if (!(err instanceof Error && err.name === "StatusError")) throw err;
      }
    }
    throw lastErr;
  }
}

function reported(parts: NodeStatusParts): ReportedStatus {
  const { conditions, ...rest } = parts;
  return { conditions, rest };
}
