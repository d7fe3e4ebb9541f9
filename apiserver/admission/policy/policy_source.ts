/**
 * The ValidatingAdmissionPolicies and their bindings as the plugin evaluates them: followed
 * through the change feed (every API server's writes, this one's before its write returns), each
 * policy compiled once per generation and each binding's match resources once per version.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import type { CelEnvironment } from "../../cel/mod.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ChangeEvent, KeyValue } from "../../storage/interface.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { type MatchCriteria, ResourceMatcher } from "../matching/resource_matcher.ts";
import { type CompiledPolicy, compilePolicy } from "./compiled_policy.ts";

/** A binding with its compiled match resources. */
export interface CompiledBinding {
  name: string;
  object: KubeObject;
  matcher: ResourceMatcher;
  /** `Deny`, `Warn`, `Audit`. */
  actions: string[];
}

/** A policy with the bindings that name it. */
export interface PolicyHook {
  policy: CompiledPolicy;
  bindings: CompiledBinding[];
}

/** What the source reads. */
export interface PolicySourceOptions {
  feed: ChangeFeed;
  policies: () => Store | undefined;
  bindings: () => Store | undefined;
  env: CelEnvironment;
}

function compileBinding(obj: KubeObject): CompiledBinding {
  const spec = isObject(obj.spec) ? obj.spec : {};
  return {
    name: obj.metadata.name ?? "",
    object: obj,
    matcher: ResourceMatcher.compile(
      isObject(spec.matchResources) ? spec.matchResources as MatchCriteria : undefined,
      { emptyRulesMatchAll: true },
    ),
    actions: Array.isArray(spec.validationActions) ? spec.validationActions.map(String) : [],
  };
}

function policyNameOf(b: CompiledBinding): string {
  const spec = isObject(b.object.spec) ? b.object.spec : {};
  return typeof spec.policyName === "string" ? spec.policyName : "";
}

/** Policies and bindings followed from the change feed. */
export class PolicySource {
  readonly #opts: PolicySourceOptions;
  readonly #policies = new Map<string, CompiledPolicy>();
  readonly #bindings = new Map<string, CompiledBinding>();
  #hooks?: PolicyHook[];
  #started?: Promise<void>;
  #stop?: () => void;

  constructor(opts: PolicySourceOptions) {
    this.#opts = opts;
  }

  /** The policies with their bindings (following the feed from the first call). */
  async hooks(): Promise<PolicyHook[]> {
    if (!this.#stop) {
      this.#started ??= this.#start().catch((e) => {
        this.#started = undefined;
        throw e;
      });
      await this.#started;
    }
    return this.#hooks ??= this.#assemble();
  }

  /** Stops following the feed. */
  stop(): void {
    this.#stop?.();
  }

  async #start(): Promise<void> {
    const p = this.#opts.policies(), b = this.#opts.bindings();
    if (!p || !b) throw new Error("the admission policy kinds are not served");
    this.#stop = await this.#opts.feed.follow([p.prefix, b.prefix], {
      reset: (items) => this.#reset(items, p, b),
      changes: (events) => this.#changes(events, p, b),
    });
  }

  #reset(items: KeyValue[], p: Store, b: Store): void {
    this.#policies.clear();
    this.#bindings.clear();
    for (const kv of items) this.#put(kv.key, p.decode(kv), p, b);
    this.#hooks = undefined;
  }

  #changes(events: ChangeEvent[], p: Store, b: Store): void {
    for (const ev of events) {
      const name = this.#nameOf(ev.key, p, b);
      if (ev.type === "DELETED") {
        if (ev.key.startsWith(p.prefix)) this.#policies.delete(name);
        else this.#bindings.delete(name);
      } else {
        this.#put(ev.key, p.decode({ value: ev.value, revision: ev.revision }), p, b);
      }
    }
    this.#hooks = undefined;
  }

  #nameOf(key: string, p: Store, b: Store): string {
    return key.slice((key.startsWith(p.prefix) ? p.prefix : b.prefix).length);
  }

  #put(key: string, obj: KubeObject, p: Store, b: Store): void {
    const name = this.#nameOf(key, p, b);
    if (key.startsWith(p.prefix)) {
      const old = this.#policies.get(name);
      const generation = Number(obj.metadata.generation ?? 0);
      if (old && old.generation === generation && generation > 0) return;
      this.#policies.set(name, compilePolicy(obj, this.#opts.env));
    } else {
      this.#bindings.set(name, compileBinding(obj));
    }
  }

  #assemble(): PolicyHook[] {
    const byPolicy = new Map<string, CompiledBinding[]>();
    for (const b of [...this.#bindings.values()].sort((x, y) => cmp(x.name, y.name))) {
      const name = policyNameOf(b);
      const list = byPolicy.get(name);
      if (list) list.push(b);
      else byPolicy.set(name, [b]);
    }
    const hooks: PolicyHook[] = [];
    for (const policy of [...this.#policies.values()].sort((x, y) => cmp(x.name, y.name))) {
      const bindings = byPolicy.get(policy.name);
      if (bindings) hooks.push({ policy, bindings });
    }
    return hooks;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
