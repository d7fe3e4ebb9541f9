/**
 * The repair loop of the Service allocators, as kube-apiserver's ClusterIP and NodePort
 * repair controllers (every 3 minutes): a claim key no Service holds is a leak and is
 * deleted (compare-and-swap on its revision, so a claim taken meanwhile stays); a value a
 * Service holds without its key (data written before the claims existed, a restored backup)
 * is claimed again.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { Claims } from "../registry/generic/claims.ts";
import type { Store } from "../registry/generic/store.ts";
import {
  KeyExistsError,
  KeyNotFoundError,
  RevisionConflictError,
  type Storage,
} from "../storage/interface.ts";

const INTERVAL_MS = 3 * 60_000;

/** Options of the repair loop. */
export interface ServiceAllocationRepairOptions {
  storage: Storage;
  /** The Service store (its kind declares the claims). */
  services: Store;
  /** Key prefixes of the claims (ClusterIPs, NodePorts). */
  prefixes: readonly string[];
  logger?: Logger;
}

/** What one repair pass did. */
export interface RepairResult {
  released: string[];
  reclaimed: string[];
}

/** Finds and fixes leaked and missing allocations. */
export class ServiceAllocationRepair {
  readonly #opts: ServiceAllocationRepairOptions;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(opts: ServiceAllocationRepairOptions) {
    this.#opts = opts;
  }

  /** Repairs now, then every 3 minutes until {@link stop}. */
  async start(): Promise<void> {
    await this.repair();
    this.#timer = setInterval(() => {
      this.#running = this.repair().catch((err) =>
        this.#opts.logger?.error("service allocation repair failed", { err: String(err) })
      );
    }, INTERVAL_MS);
  }

  /** Stops the loop and waits for a running pass. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  /** One pass: claim keys are read before the Services, so a claim made meanwhile is seen held. */
  async repair(): Promise<RepairResult> {
    const { storage, services, prefixes } = this.#opts;
    const claims = services.def.claims as Claims;
    const keys = [];
    for (const p of prefixes) keys.push(...(await storage.list(p)).items);
    const held = new Map<string, string>();
    for (
      const svc of (await services.list("", { plan: { mode: "latest" } })).items as KubeObject[]
    ) {
      for (const [k, v] of claims.keys(svc)) held.set(k, v);
    }
    const result: RepairResult = { released: [], reclaimed: [] };
    for (const kv of keys) {
      if (held.has(kv.key)) continue;
      try {
        await storage.delete(kv.key, kv.revision);
        result.released.push(kv.key);
      } catch (err) {
        if (!(err instanceof RevisionConflictError || err instanceof KeyNotFoundError)) throw err;
      }
    }
    const present = new Set(keys.map((kv) => kv.key));
    for (const [key, owner] of held) {
      if (present.has(key)) continue;
      try {
        await storage.create(key, owner);
        result.reclaimed.push(key);
      } catch (err) {
        if (!(err instanceof KeyExistsError)) throw err;
      }
    }
    if (result.released.length + result.reclaimed.length > 0) {
      this.#opts.logger?.warn("service allocations repaired", { ...result });
    }
    return result;
  }
}
