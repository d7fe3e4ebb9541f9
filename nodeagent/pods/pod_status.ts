/**
 * The pod status the node agent reports, computed as the kubelet's status generation does:
 * container statuses (state, last state, ready, started, restart count), init container
 * statuses, the phase (`getPhase`), the conditions with kube's reasons and messages, and the
 * host and pod IPs.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { rfc3339 } from "../status/node_conditions.ts";
import type { ContainerState, ContainerStatus } from "../runtime/runtime.ts";
import type { PodContainer } from "./pod_spec.ts";
import {
  containersOf,
  ephemeralContainersOf,
  initContainersOf,
  newest,
  podSpec,
} from "./pod_spec.ts";

/** What the worker knows beyond the runtime's container statuses. */
export interface StatusView {
  /** Why a container waits (start failures, back-offs), by name. */
  waiting: Map<string, { reason: string; message: string }>;
  /** Each container's last terminated state, by name. */
  lastState: Map<string, ContainerState>;
  /** Readiness and startup of a running container. */
  readiness(c: PodContainer, have: ContainerStatus): { ready: boolean; started: boolean };
}

/** A reported container status. */
interface Reported {
  name: string;
  state: ContainerState;
  lastState: ContainerState | Record<string, never>;
  ready: boolean;
  restartCount: number;
  started: boolean;
}

function condition(
  type: string,
  ok: boolean,
  at: string,
  previous: unknown,
  why?: { reason: string; message?: string },
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
    ...(ok || !why ? {} : why),
  };
}

/** One container's reported status. */
function containerStatus(
  c: PodContainer,
  current: ContainerStatus[],
  view: StatusView,
): Reported & Record<string, unknown> {
  const have = newest(current, c.name);
  const waiting = view.waiting.get(c.name);
  let state: ContainerState;
  if (have && "running" in have.state) state = have.state;
  else if (waiting) state = { waiting: { reason: waiting.reason, message: waiting.message } };
  else if (have) state = have.state;
  else state = { waiting: { reason: "ContainerCreating" } };
  const running = "running" in state;
  const r = running && have ? view.readiness(c, have) : { ready: false, started: false };
  return {
    name: c.name,
    state,
    lastState: view.lastState.get(c.name) ?? {},
    ready: r.ready,
    restartCount: have?.restartCount ?? 0,
    image: c.image ?? "",
    imageID: "",
    ...(have ? { containerID: have.id } : {}),
    started: r.started,
  };
}

/** The pod phase from its containers, as the kubelet's `getPhase` (init containers first). */
export function podPhase(
  policy: string,
  inits: Reported[],
  statuses: Reported[],
): string {
  for (const s of inits) {
    if ("terminated" in s.state && s.state.terminated.exitCode === 0) continue;
    const failed = "terminated" in s.state ||
      ("waiting" in s.state && "terminated" in s.lastState);
    return failed && policy === "Never" ? "Failed" : "Pending";
  }
  let running = 0, stopped = 0, succeeded = 0, waiting = 0;
  for (const s of statuses) {
    if ("running" in s.state) running++;
    else if ("terminated" in s.state) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if ("terminated" in s.lastState) stopped++;
    else waiting++;
  }
  if (waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped > 0) {
    if (policy === "Always") return "Running";
    if (stopped === succeeded) return "Succeeded";
    if (policy === "Never") return "Failed";
    return "Running";
  }
  return "Pending";
}

/** The pod status the agent reports. */
export function podStatus(
  pod: KubeObject,
  current: ContainerStatus[],
  view: StatusView,
  o: { hostIP: string; now: number },
): Record<string, unknown> {
  const old = (pod.status ?? {}) as Record<string, unknown>;
  const policy = String(podSpec(pod).restartPolicy ?? "Always");
  const at = rfc3339(o.now);
  const inits = initContainersOf(pod).map((c) => containerStatus(c, current, view));
  const statuses = containersOf(pod).map((c) => containerStatus(c, current, view));
  const ephemeral = ephemeralContainersOf(pod).map((c) => {
    const { started: _s, ...s } = containerStatus(c, current, view);
    return { ...s, ready: false };
  });
  let phase = podPhase(policy, inits, statuses);
  if (old.phase === "Succeeded" || old.phase === "Failed") phase = String(old.phase);
  const incomplete = inits.filter((s) =>
    !("terminated" in s.state && s.state.terminated.exitCode === 0)
  ).map((s) => s.name);
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  const notReady = incomplete.length
    ? {
      reason: "ContainersNotInitialized",
      message: `containers with incomplete status: [${incomplete.join(" ")}]`,
    }
    : {
      reason: "ContainersNotReady",
      message: `containers with unready status: [${unready.join(" ")}]`,
    };
  const allReady = statuses.length > 0 && unready.length === 0;
  const done = phase === "Succeeded" || phase === "Failed";
  const podCompleted = { reason: "PodCompleted" };
  return {
    phase,
    conditions: [
      condition("PodReadyToStartContainers", true, at, old.conditions),
      condition("Initialized", incomplete.length === 0, at, old.conditions, notReady),
      condition("Ready", allReady && !done, at, old.conditions, done ? podCompleted : notReady),
      condition(
        "ContainersReady",
        allReady && !done,
        at,
        old.conditions,
        done ? podCompleted : notReady,
      ),
      condition("PodScheduled", true, at, old.conditions),
    ],
    hostIP: o.hostIP,
    hostIPs: [{ ip: o.hostIP }],
    podIP: o.hostIP,
    podIPs: [{ ip: o.hostIP }],
    startTime: old.startTime ?? at,
    ...(inits.length ? { initContainerStatuses: inits } : {}),
    containerStatuses: statuses,
    ...(ephemeral.length ? { ephemeralContainerStatuses: ephemeral } : {}),
    qosClass: old.qosClass ?? "BestEffort",
  };
}
