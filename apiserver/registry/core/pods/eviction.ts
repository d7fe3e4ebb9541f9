/**
 * The `pods/eviction` subresource (POST a policy/v1 or policy/v1beta1 Eviction), as kube's
 * EvictionREST: a pod that is terminal, pending or already being deleted is deleted at once;
 * otherwise the one PodDisruptionBudget selecting it must allow a disruption, which is taken
 * (`disruptionsAllowed` decremented and the pod recorded in `disruptedPods`, in one update
 * guarded by the budget's resourceVersion) before the pod is deleted with the Eviction's
 * deleteOptions. A budget that allows none answers 429 TooManyRequests with a DisruptionBudget
 * cause. A dry run changes nothing.
 *
 * @module
 */
import type { DeleteOptions, KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  labelSelectorFromObject,
  type LabelSelectorObject,
} from "../../../../shared/selectors/label_selector.ts";
import type { CustomCreateArgs, SubresourceDef } from "../../generic/kind.ts";
import type { Store } from "../../generic/store.ts";
import { rfc3339, systemClock } from "../../generic/clock.ts";
import { setDisruptionAllowedCondition } from "../../policy/poddisruptionbudgets/disruption.ts";

/** Kube's MaxDisruptedPodSize: more unconfirmed evictions than this and evictions stop. */
const MAX_DISRUPTED_POD_SIZE = 2000;
/** Attempts at a conflicting write (kube's EvictionsRetry has 20 steps). */
const ATTEMPTS = 20;
const PDB_GR = { group: "policy", resource: "poddisruptionbudget" };

/** What the subresource needs: the pod and budget stores. */
export interface EvictionDeps {
  pods: () => Store;
  budgets: () => Store;
}

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return isObject(v) ? v : {};
}

function isReady(pod: KubeObject): boolean {
  const conds = obj(pod.status).conditions;
  return Array.isArray(conds) && conds.some((c) => c?.type === "Ready" && c?.status === "True");
}

/** canIgnorePDB: terminal, pending and terminating pods are deleted without a budget check. */
function canIgnoreBudget(pod: KubeObject): boolean {
  const phase = obj(pod.status).phase;
  return phase === "Succeeded" || phase === "Failed" || phase === "Pending" ||
    !!pod.metadata.deletionTimestamp;
}

function tooManyRequests(detail: string, retryAfterSeconds: number): StatusError {
  return new StatusError({
    code: 429,
    reason: "TooManyRequests",
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    details: { retryAfterSeconds, causes: [{ reason: "DisruptionBudget", message: detail }] },
  });
}

function stillProcessing(name: string): StatusError {
  return tooManyRequests(
    `The disruption budget ${name} is still being processed by the server.`,
    10,
  );
}

/** The DeleteOptions of the eviction, with the request's dry run (kube's propagateDryRun). */
function deleteOptionsOf(body: KubeObject, dryRun: boolean): DeleteOptions {
  const given = isObject((body as Obj).deleteOptions)
    ? structuredClone((body as Obj).deleteOptions) as DeleteOptions
    : {};
  const query = dryRun ? ["All"] : [];
  const inBody = given.dryRun ?? [];
  if (inBody.length === 0) given.dryRun = query.length > 0 ? query : undefined;
  else if (query.length > 0 && JSON.stringify(query) !== JSON.stringify(inBody)) {
    throw StatusError.badRequest(
      `Non-matching dry-run options in request and content: [${query.join(" ")}] and [${
        inBody.join(" ")
      }]`,
    );
  }
  for (const v of given.dryRun ?? []) {
    if (v !== "All") {
      throw StatusError.badRequest(
        `Invalid dryRun value: ${JSON.stringify(v)}. Must be one of "All"`,
      );
    }
  }
  return given;
}

function withResourceVersion(options: DeleteOptions, rv: string | undefined): DeleteOptions {
  return { ...options, preconditions: { ...options.preconditions, resourceVersion: rv } };
}

/** The budgets in the pod's namespace whose (non-empty, valid) selector matches it. */
async function budgetsOf(deps: EvictionDeps, pod: KubeObject): Promise<KubeObject[]> {
  const list = await deps.budgets().list(pod.metadata.namespace ?? "", {
    plan: { mode: "latest" },
  });
  return list.items.filter((pdb) => {
    try {
      const sel = labelSelectorFromObject(obj(pdb.spec).selector as LabelSelectorObject);
      return !sel.empty() && sel.matches(pod.metadata.labels ?? {});
    } catch {
      return false;
    }
  });
}

/**
 * checkAndDecrement: takes one disruption from `pdb` for `podName`, or throws the 429 (or 403)
 * kube answers. Returns the budget to write, or undefined on a dry run.
 */
function takeDisruption(pdb: KubeObject, podName: string, dryRun: boolean): KubeObject | undefined {
  const name = pdb.metadata.name ?? "";
  const status = obj(pdb.status);
  const allowed = Number(status.disruptionsAllowed ?? 0);
  if (Number(status.observedGeneration ?? 0) < Number(pdb.metadata.generation ?? 0)) {
    throw stillProcessing(name);
  }
  if (allowed < 0) throw StatusError.forbidden(PDB_GR, name, "pdb disruptions allowed is negative");
  if (Object.keys(obj(status.disruptedPods)).length > MAX_DISRUPTED_POD_SIZE) {
    throw StatusError.forbidden(
      PDB_GR,
      name,
      "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
    );
  }
  if (allowed === 0) {
    throw tooManyRequests(
      `The disruption budget ${name} needs ${
        Number(status.desiredHealthy ?? 0)
      } healthy pods and has ${Number(status.currentHealthy ?? 0)} currently`,
      0,
    );
  }
  if (dryRun) return undefined;
  const next = structuredClone(pdb);
  const st = obj(next.status);
  next.status = st;
  st.disruptionsAllowed = allowed - 1;
  if (allowed - 1 === 0) setDisruptionAllowedCondition(st, systemClock.now());
  st.disruptedPods = { ...obj(st.disruptedPods), [podName]: rfc3339(systemClock.now()) };
  return next;
}

/** Decrements the budget, re-reading it after a conflicting write. */
async function decrementBudget(
  deps: EvictionDeps,
  pdb: KubeObject,
  podName: string,
  dryRun: boolean,
): Promise<void> {
  let current = pdb;
  for (let attempt = 1;; attempt++) {
    const next = takeDisruption(current, podName, dryRun);
    if (!next) return;
    try {
      await deps.budgets().update(next.metadata.namespace ?? "", next.metadata.name!, next, {
        subresource: "status",
      });
      return;
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
      if (attempt >= ATTEMPTS) {
        throw StatusError.timeout(
          `couldn't update PodDisruptionBudget ${
            JSON.stringify(pdb.metadata.name)
          } due to conflicts`,
          10,
        );
      }
      current = await deps.budgets().get(pdb.metadata.namespace ?? "", pdb.metadata.name!);
    }
  }
}

/**
 * addConditionAndDeletePod: marks the pod with a DisruptionTarget condition (not on a dry
 * run), then deletes it with `options`.
 */
async function markAndDelete(
  pods: Store,
  args: CustomCreateArgs,
  options: DeleteOptions,
): Promise<void> {
  const dryRun = (options.dryRun ?? []).length > 0;
  let opts = options;
  if (!dryRun) {
    const pre = options.preconditions ?? {};
    const { object } = await pods.guaranteedUpdate(
      args.namespace,
      args.name,
      (pod) => {
        if (!pod) return undefined;
        const status = obj(pod.status);
        pod.status = status;
        const conds = (Array.isArray(status.conditions) ? status.conditions : [])
          .filter((c: Obj) => c?.type !== "DisruptionTarget");
        conds.push({
          type: "DisruptionTarget",
          status: "True",
          lastProbeTime: null,
          lastTransitionTime: rfc3339(systemClock.now()),
          reason: "EvictionByEvictionAPI",
          message: "Eviction API: evicting",
        });
        status.conditions = conds;
        return pod;
      },
      pre,
      { subresource: "status", user: args.user, skipAdmission: true },
    );
    if (pre.resourceVersion) opts = withResourceVersion(options, object.metadata.resourceVersion);
  }
  await pods.delete(args.namespace, args.name, opts, {
    dryRun,
    user: args.user,
    skipAdmission: true,
  });
}

const SUCCESS = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };

/** Evicts pod `args.name` as the body (an Eviction) asks. */
export async function evictPod(deps: EvictionDeps, args: CustomCreateArgs): Promise<KubeObject> {
  if (args.body.metadata?.name !== args.name) {
    throw StatusError.badRequest("name in URL does not match name in Eviction object");
  }
  const original = deleteOptionsOf(args.body, args.dryRun);
  const dryRun = (original.dryRun ?? []).length > 0;
  const pods = deps.pods();
  const rvGiven = !!original.preconditions?.resourceVersion;
  let pod: KubeObject;
  for (let attempt = 1;; attempt++) {
    pod = await pods.get(args.namespace, args.name);
    if (!canIgnoreBudget(pod)) break;
    const terminal = ["Succeeded", "Failed"].includes(String(obj(pod.status).phase)) ||
      !!pod.metadata.deletionTimestamp;
    const options = !terminal && !rvGiven
      ? withResourceVersion(original, pod.metadata.resourceVersion)
      : original;
    try {
      await markAndDelete(pods, args, options);
      return structuredClone(SUCCESS) as unknown as KubeObject;
    } catch (err) {
      const retry = err instanceof StatusError && err.code === 409 && !rvGiven;
      if (!retry || attempt >= ATTEMPTS) throw err;
    }
  }
  const budgets = await budgetsOf(deps, pod);
  if (budgets.length > 1) {
    throw new StatusError({
      code: 500,
      message:
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
    });
  }
  let guardDelete = false;
  const pdb = budgets[0];
  if (pdb) {
    const spec = obj(pdb.spec), status = obj(pdb.status);
    const desired = Number(status.desiredHealthy ?? 0);
    const unhealthyMayGo = spec.unhealthyPodEvictionPolicy === "AlwaysAllow" ||
      (Number(status.currentHealthy ?? 0) >= desired && desired > 0);
    if (!isReady(pod) && unhealthyMayGo) guardDelete = true;
    else await decrementBudget(deps, pdb, args.name, dryRun);
  }
  const options = guardDelete
    ? withResourceVersion(original, pod.metadata.resourceVersion)
    : original;
  try {
    await markAndDelete(pods, args, options);
  } catch (err) {
    if (err instanceof StatusError && err.code === 409 && guardDelete && !rvGiven) {
      throw stillProcessing(pdb.metadata.name ?? "");
    }
    throw err;
  }
  return structuredClone(SUCCESS) as unknown as KubeObject;
}

/** The `eviction` subresource of pods. */
export function podEvictionSubresource(deps: EvictionDeps): SubresourceDef {
  return {
    name: "eviction",
    verbs: ["create"],
    requestKind: { group: "policy", version: "v1", kind: "Eviction" },
    acceptedApiVersions: ["policy/v1beta1"],
    create: (args) => evictPod(deps, args),
  };
}
