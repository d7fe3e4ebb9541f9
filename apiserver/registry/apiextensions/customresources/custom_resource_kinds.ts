/**
 * The kinds of a CustomResourceDefinition: one KindDef per served version (strategy, schema,
 * subresources, columns), wired for conversion by `servedVersionKinds` (the storage version
 * served from itself, the others from it, through the definition's None or Webhook
 * converter, with deprecation warnings); a storage version that is not served is registered
 * unserved.
 *
 * @module
 */
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionVersion,
} from "../../../../shared/api/apiextensions/v1/types.ts";
import {
  CUSTOM_RESOURCE_PATCH_TYPES,
  type KindDef,
  type SubresourceDef,
} from "../../generic/kind.ts";
import { compileCustomResourceSchema } from "../schema/custom_resource_schema.ts";
import {
  customResourceConverter,
  type CustomResourceConverterDeps,
} from "../conversion/custom_resource_converter.ts";
import { type CrdVersionKinds, servedVersionKinds } from "../conversion/served_version_kinds.ts";
import { customResourceStatus, customResourceStrategy } from "./custom_resource_strategy.ts";
import { customResourceScale } from "./scale_subresource.ts";

/** Options of {@link customResourceKinds}. */
export interface CustomResourceKindOptions {
  /** The definition is terminating: creates are refused. */
  terminating?: boolean;
  /** What the definition's converter needs (the webhook client, for strategy Webhook). */
  conversion?: CustomResourceConverterDeps;
}

/** The names a definition is served with: the accepted ones, else those of its spec. */
export function servedNames(crd: CustomResourceDefinition): CustomResourceDefinitionNames {
  const accepted = crd.status?.acceptedNames;
  return accepted?.plural && accepted.kind ? accepted : crd.spec.names;
}

/**
 * The kinds of a definition, in registration order: `unservedStorage` (with
 * `registry.addUnserved`) when the storage version is not served, then `served` (with
 * `registry.add`), the storage version first.
 */
export function customResourceKinds(
  crd: CustomResourceDefinition,
  opts: CustomResourceKindOptions = {},
): CrdVersionKinds {
  const converter = customResourceConverter(crd, opts.conversion ?? {});
  const versions = new Map((crd.spec.versions ?? []).map((v) => [v.name, v]));
  return servedVersionKinds(crd, converter, (v) => versionKind(crd, versions.get(v)!, opts));
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
