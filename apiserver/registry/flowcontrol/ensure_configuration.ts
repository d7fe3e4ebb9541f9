/**
 * Ensures the API Priority and Fairness configuration at start, as Kubernetes' APF bootstrap
 * ensurer does: missing mandatory and suggested objects are created; a mandatory object's spec
 * is always put back (the `exempt` level keeps its `spec.exempt`); a suggested object's spec is
 * put back while its `apf.kubernetes.io/autoupdate-spec` annotation is true (absent: while it is
 * at generation 1), and the annotation is set to what applies; objects annotated true that are
 * no longer part of the configuration are deleted.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import type { Store } from "../generic/store.ts";
import {
  AUTOUPDATE_SPEC_ANNOTATION,
  mandatoryFlowSchemas,
  mandatoryPriorityLevels,
  suggestedFlowSchemas,
  suggestedPriorityLevels,
} from "./bootstrap_configuration.ts";
import { defaultFlowSchema } from "./flowschemas/strategy.ts";
import { defaultPriorityLevel } from "./prioritylevelconfigurations/strategy.ts";

/** The field manager of the ensurer's writes. */
const MANAGER = "api-priority-and-fairness-config-producer-v1";

function parseBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (["1", "t", "T", "TRUE", "true", "True"].includes(v)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(v)) return false;
  return undefined;
}

/** Whether the server keeps `obj`'s spec current (Kubernetes' shouldUpdateSpec). */
function autoUpdates(obj: KubeObject): boolean {
  const v = parseBool(obj.metadata.annotations?.[AUTOUPDATE_SPEC_ANNOTATION]);
  return v ?? obj.metadata.generation === 1;
}

/** Whether `existing`'s spec already is `wanted`'s, once defaulted (exempt keeps its own). */
function specMatches(existing: KubeObject, wanted: KubeObject, mandatory: boolean): boolean {
  const want = structuredClone(wanted);
  if (want.kind === "FlowSchema") defaultFlowSchema(want);
  else defaultPriorityLevel(want);
  const spec = want.spec as Record<string, unknown>;
  const have = existing.spec as Record<string, unknown> | undefined;
  if (mandatory && existing.metadata.name === "exempt" && want.kind !== "FlowSchema") {
    if (!have?.exempt) return false;
    spec.exempt = have.exempt;
  }
  return deepEqual(have, spec);
}

async function ensureOne(
  store: Store,
  wanted: KubeObject,
  existing: KubeObject | undefined,
  mandatory: boolean,
): Promise<void> {
  const name = wanted.metadata.name!;
  if (!existing) {
    try {
      await store.create("", structuredClone(wanted), { fieldManager: MANAGER });
    } catch (err) {
      // Another API server sharing the storage created it first.
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
    return;
  }
  const auto = mandatory || autoUpdates(existing);
  const annotation = existing.metadata.annotations?.[AUTOUPDATE_SPEC_ANNOTATION];
  const fixAnnotation = parseBool(annotation) !== auto;
  const fixSpec = auto && !specMatches(existing, wanted, mandatory);
  if (!fixAnnotation && !fixSpec) return;
  const next = structuredClone(existing);
  next.metadata.annotations = {
    ...next.metadata.annotations,
    [AUTOUPDATE_SPEC_ANNOTATION]: String(auto),
  };
  if (fixSpec) next.spec = structuredClone(wanted.spec);
  try {
    await store.update("", name, next, { fieldManager: MANAGER });
  } catch (err) {
    // Another API server sharing the storage wrote it meanwhile; it ensures the same.
    if (!(err instanceof StatusError && err.code === 409)) throw err;
  }
}

async function removeUnwanted(
  store: Store,
  existing: readonly KubeObject[],
  wanted: Set<string>,
): Promise<void> {
  for (const obj of existing) {
    const name = obj.metadata.name!;
    if (wanted.has(name)) continue;
    if (parseBool(obj.metadata.annotations?.[AUTOUPDATE_SPEC_ANNOTATION]) !== true) continue;
    try {
      await store.delete("", name, {
        preconditions: { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion },
      });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}

async function ensureKind(
  store: Store,
  mandatory: KubeObject[],
  suggested: KubeObject[],
): Promise<void> {
  // One read of what exists: every object is then created, mended or removed from it.
  const existing = (await store.list("", { plan: { mode: "latest" } })).items as KubeObject[];
  const byName = new Map(existing.map((o) => [o.metadata.name!, o]));
  for (const obj of mandatory) await ensureOne(store, obj, byName.get(obj.metadata.name!), true);
  for (const obj of suggested) await ensureOne(store, obj, byName.get(obj.metadata.name!), false);
  await removeUnwanted(
    store,
    existing,
    new Set([...mandatory, ...suggested].map((o) => o.metadata.name!)),
  );
}

/** Ensures the priority levels, then the flow schemas that refer to them. */
export async function ensureFlowControlConfiguration(
  priorityLevels: Store,
  flowSchemas: Store,
): Promise<void> {
  await ensureKind(priorityLevels, mandatoryPriorityLevels(), suggestedPriorityLevels());
  await ensureKind(flowSchemas, mandatoryFlowSchemas(), suggestedFlowSchemas());
}
