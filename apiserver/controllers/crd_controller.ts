/**
 * The CustomResourceDefinition lifecycle controller: accepts each definition's names
 * (NamesAccepted, Established, storedVersions in its status), serves its versions (one kind per
 * served version in the registry, replaced when the definition changes, removed when it goes),
 * and, once a definition is deleted, deletes every instance and then removes the cleanup
 * finalizer (Terminating condition).
 *
 * It follows the change feed (every API server's commits on a shared database), so each server
 * serves every established definition; at start it syncs every definition before resolving,
 * so established ones are served again before the server reports ready.
 *
 * @module
 */
import type { CustomResourceDefinition } from "../../shared/api/apiextensions/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { deepEqual } from "../../shared/json/deep_equal.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { Store } from "../registry/generic/store.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import { customResourceKinds } from "../registry/apiextensions/customresources/custom_resource_kinds.ts";
import type { CustomResourceConverterDeps } from "../registry/apiextensions/conversion/custom_resource_converter.ts";
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER } from "../registry/apiextensions/customresourcedefinitions/strategy.ts";
import {
  isConditionTrue,
  setCondition,
} from "../registry/apiextensions/customresources/crd_conditions.ts";
import {
  calculateNames,
  type UsedNames,
  usedNames,
} from "../registry/apiextensions/customresources/crd_names.ts";
import type { ChangeEvent, KeyValue } from "../storage/interface.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { WorkQueue } from "./work_queue.ts";
import { deleteAllInstances } from "./crd_instance_cleanup.ts";

const GROUP = "apiextensions.k8s.io";
const RETRY_BASE_MS = 100;
const RETRY_MAX_MS = 30_000;

/** Options of the controller. */
export interface CrdControllerOptions {
  registry: ResourceRegistry;
  /** The change feed it follows (started). */
  feed: ChangeFeed;
  logger?: Logger;
  /** What the definitions' converters need (the webhook client, for strategy Webhook). */
  conversion?: CustomResourceConverterDeps;
}

/** A resource registered for a definition; `served: false` for an unserved storage version. */
interface Resource {
  group: string;
  version: string;
  plural: string;
  served: boolean;
}

/** What one definition has registered. */
interface Served {
  /** What the kinds were built from (a change rebuilds them). */
  fingerprint: string;
  resources: Resource[];
}

/** Runs the lifecycle of CustomResourceDefinitions. */
export class CrdController {
  readonly #opts: CrdControllerOptions;
  readonly #queue: WorkQueue<string>;
  readonly #served = new Map<string, Served>();
  readonly #failures = new Map<string, number>();
  readonly #retries = new Set<ReturnType<typeof setTimeout>>();
  #unsubscribe?: () => void;

  constructor(opts: CrdControllerOptions) {
    this.#opts = opts;
    this.#queue = new WorkQueue(async (name) => {
      // Instances still being deleted (their finalizers) are waited for with the backoff.
      if (await this.#sync(name) === "pending") this.#retryLater(name);
      else this.#failures.delete(name);
    }, (name, err) => {
      opts.logger?.error("customresourcedefinition sync failed", { name, err: String(err) });
      this.#retryLater(name);
    });
  }

  /** Starts following the definitions; resolves once each existing one was synced. */
  async start(): Promise<void> {
    if (this.#queue.stopped || this.#unsubscribe) return;
    const prefix = this.#crds().prefix;
    const unsubscribe = await this.#opts.feed.follow([prefix], {
      reset: (items) => this.#onReset(items),
      changes: (events) => this.#onChanges(events),
    });
    if (this.#queue.stopped) {
      unsubscribe();
      return;
    }
    this.#unsubscribe = unsubscribe;
    await this.#queue.idle();
  }

  /** Stops the controller and waits for the work in progress. */
  async stop(): Promise<void> {
    const stopping = this.#queue.stop();
    this.#unsubscribe?.();
    for (const t of this.#retries) clearTimeout(t);
    this.#retries.clear();
    await stopping;
  }

  /** Resolves when no definition waits to be synced. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  #crds(): Store {
    return this.#opts.registry.lookup(GROUP, "v1", "customresourcedefinitions")!;
  }

  #onReset(items: KeyValue[]): void {
    const prefix = this.#crds().prefix;
    const names = new Set(items.map((kv) => kv.key.slice(prefix.length)));
    for (const name of this.#served.keys()) if (!names.has(name)) this.#queue.add(name);
    for (const name of names) this.#queue.add(name);
  }

  #onChanges(events: ChangeEvent[]): void {
    const prefix = this.#crds().prefix;
    for (const e of events) this.#queue.add(e.key.slice(prefix.length));
    // A definition changing or going away may free names another one waits for.
    this.#requeueNotAccepted();
  }

  #requeueNotAccepted(): void {
    this.#crds().list("", { plan: { mode: "latest" } }).then((list) => {
      for (const crd of list.items as CustomResourceDefinition[]) {
        if (!isConditionTrue(crd, "NamesAccepted")) this.#queue.add(crd.metadata.name!);
      }
    }).catch((err) => this.#opts.logger?.error("listing definitions", { err: String(err) }));
  }

  #retryLater(name: string): void {
    if (this.#queue.stopped) return;
    const failures = (this.#failures.get(name) ?? 0) + 1;
    this.#failures.set(name, failures);
    const delay = Math.min(RETRY_BASE_MS * 2 ** (failures - 1), RETRY_MAX_MS);
    const timer = setTimeout(() => {
      this.#retries.delete(timer);
      this.#queue.add(name);
    }, delay);
    this.#retries.add(timer);
  }

  async #sync(name: string): Promise<"done" | "pending"> {
    let crd: CustomResourceDefinition;
    try {
      crd = await this.#crds().get("", name) as CustomResourceDefinition;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) {
        this.#unserve(name);
        return "done";
      }
      throw err;
    }
    if (crd.metadata.deletionTimestamp) return await this.#finalize(crd);
    const next = await this.#withNames(crd);
    // Served before Established is written: a client that saw it finds the resource.
    if (isConditionTrue(next, "Established")) this.#serve(next, false);
    else this.#unserve(name);
    await this.#writeStatus(crd, next);
    return "done";
  }

  /** The definition with its names accepted, its conditions and storedVersions set. */
  async #withNames(crd: CustomResourceDefinition): Promise<CustomResourceDefinition> {
    const others = (await this.#crds().list("", { plan: { mode: "latest" } }))
      .items as CustomResourceDefinition[];
    const name = crd.metadata.name!;
    const used = usedNames(crd.spec.group, name, others, this.#builtinNames(crd.spec.group));
    const result = calculateNames(crd, used);
    const next = structuredClone(crd);
    next.status ??= {};
    next.status.acceptedNames = result.acceptedNames;
    setCondition(next, result.namesAccepted);
    setCondition(next, result.established);
    const storage = crd.spec.versions?.find((v) => v.storage)?.name;
    const stored = next.status.storedVersions ?? [];
    if (storage && result.established.status === "True" && !stored.includes(storage)) {
      next.status.storedVersions = [...stored, storage];
    }
    return next;
  }

  async #writeStatus(
    crd: CustomResourceDefinition,
    next: CustomResourceDefinition,
  ): Promise<CustomResourceDefinition> {
    if (deepEqual(crd.status, next.status)) return crd;
    const { object } = await this.#crds().update("", crd.metadata.name!, next, {
      subresource: "status",
    });
    return object as CustomResourceDefinition;
  }

  /** The names of the resources of `group` not served for a definition (built-in ones). */
  #builtinNames(group: string): UsedNames {
    const mine = new Set<string>();
    for (const s of this.#served.values()) {
      for (const r of s.resources) mine.add(`${r.group}/${r.version}/${r.plural}`);
    }
    const used: UsedNames = { resources: new Set(), kinds: new Set() };
    for (const store of this.#opts.registry.all()) {
      const d = store.def;
      if (d.group !== group || mine.has(`${d.group}/${d.version}/${d.plural}`)) continue;
      for (const r of [d.plural, d.singular, ...d.shortNames ?? []]) used.resources.add(r);
      used.kinds.add(d.kind);
      used.kinds.add(`${d.kind}List`);
    }
    return used;
  }

  /** Registers the definition's kinds (again when it changed). */
  #serve(crd: CustomResourceDefinition, terminating: boolean): void {
    const name = crd.metadata.name!;
    const fingerprint = JSON.stringify([crd.spec, crd.status?.acceptedNames, terminating]);
    const before = this.#served.get(name);
    if (before?.fingerprint === fingerprint) return;
    const kinds = customResourceKinds(crd, { terminating, conversion: this.#opts.conversion });
    const registry = this.#opts.registry;
    const unserved = kinds.unservedStorage ? [kinds.unservedStorage] : [];
    const resources: Resource[] = [
      ...unserved.map((k) => ({
        group: k.group,
        version: k.version,
        plural: k.plural,
        served: false,
      })),
      ...kinds.served.map((k) => ({
        group: k.group,
        version: k.version,
        plural: k.plural,
        served: true,
      })),
    ];
    const id = (r: Resource) => `${r.group}/${r.version}/${r.plural}`;
    const now = new Map(resources.map((r) => [id(r), r.served]));
    // A version that changes between served and unserved goes first; the others that go
    // away go after the new kinds are in (their watch cache stays when still needed).
    const stale = (before?.resources ?? []).filter((r) => now.get(id(r)) !== r.served);
    for (const r of stale.filter((r) => now.has(id(r)))) {
      registry.remove(r.group, r.version, r.plural);
    }
    for (const k of unserved) registry.addUnserved(k);
    for (const k of kinds.served) registry.add(k);
    for (const r of stale.filter((r) => !now.has(id(r)))) {
      registry.remove(r.group, r.version, r.plural);
    }
    this.#served.set(name, { fingerprint, resources });
  }

  /** Stops serving a definition's kinds. */
  #unserve(name: string): void {
    const served = this.#served.get(name);
    if (!served) return;
    this.#served.delete(name);
    // Kinds served from the storage version's store go first.
    for (const r of [...served.resources].reverse()) {
      this.#opts.registry.remove(r.group, r.version, r.plural);
    }
  }

  /** A deleted definition: its instances deleted, then its cleanup finalizer removed. */
  async #finalize(crd: CustomResourceDefinition): Promise<"done" | "pending"> {
    const name = crd.metadata.name!;
    if (!crd.metadata.finalizers?.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) {
      this.#unserve(name);
      return "done";
    }
    const next = structuredClone(crd);
    if (isConditionTrue(crd, "Established")) {
      this.#serve(crd, true);
      const storage = crd.spec.versions?.find((v) => v.storage)?.name ?? "";
      const store = this.#opts.registry.lookup(crd.spec.group, storage, this.#plural(name));
      const outcome = await deleteAllInstances(store);
      setCondition(next, outcome.condition);
      if (!outcome.done) {
        await this.#writeStatus(crd, next);
        if (outcome.condition.reason === "InstanceDeletionInProgress") return "pending";
        throw new Error(outcome.condition.message);
      }
    } else {
      setCondition(next, {
        type: "Terminating",
        status: "False",
        reason: "NeverEstablished",
        message: "resource was never established",
      });
    }
    await this.#writeStatus(crd, next);
    this.#unserve(name);
    await this.#crds().guaranteedUpdate("", name, (current) => {
      if (!current) return undefined;
      const fins = current.metadata.finalizers ?? [];
      if (!fins.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) return undefined;
      current.metadata.finalizers = fins.filter((f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER);
      return current;
    }).catch((err) => {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    });
    return "done";
  }

  #plural(name: string): string {
    return this.#served.get(name)?.resources[0]?.plural ?? name.split(".")[0];
  }
}
