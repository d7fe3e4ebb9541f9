/**
 * The `scale` subresource of Deployment, ReplicaSet and StatefulSet: served as autoscaling/v1
 * Scale (`spec.replicas`, `status.replicas`, `status.selector`); an update or patch of it sets the
 * parent's `spec.replicas` only.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import type { SubresourceDef } from "../generic/kind.ts";
import { scaleView } from "../generic/scale_view.ts";
import { formatSelector, nonNegative, specOf, statusOf } from "./workload.ts";

/** The kind the scale subresource is served as. */

export const SCALE_KIND = { group: "autoscaling", version: "v1", kind: "Scale" } as const;

/** The Scale view of a workload object (kube's scaleFromDeployment and its siblings). */
export function scaleOf(obj: KubeObject): KubeObject {
  const sel = formatSelector(specOf(obj).selector);
  const spec: Record<string, unknown> = {};
  const replicas = specOf(obj).replicas;
  if (typeof replicas === "number" && replicas !== 0) spec.replicas = replicas;
  const status: Record<string, unknown> = { replicas: statusOf(obj).replicas ?? 0 };
  if (sel !== "<none>" && sel !== "<error>") status.selector = sel;
  return scaleView(obj, spec, status);
}

/** Applies a Scale body to the stored workload: its `spec.replicas` only. */
function applyScale(body: KubeObject, old: KubeObject): KubeObject {
  const spec = isObject(body.spec) ? body.spec : {};
  const replicas = spec.replicas ?? 0;
  const errs = nonNegative("spec.replicas", replicas);
  if (errs.length > 0) {
    throw StatusError.invalid(
      { group: SCALE_KIND.group, kind: SCALE_KIND.kind },
      old.metadata.name ?? "",
      errs,
    );
  }
  const next = structuredClone(old);
  next.spec = { ...specOf(old), replicas };
  next.metadata.resourceVersion = body.metadata?.resourceVersion;
  return next;
}

/** The scale subresource. */
export const SCALE_SUBRESOURCE: SubresourceDef = {
  name: "scale",
  verbs: ["get", "patch", "update"],
  requestKind: SCALE_KIND,
  view: scaleOf,
  update: applyScale,
};
