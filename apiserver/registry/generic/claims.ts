/**
 * Exclusive claims: values only one object may hold at a time (a Service's ClusterIPs and
 * NodePorts). Each claimed value is a storage key written in the same transaction as the
 * object that holds it (storage `SideWrites`), so two objects never hold one value, also
 * across API servers sharing one database, and a failed write leaves nothing claimed.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { StatusError } from "../../../shared/errors/status_error.ts";
import { KeyExistsError, type SideWrites } from "../../storage/interface.ts";

/** A kind's claims, declared on its KindDef. */
export interface Claims {
  /**
   * Fills in the values `obj` leaves to the server (reading which are free, writing nothing);
   * `old` is the stored object on update. Throws a StatusError for a value it cannot give.
   */
  assign(obj: KubeObject, old: KubeObject | undefined): Promise<void>;
  /** The storage keys of the values `obj` holds, each with the value stored under it. */
  keys(obj: KubeObject): Map<string, string>;
  /**
   * The error for a claim key another object holds when `obj` asked for that value itself,
   * or undefined when the server chose it (then it chooses again).
   */
  taken(obj: KubeObject, key: string): StatusError | undefined;
}

/** The side writes that move `old`'s claims to `obj`'s (either may be absent). */
export function claimWrites(
  claims: Claims,
  obj: KubeObject | undefined,
  old: KubeObject | undefined,
): SideWrites {
  const next = obj ? claims.keys(obj) : new Map<string, string>();
  const prev = old ? claims.keys(old) : new Map<string, string>();
  return {
    create: [...next].filter(([k]) => !prev.has(k)).map(([key, value]) => ({ key, value })),
    delete: [...prev.keys()].filter((k) => !next.has(k)),
  };
}

/** The side writes that release every claim of `obj` (its deletion), if its kind has claims. */
export function releaseAll(
  claims: Claims | undefined,
  obj: KubeObject,
): SideWrites | undefined {
  return claims && claimWrites(claims, undefined, obj);
}

/**
 * Assigns `obj`'s claims and runs `write` with the side writes that take them; when a value
 * the server chose was taken meanwhile, starts again from `obj` as it came in.
 */
export async function writeWithClaims<T>(
  claims: Claims | undefined,
  obj: KubeObject,
  old: KubeObject | undefined,
  write: (side: SideWrites | undefined) => Promise<T>,
): Promise<T> {
  if (!claims) return await write(undefined);
  const asked = structuredClone(obj);
  for (let attempt = 0;; attempt++) {
    await claims.assign(obj, old);
    try {
      return await write(claimWrites(claims, obj, old));
    } catch (err) {
      if (!(err instanceof KeyExistsError) || !claims.keys(obj).has(err.key)) throw err;
      const refused = claims.taken(asked, err.key);
      if (refused || attempt >= 16) throw refused ?? err;
      for (const k of Object.keys(obj)) delete obj[k];
      Object.assign(obj, structuredClone(asked));
    }
  }
}
