/**
 * Picks an endpoint for a new connection: at random among the ready endpoints, or, for a
 * Service with `sessionAffinity: ClientIP`, the endpoint the same client IP used last while
 * that is within the affinity timeout and still an endpoint.
 *
 * @module
 */
import type { Endpoint, ServicePortRule } from "./proxy_table.ts";

/** Chooses endpoints; holds the ClientIP affinity records. */
export class EndpointPicker {
  readonly #affinity = new Map<string, { ep: Endpoint; until: number }>();
  readonly #now: () => number;
  readonly #random: () => number;

  /** `now` and `random` are replaceable for tests. */
  constructor(opts: { now?: () => number; random?: () => number } = {}) {
    this.#now = opts.now ?? Date.now;
    this.#random = opts.random ?? Math.random;
  }

  /** An endpoint of `rule` for `clientIP`, never one of `exclude`; undefined when none is left. */
  pick(rule: ServicePortRule, clientIP: string, exclude: Endpoint[] = []): Endpoint | undefined {
    const same = (a: Endpoint, b: Endpoint) => a.ip === b.ip && a.port === b.port;
    const usable = rule.endpoints.filter((e) => !exclude.some((x) => same(x, e)));
    if (!usable.length) return undefined;
    const now = this.#now();
    const key = `${rule.name}|${clientIP}`;
    if (rule.affinitySeconds !== undefined) {
      const held = this.#affinity.get(key);
      if (held && held.until > now && usable.some((e) => same(e, held.ep))) {
        held.until = now + rule.affinitySeconds * 1000;
        return held.ep;
      }
    }
    const ep = usable[Math.floor(this.#random() * usable.length) % usable.length];
    if (rule.affinitySeconds !== undefined) {
      this.#affinity.set(key, { ep, until: now + rule.affinitySeconds * 1000 });
    }
    return ep;
  }

  /** Forgets expired records and those of rules no longer present. */
  prune(ruleNames: Set<string>): void {
    const now = this.#now();
    for (const [k, v] of this.#affinity) {
      if (v.until <= now || !ruleNames.has(k.slice(0, k.lastIndexOf("|")))) {
        this.#affinity.delete(k);
      }
    }
  }
}
