/**
 * The PodSecurity admission plugin, as kube-apiserver 1.32's (k8s.io/pod-security-admission):
 * a namespace's `pod-security.kubernetes.io/{enforce,audit,warn}` labels (with `-version`)
 * choose a Pod Security Standards level per mode. Pods violating the enforce level are
 * refused (403 `violates PodSecurity "<level>:<version>": ...`); violations of the warn level
 * become `Warning`s (`would violate PodSecurity ...`) and of the audit level the audit
 * annotation `pod-security.kubernetes.io/audit-violations`. Workload kinds with a pod
 * template are only warned about and audited. Pod updates that change no image (and add no
 * ephemeral container), and the pod subresources other than ephemeralcontainers and resize,
 * are not evaluated. Namespaces: see namespace_check.ts.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { fieldErrorMessage, StatusError } from "../../../shared/errors/status_error.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/generic/admission.ts";
import type { Store } from "../../registry/generic/store.ts";
import { arr, type Obj, obj } from "./check_result.ts";
import { evaluatePod, forbiddenDetail } from "./evaluator.ts";
import { labelsOf, validateNamespace } from "./namespace_check.ts";
import {
  fullyPrivileged,
  LABEL_PREFIX,
  type LevelVersion,
  levelVersionString,
  type Policy,
  policyToEvaluate,
} from "./policy.ts";

/** Where the plugin finds the Namespace and Pod stores (the registry). */
export interface StoreLookup {
  lookup(group: string, version: string, resource: string): Store | undefined;
}

/** The stores the plugin reads. */
interface PodSecurityDeps {
  namespaces: () => Store | undefined;
  pods: () => Store | undefined;
}

/** Pod subresources never evaluated. */
const IGNORED_POD_SUBRESOURCES = new Set([
  "exec",
  "attach",
  "binding",
  "eviction",
  "log",
  "portforward",
  "proxy",
  "status",
]);

/** `group/plural` of the kinds with a pod template, and where the template is. */
const TEMPLATES: Record<string, (o: KubeObject) => unknown> = {
  "/replicationcontrollers": (o) => obj(o.spec).template,
  "/podtemplates": (o) => o.template,
  "apps/replicasets": (o) => obj(o.spec).template,
  "apps/deployments": (o) => obj(o.spec).template,
  "apps/statefulsets": (o) => obj(o.spec).template,
  "apps/daemonsets": (o) => obj(o.spec).template,
  "batch/jobs": (o) => obj(o.spec).template,
  "batch/cronjobs": (o) => obj(obj(obj(o.spec).jobTemplate).spec).template,
};

/** Builds the plugin over the registry's Namespace and Pod stores. */
export function podSecurity(kinds: StoreLookup): AdmissionPlugin {
  const deps: PodSecurityDeps = {
    namespaces: () => kinds.lookup("", "v1", "namespaces"),
    pods: () => kinds.lookup("", "v1", "pods"),
  };
  const listPods = async (namespace: string) => {
    const store = deps.pods();
    return store ? (await store.list(namespace, { plan: { mode: "latest" } })).items : [];
  };
  return {
    name: "PodSecurity",
    async validate(a) {
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      const { group, plural } = a.kind;
      if (group === "" && plural === "namespaces") return await validateNamespace(a, listPods);
      if (group === "" && plural === "pods") return await validatePod(a, deps);
      const template = TEMPLATES[`${group}/${plural}`];
      if (template && !a.subresource && a.object) {
        await validateTemplate(a, deps, template(a.object));
      }
    },
  };
}

/** The namespace's policy (and label errors); a namespace that cannot be read is a 500. */
async function namespacePolicy(
  a: AdmissionAttributes,
  deps: PodSecurityDeps,
): Promise<{ policy: Policy; errors: string }> {
  let ns: KubeObject | undefined;
  try {
    ns = await deps.namespaces()?.get("", a.namespace);
  } catch {
    throw StatusError.internal(`failed to lookup namespace "${a.namespace}"`);
  }
  const { policy, errors } = policyToEvaluate(labelsOf(ns));
  const text = errors.map(fieldErrorMessage);
  return {
    policy,
    errors: text.length === 1 ? text[0] : text.length ? `[${text.join(", ")}]` : "",
  };
}

async function validatePod(a: AdmissionAttributes, deps: PodSecurityDeps): Promise<void> {
  if (IGNORED_POD_SUBRESOURCES.has(a.subresource) || !a.object) return;
  const { policy, errors } = await namespacePolicy(a, deps);
  if (!errors && fullyPrivileged(policy)) {
    annotate(a, { "enforce-policy": "privileged:latest" });
    return;
  }
  if (a.operation === "UPDATE" && a.oldObject && !significantUpdate(a.object, a.oldObject)) return;
  evaluate(a, policy, errors, obj(a.object.metadata), obj(a.object.spec), true);
}

async function validateTemplate(
  a: AdmissionAttributes,
  deps: PodSecurityDeps,
  template: unknown,
): Promise<void> {
  const { policy, errors } = await namespacePolicy(a, deps);
  if (!errors && policy.warn.level === "privileged" && policy.audit.level === "privileged") return;
  if (template == null) return;
  evaluate(a, policy, errors, obj(obj(template).metadata), obj(obj(template).spec), false);
}

/** Enforces (pods only), audits and warns, as kube's EvaluatePod. */
function evaluate(
  a: AdmissionAttributes,
  policy: Policy,
  errors: string,
  meta: Obj,
  spec: Obj,
  enforce: boolean,
): void {
  const annotations: Record<string, string> = {};
  if (errors) annotations.error = `Failed to parse policy: ${errors}`;
  const results = new Map<string, ReturnType<typeof evaluatePod>>();
  const resultAt = (lv: LevelVersion) => {
    const key = levelVersionString(lv);
    if (!results.has(key)) results.set(key, evaluatePod(lv, meta, spec));
    return results.get(key)!;
  };
  let refusal: StatusError | undefined;
  if (enforce) {
    annotations["enforce-policy"] = levelVersionString(policy.enforce);
    const r = resultAt(policy.enforce);
    if (!r.allowed) {
      refusal = StatusError.forbidden(
        { group: a.kind.group, resource: a.kind.plural },
        a.name,
        `violates PodSecurity "${levelVersionString(policy.enforce)}": ${forbiddenDetail(r)}`,
      );
    }
  }
  const audit = resultAt(policy.audit);
  if (!audit.allowed) {
    annotations["audit-violations"] = `would violate PodSecurity "${
      levelVersionString(policy.audit)
    }": ${forbiddenDetail(audit)}`;
  }
  annotate(a, annotations);
  if (refusal) throw refusal;
  const warn = resultAt(policy.warn);
  if (!warn.allowed) {
    a.warn?.(
      `would violate PodSecurity "${levelVersionString(policy.warn)}": ${forbiddenDetail(warn)}`,
    );
  }
}

/** Records audit annotations (prefixed `pod-security.kubernetes.io/`) on the attributes. */
function annotate(a: AdmissionAttributes, annotations: Record<string, string>): void {
  if (Object.keys(annotations).length === 0) return;
  a.auditAnnotations ??= {};
  for (const [k, v] of Object.entries(annotations)) a.auditAnnotations[LABEL_PREFIX + k] = v;
}

/**
 * Whether a pod update can change its evaluation: a different number of containers or init
 * containers, a changed image, or an added or changed ephemeral container (kube's rule; the
 * other fields that matter cannot change on a pod update).
 */
export function significantUpdate(pod: KubeObject, old: KubeObject): boolean {
  const [spec, oldSpec] = [obj(pod.spec), obj(old.spec)];
  for (const key of ["containers", "initContainers"]) {
    const [now, before] = [arr(spec[key]).map(obj), arr(oldSpec[key]).map(obj)];
    if (now.length !== before.length) return true;
    if (now.some((c, i) => c.image !== before[i].image)) return true;
  }
  const oldEphemeral = arr(oldSpec.ephemeralContainers).map(obj);
  return arr(spec.ephemeralContainers).map(obj).some((c) => {
    const before = oldEphemeral.find((o) => o.name === c.name);
    return !before || before.image !== c.image;
  });
}
