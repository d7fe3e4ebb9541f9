/**
 * Reading a Pod's spec as the node agent needs it: its containers and init containers, and the
 * newest runtime status of a container by name.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { ContainerSpec, ContainerStatus } from "../runtime/runtime.ts";
import type { ProbedContainer } from "../probes/probe_spec.ts";

/** A pod's container as the agent reads it. */
export interface PodContainer extends ProbedContainer {
  /** Image. */
  image?: string;
  /** `Always`, `IfNotPresent`, `Never`. */
  imagePullPolicy?: string;
  /** Command. */
  command?: string[];
  /** Args. */
  args?: string[];
  /** Env (literal values only). */
  env?: { name: string; value?: string }[];
  /** Working directory. */
  workingDir?: string;
  /** Volume mounts. */
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  /** Security context. */
  securityContext?: ContainerSpec["securityContext"];
  /** `Always` for a sidecar (restartable init container). */
  restartPolicy?: string;
  /** Keep a standard input open for attach. */
  stdin?: boolean;
  /** Close that input after the first attach session. */
  stdinOnce?: boolean;
}

/** The pod's spec as a record. */
export function podSpec(pod: KubeObject): Record<string, unknown> {
  return (pod.spec ?? {}) as Record<string, unknown>;
}

/** `spec.containers`. */
export function containersOf(pod: KubeObject): PodContainer[] {
  const list = podSpec(pod).containers;
  return Array.isArray(list) ? list as PodContainer[] : [];
}

/** `spec.initContainers`. */
export function initContainersOf(pod: KubeObject): PodContainer[] {
  const list = podSpec(pod).initContainers;
  return Array.isArray(list) ? list as PodContainer[] : [];
}

/** `spec.ephemeralContainers` (debug containers added through `pods/ephemeralcontainers`). */
export function ephemeralContainersOf(pod: KubeObject): PodContainer[] {
  const list = podSpec(pod).ephemeralContainers;
  return Array.isArray(list) ? list as PodContainer[] : [];
}

/** The newest of a pod's containers with this name: a running one, else the most restarted. */
export function newest(current: ContainerStatus[], name: string): ContainerStatus | undefined {
  let best: ContainerStatus | undefined;
  for (const c of current) {
    if (c.name !== name) continue;
    if (!best || "running" in c.state) best = c;
    else if (!("running" in best.state) && c.restartCount > best.restartCount) best = c;
  }
  return best;
}
