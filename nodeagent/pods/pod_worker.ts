/**
 * The pod worker: makes the runtime run the containers of the pods bound to this node and
 * reports their status.
 *
 * - A container that does not exist is started; a `CreateContainerError` (for example a missing
 *   `Localhost` seccomp profile) shows as waiting with that reason and message, and is retried.
 * - An exited container is restarted according to `restartPolicy`, with the kubelet's crash
 *   back-off (10 s doubling to 5 min), shown as waiting `CrashLoopBackOff` meanwhile.
 * - A pod with a `deletionTimestamp` has its containers stopped (SIGTERM, SIGKILL after the
 *   deletion grace period) and is then deleted with `gracePeriodSeconds=0`.
 * - Containers of pods no longer bound here are stopped and removed.
 * - Status (phase, conditions, container statuses with state, last state, restart count, start
 *   time, host and pod IP) is written with a PUT of `pods/<name>/status` when it changed.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { apiCall, isStatus } from "../client/api_call.ts";
import type { Clock } from "../clock/clock.ts";
import { rfc3339 } from "../status/node_conditions.ts";
import {
  type ContainerRuntime,
  type ContainerSpec,
  type ContainerState,
  type ContainerStatus,
  CreateContainerError,
  type PodInfo,
} from "../runtime/runtime.ts";
import type { PodSource } from "./pod_source.ts";

/** The first crash back-off (ms). */
export const CRASH_BACKOFF_BASE_MS = 10_000;
/** The longest crash back-off (ms). */
export const CRASH_BACKOFF_MAX_MS = 300_000;

/** Options of {@link PodWorker}. */
export interface PodWorkerOptions {
  client: RestClient;
  runtime: ContainerRuntime;
  source: PodSource;
  nodeName: string;
  /** The node's address, reported as hostIP and podIP (containers use the host network). */
  hostIP: string;
  clock: Clock;
  logger?: Logger;
  /** How often containers are checked between pod updates (default 1 s). */
  resyncMs?: number;
}

interface Spec {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string }[];
  workingDir?: string;
  securityContext?: ContainerSpec["securityContext"];
}

interface Memory {
  /** Why the last start failed, by container name. */
  waiting: Map<string, { reason: string; message: string }>;
  /** When a container may be restarted again, by name. */
  backoffUntil: Map<string, number>;
  /** The last terminated state of each container. */
  lastState: Map<string, ContainerState>;
  /** What was last written. */
  written?: string;
}

function podSpec(pod: KubeObject): Record<string, unknown> {
  return (pod.spec ?? {}) as Record<string, unknown>;
}

function containersOf(pod: KubeObject): Spec[] {
  const list = podSpec(pod).containers;
  return Array.isArray(list) ? list as Spec[] : [];
}

/** Runs this node's pods. */
export class PodWorker {
  readonly #o: PodWorkerOptions;
  #pods = new Map<string, KubeObject>();
  readonly #memory = new Map<string, Memory>();
  #timer?: ReturnType<typeof setInterval>;
  #syncing?: Promise<void>;
  #again = false;
  #stopped = false;
  /** Whether the source delivered the pods once (before that, no container is an orphan). */
  #sourceReady = false;

  /** Creates a stopped worker. */
  constructor(opts: PodWorkerOptions) {
    this.#o = opts;
  }

  /** Starts following the pod source. */
  start(): void {
    this.#o.source.start((pods) => {
      this.#pods = new Map(pods.map((p) => [p.metadata.uid!, p]));
      this.#sourceReady = true;
      this.#kick();
    });
    this.#timer = setInterval(() => this.#kick(), this.#o.resyncMs ?? 1_000);
  }

  /** Stops following pods (containers keep running until the runtime is closed). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#o.source.stop();
    await this.#syncing;
  }

  #kick(): void {
    if (this.#stopped) return;
    if (this.#syncing) {
      this.#again = true;
      return;
    }
    this.#syncing = this.syncAll()
      .catch((err) => this.#o.logger?.error("pod sync failed", { err: String(err) }))
      .finally(() => {
        this.#syncing = undefined;
        if (this.#again) {
          this.#again = false;
          this.#kick();
        }
      });
  }

  /** One pass over every pod (exposed for tests). */
  async syncAll(): Promise<void> {
    const running = await this.#o.runtime.listContainers();
    for (const pod of this.#pods.values()) {
      if (this.#stopped) return;
      const uid = pod.metadata.uid!;
      try {
        await this.#syncPod(pod, running.filter((c) => c.pod.uid === uid));
      } catch (err) {
        this.#o.logger?.warn("pod sync failed", {
          pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
          err: String(err),
        });
      }
    }
    // Containers of pods that are gone (known only once the source has answered).
    if (!this.#sourceReady) return;
    for (const c of running) {
      if (this.#pods.has(c.pod.uid)) continue;
      await this.#o.runtime.stopContainer(c.id, 0).catch(() => {});
      await this.#o.runtime.removeContainer(c.id).catch(() => {});
      this.#memory.delete(c.pod.uid);
    }
  }

  #mem(uid: string): Memory {
    let m = this.#memory.get(uid);
    if (!m) {
      m = { waiting: new Map(), backoffUntil: new Map(), lastState: new Map() };
      this.#memory.set(uid, m);
    }
    return m;
  }

  async #syncPod(pod: KubeObject, current: ContainerStatus[]): Promise<void> {
    const uid = pod.metadata.uid!;
    const spec = podSpec(pod);
    if (pod.metadata.deletionTimestamp) {
      const grace = (pod.metadata.deletionGracePeriodSeconds ??
        (spec.terminationGracePeriodSeconds as number | undefined) ?? 30) * 1000;
      await Promise.all(current.map((c) => this.#o.runtime.stopContainer(c.id, grace)));
      for (const c of current) await this.#o.runtime.removeContainer(c.id).catch(() => {});
      try {
        await apiCall(this.#o.client, "DELETE", {
          version: "v1",
          resource: "pods",
          namespace: pod.metadata.namespace,
          name: pod.metadata.name,
        }, {
          body: {
            kind: "DeleteOptions",
            apiVersion: "v1",
            gracePeriodSeconds: 0,
            preconditions: { uid },
          },
        });
      } catch (err) {
        if (!isStatus(err, 404) && !isStatus(err, 409)) throw err;
      }
      this.#pods.delete(uid);
      this.#memory.delete(uid);
      return;
    }
    const status = (pod.status ?? {}) as Record<string, unknown>;
    const mem = this.#mem(uid);
    const policy = String(spec.restartPolicy ?? "Always");
    const done = status.phase === "Succeeded" || status.phase === "Failed";
    const info: PodInfo = {
      namespace: pod.metadata.namespace!,
      name: pod.metadata.name!,
      uid,
      securityContext: spec.securityContext as PodInfo["securityContext"],
    };
    const now = this.#o.clock.now();
    for (const c of containersOf(pod)) {
      if (done) break;
      const have = current.find((x) => x.name === c.name);
      if (have && "running" in have.state) continue;
      if (have && "terminated" in have.state) {
        const code = have.state.terminated.exitCode;
        const restart = policy === "Always" || (policy === "OnFailure" && code !== 0);
        if (!restart) continue;
        mem.lastState.set(c.name, have.state);
        const until = mem.backoffUntil.get(c.name);
        if (until === undefined) {
          const delay = Math.min(
            CRASH_BACKOFF_BASE_MS * 2 ** Math.min(have.restartCount, 10),
            CRASH_BACKOFF_MAX_MS,
          );
          mem.backoffUntil.set(c.name, now + delay);
          mem.waiting.set(c.name, {
            reason: "CrashLoopBackOff",
            message: `back-off ${
              Math.round(delay / 1000)
            }s restarting failed container=${c.name} pod=${info.name}_${info.namespace}(${uid})`,
          });
          continue;
        }
        if (now < until) continue;
      }
      if (!have && mem.waiting.has(c.name) && (mem.backoffUntil.get(c.name) ?? 0) > now) continue;
      try {
        await this.#o.runtime.startContainer(info, toContainerSpec(c));
        mem.waiting.delete(c.name);
        mem.backoffUntil.delete(c.name);
      } catch (err) {
        const reason = err instanceof CreateContainerError ? err.reason : "RunContainerError";
        mem.waiting.set(c.name, { reason, message: (err as Error).message });
        mem.backoffUntil.set(c.name, now + CRASH_BACKOFF_BASE_MS);
      }
    }
    const after = (await this.#o.runtime.listContainers()).filter((c) => c.pod.uid === uid);
    await this.#writeStatus(pod, after, mem);
  }

  async #writeStatus(pod: KubeObject, current: ContainerStatus[], mem: Memory): Promise<void> {
    const status = (pod.status ?? {}) as Record<string, unknown>;
    const next = podStatus(pod, current, mem, this.#o.hostIP, this.#o.clock.now());
    const key = JSON.stringify(next);
    if (mem.written === key) return;
    const withoutTimes = (s: unknown) =>
      JSON.stringify(
        s,
        (k, v) => (k === "lastProbeTime" || k === "lastTransitionTime" ? undefined : v),
      );
    if (withoutTimes({ ...status, ...next }) === withoutTimes(status)) {
      mem.written = key;
      return;
    }
    const ref = {
      version: "v1",
      resource: "pods",
      namespace: pod.metadata.namespace,
      name: pod.metadata.name,
      subresource: "status",
    };
    let base = pod;
    for (let i = 0; i < 3; i++) {
      try {
        const written = await apiCall<KubeObject>(this.#o.client, "PUT", ref, {
          body: { ...base, status: { ...(base.status as object ?? {}), ...next } },
        });
        this.#pods.set(pod.metadata.uid!, written);
        mem.written = key;
        return;
      } catch (err) {
        if (!isStatus(err, 409)) throw err;
        base = await apiCall<KubeObject>(this.#o.client, "GET", { ...ref, subresource: undefined });
        if (base.metadata.uid !== pod.metadata.uid) return;
      }
    }
  }
}

/** Converts a pod's container to what the runtime takes (literal env values only). */
export function toContainerSpec(c: Spec): ContainerSpec {
  return {
    name: c.name,
    image: c.image,
    command: c.command,
    args: c.args,
    env: (c.env ?? []).filter((e) => typeof e.value === "string" || e.value === undefined)
      .map((e) => ({ name: e.name, value: e.value ?? "" })),
    workingDir: c.workingDir,
    securityContext: c.securityContext,
  };
}

function condition(
  type: string,
  ok: boolean,
  at: string,
  previous: unknown,
): Record<string, unknown> {
  const prev = Array.isArray(previous)
    ? (previous as Record<string, unknown>[]).find((c) => c.type === type)
    : undefined;
  const status = ok ? "True" : "False";
  return {
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : at,
    ...(ok || type === "PodScheduled" || type === "Initialized"
      ? {}
      : { reason: "ContainersNotReady" }),
  };
}

/** The pod status the agent reports. */
function podStatus(
  pod: KubeObject,
  current: ContainerStatus[],
  mem: Memory,
  hostIP: string,
  now: number,
): Record<string, unknown> {
  const old = (pod.status ?? {}) as Record<string, unknown>;
  const spec = podSpec(pod);
  const policy = String(spec.restartPolicy ?? "Always");
  const at = rfc3339(now);
  const statuses = containersOf(pod).map((c) => {
    const have = current.find((x) => x.name === c.name);
    const waiting = mem.waiting.get(c.name);
    let state: ContainerState;
    if (have && "running" in have.state) state = have.state;
    else if (waiting) state = { waiting: { reason: waiting.reason, message: waiting.message } };
    else if (have) state = have.state;
    else state = { waiting: { reason: "ContainerCreating" } };
    const last = mem.lastState.get(c.name);
    const running = "running" in state;
    return {
      name: c.name,
      state,
      lastState: last ?? {},
      ready: running,
      restartCount: have?.restartCount ?? 0,
      image: c.image ?? "",
      imageID: "",
      ...(have ? { containerID: have.id } : {}),
      started: running,
    };
  });
  const states = statuses.map((s) => s.state as ContainerState);
  const allTerminated = states.length > 0 && states.every((s) => "terminated" in s);
  const anyRunning = states.some((s) => "running" in s);
  let phase = "Pending";
  if (allTerminated && policy !== "Always") {
    const failed = states.some((s) => "terminated" in s && s.terminated.exitCode !== 0);
    phase = failed && policy === "Never" ? "Failed" : failed ? "Running" : "Succeeded";
  } else if (anyRunning || statuses.some((s) => s.restartCount > 0 || mem.lastState.has(s.name))) {
    phase = "Running";
  }
  if (old.phase === "Succeeded" || old.phase === "Failed") phase = String(old.phase);
  const allReady = statuses.length > 0 && statuses.every((s) => s.ready);
  return {
    phase,
    conditions: [
      condition("PodReadyToStartContainers", true, at, old.conditions),
      condition("Initialized", true, at, old.conditions),
      condition("Ready", allReady, at, old.conditions),
      condition("ContainersReady", allReady, at, old.conditions),
      condition("PodScheduled", true, at, old.conditions),
    ],
    hostIP,
    hostIPs: [{ ip: hostIP }],
    podIP: hostIP,
    podIPs: [{ ip: hostIP }],
    startTime: old.startTime ?? at,
    containerStatuses: statuses,
    qosClass: old.qosClass ?? "BestEffort",
  };
}
