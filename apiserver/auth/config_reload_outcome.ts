/**
 * The outcome of an automatic reload of an access-control configuration file, shared by the
 * authentication and authorization reload controllers: kube's two reload metrics
 * (`apiserver_<kind>_config_controller_automatic_reloads_total` and
 * `…_automatic_reload_last_timestamp_seconds`, by status and API server identity) and the
 * error line of a failed reload.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Logger } from "../../shared/log/mod.ts";
import type { Counter, Gauge, MetricsRegistry } from "../metrics/mod.ts";

/** The two reload metrics of one configuration kind. */
export interface ReloadMetrics {
  total: Counter;
  last: Gauge;
}

/** Defines the reload metrics of `kind` in `registry`. */
export function configReloadMetrics(
  registry: MetricsRegistry,
  kind: "authentication" | "authorization",
  stabilityLevel?: "BETA",
): ReloadMetrics {
  const labels = ["status", "apiserver_id_hash"];
  const name = `apiserver_${kind}_config_controller_automatic_reload`;
  const what = `automatic reloads of ${kind} configuration split by status and apiserver identity.`;
  return {
    total: registry.counter({
      name: `${name}s_total`,
      help: `Total number of ${what}`,
      labels,
      ...(stabilityLevel ? { stabilityLevel } : {}),
    }),
    last: registry.gauge({
      name: `${name}_last_timestamp_seconds`,
      help: `Timestamp of the last ${what.replace("reloads", "reload")}`,
      labels,
      ...(stabilityLevel ? { stabilityLevel } : {}),
    }),
  };
}

/** Records reloads: the metrics (labelled with the hashed API server id) and failures' logs. */
export class ReloadOutcome {
  readonly #metrics?: ReloadMetrics;
  readonly #logger?: Logger;
  readonly #idHash: string;

  constructor(apiServerId: string, metrics?: ReloadMetrics, logger?: Logger) {
    this.#metrics = metrics;
    this.#logger = logger;
    this.#idHash = `sha256:${createHash("sha256").update(apiServerId).digest("hex")}`;
  }

  /** A new configuration took effect. */
  success(): void {
    this.#record("success");
  }

  /** A reload failed: logged (`err` never holds a credential) and counted. */
  failure(message: string, err: string): void {
    this.#logger?.error(message, { err });
    this.#record("failure");
  }

  #record(status: "success" | "failure"): void {
    const labels = { status, apiserver_id_hash: this.#idHash };
    this.#metrics?.total.inc(labels);
    this.#metrics?.last.set(labels, Date.now() / 1000);
  }
}
