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
 * - Init containers run one at a time, in order, to completion before the containers start.
 * - Probes ({@link Prober}): readiness sets `ready` and the Ready/ContainersReady conditions,
 *   a startup probe gates the others, and a failed liveness or startup probe kills the
 *   container (`Killing` event), which is then restarted by its policy.
 * - `postStart` hooks run after a start; a failure kills the container.
 * - A pod with a `deletionTimestamp` has its containers killed in the background (`preStop`
 *   hook, SIGTERM, SIGKILL after the rest of the deletion grace period), removed, its sandbox
 *   removed, and is then deleted with `gracePeriodSeconds=0`.
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
import { apiCall, isStatus } from "../client/api_call.ts";
import type { Clock } from "../clock/clock.ts";
import { type EventRecorder, podEventObject } from "../events/event_recorder.ts";
import { Prober, type RunningContainer } from "../probes/prober.ts";
import {
  type ContainerRuntime,
  type ContainerState,
  type ContainerStatus,
  CreateContainerError,
  ImagePullError,
  type PodInfo,
  PodSandboxError,
} from "../runtime/runtime.ts";
import {
  gracePeriodSeconds,
  killContainer,
  type LifecycleContext,
  runHook,
} from "./container_lifecycle.ts";
import {
  containersOf,
  ephemeralContainersOf,
  initContainersOf,
  newest,
  type PodContainer as Spec,
  podSpec,
} from "./pod_spec.ts";
import { containersToRun, isSidecar } from "./containers_to_run.ts";
import { podStatus } from "./pod_status.ts";
import { toContainerSpec, toPodInfo, type Volume } from "./runtime_specs.ts";
import type { PodSource } from "./pod_source.ts";
import { type Backoff, crashLoopMessage, inBackoff, nextBackoff } from "./restart_backoff.ts";

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
  /** Where events about pods go (`Killing`, `Unhealthy`, `BackOff`, `Started`). */
  recorder?: EventRecorder;
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
  readonly #prober: Prober;
  readonly #abort = new AbortController();
  /** Work that outlives a pass (kills, terminations, postStart hooks), by key. */
  readonly #background = new Map<string, Promise<void>>();

  /** Creates a stopped worker. */
  constructor(opts: PodWorkerOptions) {
    this.#o = opts;
    this.#prober = new Prober({
      runtime: opts.runtime,
      clock: opts.clock,
      recorder: opts.recorder,
      logger: opts.logger,
      onChange: () => void this.syncNow(),
    });
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
    this.#abort.abort(new Error("the pod worker stopped"));
    clearInterval(this.#timer);
    await this.#o.source.stop();
    await this.#queued;
    await this.#running;
  }

  /** Resolves when no probe, kill, termination or hook is in progress. */
  async idle(): Promise<void> {
    await this.#prober.idle();
    while (this.#background.size) {
      await Promise.all([...this.#background.values()]);
      await this.#prober.idle();
    }
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
      this.#forget(uid);
    }
  }

  #forget(uid: string): void {
    this.#memory.delete(uid);
    this.#prober.forget(uid);
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

  /** What hooks and kills need. */
  #ctx(): LifecycleContext {
    return {
      runtime: this.#o.runtime,
      clock: this.#o.clock,
      recorder: this.#o.recorder,
      podIP: this.#o.hostIP,
      signal: this.#abort.signal,
    };
  }

  /** Runs `work` once per key in the background, then syncs again. */
  #inBackground(key: string, work: () => Promise<void>): void {
    if (this.#background.has(key)) return;
    const p = work().catch((err) =>
      this.#o.logger?.warn("pod work failed", { key, err: String(err) })
    ).finally(() => {
      this.#background.delete(key);
      this.syncNow();
    });
    this.#background.set(key, p);
  }

  async #syncPod(pod: KubeObject, current: ContainerStatus[]): Promise<void> {
    const uid = pod.metadata.uid!;
    if (pod.metadata.deletionTimestamp) {
      return this.#inBackground(`terminate/${uid}`, () => this.#terminate(pod, current));
    }
    const spec = podSpec(pod);
    const status = (pod.status ?? {}) as Record<string, unknown>;
    const mem = this.#mem(uid);
    const policy = String(spec.restartPolicy ?? "Always");
    const done = status.phase === "Succeeded" || status.phase === "Failed";
    const info = toPodInfo(pod);
    const volumes = Array.isArray(spec.volumes) ? spec.volumes as Volume[] : [];
    const now = this.#o.clock.now();
    for (const { c, policy: p } of done ? [] : containersToRun(pod, current, policy)) {
      if (!this.#dueToStart(mem, c, newest(current, c.name), { policy: p, info, now })) continue;
      await this.#startOne(pod, { mem, info, c, volumes, now });
    }
    const after = (await this.#o.runtime.listContainers()).filter((c) => c.pod.uid === uid);
    this.#probeAndKill(pod, after, policy);
    await this.#writeStatus(pod, after, mem);
  }

  /**
   * Kills the running containers whose liveness or startup probe failed, and starts the probes
   * that are due for the others.
   */
  #probeAndKill(pod: KubeObject, current: ContainerStatus[], policy: string): void {
    const uid = pod.metadata.uid!;
    const probed = [...initContainersOf(pod).filter(isSidecar), ...containersOf(pod)];
    const running = new Map<string, RunningContainer>();
    for (const c of probed) {
      const have = newest(current, c.name);
      if (!have || !("running" in have.state)) continue;
      if (this.#background.has(`kill/${have.id}`)) continue;
      const reason = this.#prober.killReason(uid, c, have.id);
      if (!reason) {
        running.set(c.name, { id: have.id, startedAt: Date.parse(have.state.running.startedAt) });
        continue;
      }
      const probe = reason === "liveness" ? c.livenessProbe : c.startupProbe;
      const restart = policy !== "Never" || isSidecar(c);
      const message = `Container ${c.name} failed ${reason} probe${
        restart ? ", will be restarted" : ""
      }`;
      this.#inBackground(`kill/${have.id}`, () =>
        killContainer(pod, c, {
          containerId: have.id,
          graceSeconds: gracePeriodSeconds(pod, probe?.terminationGracePeriodSeconds),
          message,
        }, this.#ctx()));
    }
    this.#prober.sync(pod, probed, this.#o.hostIP, running);
  }

  /**
   * A pod being deleted: kills its containers within the grace period (preStop hooks first),
   * removes them and the sandbox, deletes the Pod with `gracePeriodSeconds=0` and forgets it.
   */
  async #terminate(pod: KubeObject, current: ContainerStatus[]): Promise<void> {
    const uid = pod.metadata.uid!;
    const grace = gracePeriodSeconds(pod);
    const all = [...initContainersOf(pod), ...containersOf(pod), ...ephemeralContainersOf(pod)];
    const specs = new Map(all.map((c) => [c.name, c]));
    await Promise.all(
      current.filter((c) => "running" in c.state).map((c) =>
        killContainer(pod, specs.get(c.name) ?? { name: c.name }, {
          containerId: c.id,
          graceSeconds: grace,
          message: `Stopping container ${c.name}`,
        }, this.#ctx())
      ),
    );
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
    this.#forget(uid);
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
          if (waiting?.reason !== "CrashLoopBackOff") {
            this.#o.recorder?.event(
              podEventObject({ metadata: info }, c.name),
              "Warning",
              "BackOff",
              `Back-off restarting failed container ${c.name} in pod ${info.name}_${info.namespace}(${info.uid})`,
            );
          }
          mem.waiting.set(c.name, {
            reason: "CrashLoopBackOff",
            message: crashLoopMessage(b!, c.name, info),
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

  /**
   * Starts container `c` (`Created` and `Started` events, then its postStart hook in the
   * background); a failure is remembered as its waiting reason with a retry time.
   */
  async #startOne(
    pod: KubeObject,
    o: { mem: Memory; info: PodInfo; c: Spec; volumes: Volume[]; now: number },
  ): Promise<void> {
    const { mem, info, c, volumes, now } = o;
    let started: ContainerStatus;
    try {
      started = await this.#o.runtime.startContainer(info, toContainerSpec(c, volumes));
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
      return;
    }
    const obj = podEventObject(pod, c.name);
    this.#o.recorder?.event(obj, "Normal", "Created", `Created container ${c.name}`);
    this.#o.recorder?.event(obj, "Normal", "Started", `Started container ${c.name}`);
    const hook = c.lifecycle?.postStart;
    if (hook) this.#inBackground(`kill/${started.id}`, () => this.#postStart(pod, c, started.id));
  }

  /** Runs a postStart hook; a failure is a `FailedPostStartHook` event and kills the container. */
  async #postStart(pod: KubeObject, c: Spec, containerId: string): Promise<void> {
    const ctx = this.#ctx();
    const grace = gracePeriodSeconds(pod);
    const failure = await runHook(c.lifecycle!.postStart!, {
      pod,
      container: c,
      containerId,
      timeoutMs: Math.max(grace, 1) * 1000,
    }, ctx);
    if (!failure) return;
    this.#o.recorder?.event(podEventObject(pod, c.name), "Warning", "FailedPostStartHook", failure);
    await killContainer(pod, c, {
      containerId,
      graceSeconds: grace,
      message: "FailedPostStartHook",
    }, ctx);
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
    const uid = pod.metadata.uid!;
    const next = podStatus(pod, current, {
      waiting: mem.waiting,
      lastState: mem.lastState,
      readiness: (c, have) => ({
        ready: this.#prober.ready(uid, c, have.id),
        started: this.#prober.started(uid, c, have.id),
      }),
    }, { hostIP: this.#o.hostIP, now: this.#o.clock.now() });
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
        this.#pods.set(uid, written);
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
