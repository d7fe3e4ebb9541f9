/**
 * The generic store: every verb for a declared kind, on top of the storage contract. Per-kind
 * behaviour comes only from the kind's strategy. Storage errors are translated into
 * StatusError here, once.
 *
 * @module
 */
import type { DeleteOptions, KubeList, KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { releaseAll, writeWithClaims } from "./claims.ts";
import { computedGet, computedList } from "./computed.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import {
  type ChangeEvent,
  KeyExistsError,
  KeyNotFoundError,
  type KeyValue,
  RevisionConflictError,
  type Storage,
} from "../../storage/interface.ts";
import type { AdmissionAttributes, AdmissionChain } from "./admission.ts";
import { admissionAttributes } from "./admission_attributes.ts";
import { type Clock, rfc3339, systemClock } from "./clock.ts";
import { cloneValue } from "./clone_value.ts";
import { encodeContinue } from "./continue_token.ts";
import { listError } from "./list_error.ts";
import type { ListCache, ListQuery } from "./list_query.ts";
import {
  checkDeletePreconditions,
  checkPreconditions,
  type Preconditions,
} from "./preconditions.ts";
import { finalizerOfPolicy, validateDeleteOptions } from "./delete_options.ts";
import { bumpGeneration, keepServerMetadata, SYSTEM_METADATA } from "./server_metadata.ts";
import { maintainManagedFields } from "../../fieldmanager/track_write.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { apiVersionOf, type KindDef } from "./kind.ts";
import { parseResourceVersion } from "./resource_version.ts";
import { generateName } from "../../../shared/api/validation/object_meta.ts";
import { validateWrite } from "./validate_write.ts";
import { deleteCollection } from "./delete_collection.ts";
import { checkTarget } from "./check_target.ts";

export type { UpdateOptions, WriteOptions } from "./write_options.ts";
import type { UpdateOptions, WriteOptions } from "./write_options.ts";

/**
 * Computes the new object of an update from the stored one (undefined when it does not exist,
 * for a create). It may change and return `current`, which is its own copy, or answer
 * undefined when nothing needs changing. It is called again when a concurrent write wins.
 */
export type TryUpdate = (
  current: KubeObject | undefined,
) => KubeObject | undefined | Promise<KubeObject | undefined>;

/** How many times guaranteedUpdate tries a write that loses to concurrent ones (then 409). */
export const MAX_UPDATE_ATTEMPTS = 10;

/** Options of the store. */
export interface StoreOptions {
  storage: Storage;
  clock?: Clock;
  admission?: AdmissionChain;
  /** How long a read waits for a resourceVersion the storage has not reached (ms). */
  resourceVersionWaitMs?: number;
  /** Gives the new store its list cache (the watch caches), if it has one. */
  listCacheFor?: (store: Store) => ListCache | undefined;
}

/** The generic store for one kind. */
export class Store {
  readonly def: KindDef;
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #admission?: AdmissionChain;
  readonly #waitMs: number;
  /** `/registry/<group|core>/<plural>/`: every key of this kind starts with it. */
  readonly prefix: string;
  /** Serves lists from memory where it can (the watch cache). */
  readonly #listCache?: ListCache;

  constructor(def: KindDef, opts: StoreOptions) {
    this.def = def;
    this.#storage = opts.storage;
    this.#clock = opts.clock ?? systemClock;
    this.#admission = opts.admission;
    this.#waitMs = opts.resourceVersionWaitMs ?? 3000;
    const stored = def.servedFrom?.storage ?? def;
    this.prefix = `/registry/${stored.group || "core"}/${stored.plural}/`;
    this.#listCache = opts.listCacheFor?.(this);
  }

  /**
   * Subscribes to this process's committed changes of this kind (storage `onCommit` limited to
   * the kind's prefix), delivered after commit and before the writer's call returns. Returns
   * an unsubscribe function.
   */
  onCommit(listener: (events: ChangeEvent[]) => void): () => void {
    return this.#storage.onCommit((events) => {
      const mine = events.filter((e) => e.key.startsWith(this.prefix));
      if (mine.length > 0) listener(mine);
    });
  }

  /** The store that holds this kind's objects: itself, or the stored version's store. */
  get storageStore(): Store {
    return this;
  }

  /** The group and resource, as error constructors take them. */
  get groupResource(): { group: string; resource: string } {
    return { group: this.def.group, resource: this.def.plural };
  }

  /** The storage key of an object. */
  key(namespace: string, name: string): string {
    return this.def.namespaced ? `${this.prefix}${namespace}/${name}` : `${this.prefix}${name}`;
  }

  /** The key prefix of a list in `namespace` ("" = all namespaces). */
  listPrefix(namespace: string): string {
    return this.def.namespaced && namespace ? `${this.prefix}${namespace}/` : this.prefix;
  }

  /** Decodes a stored value into an object carrying its resourceVersion. */
  decode(kv: { value: string; revision: number }): KubeObject {
    const obj = JSON.parse(kv.value) as KubeObject;
    obj.metadata.resourceVersion = String(kv.revision);
    this.def.applyReadDefaults?.(obj);
    return obj;
  }

  /** The selectable fields of an object (metadata.name, metadata.namespace, per-kind ones). */
  fieldsOf(obj: KubeObject): Record<string, string> {
    const fields: Record<string, string> = { "metadata.name": obj.metadata.name ?? "" };
    if (this.def.namespaced) fields["metadata.namespace"] = obj.metadata.namespace ?? "";
    return Object.assign(fields, this.def.strategy.selectableFields?.(obj) ?? {});
  }

  /** Reads one object. `resourceVersion`: unset or "0" = latest; N = not older than N. */
  async get(namespace: string, name: string, resourceVersion?: string): Promise<KubeObject> {
    if (this.def.computed) return await computedGet(this.def, namespace, name);
    if (resourceVersion && resourceVersion !== "0") {
      await this.#waitForRevision(parseResourceVersion(resourceVersion));
    }
    const kv = await this.#storage.get(this.#existingKey(namespace, name));
    if (!kv) throw StatusError.notFound(this.groupResource, name);
    return this.decode(kv);
  }

  /** Lists objects in `namespace` ("" = all namespaces). */
  async list(namespace: string, query: ListQuery): Promise<KubeList> {
    if (this.def.computed) {
      return await computedList(this.def, namespace, query, (o) => this.fieldsOf(o));
    }
    if (this.#listCache) {
      const cached = await this.#listCache.list(namespace, query);
      if (cached) return cached;
    }
    const prefix = this.listPrefix(namespace);
    const plan = query.plan;
    let revision: number | undefined;
    let startKey: string | undefined;
    if (plan.mode === "notOlderThan") await this.#waitForRevision(plan.revision);
    if (plan.mode === "exact") revision = plan.revision;
    if (plan.mode === "continue") {
      if (plan.revision > 0) revision = plan.revision;
      startKey = prefix + plan.startKeySuffix;
    }
    const filtered = !!(query.labels || query.fields);
    const filter = filtered
      ? (kv: KeyValue) => {
        const obj = JSON.parse(kv.value) as KubeObject;
        if (query.labels && !query.labels(obj.metadata.labels ?? {})) return false;
        if (query.fields && !query.fields(this.fieldsOf(obj))) return false;
        return true;
      }
      : undefined;
    let result;
    try {
      result = await this.#storage.list(prefix, {
        revision,
        startKey,
        limit: query.limit,
        filter,
        count: !filtered && !!query.limit,
      });
    } catch (err) {
      throw listError(err, plan.mode === "continue" ? plan.startKeySuffix : undefined);
    }
    const items = result.items.map((kv) => this.decode(kv));
    const list: KubeList = {
      kind: `${this.def.kind}List`,
      apiVersion: apiVersionOf(this.def),
      metadata: { resourceVersion: String(result.revision) },
      items,
    };
    if (result.more && items.length > 0) {
      const last = result.items[result.items.length - 1].key;
      list.metadata.continue = encodeContinue(result.revision, last.slice(prefix.length) + "\0");
      if (!filtered && result.remaining !== undefined) {
        list.metadata.remainingItemCount = result.remaining;
      }
    }
    // Items keep the apiVersion they were written at (as the watch cache's lists do): a kind
    // served from this store converts from it.
    for (const item of items) {
      item.apiVersion ??= list.apiVersion;
      item.kind ??= this.def.kind;
    }
    return list;
  }

  /** Creates an object in `namespace`. */
  async create(namespace: string, body: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    const obj = cloneValue(body);
    obj.apiVersion = apiVersionOf(this.def);
    obj.kind = this.def.kind;
    obj.metadata ??= {};
    checkTarget(obj, this.def.namespaced, namespace);
    for (const f of SYSTEM_METADATA) delete obj.metadata[f];
    const genName = !obj.metadata.name && !!obj.metadata.generateName;
    if (genName) obj.metadata.name = generateName(obj.metadata.generateName!);
    this.def.strategy.prepareForCreate?.(obj, opts.user);
    maintainManagedFields(this.def, undefined, obj, body, opts);
    await this.#admit(admissionAttributes(this.def, "CREATE", { object: obj }, opts), () => {
      validateWrite(this.def, obj, this.def.strategy.validate(obj), undefined);
      this.def.strategy.canonicalize?.(obj);
    }, opts);
    // A strategy that needs the uid early (Job labels its pod template with it) sets it.
    obj.metadata.uid ??= crypto.randomUUID();
    obj.metadata.creationTimestamp = rfc3339(this.#clock.now());
    obj.metadata.generation = 1;
    if (opts.dryRun) {
      await this.def.claims?.assign(obj, undefined);
      return obj;
    }
    for (let attempt = 0;; attempt++) {
      try {
        const key = this.key(namespace, obj.metadata.name!);
        const kv = await writeWithClaims(
          this.def.claims,
          obj,
          undefined,
          (side) => this.#storage.create(key, this.#encode(obj), obj, side),
        );
        obj.metadata.resourceVersion = String(kv.revision);
        return obj;
      } catch (err) {
        if (err instanceof KeyExistsError) {
          if (genName && attempt < 8) {
            obj.metadata.name = generateName(obj.metadata.generateName!);
            continue;
          }
          throw StatusError.alreadyExists(this.groupResource, obj.metadata.name!);
        }
        throw err;
      }
    }
  }

  /**
   * Replaces an object (or, with `subresource`, one of its subresources): a guaranteedUpdate
   * whose new object is `body`. A resourceVersion in the body must match the stored one (409);
   * without one the update is unconditional, and a kind that allows it creates a missing object.
   */
  async update(
    namespace: string,
    name: string,
    body: KubeObject,
    opts: WriteOptions & { subresource?: string } = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    body.metadata ??= {};
    checkTarget(body, this.def.namespaced, namespace, name);
    const rv = body.metadata.resourceVersion;
    if (rv) parseResourceVersion(rv);
    const allowCreate = !!this.def.allowCreateOnUpdate && !opts.subresource && !rv;
    return await this.guaranteedUpdate(namespace, name, () => body, {}, { ...opts, allowCreate });
  }

  /**
   * The one read-modify-write of an object: reads it, checks `preconditions`, asks
   * `tryUpdate(current)` for the new object (`current` is the caller's own copy, undefined when
   * the object does not exist) and writes that through the update path (admission, validation,
   * compare-and-swap). A write that loses to a concurrent one is retried with the new state, at
   * most MAX_UPDATE_ATTEMPTS times in all (then 409 Conflict). A resourceVersion on the new
   * object other than the stored one is 409 Conflict, never retried. A missing object is 404,
   * or with `allowCreate` created from `tryUpdate(undefined)`.
   */
  async guaranteedUpdate(
    namespace: string,
    name: string,
    tryUpdate: TryUpdate,
    preconditions: Preconditions = {},
    opts: UpdateOptions = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    const key = this.#existingKey(namespace, name);
    for (let attempt = 1;; attempt++) {
      const current = await this.#storage.get(key);
      if (!current) {
        const body = opts.allowCreate ? await tryUpdate(undefined) : undefined;
        if (!body) throw StatusError.notFound(this.groupResource, name);
        return { object: await this.create(namespace, { ...body }, opts), created: true };
      }
      const old = this.decode(current);
      checkPreconditions(this.groupResource, old, preconditions);
      const body = await tryUpdate(this.decode(current));
      if (!body) return { object: old, created: false };
      const obj = await this.#prepareUpdate(namespace, name, body, old, current.revision, opts);
      if (deepEqual(obj, old)) return { object: old, created: false };
      if (opts.dryRun) {
        await this.def.claims?.assign(obj, old);
        return { object: obj, created: false };
      }
      if (await this.#writeUpdate(key, obj, old, current.revision)) {
        return { object: obj, created: false };
      }
      if (attempt >= MAX_UPDATE_ATTEMPTS) throw StatusError.conflict(this.groupResource, name);
    }
  }

  /**
   * Turns the new object of an update into what is stored: server fields, strategy, admission
   * (mutating, then validation, then validating). A subresource served as another kind (scale)
   * is admitted as that kind: its body before it is applied, the result's view after.
   */
  async #prepareUpdate(
    namespace: string,
    name: string,
    body: KubeObject,
    old: KubeObject,
    revision: number,
    opts: UpdateOptions,
  ): Promise<KubeObject> {
    body.metadata ??= {};
    checkTarget(body, this.def.namespaced, namespace, name);
    const rv = body.metadata.resourceVersion;
    if (rv && parseResourceVersion(rv) !== revision) {
      throw StatusError.conflict(this.groupResource, name);
    }
    const sub = opts.subresource
      ? this.def.subresources?.find((s) => s.name === opts.subresource)
      : undefined;
    const view = sub?.view && sub.requestKind ? sub.view : undefined;
    const validateUpdate = sub?.validateUpdate ?? this.def.strategy.validateUpdate;
    let obj = view ? body : this.#mergeUpdate(namespace, name, body, old, opts);
    const attrs = admissionAttributes(this.def, "UPDATE", {
      object: view ? cloneValue(body) : obj,
      oldObject: view ? view(old) : old,
      namespace: this.def.namespaced ? namespace : "",
      name,
      subresource: opts.subresource,
    }, opts);
    await this.#admit(attrs, () => {
      if (view) obj = this.#mergeUpdate(namespace, name, attrs.object!, old, opts);
      const errs = validateUpdate ? validateUpdate(obj, old) : this.def.strategy.validate(obj);
      validateWrite(this.def, obj, errs, old);
      this.def.strategy.canonicalize?.(obj);
      if (view) attrs.object = view(obj);
    }, opts);
    bumpGeneration(obj, old);
    return obj;
  }

  /** The stored object an update's body makes: subresource applied, server fields kept. */
  #mergeUpdate(
    namespace: string,
    name: string,
    body: KubeObject,
    old: KubeObject,
    opts: UpdateOptions,
  ): KubeObject {
    const sub = opts.subresource
      ? this.def.subresources?.find((s) => s.name === opts.subresource)
      : undefined;
    const obj = sub?.update ? sub.update(cloneValue(body), old) : cloneValue(body);
    obj.apiVersion = apiVersionOf(this.def);
    obj.kind = this.def.kind;
    obj.metadata ??= {};
    if (obj.metadata.uid && obj.metadata.uid !== old.metadata.uid) {
      throw StatusError.conflict(
        this.groupResource,
        name,
        `Precondition failed: UID in precondition: ${obj.metadata.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    keepServerMetadata(obj, old, name, this.def.namespaced ? namespace : undefined);
    const hasStatus = this.def.subresources?.some((s) => s.name === "status");
    if (!sub && hasStatus) {
      if (old.status === undefined) delete obj.status;
      else obj.status = structuredClone(old.status);
    }
    if (!sub) this.def.strategy.prepareForUpdate?.(obj, old);
    maintainManagedFields(this.def, old, obj, body, opts);
    return obj;
  }

  /** Compare-and-swaps an updated object; false when a concurrent write got there first. */
  async #writeUpdate(
    key: string,
    obj: KubeObject,
    old: KubeObject,
    revision: number,
  ): Promise<boolean> {
    const claims = this.def.claims;
    try {
      if (obj.metadata.deletionTimestamp && !this.#hasFinalizers(obj)) {
        const ev = await this.#storage.delete(key, revision, releaseAll(claims, old));
        obj.metadata.resourceVersion = String(ev.revision);
      } else {
        const kv = await writeWithClaims(
          claims,
          obj,
          old,
          (side) => this.#storage.update(key, this.#encode(obj), revision, obj, side),
        );
        obj.metadata.resourceVersion = String(kv.revision);
      }
      return true;
    } catch (err) {
      if (err instanceof RevisionConflictError || err instanceof KeyNotFoundError) return false;
      throw err;
    }
  }

  /**
   * Deletes an object. With finalizers (or a grace period) it stays, marked with a
   * deletionTimestamp; otherwise it is removed at once. Returns the object's last state and
   * whether it is gone.
   */
  async delete(
    namespace: string,
    name: string,
    options: DeleteOptions = {},
    opts: WriteOptions = {},
  ): Promise<{ object: KubeObject; deleted: boolean }> {
    validateDeleteOptions(options);
    const refusal = this.def.strategy.deleteForbidden?.(name);
    if (refusal) throw StatusError.forbidden(this.groupResource, name, refusal);
    for (;;) {
      const key = this.#existingKey(namespace, name);
      const current = await this.#storage.get(key);
      if (!current) throw StatusError.notFound(this.groupResource, name);
      const obj = this.decode(current);
      checkDeletePreconditions(this.groupResource, obj, options.preconditions);
      await this.#admit(
        admissionAttributes(this.def, "DELETE", { oldObject: obj, deleteOptions: options }, opts),
        undefined,
        opts,
      );
      const policyFinalizer = finalizerOfPolicy(options);
      const next = structuredClone(obj);
      if (policyFinalizer && !obj.metadata.deletionTimestamp) {
        const fins = next.metadata.finalizers ?? [];
        if (!fins.includes(policyFinalizer)) next.metadata.finalizers = [...fins, policyFinalizer];
      }
      // Only kinds with graceful deletion (a strategy gracePeriod) wait; others ignore
      // gracePeriodSeconds. A negative request means 1 s, as in Kubernetes.
      const requested = (options.gracePeriodSeconds ?? 0) < 0
        ? { ...options, gracePeriodSeconds: 1 }
        : options;
      const grace = this.def.strategy.gracePeriod?.(obj, requested) ?? 0;
      if (obj.metadata.deletionTimestamp) {
        // Deletion already in progress: only a shorter grace period changes anything.
        const sooner = grace === 0 && (obj.metadata.deletionGracePeriodSeconds ?? 0) > 0;
        if (!sooner) return { object: obj, deleted: false };
        if (this.#hasFinalizers(next)) {
          next.metadata.deletionGracePeriodSeconds = 0;
          next.metadata.deletionTimestamp = rfc3339(this.#clock.now());
          const res = await this.#writeDeletion(key, next, current.revision, opts);
          if (res) return res;
          continue;
        }
      } else if (this.#hasFinalizers(next) || grace > 0) {
        next.metadata.deletionTimestamp = rfc3339(this.#clock.now() + grace * 1000);
        next.metadata.deletionGracePeriodSeconds = grace;
        this.def.strategy.prepareForDeletion?.(next);
        const res = await this.#writeDeletion(key, next, current.revision, opts);
        if (res) return res;
        continue;
      }
      if (opts.dryRun) return { object: obj, deleted: true };
      try {
        await this.#storage.delete(key, current.revision, releaseAll(this.def.claims, obj));
        return { object: obj, deleted: true };
      } catch (err) {
        if (err instanceof RevisionConflictError) continue;
        if (err instanceof KeyNotFoundError) throw StatusError.notFound(this.groupResource, name);
        throw err;
      }
    }
  }

  /**
   * Deletes every object of a list query, each through `delete` (and admission); answers the
   * list read, holding the objects deleted.
   */
  deleteCollection(
    namespace: string,
    query: ListQuery,
    options: DeleteOptions = {},
    opts: WriteOptions = {},
  ): Promise<KubeList> {
    return deleteCollection(this, namespace, query, options, opts);
  }

  async #writeDeletion(
    key: string,
    next: KubeObject,
    revision: number,
    opts: WriteOptions,
  ): Promise<{ object: KubeObject; deleted: boolean } | undefined> {
    if (opts.dryRun) return { object: next, deleted: false };
    try {
      const kv = await this.#storage.update(key, this.#encode(next), revision, next);
      next.metadata.resourceVersion = String(kv.revision);
      return { object: next, deleted: false };
    } catch (err) {
      if (err instanceof RevisionConflictError) return undefined;
      if (err instanceof KeyNotFoundError) {
        throw StatusError.notFound(this.groupResource, next.metadata.name ?? "");
      }
      throw err;
    }
  }

  /** The key of an object that may exist; a name storage cannot hold names nothing (404). */
  #existingKey(namespace: string, name: string): string {
    const storable = (s: string) => s.isWellFormed() && !s.includes("\0");
    if (!storable(name) || !storable(namespace)) {
      throw StatusError.notFound(this.groupResource, name);
    }
    return this.key(namespace, name);
  }

  #hasFinalizers(obj: KubeObject): boolean {
    return (obj.metadata.finalizers?.length ?? 0) > 0 ||
      !!this.def.strategy.hasPendingFinalizers?.(obj);
  }

  #encode(obj: KubeObject): string {
    const { resourceVersion: _rv, ...metadata } = obj.metadata;
    return JSON.stringify({ ...obj, metadata });
  }

  /** Runs admission around `check` (the kind's validation), or only `check` without it. */
  async #admit(
    attrs: AdmissionAttributes,
    check?: () => void,
    opts?: WriteOptions,
  ): Promise<void> {
    if (this.#admission && !opts?.skipAdmission) await this.#admission.run(attrs, check);
    else check?.();
  }

  /**
   * Admits a request the store does not write itself: a subresource create (token, binding,
   * eviction), a virtual kind's create, a connect subresource. `attrs.object` is the request's
   * body (or connect options), which the mutating phase may change.
   */
  async admitRequest(attrs: Omit<AdmissionAttributes, "kind">): Promise<void> {
    await this.#admit({ ...attrs, kind: this.def });
  }

  async #waitForRevision(revision: number): Promise<void> {
    const deadline = Date.now() + this.#waitMs;
    for (;;) {
      const current = await this.#storage.currentRevision();
      if (current >= revision) return;
      if (Date.now() >= deadline) throw StatusError.tooLargeResourceVersion(revision, current);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
