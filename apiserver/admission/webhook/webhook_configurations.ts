/**
 * The webhooks of every Mutating- or ValidatingWebhookConfiguration, followed through the
 * change feed (every API server's writes, in revision order) and rebuilt into an immutable
 * {@link WebhookSet} on each change: configurations in name order, webhooks in their order,
 * selectors converted and match conditions compiled once per configuration generation, and
 * an index by resource so a request no rule can match looks at nothing.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { AdmissionAttributes } from "../../registry/generic/admission.ts";
import type { ResourceFeed } from "../../auth/authz/resource_feed.ts";
import { CelEnvironment, type CelProgram } from "../../cel/mod.ts";
import { ADMISSION_REQUEST_SCHEMA } from "../../cel/contexts.ts";
import { type MatchCriteria, ResourceMatcher } from "../matching/resource_matcher.ts";

type Obj = Record<string, unknown>;

/** A compiled match condition, or why it does not compile. */
export interface MatchCondition {
  name: string;
  expression: string;
  program?: CelProgram;
  error?: string;
}

/** One webhook of a configuration, ready to match and call. */
export interface WebhookEntry {
  /** Position in the set (calls follow it). */
  index: number;
  /** `<configuration>/<webhook>/<index>`: identifies it across reinvocations. */
  uid: string;
  configName: string;
  name: string;
  /** The webhook as stored (defaults applied). */
  hook: Obj;
  /** The rules, selectors and match policy, compiled. */
  matcher: ResourceMatcher;
  matchConditions: MatchCondition[];
}

/** An immutable snapshot of the webhooks. */
export class WebhookSet {
  readonly #byResource = new Map<string, WebhookEntry[]>();
  readonly #any: WebhookEntry[] = [];

  constructor(readonly generation: number, readonly entries: readonly WebhookEntry[]) {
    for (const e of entries) {
      const keys = new Set<string>();
      for (const rule of Array.isArray(e.hook.rules) ? e.hook.rules : []) {
        for (const r of Array.isArray(rule?.resources) ? rule.resources : []) {
          if (typeof r === "string") keys.add(r.split("/")[0]);
        }
      }
      if (keys.has("*")) {
        this.#any.push(e);
        continue;
      }
      for (const k of keys) {
        const list = this.#byResource.get(k) ?? [];
        list.push(e);
        this.#byResource.set(k, list);
      }
    }
  }

  /** The webhooks whose rules may name `resource` (in order); the rules decide. */
  candidates(resource: string): WebhookEntry[] {
    const named = this.#byResource.get(resource);
    if (!named) return this.#any;
    if (this.#any.length === 0) return named;
    return [...named, ...this.#any].sort((a, b) => a.index - b.index);
  }
}

/** The match conditions' environment: object, oldObject, request and authorizer. */
export function matchConditionEnvironment(): CelEnvironment {
  return CelEnvironment.create({
    variables: [
      { name: "object" },
      { name: "oldObject" },
      { name: "request", schema: ADMISSION_REQUEST_SCHEMA, escapeNames: false },
    ],
    authorizer: true,
  });
}

function compileConditions(env: CelEnvironment, v: unknown): MatchCondition[] {
  const out: MatchCondition[] = [];
  for (const c of Array.isArray(v) ? v : []) {
    const name = typeof c?.name === "string" ? c.name : "";
    const expression = typeof c?.expression === "string" ? c.expression : "";
    const compiled = env.compile(expression);
    if (compiled.ok) out.push({ name, expression, program: compiled.program });
    else out.push({ name, expression, error: compiled.errors.map((e) => e.detail).join("; ") });
  }
  return out;
}

/** Options of {@link WebhookConfigurations}. */
export interface WebhookConfigurationsOptions {
  /** The storage prefix of the configuration kind (undefined: not served). */
  prefix: () => string | undefined;
  /** The change feed to follow it through. */
  feed: () => ResourceFeed;
  /** The match conditions' environment (shared by both plugins). */
  env: CelEnvironment;
}

/** Follows one configuration kind; see the module documentation. */
export class WebhookConfigurations {
  readonly #opts: WebhookConfigurationsOptions;
  readonly #objects = new Map<string, KubeObject>();
  /** Compiled entries per configuration key, kept while its resourceVersion holds. */
  readonly #built = new Map<string, { rv: string; entries: Omit<WebhookEntry, "index">[] }>();
  #set = new WebhookSet(0, []);
  #started?: Promise<void>;
  #stop?: () => void;
  #closed = false;

  constructor(opts: WebhookConfigurationsOptions) {
    this.#opts = opts;
  }

  /**
   * The current webhooks; the first call starts following (and waits for the first list).
   * Until that succeeds, the request is refused as kube refuses it before its informers synced.
   */
  async current(attrs: AdmissionAttributes): Promise<WebhookSet> {
    if (!this.#started) {
      this.#started = this.#follow().catch((err) => {
        this.#started = undefined;
        throw err;
      });
    }
    try {
      await this.#started;
    } catch {
      const gr = { group: attrs.kind.group, resource: attrs.kind.plural };
      throw StatusError.forbidden(gr, attrs.name, "not yet ready to handle request");
    }
    return this.#set;
  }

  /** Stops following. */
  close(): void {
    this.#closed = true;
    this.#stop?.();
  }

  async #follow(): Promise<void> {
    const prefix = this.#opts.prefix();
    if (prefix === undefined || this.#closed) return;
    const stop = await this.#opts.feed().follow([prefix], (events) => {
      for (const ev of events) {
        if (ev.type === "DELETED") this.#objects.delete(ev.key);
        else this.#objects.set(ev.key, ev.object);
      }
      this.#rebuild();
    });
    if (this.#closed) stop();
    else this.#stop = stop;
  }

  #rebuild(): void {
    const configs = [...this.#objects.entries()].sort(([, a], [, b]) =>
      (a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1
    );
    const entries: WebhookEntry[] = [];
    const live = new Set<string>();
    for (const [key, obj] of configs) {
      live.add(key);
      const rv = obj.metadata.resourceVersion ?? "";
      let built = this.#built.get(key);
      if (!built || built.rv !== rv) {
        built = { rv, entries: this.#entriesOf(obj) };
        this.#built.set(key, built);
      }
      for (const e of built.entries) entries.push({ ...e, index: entries.length });
    }
    for (const key of this.#built.keys()) if (!live.has(key)) this.#built.delete(key);
    this.#set = new WebhookSet(this.#set.generation + 1, entries);
  }

  #entriesOf(obj: KubeObject): Omit<WebhookEntry, "index">[] {
    const configName = obj.metadata.name ?? "";
    const hooks = Array.isArray(obj.webhooks) ? obj.webhooks as Obj[] : [];
    return hooks.map((hook, i) => {
      const name = typeof hook.name === "string" ? hook.name : "";
      return {
        uid: `${configName}/${name}/${i}`,
        configName,
        name,
        hook,
        matcher: ResourceMatcher.compile(
          {
            namespaceSelector: hook.namespaceSelector,
            objectSelector: hook.objectSelector,
            resourceRules: Array.isArray(hook.rules) ? hook.rules : [],
            matchPolicy: hook.matchPolicy,
          } as MatchCriteria,
          { emptyRulesMatchAll: false },
        ),
        matchConditions: compileConditions(this.#opts.env, hook.matchConditions),
      };
    });
  }
}
