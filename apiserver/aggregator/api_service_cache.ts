/**
 * The APIServices as this server last saw them, followed through the change feed (every API
 * server's writes on a shared database), by name; listeners hear of every change. The proxy,
 * the availability controller and discovery read it instead of storage.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { isObject } from "../../shared/json/is_object.ts";
import { parseStoredValue } from "../registry/generic/stored_value.ts";
import type { ChangeEvent, KeyValue } from "../storage/interface.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";

/** A Service reference of an APIService (port defaulted). */
export interface ServiceRef {
  namespace: string;
  name: string;
  port: number;
}

/** The parts of an APIService the aggregator uses. */
export interface ApiServiceInfo {
  name: string;
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  /** Absent for a local APIService. */
  service?: ServiceRef;
  /** Base64 PEM bundle, as on the wire. */
  caBundle?: string;
  insecureSkipTLSVerify: boolean;
  /** Whether the `Available` condition is True. */
  available: boolean;
  object: KubeObject;
}

/** Reads an APIService object. */
export function apiServiceInfo(o: KubeObject): ApiServiceInfo {
  const spec = isObject(o.spec) ? o.spec : {};
  const svc = isObject(spec.service) ? spec.service : undefined;
  const conditions = isObject(o.status) && Array.isArray(o.status.conditions)
    ? o.status.conditions
    : [];
  const available = conditions.some((c) =>
    isObject(c) && c.type === "Available" && c.status === "True"
  );
  return {
    name: o.metadata?.name ?? "",
    group: String(spec.group ?? ""),
    version: String(spec.version ?? ""),
    groupPriorityMinimum: Number(spec.groupPriorityMinimum ?? 0),
    versionPriority: Number(spec.versionPriority ?? 0),
    service: svc
      ? {
        namespace: String(svc.namespace ?? ""),
        name: String(svc.name ?? ""),
        port: Number(svc.port ?? 443),
      }
      : undefined,
    caBundle: typeof spec.caBundle === "string" && spec.caBundle ? spec.caBundle : undefined,
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
    available,
    object: o,
  };
}

/** The followed APIServices. */
export class ApiServiceCache {
  readonly #prefix: string;
  readonly #byName = new Map<string, ApiServiceInfo>();
  readonly #listeners = new Set<(names: string[]) => void>();
  #unsubscribe?: () => void;

  /** `prefix`: the storage key prefix of the apiservices store. */
  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** Starts following `feed`; resolves once the current state is loaded. */
  async start(feed: ChangeFeed): Promise<void> {
    this.#unsubscribe = await feed.follow([this.#prefix], {
      reset: (items) => this.#reset(items),
      changes: (events) => this.#changes(events),
    });
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Every APIService. */
  all(): ApiServiceInfo[] {
    return [...this.#byName.values()];
  }

  get(name: string): ApiServiceInfo | undefined {
    return this.#byName.get(name);
  }

  /** The APIService of a group version (named `<version>.<group>`). */
  forGroupVersion(group: string, version: string): ApiServiceInfo | undefined {
    return this.#byName.get(`${version}.${group}`);
  }

  /** Calls `listener` with the names of the APIServices that changed. */
  onChange(listener: (names: string[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #reset(items: KeyValue[]): void {
    const before = new Set(this.#byName.keys());
    this.#byName.clear();
    for (const kv of items) this.#put(kv.value);
    this.#notify([...new Set([...before, ...this.#byName.keys()])]);
  }

  #changes(events: ChangeEvent[]): void {
    const names: string[] = [];
    for (const e of events) {
      if (!e.key.startsWith(this.#prefix)) continue;
      const name = e.key.slice(this.#prefix.length).replace(/^\//, "");
      names.push(name);
      if (e.type === "DELETED") this.#byName.delete(name);
      else this.#put(e.value, e.decoded);
    }
    if (names.length > 0) this.#notify(names);
  }

  #put(value: string, decoded?: unknown): void {
    try {
      const info = apiServiceInfo(parseStoredValue(value, decoded));
      if (info.name) this.#byName.set(info.name, info);
    } catch {
      // an unreadable value is skipped, as a watch cache skips it
    }
  }

  #notify(names: string[]): void {
    for (const l of this.#listeners) l(names);
  }
}
