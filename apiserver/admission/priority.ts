/**
 * Priority admission, as Kubernetes' plugin of that name: at most one PriorityClass is the
 * global default, and a new pod's `priorityClassName` (or the global default when it names
 * none) resolves to its `priority` and `preemptionPolicy`; a class that does not exist is 403.
 *
 * The pod strategy defaults `priority` to 0 and `preemptionPolicy` to PreemptLowerPriority
 * before admission runs, so those two values are taken as unset here and replaced by the
 * class's; any other value that differs from the class's is refused, as in Kubernetes.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/generic/admission.ts";
import type { Store } from "../registry/generic/store.ts";

const PODS = { group: "", resource: "pods" };
const PRIORITY_CLASSES = { group: "scheduling.k8s.io", resource: "priorityclasses" };

/** The global default class (the lowest value if a race left several), or undefined. */
async function defaultClass(store: Store): Promise<KubeObject | undefined> {
  const list = await store.list("", { plan: { mode: "latest" } });
  let found: KubeObject | undefined;
  for (const pc of list.items) {
    if (pc.globalDefault === true && (!found || Number(found.value) > Number(pc.value))) {
      found = pc;
    }
  }
  return found;
}

/** Only one PriorityClass may be the global default. */
async function validatePriorityClass(a: AdmissionAttributes, store: Store): Promise<void> {
  if (a.object?.globalDefault !== true) return;
  const current = await defaultClass(store);
  if (!current) return;
  const other = current.metadata.name;
  if (a.operation === "CREATE" || other !== a.name) {
    throw StatusError.forbidden(
      PRIORITY_CLASSES,
      a.name,
      `PriorityClass ${other} is already marked as default. Only one default can exist`,
    );
  }
}

/** Resolves a new pod's priority from its class. */
async function admitPod(a: AdmissionAttributes, store: Store): Promise<void> {
  const spec = a.object?.spec;
  if (!isObject(spec)) return;
  let value = 0, policy: unknown = "PreemptLowerPriority";
  const className = typeof spec.priorityClassName === "string" ? spec.priorityClassName : "";
  if (className === "") {
    const pc = await defaultClass(store);
    if (pc) {
      spec.priorityClassName = pc.metadata.name;
      [value, policy] = [Number(pc.value ?? 0), pc.preemptionPolicy];
    }
  } else {
    let pc: KubeObject;
    try {
      pc = await store.get("", className);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
      throw StatusError.forbidden(
        PODS,
        a.name,
        `no PriorityClass with name ${className} was found`,
      );
    }
    [value, policy] = [Number(pc.value ?? 0), pc.preemptionPolicy];
  }
  if (spec.priority !== undefined && spec.priority !== 0 && spec.priority !== value) {
    throw StatusError.forbidden(
      PODS,
      a.name,
      `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`,
    );
  }
  spec.priority = value;
  if (policy === undefined) return;
  const given = spec.preemptionPolicy;
  if (given !== undefined && given !== "PreemptLowerPriority" && given !== policy) {
    throw StatusError.forbidden(
      PODS,
      a.name,
      `the string value of PreemptionPolicy (${given}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`,
    );
  }
  spec.preemptionPolicy = policy;
}

/** On update the priority resolved at create stays when the new object leaves it out. */
function keepPriority(a: AdmissionAttributes): void {
  const spec = a.object?.spec, old = a.oldObject?.spec;
  if (!isObject(spec) || !isObject(old)) return;
  if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
  if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) {
    spec.preemptionPolicy = old.preemptionPolicy;
  }
}

/** Builds the plugin; `priorityClasses` is the PriorityClass store. */
export function priorityAdmission(priorityClasses: () => Store | undefined): AdmissionPlugin {
  return {
    name: "Priority",
    async admit(a) {
      const store = priorityClasses();
      if (!store || a.subresource || a.kind.group !== "" || a.kind.kind !== "Pod") return;
      if (a.operation === "CREATE") await admitPod(a, store);
      if (a.operation === "UPDATE") keepPriority(a);
    },
    async validate(a) {
      const store = priorityClasses();
      if (!store || a.subresource || (a.operation !== "CREATE" && a.operation !== "UPDATE")) {
        return;
      }
      if (a.kind.group === "scheduling.k8s.io" && a.kind.kind === "PriorityClass") {
        await validatePriorityClass(a, store);
      }
    },
  };
}
