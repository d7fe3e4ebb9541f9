/**
 * Binding a pod to a node: `POST pods/{name}/binding` and `POST bindings` (both with a
 * Binding body), as kube-apiserver's BindingREST: sets `spec.nodeName` once (409 if the pod
 * is already assigned or being deleted), merges the Binding's annotations into the pod, and
 * marks it PodScheduled. Answers a Success Status.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import type { CustomCreateArgs, KindDef, SubresourceDef } from "../../generic/kind.ts";
import type { Store } from "../../generic/store.ts";
import { rfc3339, systemClock } from "../../generic/clock.ts";
import { validatePod } from "./strategy.ts";

const BINDING_KIND = { group: "", version: "v1", kind: "Binding" };
const GR = { group: "", resource: "pods/binding" };

function validateBinding(b: KubeObject, podName: string): void {
  const target = isObject(b.target) ? b.target : {};
  const errs = [];
  if (target.kind && target.kind !== "Node") {
    errs.push(notSupported("target.kind", target.kind, ["Node", "<empty>"]));
  }
  if (!target.name) errs.push(required("target.name"));
  if (b.metadata?.name && b.metadata.name !== podName) {
    errs.push(invalid("metadata.name", b.metadata.name, "must match the pod's name"));
  }
  if (errs.length > 0) throw StatusError.invalid(BINDING_KIND, podName, errs);
}

/** Binds pod `name` in `namespace` to the Binding's target node. */
export async function bindPod(
  pods: Store,
  args: CustomCreateArgs,
  name: string,
): Promise<KubeObject> {
  const b = args.body;
  if (!name) throw StatusError.badRequest("name is required for a Binding");
  validateBinding(b, name);
  const node = String((b.target as Record<string, unknown>).name);
  for (let attempt = 0;; attempt++) {
    const pod = await pods.get(args.namespace, name);
    if (pod.metadata.deletionTimestamp) {
      throw StatusError.conflict(
        GR,
        name,
        `pod ${name} is being deleted, cannot be assigned to a host`,
      );
    }
    const spec = isObject(pod.spec) ? pod.spec : {};
    if (spec.nodeName) {
      throw StatusError.conflict(
        GR,
        name,
        `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`,
      );
    }
    const next = structuredClone(pod);
    (next.spec as Record<string, unknown>).nodeName = node;
    const annotations = b.metadata?.annotations ?? {};
    if (Object.keys(annotations).length > 0) {
      next.metadata.annotations = { ...next.metadata.annotations, ...annotations };
    }
    try {
      const bound = (await pods.update(args.namespace, name, next, {
        dryRun: args.dryRun,
        user: args.user,
        subresource: "binding",
        skipAdmission: true,
      })).object;
      if (!args.dryRun) await markScheduled(pods, args.namespace, bound);
      return {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Success",
        code: 201,
      } as unknown as KubeObject;
    } catch (err) {
      if (err instanceof StatusError && err.code === 409 && attempt < 4) continue;
      throw err;
    }
  }
}

/** Sets the PodScheduled condition True (a second write: status is its own subresource). */
async function markScheduled(pods: Store, namespace: string, pod: KubeObject): Promise<void> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const current = attempt === 0 ? pod : await pods.get(namespace, pod.metadata.name!);
    const next = structuredClone(current);
    const status = isObject(next.status) ? next.status : (next.status = {});
    const conds = (Array.isArray(status.conditions) ? status.conditions : [])
      .filter((c: Record<string, unknown>) => c.type !== "PodScheduled");
    conds.push({
      type: "PodScheduled",
      status: "True",
      lastProbeTime: null,
      lastTransitionTime: rfc3339(systemClock.now()),
    });
    status.conditions = conds;
    try {
      await pods.update(namespace, pod.metadata.name!, next, {
        subresource: "status",
        skipAdmission: true,
      });
      return;
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }
}

/** The `binding` subresource of pods. */
export function podBindingSubresource(pods: () => Store): SubresourceDef {
  return {
    name: "binding",
    verbs: ["create"],
    requestKind: BINDING_KIND,
    create: (args) => bindPod(pods(), args, args.name),
    // Binding sets spec.nodeName, which a pod update may not change.
    validateUpdate: (obj) => validatePod(obj),
  };
}

/** The `bindings` resource: a create-only Binding naming its pod in metadata.name. */
export function bindingKind(pods: () => Store): KindDef {
  return {
    group: "",
    version: "v1",
    kind: "Binding",
    plural: "bindings",
    singular: "binding",
    namespaced: true,
    verbs: ["create"],
    virtual: { create: (args) => bindPod(pods(), args, args.body.metadata?.name ?? "") },
    strategy: { validate: () => [] },
  };
}
