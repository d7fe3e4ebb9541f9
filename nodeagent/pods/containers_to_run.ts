/**
 * Which containers of a pod the worker keeps running now: init containers one at a time in
 * order, sidecars (init containers with `restartPolicy: Always`) kept running once started,
 * and the containers (and ephemeral containers, never restarted) once every init container
 * completed.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { ContainerStatus } from "../runtime/runtime.ts";
import {
  containersOf,
  ephemeralContainersOf,
  initContainersOf,
  newest,
  type PodContainer as Spec,
} from "./pod_spec.ts";

/** Whether an init container is a sidecar (`restartPolicy: Always`). */
export function isSidecar(c: Spec): boolean {
  return c.restartPolicy === "Always";
}

/**
 * The containers to keep running now, with the restart policy each runs under: init
 * containers one at a time in order (sidecars stay running once started), then, once every
 * init container completed, the sidecars and the containers.
 */
export function containersToRun(
  pod: KubeObject,
  current: ContainerStatus[],
  policy: string,
): { c: Spec; policy: string }[] {
  const initPolicy = policy === "Never" ? "Never" : "OnFailure";
  const out: { c: Spec; policy: string }[] = [];
  for (const c of initContainersOf(pod)) {
    const have = newest(current, c.name);
    if (isSidecar(c)) {
      out.push({ c, policy: "Always" });
      if (have && "running" in have.state) continue;
      return out;
    }
    if (have && "terminated" in have.state && have.state.terminated.exitCode === 0) continue;
    if (!(have && "running" in have.state)) out.push({ c, policy: initPolicy });
    return out;
  }
  for (const c of containersOf(pod)) out.push({ c, policy });
  // Ephemeral containers run once, never restarted.
  for (const c of ephemeralContainersOf(pod)) out.push({ c, policy: "Never" });
  return out;
}
