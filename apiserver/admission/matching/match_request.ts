/**
 * The request as admission matching sees it: operation, resource, subresource, kind, namespace,
 * name and objects, built from the store's {@link AdmissionAttributes}; and the other served
 * versions of a kind (`matchPolicy: Equivalent`) with the conversion of an object to one.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { AdmissionAttributes } from "../../registry/generic/admission.ts";
import { apiVersionOf, type KindDef } from "../../registry/generic/kind.ts";
import type { GroupVersionKind, GroupVersionResource, RuleRequest } from "./rules.ts";

/** A request for matching: what rules see plus name, kind, objects and the kind's definition. */
export interface MatchRequest extends RuleRequest {
  /** The object's name (`""` when generated). */
  name: string;
  /** The kind of the request body (a subresource's own kind, e.g. autoscaling/v1 Scale). */
  kind: GroupVersionKind;
  /** The definition of the resource the request is for. */
  def: KindDef;
  /** The object written (absent on DELETE). */
  object?: KubeObject;
  /** The stored object (UPDATE, DELETE). */
  oldObject?: KubeObject;
}

/** The group, version and resource of a kind. */
export function resourceOf(def: KindDef): GroupVersionResource {
  return { group: def.group, version: def.version, resource: def.plural };
}

/** The kind of a resource's `subresource` ("" = the resource's own kind). */
export function kindOf(def: KindDef, subresource: string): GroupVersionKind {
  if (subresource) {
    const sub = def.subresources?.find((s) => s.name === subresource);
    if (sub?.requestKind) return { ...sub.requestKind };
  }
  return { group: def.group, version: def.version, kind: def.kind };
}

/**
 * Builds the matching view of an admission request: the resource and kind the request was sent
 * as (`requestKind` when the store serves it from another version's storage).
 */
export function matchRequestOf(attrs: AdmissionAttributes): MatchRequest {
  const def = attrs.requestKind ?? attrs.kind;
  return {
    operation: attrs.operation,
    resource: resourceOf(def),
    subresource: attrs.subresource,
    namespace: attrs.namespace,
    name: attrs.name,
    kind: kindOf(def, attrs.subresource),
    def,
    object: attrs.object,
    oldObject: attrs.oldObject,
  };
}

function storedOf(def: KindDef): KindDef {
  return def.servedFrom?.storage ?? def;
}

function storageKey(def: KindDef): string {
  const s = storedOf(def);
  return `${s.group}/${s.version}/${s.plural}`;
}

/**
 * Kubernetes' EquivalentResourceMapper: the served versions that share a kind's storage (e.g.
 * autoscaling/v1 and v2 HorizontalPodAutoscalers). Built from the served kinds on first use;
 * call {@link EquivalentResources.invalidate} when kinds are added or removed.
 */
export class EquivalentResources {
  readonly #kinds: () => Iterable<KindDef>;
  #byStorage?: Map<string, KindDef[]>;

  /** `kinds` lists every served kind (e.g. the registry's stores' definitions). */
  constructor(kinds: () => Iterable<KindDef>) {
    this.#kinds = kinds;
  }

  /** Forgets the computed classes (the set of served kinds changed). */
  invalidate(): void {
    this.#byStorage = undefined;
  }

  /**
   * The other served versions of `def`'s stored kind (never `def` itself) that serve
   * `subresource` too ("" = the main resource), in registration order.
   */
  for(def: KindDef, subresource = ""): KindDef[] {
    if (!this.#byStorage) {
      const map = new Map<string, KindDef[]>();
      for (const k of this.#kinds()) {
        const key = storageKey(k);
        const list = map.get(key);
        if (list) list.push(k);
        else map.set(key, [k]);
      }
      this.#byStorage = map;
    }
    const all = this.#byStorage.get(storageKey(def)) ?? [];
    if (all.length < 2) return [];
    return all.filter((k) =>
      !(k.group === def.group && k.version === def.version && k.plural === def.plural) &&
      (!subresource || !!k.subresources?.some((s) => s.name === subresource))
    );
  }
}

/**
 * Converts `obj` (in the form of `from`) into the form of `to`, two served versions of one
 * stored kind, through the stored form. Resolves to `obj` itself when no conversion is needed.
 */
export async function convertObject(
  obj: KubeObject,
  from: KindDef,
  to: KindDef,
): Promise<KubeObject> {
  if (from === to || (from.group === to.group && from.version === to.version)) return obj;
  const stored = from.servedFrom ? await from.servedFrom.toStorage(obj) : obj;
  const out = to.servedFrom ? await to.servedFrom.fromStorage(stored) : stored;
  out.apiVersion = apiVersionOf(to);
  out.kind = to.kind;
  return out;
}
