/**
 * The `scale` subresource of a custom resource: autoscaling/v1 Scale read from and written to
 * the paths its CRD version declares (`specReplicasPath`, `statusReplicasPath`,
 * `labelSelectorPath`), with the scale checks kube's custom resource validator makes on every
 * write.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { CustomResourceSubresourceScale } from "../../../../shared/api/apiextensions/v1/types.ts";
import { type FieldError, StatusError } from "../../../../shared/errors/status_error.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import type { SubresourceDef } from "../../generic/kind.ts";
import { scaleView } from "../../generic/scale_view.ts";
import { SCALE_KIND } from "../../apps/scale.ts";
import { nonNegative } from "../../apps/workload.ts";
import { nestedInt, nestedString, setNested } from "./nested_field.ts";

const MAX_INT32 = 2147483647;

/** The Scale of a custom resource (kube's scaleFromCustomResource); 500 on a mistyped field. */
export function scaleOfCustomResource(
  obj: KubeObject,
  scale: CustomResourceSubresourceScale,
): KubeObject {
  const spec = nestedInt(obj, scale.specReplicasPath);
  const status = nestedInt(obj, scale.statusReplicasPath);
  const selector = scale.labelSelectorPath
    ? nestedString(obj, scale.labelSelectorPath)
    : { value: "", found: false };
  const error = spec.error ?? status.error ?? selector.error;
  if (error) throw StatusError.internal(error);
  const scaleStatus: Record<string, unknown> = { replicas: status.value };
  if (selector.value) scaleStatus.selector = selector.value;
  return scaleView(obj, spec.value ? { replicas: spec.value } : {}, scaleStatus);
}

/** The scale subresource of a custom resource version. */
export function customResourceScale(scale: CustomResourceSubresourceScale): SubresourceDef {
  return {
    name: "scale",
    verbs: ["get", "patch", "update"],
    requestKind: SCALE_KIND,
    view: (obj) => scaleOfCustomResource(obj, scale),
    update(body, old) {
      scaleOfCustomResource(old, scale);
      const spec = isObject(body.spec) ? body.spec : {};
      const replicas = spec.replicas ?? 0;
      const errs = nonNegative("spec.replicas", replicas);
      if (errs.length > 0) {
        throw StatusError.invalid(SCALE_KIND, old.metadata.name ?? "", errs);
      }
      const next = structuredClone(old);
      const error = setNested(next as Record<string, unknown>, scale.specReplicasPath, replicas);
      if (error) throw StatusError.internal(error);
      if (body.metadata?.resourceVersion) {
        next.metadata.resourceVersion = body.metadata.resourceVersion;
      }
      return next;
    },
  };
}

function checkReplicas(obj: KubeObject, path: string): FieldError[] {
  const r = nestedInt(obj, path);
  if (r.error) return [invalid(path, r.value, r.error)];
  if (r.value < 0) return [invalid(path, r.value, "should be a non-negative integer")];
  if (r.value > MAX_INT32) {
    return [invalid(path, r.value, `should be less than or equal to ${MAX_INT32}`)];
  }
  return [];
}

/** kube's ValidateScaleSpec and ValidateScaleStatus of a custom resource write. */
export function validateScaleFields(
  obj: KubeObject,
  scale: CustomResourceSubresourceScale | undefined,
): FieldError[] {
  if (!scale) return [];
  const errs = [
    ...checkReplicas(obj, scale.specReplicasPath),
    ...checkReplicas(obj, scale.statusReplicasPath),
  ];
  if (scale.labelSelectorPath) {
    const sel = nestedString(obj, scale.labelSelectorPath);
    if (sel.error) errs.push(invalid(scale.labelSelectorPath, sel.value, sel.error));
  }
  return errs;
}
