/**
 * FieldManager: maintains `metadata.managedFields` of one kind (and subresource) the way
 * kube-apiserver's field manager does, layer by layer: version check, last-applied annotation
 * upkeep and client-side-apply migration (manager `kubectl`), tracking only objects that have
 * managed fields (or are being created), the cap of 10 update managers (older ones merged into
 * `ancient-changes`), manager identity, change times, and stripping of server-set metadata.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { compareTyped } from "./compare_values.ts";
import { ConflictError, conflictStatusError } from "./conflict.ts";
import { createdFieldsV1 } from "./created_fields.ts";
import { FieldSet } from "./field_set.ts";
import {
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  type Managed,
  ManagedFieldsError,
  managerIdentifier,
} from "./managed_fields.ts";
import { fieldElement } from "./path_element.ts";
import type { KindSchema } from "./schema_from_model.ts";
import { toFieldSet } from "./to_field_set.ts";
import { TypedError } from "./typed_error.ts";
import { Updater } from "./updater.ts";
import { validateTyped } from "./validate_typed.ts";
import { goJson, isJsonObject, type JsonObject } from "./value.ts";
import { UNTYPED_DEDUCED } from "./schema.ts";
import { formatTime } from "../../shared/api/meta/v1/time.ts";

/** The annotation client-side apply keeps. */
export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";
/** Kubernetes' cap on `Update` managers. */
export const DEFAULT_MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = "ancient-changes";
const BEFORE_FIRST_APPLY = "before-first-apply";
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/** Server-set metadata no manager owns. */
const STRIP = FieldSet.of(
  [fieldElement("apiVersion")],
  [fieldElement("kind")],
  [fieldElement("metadata")],
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation"]
    .map((f) => [fieldElement("metadata"), fieldElement(f)]),
  [fieldElement("metadata"), fieldElement("managedFields")],
  [fieldElement("metadata"), fieldElement("resourceVersion")],
);

/** Options of a field manager. */
export interface FieldManagerOptions {
  schema: KindSchema;
  group: string;
  version: string;
  kind: string;
  /** The subresource written through ("" for the main resource). */
  subresource?: string;
  /** Fields never tracked for this endpoint (e.g. `status` on the main resource). */
  ignore?: FieldSet;
  /** Milliseconds since the epoch (tests inject one). */
  now?: () => number;
  maxUpdateManagers?: number;
  /**
   * Build a create's managedFields in one walk of the object (default true); false takes the
   * general path (compare, field sets, encode), which gives the same result. Tests compare them.
   */
  fastCreate?: boolean;
}

function withoutManagedFields(obj: KubeObject | JsonObject | undefined): JsonObject {
  if (!obj) return {};
  const copy = { ...obj } as JsonObject;
  if (isJsonObject(copy.metadata)) {
    const { managedFields: _mf, ...meta } = copy.metadata;
    copy.metadata = meta;
  }
  return copy;
}

function setManagedFields(obj: KubeObject, m: Managed): void {
  obj.metadata ??= {};
  const entries = encodeManagedFields(m);
  if (entries) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}

/** Field ownership bookkeeping for one kind and endpoint. */
export class FieldManager {
  readonly #opts: FieldManagerOptions;
  readonly #updater: Updater;
  readonly #apiVersion: string;
  readonly #fastCreate: boolean;

  constructor(opts: FieldManagerOptions) {
    this.#opts = opts;
    this.#fastCreate = opts.fastCreate ?? true;
    this.#updater = new Updater(opts.schema.schema, opts.schema.root, opts.ignore);
    this.#apiVersion = opts.group ? `${opts.group}/${opts.version}` : opts.version;
  }

  #now(): string {
    return formatTime((this.#opts.now ?? Date.now)());
  }

  #id(manager: string, operation: "Apply" | "Update"): string {
    return managerIdentifier({
      manager: manager || "unknown",
      operation,
      apiVersion: this.#apiVersion,
      subresource: this.#opts.subresource || undefined,
    });
  }

  /**
   * Records a non-apply write (create when `live` is undefined) by `manager` in
   * `next.metadata.managedFields`. Never fails: on an internal problem managedFields are dropped.
   */
  update(live: KubeObject | undefined, next: KubeObject, manager: string): KubeObject {
    const requested = next.metadata?.managedFields as unknown;
    let managed: Managed;
    let reset = false;
    const liveManaged = () => {
      try {
        return decodeManagedFields(live?.metadata?.managedFields);
      } catch {
        return emptyManaged();
      }
    };
    if (this.#opts.subresource) managed = liveManaged();
    else if (isResetManagedFields(requested)) {
      managed = emptyManaged();
      reset = true;
    } else {
      try {
        managed = decodeManagedFields(requested);
        if (managed.fields.size === 0) managed = liveManaged();
      } catch {
        managed = liveManaged();
      }
    }
    try {
      if (!live && !this.#opts.subresource && managed.fields.size === 0 && this.#fastCreate) {
        return this.#create(next, manager);
      }
      // Objects without managed fields are only tracked when created (or reset now).
      if (managed.fields.size === 0 && live?.metadata?.uid && !reset) {
        delete next.metadata.managedFields;
        return next;
      }
      this.#trackUpdate(withoutManagedFields(live), withoutManagedFields(next), managed, manager);
      this.#capUpdateManagers(managed);
      setManagedFields(next, managed);
    } catch (err) {
      if (!(err instanceof TypedError || err instanceof ManagedFieldsError)) throw err;
      delete next.metadata.managedFields;
    }
    return next;
  }

  /**
   * A create with no managed fields to start from: the one entry, the creator's `Update` of
   * every field it set, built in one walk ({@link createdFieldsV1}). Equals what
   * {@link FieldManager.update}'s general path writes.
   */
  #create(next: KubeObject, manager: string): KubeObject {
    const fieldsV1 = createdFieldsV1(
      this.#updater.schema,
      this.#updater.root,
      withoutManagedFields(next),
      STRIP,
      this.#updater.ignore,
    );
    if (!fieldsV1) {
      delete next.metadata.managedFields;
      return next;
    }
    next.metadata.managedFields = [{
      manager: manager || "unknown",
      operation: "Update",
      apiVersion: this.#apiVersion,
      time: this.#now(),
      fieldsType: "FieldsV1",
      fieldsV1,
    }];
    return next;
  }

  #trackUpdate(live: JsonObject, next: JsonObject, managed: Managed, manager: string): void {
    const id = this.#id(manager, "Update");
    const self = "current-operation";
    const fields = this.#updater.update(live, next, this.#apiVersion, managed.fields, self);
    this.#strip(fields, self);
    const vs = fields.get(self);
    if (vs) {
      fields.delete(self);
      const prev = fields.get(id);
      fields.set(id, {
        set: prev ? vs.set.union(prev.set) : vs.set,
        apiVersion: vs.apiVersion,
        applied: vs.applied,
      });
      managed.times.set(id, this.#now());
    }
    managed.fields = fields;
    for (const k of [...managed.times.keys()]) if (!fields.has(k)) managed.times.delete(k);
  }

  #strip(fields: Managed["fields"], id: string): void {
    const vs = fields.get(id);
    if (!vs) return;
    const set = vs.set.difference(STRIP);
    if (set.empty()) fields.delete(id);
    else fields.set(id, { ...vs, set });
  }

  #capUpdateManagers(managed: Managed): void {
    const max = this.#opts.maxUpdateManagers ?? DEFAULT_MAX_UPDATE_MANAGERS;
    const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([m]) => m);
    if (updaters.length <= max) return;
    const secs = (m: string) => {
      const t = managed.times.get(m);
      return t ? Math.floor(Date.parse(t) / 1000) : 0;
    };
    updaters.sort((a, b) => secs(a) - secs(b) || (a < b ? -1 : a > b ? 1 : 0));
    const firstByVersion = new Map<string, string>();
    let length = updaters.length;
    for (let i = 0; i < updaters.length && length > max; i++) {
      const m = updaters[i];
      const vs = managed.fields.get(m)!;
      const time = managed.times.get(m);
      const bucket = managerIdentifier({
        manager: ANCIENT_CHANGES,
        operation: "Update",
        apiVersion: vs.apiVersion,
      });
      const first = firstByVersion.get(vs.apiVersion);
      if (first === undefined) {
        firstByVersion.set(vs.apiVersion, m);
        continue;
      }
      if (!managed.fields.has(bucket)) {
        const s = managed.fields.get(first)!;
        managed.fields.delete(first);
        managed.times.delete(first);
        managed.fields.set(bucket, s);
      }
      const b = managed.fields.get(bucket)!;
      managed.fields.set(bucket, {
        set: vs.set.union(b.set),
        apiVersion: vs.apiVersion,
        applied: vs.applied,
      });
      managed.fields.delete(m);
      managed.times.delete(m);
      length--;
      managed.times.set(bucket, time);
    }
  }

  /**
   * Applies `patch` as `manager` to `live` (undefined: the object does not exist yet) and
   * returns the new object with its managedFields. Throws StatusError: 409 on conflicts
   * (unless `force`), 400 for a patch of the wrong kind or one setting managedFields.
   */
  apply(
    live: KubeObject | undefined,
    patch: JsonObject,
    manager: string,
    force: boolean,
  ): KubeObject {
    const { group, version, kind } = this.#opts;
    if (patch.apiVersion !== this.#apiVersion || patch.kind !== kind) {
      const [pg, pv] = typeof patch.apiVersion === "string" && patch.apiVersion.includes("/")
        ? patch.apiVersion.split("/", 2)
        : ["", typeof patch.apiVersion === "string" ? patch.apiVersion : ""];
      if (patch.kind === kind && pg === group && pv !== version) {
        throw StatusError.badRequest(
          `Incorrect version specified in apply patch. Specified patch version: ${patch.apiVersion}, expected: ${this.#apiVersion}`,
        );
      }
      throw StatusError.badRequest(
        `invalid object type: ${pg}/${pv}, Kind=${
          typeof patch.kind === "string" ? patch.kind : ""
        }`,
      );
    }
    if (isJsonObject(patch.metadata) && patch.metadata.managedFields != null) {
      throw StatusError.badRequest("metadata.managedFields must be nil");
    }
    let managed: Managed;
    try {
      managed = decodeManagedFields(live?.metadata?.managedFields);
    } catch (err) {
      throw StatusError.internal(`failed to decode managed fields: ${(err as Error).message}`);
    }
    const liveObj = withoutManagedFields(live);
    try {
      validateTyped(this.#opts.schema.schema, this.#opts.schema.root, patch);
      let result: JsonObject;
      try {
        result = this.#applyOnce(liveObj, patch, managed, manager, force);
      } catch (err) {
        if (!(err instanceof ConflictError) || manager !== "kubectl") throw err;
        const allowed = this.#allowedConflictsFromLastApplied(liveObj);
        if (!allowed) throw err;
        const remaining = err.conflicts.filter((c) => !allowed.has(c.path));
        if (remaining.length > 0) throw new ConflictError(remaining);
        result = this.#applyOnce(liveObj, patch, managed, manager, true);
      }
      // Typed (built-in) objects have no null members: decoding drops them.
      const out = (this.#opts.schema.root.namedType === UNTYPED_DEDUCED
        ? result
        : dropNulls(result)) as KubeObject;
      if (manager === "kubectl" && hasLastApplied(out)) {
        setLastApplied(out, buildLastApplied(patch));
      }
      setManagedFields(out, managed);
      return out;
    } catch (err) {
      if (err instanceof ConflictError) throw conflictStatusError(err);
      if (err instanceof TypedError) {
        const meta = isJsonObject(patch.metadata) ? patch.metadata : {};
        throw StatusError.badRequest(
          `failed to create typed patch object (${meta.namespace ?? ""}/${meta.name ?? ""}; ${
            group ? `${group}/` : "/"
          }${version}, Kind=${kind}): ${err.message}`,
        );
      }
      throw err;
    }
  }

  #applyOnce(
    liveIn: JsonObject,
    patch: JsonObject,
    managedIn: Managed,
    manager: string,
    force: boolean,
  ): JsonObject {
    const managed: Managed = { fields: new Map(managedIn.fields), times: new Map(managedIn.times) };
    let live = liveIn;
    if (managed.fields.size === 0) {
      // Whoever set the existing fields becomes "before-first-apply".
      this.#trackUpdate({}, live, managed, BEFORE_FIRST_APPLY);
      this.#capUpdateManagers(managed);
      live = liveIn;
    }
    const id = this.#id(manager, "Apply");
    const res = this.#updater.apply(live, patch, this.#apiVersion, managed.fields, id, force);
    this.#strip(res.managers, id);
    managed.fields = res.managers;
    for (const k of [...managed.times.keys()]) if (!res.managers.has(k)) managed.times.delete(k);
    let object: JsonObject;
    if (res.object !== undefined) {
      managed.times.set(id, this.#now());
      object = res.object as JsonObject;
    } else object = structuredClone(live);
    managedIn.fields = managed.fields;
    managedIn.times = managed.times;
    return object;
  }

  #allowedConflictsFromLastApplied(live: JsonObject): FieldSet | undefined {
    const meta = isJsonObject(live.metadata) ? live.metadata : undefined;
    const ann = isJsonObject(meta?.annotations) ? meta!.annotations as JsonObject : undefined;
    const raw = ann?.[LAST_APPLIED_ANNOTATION];
    if (typeof raw !== "string" || raw === "") return undefined;
    let last: unknown;
    try {
      last = JSON.parse(raw);
    } catch {
      return undefined;
    }
    if (!isJsonObject(last) || last.apiVersion !== this.#apiVersion) return undefined;
    const { schema, root } = this.#opts.schema;
    try {
      const set = toFieldSet(schema, root, last);
      const c = compareTyped(schema, root, last, live);
      return set.difference(c.modified).difference(c.added).difference(c.removed);
    } catch {
      return undefined;
    }
  }
}

function hasLastApplied(obj: KubeObject): boolean {
  const v = obj.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  return typeof v === "string" && v.length > 0;
}

function buildLastApplied(patch: JsonObject): string {
  const copy = structuredClone(patch);
  if (isJsonObject(copy.metadata) && isJsonObject(copy.metadata.annotations)) {
    delete copy.metadata.annotations[LAST_APPLIED_ANNOTATION];
  }
  return goJson(copy) + "\n";
}

function setLastApplied(obj: KubeObject, value: string): void {
  const ann = { ...(obj.metadata.annotations ?? {}) };
  ann[LAST_APPLIED_ANNOTATION] = value;
  let total = 0;
  for (const [k, v] of Object.entries(ann)) total += k.length + v.length;
  if (total > MAX_ANNOTATIONS_BYTES) delete ann[LAST_APPLIED_ANNOTATION];
  obj.metadata.annotations = ann;
}

function dropNulls(v: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined) continue;
    out[k] = isJsonObject(x)
      ? dropNulls(x)
      : Array.isArray(x)
      ? x.map((i) => isJsonObject(i) ? dropNulls(i) : i)
      : x;
  }
  return out;
}
