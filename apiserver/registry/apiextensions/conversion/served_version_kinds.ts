/**
 * The KindDefs of a CRD's served versions wired for conversion: the storage version is served
 * from itself (so objects written at an earlier storage version read converted), every other
 * served version from the storage version, each with the converter's `toStorage`/`fromStorage`
 * (and batch form), and each deprecated version with its `Warning`. Register them in the
 * order returned (the storage version first; when it is not served, with `addUnserved`).
 *
 * ```ts
 * const converter = customResourceConverter(crd, { webhooks: webhookClient });
 * const kinds = servedVersionKinds(crd, converter, (v) => kindOfVersion(crd, v));
 * if (kinds.unservedStorage) registry.addUnserved(kinds.unservedStorage);
 * for (const def of kinds.served) registry.add(def);
 * ```
 *
 * @module
 */
import type { CustomResourceDefinition } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { KindDef } from "../../generic/kind.ts";
import type { CustomResourceConverter } from "./custom_resource_converter.ts";
import { crdDeprecationWarning } from "./deprecation_warning.ts";

/** A CRD's KindDefs, in registration order. */
export interface CrdVersionKinds {
  /**
   * The storage version's KindDef when that version is not served: register it first with
   * `registry.addUnserved` (it holds the objects the served versions convert).
   */
  unservedStorage?: KindDef;
  /** The served versions, the storage version first when served: `registry.add` each in order. */
  served: KindDef[];
}

/**
 * `kindOf(version)` builds one version's KindDef (strategy, schema, columns, subresources),
 * without `servedFrom`; the answer adds the conversions and deprecation warnings.
 */
export function servedVersionKinds(
  crd: CustomResourceDefinition,
  converter: CustomResourceConverter,
  kindOf: (version: string) => KindDef,
): CrdVersionKinds {
  const spec = crd.spec;
  const storageVersion = spec.versions.find((v) => v.storage) ?? spec.versions[0];
  if (!storageVersion) return { served: [] };
  const stored = kindOf(storageVersion.name);
  const served = spec.versions.filter((v) => v.served);
  const ordered = [
    ...served.filter((v) => v === storageVersion),
    ...served.filter((v) => v !== storageVersion),
  ];
  const kinds = ordered.map((v) => {
    const def = v === storageVersion ? stored : kindOf(v.name);
    const warning = crdDeprecationWarning(spec, v.name);
    return {
      ...def,
      ...(warning ? { deprecationWarning: warning } : {}),
      servedFrom: { storage: stored, ...converter.forVersion(v.name) },
    };
  });
  return storageVersion.served ? { served: kinds } : { unservedStorage: stored, served: kinds };
}
