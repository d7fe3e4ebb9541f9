/**
 * The prober: the kubelet's probe workers and results manager in one. For every running
 * container with probes it runs each probe every `periodSeconds` once `initialDelaySeconds`
 * have passed since the container started, counts results in a row against
 * `successThreshold`/`failureThreshold`, and keeps the result per container id:
 *
 * - before any result, readiness is failure, liveness success, startup unknown;
 * - while a startup probe has not succeeded, liveness and readiness are not run;
 * - a liveness or startup failure holds the result (no more probing) until the container is
 *   replaced, and {@link Prober.killReason} tells the pod worker to kill it;
 * - failures are `Unhealthy` Warning events (`Liveness probe failed: <output>`).
 *
 * Probes run in the background; when a result changes, `onChange` asks for a pod sync.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { Clock } from "../clock/clock.ts";
import { type EventRecorder, podEventObject } from "../events/event_recorder.ts";
import type { ContainerRuntime } from "../runtime/runtime.ts";
import type { ProbedContainer, ProbeKind, ProbeResult, ProbeSpec } from "./probe_spec.ts";
import { runProbe } from "./run_probe.ts";

/** Options of {@link Prober}. */
export interface ProberOptions {
  /** The runtime (exec probes). */
  runtime: Pick<ContainerRuntime, "execSync">;
  /** Time for periods and initial delays. */
  clock: Clock;
  /** Where `Unhealthy` events go. */
  recorder?: EventRecorder;
  /** Called when a result changed (the pod worker syncs). */
  onChange: () => void;
  /** Logger. */
  logger?: Logger;
}

/** A running container the prober looks at. */
export interface RunningContainer {
  /** The runtime's container id. */
  id: string;
  /** When it started (ms since the epoch). */
  startedAt: number;
}

interface Worker {
  containerId: string;
  result: ProbeResult;
  lastResult?: ProbeResult;
  resultRun: number;
  onHold: boolean;
  nextAt: number;
  inflight: boolean;
}

const KINDS: ProbeKind[] = ["startup", "liveness", "readiness"];
const INITIAL: Record<ProbeKind, ProbeResult> = {
  startup: "unknown",
  liveness: "success",
  readiness: "failure",
};
const TITLE: Record<ProbeKind, string> = {
  startup: "Startup",
  liveness: "Liveness",
  readiness: "Readiness",
};

function probeOf(c: ProbedContainer, kind: ProbeKind): ProbeSpec | undefined {
  return kind === "startup"
    ? c.startupProbe
    : kind === "liveness"
    ? c.livenessProbe
    : c.readinessProbe;
}

/** Runs the probes of this node's containers and remembers their results. */
export class Prober {
  readonly #o: ProberOptions;
  readonly #workers = new Map<string, Worker>();
  readonly #inflight = new Set<Promise<void>>();

  /** Creates a prober with no workers. */
  constructor(opts: ProberOptions) {
    this.#o = opts;
  }

  /** Starts the probes of `containers` of `pod` that are due, for those running. */
  sync(
    pod: KubeObject,
    containers: ProbedContainer[],
    podIP: string,
    running: Map<string, RunningContainer>,
  ): void {
    const uid = pod.metadata.uid!;
    const now = this.#o.clock.now();
    for (const c of containers) {
      const rc = running.get(c.name);
      if (!rc) continue;
      for (const kind of KINDS) {
        const probe = probeOf(c, kind);
        if (!probe) continue;
        const w = this.#worker(uid, c.name, kind, rc.id);
        if (w.onHold || w.inflight || now < w.nextAt) continue;
        if (kind !== "startup" && !this.started(uid, c, rc.id)) continue;
        if (kind === "startup" && w.result === "success") continue;
        if (now - rc.startedAt < (probe.initialDelaySeconds ?? 0) * 1000) continue;
        w.inflight = true;
        w.nextAt = now + Math.max(1, probe.periodSeconds ?? 10) * 1000;
        this.#run(pod, c, kind, probe, { w, podIP });
      }
    }
  }

  /** Whether the container has started: no startup probe, or it succeeded. */
  started(uid: string, c: ProbedContainer, id: string): boolean {
    if (!c.startupProbe) return true;
    return this.#current(uid, c.name, "startup", id) === "success";
  }

  /** Whether the container is ready: started, and its readiness probe (if any) succeeds. */
  ready(uid: string, c: ProbedContainer, id: string): boolean {
    if (!this.started(uid, c, id)) return false;
    if (!c.readinessProbe) return true;
    return this.#current(uid, c.name, "readiness", id) === "success";
  }

  /** The probe whose failure means the container is to be killed, if any. */
  killReason(uid: string, c: ProbedContainer, id: string): ProbeKind | undefined {
    if (c.startupProbe && this.#current(uid, c.name, "startup", id) === "failure") {
      return "startup";
    }
    if (c.livenessProbe && this.#current(uid, c.name, "liveness", id) === "failure") {
      return "liveness";
    }
    return undefined;
  }

  /** Forgets a pod's workers. */
  forget(uid: string): void {
    for (const key of [...this.#workers.keys()]) {
      if (key.startsWith(`${uid}/`)) this.#workers.delete(key);
    }
  }

  /** Resolves when no probe is running. */
  async idle(): Promise<void> {
    while (this.#inflight.size) await Promise.all([...this.#inflight]);
  }

  #current(uid: string, name: string, kind: ProbeKind, id: string): ProbeResult {
    const w = this.#workers.get(`${uid}/${name}/${kind}`);
    return w && w.containerId === id ? w.result : INITIAL[kind];
  }

  /** The worker of one probe, reset when the container was replaced. */
  #worker(uid: string, name: string, kind: ProbeKind, id: string): Worker {
    const key = `${uid}/${name}/${kind}`;
    let w = this.#workers.get(key);
    if (!w || w.containerId !== id) {
      w = {
        containerId: id,
        result: INITIAL[kind],
        resultRun: 0,
        onHold: false,
        nextAt: 0,
        inflight: false,
      };
      this.#workers.set(key, w);
    }
    return w;
  }

  #run(
    pod: KubeObject,
    c: ProbedContainer,
    kind: ProbeKind,
    probe: ProbeSpec,
    at: { w: Worker; podIP: string },
  ): void {
    const { w, podIP } = at;
    const timeoutMs = Math.max(1, probe.timeoutSeconds ?? 1) * 1000;
    const p = runProbe(probe, {
      runtime: this.#o.runtime,
      containerId: w.containerId,
      container: c,
      podIP,
    }, timeoutMs).then((outcome) => {
      const obj = podEventObject(pod, c.name);
      if (outcome.result === "unknown") {
        this.#o.recorder?.event(
          obj,
          "Warning",
          "Unhealthy",
          `${TITLE[kind]} probe errored: ${outcome.output}`,
        );
        return;
      }
      if (outcome.result === "failure") {
        this.#o.recorder?.event(
          obj,
          "Warning",
          "Unhealthy",
          `${TITLE[kind]} probe failed: ${outcome.output}`,
        );
      }
      if (this.#apply(w, outcome.result, probe, kind)) this.#o.onChange();
    }).catch((err) => {
      this.#o.logger?.warn("probe failed to run", { kind, err: String(err) });
    }).finally(() => {
      w.inflight = false;
      this.#inflight.delete(p);
    });
    this.#inflight.add(p);
  }

  /** Counts a result as the kubelet's worker does; true when the kept result changed. */
  #apply(w: Worker, result: ProbeResult, probe: ProbeSpec, kind: ProbeKind): boolean {
    if (w.lastResult === result) w.resultRun++;
    else {
      w.lastResult = result;
      w.resultRun = 1;
    }
    if (
      (result === "failure" && w.resultRun < (probe.failureThreshold ?? 3)) ||
      (result === "success" && w.resultRun < (probe.successThreshold ?? 1))
    ) return false;
    const changed = w.result !== result;
    w.result = result;
    if (kind !== "readiness" && result === "failure") {
      w.onHold = true;
      w.resultRun = 0;
    }
    return changed;
  }
}
