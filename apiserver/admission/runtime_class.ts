/**
 * RuntimeClass admission, as Kubernetes' plugin of that name: a new pod's `runtimeClassName`
 * must name an existing RuntimeClass (else 403); the class's overhead becomes the pod's
 * `spec.overhead` and its scheduling constraints are merged into the pod's node selector and
 * tolerations. A pod may carry an overhead only when its class defines the same one.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { deepEqual } from "../../shared/json/deep_equal.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/generic/admission.ts";
import type { Store } from "../registry/generic/store.ts";

const PODS = { group: "", resource: "pods" };
const MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";

function refuse(a: AdmissionAttributes, reason: string): StatusError {
  return StatusError.forbidden(PODS, a.name, reason);
}

/** The pod's spec and its RuntimeClass (undefined when it names none), or a 403. */
async function prepare(
  a: AdmissionAttributes,
  classes: () => Store | undefined,
): Promise<{ spec: Record<string, unknown>; rc?: KubeObject } | undefined> {
  if (a.operation !== "CREATE" || a.subresource || a.kind.group !== "") return undefined;
  if (a.kind.kind !== "Pod" || !isObject(a.object?.spec)) return undefined;
  const spec = a.object.spec;
  const name = spec.runtimeClassName;
  const store = classes();
  if (typeof name !== "string" || !store) return { spec };
  try {
    return { spec, rc: await store.get("", name) };
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) {
      throw refuse(a, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`);
    }
    throw err;
  }
}

function overheadOf(rc: KubeObject | undefined): Record<string, unknown> | undefined {
  const podFixed = isObject(rc?.overhead) ? rc.overhead.podFixed : undefined;
  return isObject(podFixed) ? podFixed : undefined;
}

function setScheduling(a: AdmissionAttributes, spec: Record<string, unknown>, rc: KubeObject) {
  if (!isObject(rc.scheduling)) return;
  const wanted = isObject(rc.scheduling.nodeSelector) ? rc.scheduling.nodeSelector : {};
  const selector = isObject(spec.nodeSelector) ? spec.nodeSelector : {};
  for (const [k, v] of Object.entries(wanted)) {
    if (k in selector && selector[k] !== v) {
      throw refuse(
        a,
        `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${
          selector[k]
        }`,
      );
    }
    selector[k] = v;
  }
  if (Object.keys(selector).length > 0) spec.nodeSelector = selector;
  const tolerations = Array.isArray(spec.tolerations) ? [...spec.tolerations] : [];
  for (const t of Array.isArray(rc.scheduling.tolerations) ? rc.scheduling.tolerations : []) {
    if (!tolerations.some((x) => deepEqual(x, t))) tolerations.push(t);
  }
  if (tolerations.length > 0) spec.tolerations = tolerations;
}

/** Builds the plugin; `runtimeClasses` is the RuntimeClass store. */
export function runtimeClassAdmission(runtimeClasses: () => Store | undefined): AdmissionPlugin {
  return {
    name: "RuntimeClass",
    async admit(a) {
      const p = await prepare(a, runtimeClasses);
      if (!p?.rc) return;
      const overhead = overheadOf(p.rc);
      if (overhead) {
        const given = p.spec.overhead;
        if (isObject(given) && Object.keys(given).length > 0 && !deepEqual(given, overhead)) {
          throw refuse(a, MISMATCH);
        }
        p.spec.overhead = structuredClone(overhead);
      }
      setScheduling(a, p.spec, p.rc);
    },
    async validate(a) {
      const p = await prepare(a, runtimeClasses);
      if (!p) return;
      const overhead = overheadOf(p.rc);
      const given = isObject(p.spec.overhead) ? p.spec.overhead : {};
      if (overhead && !deepEqual(given, overhead)) throw refuse(a, MISMATCH);
      if (!overhead && Object.keys(given).length > 0) {
        throw refuse(
          a,
          "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead",
        );
      }
    },
  };
}
