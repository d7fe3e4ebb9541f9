/**
 * ConvertingStore: a kind served at another group/version than it is stored (a KindDef with
 * `servedFrom`). Every verb goes to the stored kind's store; objects are converted from the
 * served form on the way in and back on the way out, so both versions share one store, its keys
 * and its resourceVersions. The served form's own defaults and validation run before the
 * conversion, and its managedFields are computed in the served form (recording the served
 * apiVersion, as Kubernetes does), then kept by the stored kind's store.
 *
 * @module
 */
import type { DeleteOptions, KubeList, KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { type FieldError, StatusError } from "../../../shared/errors/status_error.ts";
import { fieldManagerFor } from "../../fieldmanager/track_write.ts";
import { managerOrUserAgent } from "../../fieldmanager/manager_name.ts";
import { cloneValue } from "./clone_value.ts";
import { ConversionMemo } from "./conversion_memo.ts";
import { apiVersionOf, type KindDef, type ServedVersion } from "./kind.ts";
import type { ListQuery } from "./list_query.ts";
import type { Preconditions } from "./preconditions.ts";
import {
  Store,
  type StoreOptions,
  type TryUpdate,
  type UpdateOptions,
  type WriteOptions,
} from "./store.ts";

/** The store of a kind served from another kind's store, converting every object. */
export class ConvertingStore extends Store {
  readonly #inner: Store;
  readonly #conv: ServedVersion;
  readonly #apiVersion: string;
  #watchConversions?: ConversionMemo;

  /** `def.servedFrom` names the stored kind; `inner` is its store. */
  constructor(def: KindDef, inner: Store, opts: StoreOptions) {
    if (!def.servedFrom) throw new Error(`${def.kind} is not served from another version`);
    super(def, { ...opts, listCacheFor: undefined });
    this.#inner = inner;
    this.#conv = def.servedFrom;
    this.#apiVersion = apiVersionOf(def);
  }

  /** The stored kind's store (its watch cache serves this kind's watches). */
  override get storageStore(): Store {
    return this.#inner;
  }

  /**
   * Whether the conversions answer Promises (the converter has a batch form): watches then
   * convert with {@link ConvertingStore.toServedEvents} instead of in the cache's fan-out.
   */
  get convertsAsynchronously(): boolean {
    return this.#conv.fromStorageList !== undefined;
  }

  /**
   * A stored object in the served form, converted synchronously (the watch cache's fan-out);
   * throws when the converter answers a Promise.
   */
  toServedNow(obj: KubeObject): KubeObject {
    const out = this.#conv.fromStorage(obj);
    if (out instanceof Promise) {
      out.catch(() => {});
      throw new Error(`the conversion to ${this.#apiVersion} is asynchronous`);
    }
    return this.#stamp(out);
  }

  /** A stored object in the served form. */
  async toServed(obj: KubeObject): Promise<KubeObject> {
    return this.#stamp(await this.#conv.fromStorage(obj));
  }

  /**
   * The objects of watch events in the served form, in order (`types`: their events' types):
   * each event's object is converted once for all the watchers of this kind.
   */
  async toServedEvents(objs: KubeObject[], types: readonly string[]): Promise<KubeObject[]> {
    this.#watchConversions ??= new ConversionMemo((o) => this.toServedList(o));
    const tags = types.map((t) => (t === "DELETED" ? "deleted" : ""));
    return await this.#watchConversions.convert(objs, tags);
  }

  /** Stored objects in the served form, in order: one batch conversion where the converter has one. */
  async toServedList(objs: KubeObject[]): Promise<KubeObject[]> {
    if (objs.length === 0) return [];
    const batch = this.#conv.fromStorageList;
    const out = batch
      ? await batch.call(this.#conv, objs)
      : await Promise.all(objs.map((o) => this.#conv.fromStorage(o)));
    if (out.length !== objs.length) {
      throw StatusError.internal(
        `converting ${objs.length} objects to ${this.#apiVersion} returned ${out.length}`,
      );
    }
    return out.map((o) => this.#stamp(o));
  }

  #stamp(out: KubeObject): KubeObject {
    out.apiVersion = this.#apiVersion;
    out.kind = this.def.kind;
    return out;
  }

  override async get(namespace: string, name: string, rv?: string): Promise<KubeObject> {
    return await this.toServed(await this.#requalify(() => this.#inner.get(namespace, name, rv)));
  }

  override async list(namespace: string, query: ListQuery): Promise<KubeList> {
    const list = await this.#requalify(() => this.#inner.list(namespace, query));
    return {
      ...list,
      kind: `${this.def.kind}List`,
      apiVersion: this.#apiVersion,
      items: await this.toServedList(list.items),
    };
  }

  override async create(
    namespace: string,
    body: KubeObject,
    opts: WriteOptions = {},
  ): Promise<KubeObject> {
    const obj = cloneValue(body);
    obj.metadata ??= {};
    this.#prepare(namespace, obj, undefined, opts);
    const stored = await this.#conv.toStorage(obj);
    const created = await this.#requalify(() =>
      this.#inner.create(namespace, stored, { ...opts, applied: true, requestKind: this.def })
    );
    return await this.toServed(created);
  }

  override async guaranteedUpdate(
    namespace: string,
    name: string,
    tryUpdate: TryUpdate,
    preconditions: Preconditions = {},
    opts: UpdateOptions = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    const converted: TryUpdate = async (stored) => {
      const current = stored && await this.toServed(stored);
      const next = await tryUpdate(current && cloneValue(current));
      if (!next) return undefined;
      next.metadata ??= {};
      this.#prepare(namespace, next, current, opts);
      return await this.#conv.toStorage(next);
    };
    const res = await this.#requalify(() =>
      this.#inner.guaranteedUpdate(namespace, name, converted, preconditions, {
        ...opts,
        applied: true,
        requestKind: this.def,
      })
    );
    return { object: await this.toServed(res.object), created: res.created };
  }

  override async delete(
    namespace: string,
    name: string,
    options: DeleteOptions = {},
    opts: WriteOptions = {},
  ): Promise<{ object: KubeObject; deleted: boolean }> {
    const res = await this.#requalify(() =>
      this.#inner.delete(namespace, name, options, { ...opts, requestKind: this.def })
    );
    return { object: await this.toServed(res.object), deleted: res.deleted };
  }

  override async deleteCollection(
    namespace: string,
    query: ListQuery,
    options: DeleteOptions = {},
    opts: WriteOptions = {},
  ): Promise<KubeList> {
    const deleted = await this.#requalify(() =>
      this.#inner.deleteCollection(namespace, query, options, { ...opts, requestKind: this.def })
    );
    return {
      kind: `${this.def.kind}List`,
      apiVersion: this.#apiVersion,
      metadata: deleted.metadata,
      items: await this.toServedList(deleted.items),
    };
  }

  /**
   * The served form's part of a write: its defaults and validation (create, or update when
   * `current` is given), then its managedFields unless apply computed them already.
   */
  #prepare(
    namespace: string,
    obj: KubeObject,
    current: KubeObject | undefined,
    opts: UpdateOptions,
  ): void {
    const strategy = this.def.strategy;
    if (this.def.namespaced && namespace) obj.metadata.namespace ??= namespace;
    let errors: FieldError[];
    if (!current) {
      strategy.prepareForCreate?.(obj);
      errors = strategy.validate(obj);
    } else {
      if (!opts.subresource) strategy.prepareForUpdate?.(obj, current);
      errors = strategy.validateUpdate?.(obj, current) ?? [];
    }
    if (errors.length > 0) {
      const name = obj.metadata.name ?? obj.metadata.generateName ?? "";
      throw StatusError.invalid({ group: this.def.group, kind: this.def.kind }, name, errors);
    }
    if (opts.applied) return;
    fieldManagerFor(this.def, opts.subresource ?? "").update(
      current,
      obj,
      managerOrUserAgent(opts.fieldManager, opts.userAgent),
    );
  }

  /** Runs `call`, naming the served group in the errors of the stored kind's store. */
  async #requalify<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw err instanceof StatusError ? requalified(err, this.#conv.storage, this.def) : err;
    }
  }
}

/**
 * An error of the stored kind's store as the served kind's: `events "x" not found` becomes
 * `events.events.k8s.io "x" not found`, `Event "x" is invalid` `Event.events.k8s.io "x" ...`.
 */
function requalified(err: StatusError, stored: KindDef, served: KindDef): StatusError {
  if (stored.group === served.group) return err;
  const details = err.status.details;
  if (!details || (details.group ?? "") !== stored.group) return err;
  const q = (name: string, group: string) => group ? `${name}.${group}` : name;
  let message = err.status.message ?? "";
  for (const name of [stored.plural, stored.kind]) {
    const from = `${q(name, stored.group)} "`;
    if (message.startsWith(from)) {
      message = `${q(name, served.group)} "${message.slice(from.length)}`;
      break;
    }
  }
  const { kind: _k, apiVersion: _a, status: _s, metadata, ...rest } = err.status;
  return new StatusError(
    { ...rest, metadata, message, details: { ...details, group: served.group } },
    err.headers,
  );
}
