/**
 * A set of controllers that runs only while this server leads its election: they are made
 * afresh and started when the Lease is won, and stopped when it is lost or the server stops.
 * Winning records kube's `LeaderElection` event (`<identity> became leader`) on the Lease.
 *
 * @module
 */
import type { Logger } from "../../../shared/log/mod.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import { ControllerEvents } from "../workloads/controller_events.ts";
import { type ElectionTiming, LeaderElector } from "./leader_elector.ts";

/** A controller that starts and stops. */
export interface Runnable {
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}

/** What an elected set runs on. */
export interface ElectedControllersOptions {
  registry: ResourceRegistry;
  /** The Lease: `kube-system/kube-controller-manager` or `kube-system/kube-scheduler`. */
  namespace: string;
  name: string;
  identity: string;
  timing: ElectionTiming;
  /** Makes the controllers (called each time leadership is won). */
  make: () => Runnable[];
  /** The component the LeaderElection event is reported by. */
  component: string;
  now?: () => number;
  logger?: Logger;
}

/** Runs controllers while leading. */
export class ElectedControllers implements Runnable {
  readonly elector: LeaderElector;
  #running: Runnable[] = [];

  constructor(opts: ElectedControllersOptions) {
    const events = new ControllerEvents(
      () => opts.registry.lookup("", "v1", "events"),
      opts.component,
      { now: opts.now ?? Date.now },
    );
    this.elector = new LeaderElector({
      ...opts.timing,
      leases: () => opts.registry.lookup("coordination.k8s.io", "v1", "leases")!,
      namespace: opts.namespace,
      name: opts.name,
      identity: opts.identity,
      now: opts.now,
      logger: opts.logger,
      onStartedLeading: async () => {
        const lease = await opts.registry.lookup("coordination.k8s.io", "v1", "leases")!
          .get(opts.namespace, opts.name).catch(() => undefined);
        if (lease) {
          await events.record(lease, "Normal", "LeaderElection", `${opts.identity} became leader`)
            .catch(() => {});
        }
        this.#running = opts.make();
        for (const c of this.#running) await c.start();
      },
      onStoppedLeading: async () => {
        const running = this.#running;
        this.#running = [];
        for (const c of running) await c.stop();
      },
    });
  }

  /** Starts campaigning; resolves after the first attempt. */
  async start(): Promise<void> {
    await this.elector.start();
  }

  /** Stops campaigning, and the controllers if leading (the Lease is released). */
  async stop(): Promise<void> {
    await this.elector.stop();
  }
}

/** Runs controllers at once, without an election (`--leader-elect=false`). */
export class UnelectedControllers implements Runnable {
  readonly #make: () => Runnable[];
  #running: Runnable[] = [];

  constructor(make: () => Runnable[]) {
    this.#make = make;
  }

  /** Makes and starts the controllers. */
  async start(): Promise<void> {
    this.#running = this.#make();
    for (const c of this.#running) await c.start();
  }

  /** Stops them. */
  async stop(): Promise<void> {
    for (const c of this.#running) await c.stop();
    this.#running = [];
  }
}
