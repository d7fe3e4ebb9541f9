/**
 * The identity of a StatefulSet's pods, as kube's `stateful_set_utils.go`: the pod of ordinal
 * `i` is `<set>-<i>`, with hostname `<set>-<i>`, subdomain `spec.serviceName`, the labels
 * `statefulset.kubernetes.io/pod-name`, `apps.kubernetes.io/pod-index` and
 * `controller-revision-hash`, and for each `volumeClaimTemplates` entry a volume bound to the
 * claim `<template>-<set>-<i>`.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { controllerRef, podFromTemplate } from "../workloads/pod_from_template.ts";
import { REVISION_HASH_LABEL } from "../workloads/controller_revisions.ts";

/** The label with a StatefulSet pod's name. */
export const POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
/** The label with a StatefulSet pod's ordinal. */
export const POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";

type Obj = Record<string, unknown>;

/** The spec of a StatefulSet. */
export function setSpec(set: KubeObject): Obj {
  return isObject(set.spec) ? set.spec : {};
}

/** The ordinal of a pod of `set`, or undefined when its name is not `<set>-<n>`. */
export function ordinalOf(set: KubeObject, pod: KubeObject): number | undefined {
  const prefix = `${set.metadata.name}-`;
  const name = pod.metadata.name ?? "";
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}

/** The volume claim templates of the set. */
export function claimTemplates(set: KubeObject): Obj[] {
  const t = setSpec(set).volumeClaimTemplates;
  return Array.isArray(t) ? t.filter(isObject) : [];
}

/** The name of the claim of `template` for ordinal `i`. */
export function claimName(set: KubeObject, template: Obj, i: number): string {
  const name = isObject(template.metadata) ? template.metadata.name : "";
  return `${name}-${set.metadata.name}-${i}`;
}

/** The claim of `template` for ordinal `i` (kube labels it with the selector's labels). */
export function newClaim(set: KubeObject, template: Obj, i: number): KubeObject {
  const meta = isObject(template.metadata) ? template.metadata : {};
  const selector = isObject(setSpec(set).selector) ? setSpec(set).selector as Obj : {};
  const labels = {
    ...(meta.labels as Record<string, string> ?? {}),
    ...(selector.matchLabels as Record<string, string> ?? {}),
  };
  const claim: KubeObject = {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: claimName(set, template, i), namespace: set.metadata.namespace },
    spec: structuredClone(template.spec ?? {}),
  };
  if (Object.keys(labels).length) claim.metadata.labels = labels;
  if (isObject(meta.annotations)) {
    claim.metadata.annotations = { ...meta.annotations as Record<string, string> };
  }
  return claim;
}

/** The pod of ordinal `i` made from `template` at revision `hash`. */
export function newStatefulPod(
  set: KubeObject,
  template: unknown,
  hash: string,
  i: number,
): KubeObject {
  const name = `${set.metadata.name}-${i}`;
  const pod = podFromTemplate(template, set, controllerRef(set, "apps/v1", "StatefulSet"), {
    name,
    labels: { [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(i), [REVISION_HASH_LABEL]: hash },
  });
  const spec = pod.spec as Obj;
  spec.hostname = name;
  const service = setSpec(set).serviceName;
  if (typeof service === "string" && service) spec.subdomain = service;
  const volumes = Array.isArray(spec.volumes) ? spec.volumes as Obj[] : [];
  for (const t of claimTemplates(set)) {
    const volName = isObject(t.metadata) ? String(t.metadata.name) : "";
    const volume = { name: volName, persistentVolumeClaim: { claimName: claimName(set, t, i) } };
    const at = volumes.findIndex((v) => v.name === volName);
    if (at >= 0) volumes[at] = volume;
    else volumes.push(volume);
  }
  if (volumes.length) spec.volumes = volumes;
  return pod;
}

/** The pod template a ControllerRevision's data restores. */
export function revisionTemplate(revision: KubeObject): unknown {
  const data = isObject(revision.data) ? revision.data : {};
  const spec = isObject(data.spec) ? data.spec : {};
  const template = isObject(spec.template) ? { ...spec.template } : {};
  delete template["$patch"];
  return template;
}

/** Whether the pod is Running and Ready (kube's `isRunningAndReady`). */
export function isRunningAndReady(pod: KubeObject): boolean {
  const status = isObject(pod.status) ? pod.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions as Obj[] : [];
  return status.phase === "Running" &&
    conditions.some((c) => c.type === "Ready" && c.status === "True");
}
