/**
 * The pod worker: makes the runtime run the containers of the pods bound to this node and
 * reports their status.
 *
 * - A container that does not exist is started; a `CreateContainerError` (for example a missing
 *   `Localhost` seccomp profile) shows as waiting with that reason and message, and is retried
 *   10 s later. An image that cannot be pulled shows `ErrImagePull`, then `ImagePullBackOff`
 *   until the next attempt (10 s doubling to 5 min).
 * - An exited container is restarted according to `restartPolicy` with the kubelet's crash
 *   back-off: the first restart at once, then a wait of 10 s doubling to 5 min measured from
 *   when the container finished, shown as waiting `CrashLoopBackOff`; the back-off starts over
 *   when the last restart is more than 10 min before the crash.
 * - A pod with a `deletionTimestamp` has its containers stopped (SIGTERM, SIGKILL after the
 *   deletion grace period) and removed, its sandbox removed, and is then deleted with
 *   `gracePeriodSeconds=0`.
 * - Containers and sandboxes of pods no longer bound here are stopped and removed, but only
 *   once the pod source has answered (before that, every container would look orphaned).
 * - Status (phase, conditions, container statuses with state, last state, restart count, start
 *   time, host and pod IP) is written with a PUT of `pods/<name>/status` when it changed.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { formatDuration } from "../../shared/time/duration.ts";
import { apiCall, isStatus } from "../client/api_call.ts";
import type { Clock } from "../clock/clock.ts";
import { rfc3339 } from "../status/node_conditions.ts";
import {
  type ContainerMount,
  type ContainerRuntime,
  type ContainerSpec,
  type ContainerState,
  type ContainerStatus,
  CreateContainerError,
  ImagePullError,
  type PodInfo,
  PodSandboxError,
} from "../runtime/runtime.ts";
import type { PodSource } from "./pod_source.ts";

/** The first crash back-off (ms). */
export const CRASH_BACKOFF_BASE_MS = 10_000;
/** The longest crash back-off (ms). */
export const CRASH_BACKOFF_MAX_MS = 300_000;

/** How long after its last restart a crash starts the back-off over (2 × the maximum). */
export const CRASH_BACKOFF_RESET_MS = 2 * CRASH_BACKOFF_MAX_MS;
/** The wait before a container that failed to be created is tried again (ms). */
export const CREATE_RETRY_MS = 10_000;

/** Options of {@link PodWorker}. */
export interface PodWorkerOptions {
  /** The API server client (status writes and final deletes). */
  client: RestClient;
  /** The container runtime. */
  runtime: ContainerRuntime;
  /** Where the pods bound to this node come from. */
  source: PodSource;
  /** This node's name. */
  nodeName: string;
  /** The node's address, reported as hostIP and podIP (containers use the host network). */
  hostIP: string;
  /** Time for back-offs and status timestamps. */
  clock: Clock;
  /** Logger. */
  logger?: Logger;
  /** How often containers are checked between pod updates (default 1 s). */
  resyncMs?: number;
}

interface Spec {
  name: string;
  image?: string;
  imagePullPolicy?: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string }[];
  workingDir?: string;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  securityContext?: ContainerSpec["securityContext"];
}

/** A pod volume, as far as the worker maps it (hostPath only). */
interface Volume {
  name: string;
  hostPath?: { path: string };
}

/** The kubelet's `flowcontrol.Backoff` entry. */
interface Backoff {
  ms: number;
  lastUpdate: number;
}

interface Memory {
  /** Why the last start failed, by container name. */
  waiting: Map<string, { reason: string; message: string }>;
  /** When a container that failed to start may be tried again, by name. */
  retryAt: Map<string, number>;
  /** Image pull back-off by container name. */
  pullBackoff: Map<string, Backoff>;
  /** Crash back-off by container name. */
  crashBackoff: Map<string, Backoff>;
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

/** Formats milliseconds as Go's `time.Duration` does for whole seconds (`1m20s`, `5m0s`). */
export function goDuration(ms: number): string {
  return formatDuration(Math.round(ms / 1000) * 1000);
}

/** The newest of a pod's containers with this name: a running one, else the most restarted. */
function newest(current: ContainerStatus[], name: string): ContainerStatus | undefined {
  let best: ContainerStatus | undefined;
  for (const c of current) {
    if (c.name !== name) continue;
    if (!best || "running" in c.state) best = c;
    else if (!("running" in best.state) && c.restartCount > best.restartCount) best = c;
  }
  return best;
}

/** Moves a back-off to its next step, as `flowcontrol.Backoff.Next` does. */
function nextBackoff(b: Backoff | undefined, eventTime: number, now: number): Backoff {
  if (!b || eventTime - b.lastUpdate > CRASH_BACKOFF_RESET_MS) {
    return { ms: CRASH_BACKOFF_BASE_MS, lastUpdate: now };
  }
  return { ms: Math.min(b.ms * 2, CRASH_BACKOFF_MAX_MS), lastUpdate: now };
}

/** Whether `eventTime` is still inside the back-off window (`IsInBackOffSince`). */
function inBackoff(b: Backoff | undefined, eventTime: number, now: number): boolean {
  if (!b || eventTime - b.lastUpdate > CRASH_BACKOFF_RESET_MS) return false;
  return now - eventTime < b.ms;
}

/** What the runtime needs to know about a pod. */
export function toPodInfo(pod: KubeObject): PodInfo {
  const spec = podSpec(pod);
  const all = [
    ...containersOf(pod),
    ...(Array.isArray(spec.initContainers) ? spec.initContainers as Spec[] : []),
  ];
  return {
    namespace: pod.metadata.namespace!,
    name: pod.metadata.name!,
    uid: pod.metadata.uid!,
    securityContext: spec.securityContext as PodInfo["securityContext"],
    labels: pod.metadata.labels ?? {},
    annotations: pod.metadata.annotations ?? {},
    hostname: typeof spec.hostname === "string" && spec.hostname ? spec.hostname : undefined,
    hostNetwork: spec.hostNetwork === true,
    hostPID: spec.hostPID === true,
    hostIPC: spec.hostIPC === true,
    shareProcessNamespace: spec.shareProcessNamespace === true,
    privileged: all.some((c) => c.securityContext?.privileged === true),
  };
}

/** Runs this node's pods. */
export class PodWorker {
  readonly #o: PodWorkerOptions;
  #pods = new Map<string, KubeObject>();
  readonly #memory = new Map<string, Memory>();
  #timer?: ReturnType<typeof setInterval>;
  /** The pass in progress. */
  #running?: Promise<void>;
  /** The pass queued behind it (kicks meanwhile share it). */
  #queued?: Promise<void>;
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
      this.syncNow();
    });
    this.#timer = setInterval(() => this.syncNow(), this.#o.resyncMs ?? 1_000);
  }

  /** Whether the pod source has delivered the pods at least once. */
  get sourceReady(): boolean {
    return this.#sourceReady;
  }

  /** Stops following pods (containers keep running until the runtime is closed). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#o.source.stop();
    await this.#queued;
    await this.#running;
  }

  /**
   * Runs one pass over every pod after the pass in progress, if any; resolves when it is done.
   * Passes never overlap, and calls made while a pass waits to run share it.
   */
  syncNow(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#queued) return this.#queued;
    const before = this.#running ?? Promise.resolve();
    const pass: Promise<void> = before.then(async () => {
      this.#queued = undefined;
      this.#running = pass;
      try {
        if (!this.#stopped) await this.#syncAll();
      } catch (err) {
        this.#o.logger?.error("pod sync failed", { err: String(err) });
      } finally {
        if (this.#running === pass) this.#running = undefined;
      }
    });
    this.#queued = pass;
    return pass;
  }

  async #syncAll(): Promise<void> {
    const running = await this.#o.runtime.listContainers();
    // Pods deleted during this pass were cleaned up by their sync: not orphans.
    const known = new Set(this.#pods.keys());
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
    // Containers and sandboxes of pods that are gone (known only once the source answered).
    if (!this.#sourceReady || this.#stopped) return;
    const orphans = new Set<string>();
    for (const c of running) {
      if (known.has(c.pod.uid)) continue;
      orphans.add(c.pod.uid);
      await this.#o.runtime.stopContainer(c.id, 0).catch(() => {});
      await this.#o.runtime.removeContainer(c.id).catch(() => {});
    }
    const sandboxes = await this.#o.runtime.listPods().catch(() => []);
    for (const p of sandboxes) if (!known.has(p.uid)) orphans.add(p.uid);
    for (const uid of orphans) {
      await this.#o.runtime.removePod(uid).catch((err) =>
        this.#o.logger?.warn("cannot remove an orphaned pod", { uid, err: String(err) })
      );
      this.#memory.delete(uid);
    }
  }

  #mem(uid: string): Memory {
    let m = this.#memory.get(uid);
    if (!m) {
      m = {
        waiting: new Map(),
        retryAt: new Map(),
        pullBackoff: new Map(),
        crashBackoff: new Map(),
        lastState: new Map(),
      };
      this.#memory.set(uid, m);
    }
    return m;
  }

  async #syncPod(pod: KubeObject, current: ContainerStatus[]): Promise<void> {
    const uid = pod.metadata.uid!;
    const spec = podSpec(pod);
    if (pod.metadata.deletionTimestamp) return await this.#finishDeletion(pod, spec, current);
    const status = (pod.status ?? {}) as Record<string, unknown>;
    const mem = this.#mem(uid);
    const policy = String(spec.restartPolicy ?? "Always");
    const done = status.phase === "Succeeded" || status.phase === "Failed";
    const info = toPodInfo(pod);
    const volumes = Array.isArray(spec.volumes) ? spec.volumes as Volume[] : [];
    const now = this.#o.clock.now();
    for (const c of containersOf(pod)) {
      if (done) break;
      if (!this.#dueToStart(mem, c, newest(current, c.name), { policy, info, now })) continue;
      await this.#startOne(mem, info, c, volumes, now);
    }
    const after = (await this.#o.runtime.listContainers()).filter((c) => c.pod.uid === uid);
    await this.#writeStatus(pod, after, mem);
  }

  /**
   * A pod being deleted: stops its containers within the grace period, removes them and the
   * sandbox, deletes the Pod with `gracePeriodSeconds=0` and forgets it.
   */
  async #finishDeletion(
    pod: KubeObject,
    spec: Record<string, unknown>,
    current: ContainerStatus[],
  ): Promise<void> {
    const uid = pod.metadata.uid!;
    const grace = (pod.metadata.deletionGracePeriodSeconds ??
      (spec.terminationGracePeriodSeconds as number | undefined) ?? 30) * 1000;
    await Promise.all(current.map((c) => this.#o.runtime.stopContainer(c.id, grace)));
    for (const c of current) await this.#o.runtime.removeContainer(c.id).catch(() => {});
    await this.#o.runtime.removePod(uid);
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
  }

  /**
   * Whether container `c` (whose newest status is `have`) is to be started now: not running,
   * restartable by the policy, and past any crash back-off or retry wait (recording the waiting
   * reason when it is not).
   */
  #dueToStart(
    mem: Memory,
    c: Spec,
    have: ContainerStatus | undefined,
    o: { policy: string; info: PodInfo; now: number },
  ): boolean {
    const { policy, info, now } = o;
    if (have && "running" in have.state) return false;
    if (have && "terminated" in have.state) {
      const code = have.state.terminated.exitCode;
      const restart = policy === "Always" || (policy === "OnFailure" && code !== 0);
      if (!restart) return false;
      mem.lastState.set(c.name, have.state);
      const finished = Date.parse(have.state.terminated.finishedAt);
      const eventTime = Number.isFinite(finished) ? finished : now;
      const waiting = mem.waiting.get(c.name);
      const retryAt = mem.retryAt.get(c.name);
      if (waiting && waiting.reason !== "CrashLoopBackOff" && retryAt !== undefined) {
        // The restart itself failed: retry that on its own schedule.
        if (now < retryAt) {
          this.#pullBackingOff(mem, c);
          return false;
        }
      } else {
        const b = mem.crashBackoff.get(c.name);
        if (inBackoff(b, eventTime, now)) {
          mem.waiting.set(c.name, {
            reason: "CrashLoopBackOff",
            message: `back-off ${
              goDuration(b!.ms)
            } restarting failed container=${c.name} pod=${info.name}_${info.namespace}(${info.uid})`,
          });
          return false;
        }
        mem.crashBackoff.set(c.name, nextBackoff(b, eventTime, now));
      }
    } else {
      // Not created yet (or created and not started): retry a failure on its schedule.
      const retryAt = mem.retryAt.get(c.name);
      if (mem.waiting.has(c.name) && retryAt !== undefined && now < retryAt) {
        this.#pullBackingOff(mem, c);
        return false;
      }
    }
    return true;
  }

  /** Starts container `c`; a failure is remembered as its waiting reason with a retry time. */
  async #startOne(
    mem: Memory,
    info: PodInfo,
    c: Spec,
    volumes: Volume[],
    now: number,
  ): Promise<void> {
    try {
      await this.#o.runtime.startContainer(info, toContainerSpec(c, volumes));
      mem.waiting.delete(c.name);
      mem.retryAt.delete(c.name);
      mem.pullBackoff.delete(c.name);
    } catch (err) {
      const typed = err instanceof CreateContainerError || err instanceof ImagePullError ||
        err instanceof PodSandboxError;
      const reason = typed ? err.reason : "RunContainerError";
      mem.waiting.set(c.name, { reason, message: (err as Error).message });
      if (err instanceof ImagePullError && err.reason === "ErrImagePull") {
        const b = nextBackoff(mem.pullBackoff.get(c.name), now, now);
        mem.pullBackoff.set(c.name, b);
        mem.retryAt.set(c.name, now + b.ms);
      } else {
        mem.retryAt.set(c.name, now + CREATE_RETRY_MS);
      }
    }
  }

  /** While an image pull waits for its retry, ErrImagePull becomes ImagePullBackOff. */
  #pullBackingOff(mem: Memory, c: Spec): void {
    if (mem.waiting.get(c.name)?.reason === "ErrImagePull") {
      mem.waiting.set(c.name, {
        reason: "ImagePullBackOff",
        message: `Back-off pulling image ${JSON.stringify(c.image ?? "")}`,
      });
    }
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

/**
 * Converts a pod's container to what the runtime takes: literal env values only, and the
 * volume mounts of `hostPath` volumes as mounts (other volume kinds are not supported).
 */
export function toContainerSpec(c: Spec, volumes: Volume[] = []): ContainerSpec {
  const mounts: ContainerMount[] = [];
  for (const m of c.volumeMounts ?? []) {
    const v = volumes.find((x) => x.name === m.name);
    if (!v?.hostPath?.path) continue;
    mounts.push({
      containerPath: m.mountPath,
      hostPath: v.hostPath.path,
      ...(m.readOnly ? { readOnly: true } : {}),
    });
  }
  return {
    name: c.name,
    image: c.image,
    ...(c.imagePullPolicy ? { imagePullPolicy: c.imagePullPolicy } : {}),
    ...(mounts.length ? { mounts } : {}),
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
    const have = newest(current, c.name);
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
