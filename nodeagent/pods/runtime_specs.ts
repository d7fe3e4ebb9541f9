/**
 * What the runtime is told about a pod and its containers ({@link PodInfo},
 * {@link ContainerSpec}), read from the Pod.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { ContainerMount, ContainerSpec, PodInfo } from "../runtime/runtime.ts";
import { containersOf, initContainersOf, type PodContainer as Spec, podSpec } from "./pod_spec.ts";

/** A pod volume, as far as the worker maps it (hostPath only). */
export interface Volume {
  name: string;
  hostPath?: { path: string };
}

/** What the runtime needs to know about a pod. */
export function toPodInfo(pod: KubeObject): PodInfo {
  const spec = podSpec(pod);
  const all = [...containersOf(pod), ...initContainersOf(pod)];
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
    ...(c.stdin ? { stdin: true, ...(c.stdinOnce ? { stdinOnce: true } : {}) } : {}),
  };
}
