/**
 * Leader election through a coordination.k8s.io/v1 Lease, as client-go's leaderelection does
 * it with a LeaseLock: every candidate tries to acquire or renew the Lease every retry period;
 * a Lease held by another is taken only once it has not changed for its lease duration, timed
 * on the local clock from when this candidate last saw it change (never from the holder's
 * `renewTime`, so clock skew does not matter). The leader renews every retry period and, if
 * it cannot renew within the renew deadline, stops leading. A candidate that stops while
 * leading releases the Lease (holder cleared, duration 1 s) so another takes over at once.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { Store } from "../../registry/generic/store.ts";

/** Timing of an election, ms (kube-controller-manager's defaults: 15 s, 10 s, 2 s). */
export interface ElectionTiming {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** Options of a {@link LeaderElector}. */
export interface LeaderElectorOptions extends ElectionTiming {
  /** The leases store (coordination.k8s.io/v1). */
  leases: () => Store;
  namespace: string;
  name: string;
  /** This candidate's identity (`<hostname>_<uuid>`). */
  identity: string;
  /** Called when this candidate becomes the leader. */
  onStartedLeading: () => void | Promise<void>;
  /** Called when it stops leading (lost the lease, or stopped). */
  onStoppedLeading: () => void | Promise<void>;
  /** Clock, ms since the epoch. */
  now?: () => number;
  logger?: Logger;
}

/** The Lease's spec as the elector reads and writes it. */
interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** A Kubernetes MicroTime (RFC 3339 with microseconds). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** One candidate of an election. */
export class LeaderElector {
  readonly #opts: LeaderElectorOptions;
  readonly #now: () => number;
  /** The spec last seen, and when (local clock) it was first seen that way. */
  #observed?: { spec: string; at: number; holder: string };
  #leading = false;
  /** When this leader last renewed, local clock. */
  #renewedAt = 0;
  #timer?: ReturnType<typeof setTimeout>;
  #stopped = false;
  #running?: Promise<unknown>;
  #transition: Promise<void> = Promise.resolve();

  constructor(opts: LeaderElectorOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** Whether this candidate leads. */
  get leading(): boolean {
    return this.#leading;
  }

  /** The identity of the holder last observed ("" when none). */
  get observedHolder(): string {
    return this.#observed?.holder ?? "";
  }

  /**
   * Starts campaigning: one attempt now (resolves after it, and after the controllers started
   * if it won), then one every retry period.
   */
  async start(): Promise<void> {
    if (this.#timer || this.#stopped || this.#running) return;
    const loop = async () => {
      this.#running = this.tick();
      await this.#running;
      if (!this.#stopped) this.#timer = setTimeout(loop, this.#opts.retryPeriodMs);
    };
    await loop();
  }

  /** Stops campaigning; a leader stops leading (its callback awaited) and releases the Lease. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    if (this.#leading) {
      await this.#setLeading(false);
      await this.#release().catch((err) =>
        this.#opts.logger?.warn("lease not released", { lease: this.#opts.name, err: String(err) })
      );
    }
    await this.#transition;
  }

  /**
   * One attempt to acquire or renew; starts or stops leading as the outcome says (a leader
   * stops once it could not renew for the renew deadline). Answers whether it leads.
   */
  async tick(): Promise<boolean> {
    let ok = false;
    try {
      ok = await this.tryAcquireOrRenew();
    } catch (err) {
      this.#opts.logger?.warn("leader election attempt failed", {
        lease: this.#opts.name,
        err: String(err),
      });
    }
    if (this.#stopped) return this.#leading;
    if (ok) {
      this.#renewedAt = this.#now();
      if (!this.#leading) await this.#setLeading(true);
    } else if (this.#leading && this.#now() - this.#renewedAt >= this.#opts.renewDeadlineMs) {
      this.#opts.logger?.warn("leader election lost", { lease: this.#opts.name });
      await this.#setLeading(false);
    } else if (this.#leading && this.observedHolder !== this.#opts.identity) {
      await this.#setLeading(false); // someone else holds it now
    }
    return this.#leading;
  }

  async #setLeading(on: boolean): Promise<void> {
    this.#leading = on;
    this.#opts.logger?.info(on ? "became leader" : "stopped leading", {
      lease: `${this.#opts.namespace}/${this.#opts.name}`,
      identity: this.#opts.identity,
    });
    const next = this.#transition.then(() =>
      on ? this.#opts.onStartedLeading() : this.#opts.onStoppedLeading()
    ).catch((err) =>
      this.#opts.logger?.error("leader callback failed", {
        lease: this.#opts.name,
        err: String(err),
      })
    );
    this.#transition = next;
    await next;
  }

  /** client-go's tryAcquireOrRenew on a Lease: answers whether this candidate holds it now. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.#opts;
    const now = this.#now();
    const store = this.#opts.leases();
    let current: KubeObject | undefined;
    try {
      current = await store.get(namespace, name);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
    const spec: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.max(1, Math.round(this.#opts.leaseDurationMs / 1000)),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    if (!current) {
      try {
        const created = await store.create(namespace, { metadata: { name, namespace }, spec });
        this.#observe(created, now);
        return true;
      } catch (err) {
        if (err instanceof StatusError && err.code === 409) return false;
        throw err;
      }
    }
    const old = (current.spec ?? {}) as LeaseSpec;
    this.#observe(current, now);
    const holder = old.holderIdentity ?? "";
    const expired = this.#observed!.at + (old.leaseDurationSeconds ?? 0) * 1000 <= now;
    if (holder !== "" && holder !== identity && !expired) return false;
    if (holder === identity) {
      spec.acquireTime = old.acquireTime ?? spec.acquireTime;
      spec.leaseTransitions = old.leaseTransitions ?? 0;
    } else {
      spec.leaseTransitions = (old.leaseTransitions ?? 0) + 1;
    }
    current.spec = spec as unknown as Record<string, unknown>;
    try {
      const { object } = await store.update(namespace, name, current);
      this.#observe(object, now);
      return true;
    } catch (err) {
      if (err instanceof StatusError && (err.code === 409 || err.code === 404)) return false;
      throw err;
    }
  }

  #observe(lease: KubeObject, now: number): void {
    const spec = JSON.stringify(lease.spec ?? {});
    if (this.#observed?.spec === spec) return;
    const holder = ((lease.spec ?? {}) as LeaseSpec).holderIdentity ?? "";
    this.#observed = { spec, at: now, holder };
  }

  /** Gives the Lease up: no holder, a one-second duration. */
  async #release(): Promise<void> {
    const { namespace, name, identity } = this.#opts;
    const now = microTime(this.#now());
    await this.#opts.leases().guaranteedUpdate(namespace, name, (current) => {
      const old = (current?.spec ?? {}) as LeaseSpec;
      if (!current || old.holderIdentity !== identity) return undefined;
      current.spec = {
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: old.leaseTransitions ?? 0,
      };
      return current;
    });
  }
}
