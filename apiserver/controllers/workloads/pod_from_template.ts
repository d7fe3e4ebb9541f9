/**
 * A pod made from a workload's pod template, as kube's `GetPodFromTemplate`: the template's
 * labels, annotations, finalizers and spec, a controller ownerReference to the workload
 * (`controller` and `blockOwnerDeletion` true), and a `generateName` of `<owner>-` unless the
 * caller names the pod.
 *
 * @module
 */
import type { KubeObject, OwnerReference } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";

/** The controller ownerReference to `owner` of `apiVersion`/`kind`. */
export function controllerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** What the caller adds to or sets on the pod. */
export interface PodExtras {
  /** The pod's name (default: generated from `<owner>-`). */
  name?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
}

/** A new pod of `template` owned by `ref`, in the owner's namespace. */
export function podFromTemplate(
  template: unknown,
  owner: KubeObject,
  ref: OwnerReference,
  extras: PodExtras = {},
): KubeObject {
  const t = isObject(template) ? structuredClone(template) : {};
  const meta = isObject(t.metadata) ? t.metadata : {};
  const labels = { ...(meta.labels as Record<string, string> ?? {}), ...extras.labels };
  const annotations = {
    ...(meta.annotations as Record<string, string> ?? {}),
    ...extras.annotations,
  };
  const finalizers = [...(meta.finalizers as string[] ?? []), ...(extras.finalizers ?? [])];
  const metadata: KubeObject["metadata"] = { namespace: owner.metadata.namespace };
  if (extras.name) metadata.name = extras.name;
  else metadata.generateName = podNamePrefix(owner.metadata.name!);
  if (Object.keys(labels).length) metadata.labels = labels;
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  if (finalizers.length) metadata.finalizers = finalizers;
  metadata.ownerReferences = [ref];
  return { apiVersion: "v1", kind: "Pod", metadata, spec: t.spec ?? {} };
}

/** kube's `getPodsPrefix`: `<name>-`, or the name when that would not be a valid prefix. */
export function podNamePrefix(name: string): string {
  const prefix = `${name}-`;
  return prefix.length > 253 - 5 ? name.slice(0, 253 - 5) : prefix;
}
