/**
 * Keeps one local APIService per group version this server serves, as kube-apiserver's
 * autoregistration and CRD registration controllers do: built-in group versions get kube's
 * priorities (label `kube-aggregator.kubernetes.io/automanaged: onstart`), custom resource
 * group versions priority 1000/100 (label value `true`); automanaged APIServices of group
 * versions no longer served are deleted, and an APIService someone else made is left alone.
 * Every local APIService is `Available` (reason `Local`), as kube's local availability
 * controller keeps it.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { Store } from "../registry/generic/store.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { ApiServiceCache } from "./api_service_cache.ts";
import { LOCAL_AVAILABILITY, withAvailability } from "./available_condition.ts";
import { builtinPriority, CUSTOM_RESOURCE_PRIORITY } from "./priorities.ts";

/** The label kube's autoregistration marks the APIServices it manages with. */
export const AUTOMANAGED_LABEL = "kube-aggregator.kubernetes.io/automanaged";

/** The field manager of the writes (kube-apiserver's). */
const MANAGER = { fieldManager: "kube-apiserver" };

/** How long a starting server keeps custom resource APIServices it does not serve (yet). */
const CUSTOM_RESOURCE_GRACE_MS = 60_000;

/** One wanted local APIService. */
interface Wanted {
  name: string;
  spec: Record<string, unknown>;
  label: "onstart" | "true";
}

/** The local APIServices the registry's group versions call for. */
export function wantedLocalApiServices(registry: ResourceRegistry): Wanted[] {
  const out = new Map<string, Wanted>();
  for (const s of registry.all()) {
    const { group, version } = s.def;
    const name = `${version}.${group}`;
    if (out.has(name)) continue;
    const builtin = builtinPriority(group, version);
    const p = builtin ?? CUSTOM_RESOURCE_PRIORITY;
    out.set(name, {
      name,
      spec: { group, version, groupPriorityMinimum: p.group, versionPriority: p.version },
      label: builtin ? "onstart" : "true",
    });
  }
  return [...out.values()];
}

/** Options of the controller. */
export interface LocalApiServicesOptions {
  registry: ResourceRegistry;
  cache: ApiServiceCache;
  logger?: Logger;
}

/** The controller; see the module documentation. */
export class LocalApiServices {
  readonly #opts: LocalApiServicesOptions;
  #running?: Promise<void>;
  #again = false;
  #stopped = false;
  #timer?: ReturnType<typeof setTimeout>;
  readonly #unsubscribes: (() => void)[] = [];
  /** The APIServices this process wanted at some point. */
  readonly #served = new Set<string>();
  readonly #startedAt = Date.now();

  constructor(opts: LocalApiServicesOptions) {
    this.#opts = opts;
  }

  /** Syncs once, then again whenever the served kinds or the APIServices change. */
  async start(): Promise<void> {
    await this.sync();
    const later = () => this.#schedule();
    this.#unsubscribes.push(this.#opts.registry.onChange(later), this.#opts.cache.onChange(later));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    for (const u of this.#unsubscribes) u();
    await this.#running?.catch(() => {});
  }

  /** One pass (a pass asked for while one runs runs after it). */
  sync(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#pass().finally(() => {
      this.#running = undefined;
      if (this.#again && !this.#stopped) {
        this.#again = false;
        this.#schedule();
      }
    });
    return this.#running;
  }

  #schedule(): void {
    if (this.#stopped || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.sync().catch((err) =>
        this.#opts.logger?.error("local APIService sync failed", { err: String(err) })
      );
    }, 50);
  }

  async #pass(): Promise<void> {
    const store = this.#opts.registry.lookup("apiregistration.k8s.io", "v1", "apiservices");
    if (!store) return;
    const wanted = wantedLocalApiServices(this.#opts.registry);
    const names = new Set(wanted.map((w) => w.name));
    for (const w of wanted) {
      await this.#ensure(store, w);
      this.#served.add(w.name);
    }
    for (const info of this.#opts.cache.all()) {
      const label = info.object.metadata?.labels?.[AUTOMANAGED_LABEL];
      if (label && !names.has(info.name)) {
        if (this.#mayRemove(label, info.name)) await ignoreNotFound(store.delete("", info.name));
      } else if (!info.service) await this.#markLocal(store, info.object);
    }
  }

  /**
   * Whether an automanaged APIService no longer wanted goes: a built-in one at once; a custom
   * resource's once this server served it, or after the grace period in which the custom
   * resources of a starting server get registered (kube waits for its CRD informer's sync).
   */
  #mayRemove(label: string, name: string): boolean {
    if (label !== "true") return true;
    return this.#served.has(name) || Date.now() - this.#startedAt > CUSTOM_RESOURCE_GRACE_MS;
  }

  async #ensure(store: Store, w: Wanted): Promise<void> {
    let current = this.#opts.cache.get(w.name)?.object;
    if (!current) {
      const body: KubeObject = {
        apiVersion: "apiregistration.k8s.io/v1",
        kind: "APIService",
        metadata: { name: w.name, labels: { [AUTOMANAGED_LABEL]: w.label } },
        spec: w.spec,
      };
      try {
        current = await store.create("", body, MANAGER);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 409)) throw err;
        current = await store.get("", w.name);
      }
    } else if (current.metadata?.labels?.[AUTOMANAGED_LABEL] && specDiffers(current, w)) {
      const next = structuredClone(current);
      next.spec = w.spec;
      delete next.metadata.resourceVersion;
      current = (await store.update("", w.name, next, MANAGER)).object;
    }
    if (!hasService(current)) await this.#markLocal(store, current);
  }

  async #markLocal(store: Store, o: KubeObject): Promise<void> {
    if (!withAvailability(o, LOCAL_AVAILABILITY)) return;
    await ignoreNotFound(store.guaranteedUpdate(
      "",
      o.metadata!.name!,
      (cur) => {
        if (!cur || hasService(cur)) return undefined;
        const status = withAvailability(cur, LOCAL_AVAILABILITY);
        if (!status) return undefined;
        cur.status = status;
        return cur;
      },
      {},
      { subresource: "status" },
    ));
  }
}

function hasService(o: KubeObject): boolean {
  return isObject(o.spec) && isObject(o.spec.service);
}

function specDiffers(o: KubeObject, w: Wanted): boolean {
  const spec = isObject(o.spec) ? o.spec : {};
  return isObject(spec.service) || spec.group !== w.spec.group ||
    spec.version !== w.spec.version ||
    spec.groupPriorityMinimum !== w.spec.groupPriorityMinimum ||
    spec.versionPriority !== w.spec.versionPriority;
}

async function ignoreNotFound(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
  }
}
