/**
 * The kinds of a CustomResourceDefinition: one KindDef per served version, the storage
 * version's stored under `/registry/<group>/<plural>/`, every other served version served from
 * it through a conversion (the None strategy, apiVersion rewritten, unless the caller gives
 * another).
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionVersion,
} from "../../../../shared/api/apiextensions/v1/types.ts";
import {
  CUSTOM_RESOURCE_PATCH_TYPES,
  type KindDef,
  type ServedVersion,
  type SubresourceDef,
} from "../../generic/kind.ts";
import { compileCustomResourceSchema } from "../schema/custom_resource_schema.ts";
import { customResourceStatus, customResourceStrategy } from "./custom_resource_strategy.ts";
import { customResourceScale } from "./scale_subresource.ts";

/** The conversions of a served version from and to the storage version. */
export type VersionConversion = Pick<ServedVersion, "toStorage" | "fromStorage">;

/** Builds the conversion between `served` and `storage` versions of a definition. */
export type ConversionFactory = (
  crd: CustomResourceDefinition,
  served: string,
  storage: string,
) => VersionConversion;

/** Options of {@link customResourceKinds}. */
export interface CustomResourceKindOptions {
  /** The definition is terminating: creates are refused. */
  terminating?: boolean;
  /** The conversion of non-storage versions; default {@link noneConversion}. */
  conversion?: ConversionFactory;
}

/** The None conversion strategy: only apiVersion changes. */
export const noneConversion: ConversionFactory = (crd, served, storage) => {
  const rewrite = (version: string) => (obj: KubeObject): KubeObject => ({
    ...structuredClone(obj),
    apiVersion: `${crd.spec.group}/${version}`,
  });
  return { toStorage: rewrite(storage), fromStorage: rewrite(served) };
};

/** The names a definition is served with: the accepted ones, else those of its spec. */
export function servedNames(crd: CustomResourceDefinition): CustomResourceDefinitionNames {
  const accepted = crd.status?.acceptedNames;
  return accepted?.plural && accepted.kind ? accepted : crd.spec.names;
}

/**
 * The kinds of every served version, the storage version's first (it holds the objects). A
 * storage version that is not served is registered too, since the others are served from it.
 */
export function customResourceKinds(
  crd: CustomResourceDefinition,
  opts: CustomResourceKindOptions = {},
): KindDef[] {
  const versions = crd.spec.versions ?? [];
  const storage = versions.find((v) => v.storage);
  if (!storage) return [];
  const stored = versionKind(crd, storage, opts);
  const kinds = [stored];
  const convert = opts.conversion ?? noneConversion;
  for (const v of versions) {
    if (v === storage || !v.served) continue;
    const conv = convert(crd, v.name, storage.name);
    kinds.push({ ...versionKind(crd, v, opts), servedFrom: { storage: stored, ...conv } });
  }
  return kinds;
}

/** The KindDef of one version. */
function versionKind(
  crd: CustomResourceDefinition,
  version: CustomResourceDefinitionVersion,
  opts: CustomResourceKindOptions,
): KindDef {
  const names = servedNames(crd);
  const openAPI = version.schema?.openAPIV3Schema;
  const schema = compileCustomResourceSchema(openAPI);
  const subresources: SubresourceDef[] = [];
  if (version.subresources?.status) subresources.push(customResourceStatus(schema));
  if (version.subresources?.scale) {
    subresources.push(customResourceScale(version.subresources.scale));
  }
  return {
    group: crd.spec.group,
    version: version.name,
    kind: names.kind,
    plural: names.plural,
    singular: names.singular || names.kind.toLowerCase(),
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    namespaced: crd.spec.scope !== "Cluster",
    subresources,
    patchTypes: CUSTOM_RESOURCE_PATCH_TYPES,
    returnDeletedObject: true,
    customResourceSchema: openAPI,
    pruneUnknownFields: (obj) => schema.prune(obj).map((p) => p.replace(/^\./, "")),
    // Objects read from storage get the defaults of the current schema (kube defaults on
    // read too); a schema without defaults has nothing to apply.
    applyReadDefaults: declaresDefaults(openAPI) ? (obj) => schema.applyDefaults(obj) : undefined,
    strategy: customResourceStrategy({
      group: crd.spec.group,
      plural: names.plural,
      version,
      schema,
      terminating: !!opts.terminating,
    }),
  };
}

/** Whether a schema declares a `default` anywhere. */
function declaresDefaults(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(declaresDefaults);
  if (schema === null || typeof schema !== "object") return false;
  for (const [k, v] of Object.entries(schema)) {
    if (k === "default") return true;
    if (k !== "enum" && k !== "example" && declaresDefaults(v)) return true;
  }
  return false;
}
