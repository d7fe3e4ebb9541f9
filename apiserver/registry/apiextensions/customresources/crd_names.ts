/**
 * The names a CustomResourceDefinition is accepted with (kube's naming controller): each
 * requested name that differs from the accepted one must not be in use by another definition
 * of the group (by its accepted names) nor by a built-in resource of the group; the
 * NamesAccepted condition reports the last conflict found, and Established follows it.
 *
 * @module
 */
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionNames,
} from "../../../../shared/api/apiextensions/v1/types.ts";
import { type CrdCondition, findCondition } from "./crd_conditions.ts";

/** Names in use in a group: resource names (plural, singular, short) and kinds (kind, list). */
export interface UsedNames {
  resources: Set<string>;
  kinds: Set<string>;
}

/** The names used by `others` (accepted names) plus `builtin`, in `group`. */
export function usedNames(
  group: string,
  self: string,
  others: readonly CustomResourceDefinition[],
  builtin: UsedNames,
): UsedNames {
  const used: UsedNames = { resources: new Set(builtin.resources), kinds: new Set(builtin.kinds) };
  for (const o of others) {
    if (o.metadata.name === self || o.spec?.group !== group) continue;
    const n = o.status?.acceptedNames;
    if (!n) continue;
    for (const r of [n.plural, n.singular, ...n.shortNames ?? []]) if (r) used.resources.add(r);
    for (const k of [n.kind, n.listKind]) if (k) used.kinds.add(k);
  }
  return used;
}

/** The outcome: accepted names and the NamesAccepted and Established conditions. */
export interface NamingResult {
  acceptedNames: CustomResourceDefinitionNames;
  namesAccepted: CrdCondition;
  established: CrdCondition;
}

function conflict(requested: string | undefined, accepted: string | undefined, used: Set<string>) {
  if (requested === accepted || !requested || !used.has(requested)) return undefined;
  return `"${requested}" is already in use`;
}

/** kube's calculateNamesAndConditions, with the establishing controller's step folded in. */
export function calculateNames(crd: CustomResourceDefinition, used: UsedNames): NamingResult {
  const spec = crd.spec.names;
  const requested = {
    ...spec,
    singular: spec.singular || spec.kind.toLowerCase(),
    listKind: spec.listKind || `${spec.kind}List`,
  };
  const accepted: Partial<CustomResourceDefinitionNames> = crd.status?.acceptedNames ?? {};
  const next: Partial<CustomResourceDefinitionNames> = { ...accepted };
  let failed: CrdCondition | undefined;
  const check = (
    field: "plural" | "singular" | "kind" | "listKind",
    set: Set<string>,
    reason: string,
  ) => {
    const message = conflict(requested[field], accepted[field], set);
    if (message) failed = { type: "NamesAccepted", status: "False", reason, message };
    else next[field] = requested[field];
  };
  check("plural", used.resources, "PluralConflict");
  check("singular", used.resources, "SingularConflict");
  const shortConflicts = (requested.shortNames ?? [])
    .filter((s) => !(accepted.shortNames ?? []).includes(s))
    .map((s) => conflict(s, "", used.resources))
    .filter((m): m is string => !!m);
  if (shortConflicts.length > 0) {
    const message = shortConflicts.length === 1
      ? shortConflicts[0]
      : `[${shortConflicts.join(", ")}]`;
    failed = { type: "NamesAccepted", status: "False", reason: "ShortNamesConflict", message };
  } else if (requested.shortNames?.length) next.shortNames = requested.shortNames;
  else delete next.shortNames;
  check("kind", used.kinds, "KindConflict");
  check("listKind", used.kinds, "ListKindConflict");
  if (requested.categories?.length) next.categories = requested.categories;
  else delete next.categories;
  const namesAccepted = failed ??
    { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" };
  return {
    acceptedNames: next as CustomResourceDefinitionNames,
    namesAccepted,
    established: establishedCondition(crd, namesAccepted.status === "True"),
  };
}

function establishedCondition(crd: CustomResourceDefinition, namesOk: boolean): CrdCondition {
  const old = findCondition(crd, "Established");
  if (old?.status === "True") {
    const { lastTransitionTime: _t, ...rest } = old;
    return rest;
  }
  if (namesOk) {
    return {
      type: "Established",
      status: "True",
      reason: "InitialNamesAccepted",
      message: "the initial names have been accepted",
    };
  }
  return {
    type: "Established",
    status: "False",
    reason: "NotAccepted",
    message: "not all names are accepted",
  };
}
