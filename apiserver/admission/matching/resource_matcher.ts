/**
 * Whether a request falls under a webhook's or an admission policy's match criteria, as
 * Kubernetes decides it (k8s.io/apiserver/pkg/admission/plugin/policy/matching and
 * webhook/predicates): the namespace selector (the labels of the request's namespace, of a
 * Namespace object itself, and always true for other cluster-scoped objects), the object
 * selector (the labels of the object or of the old object), exclude rules, then the rules with
 * their resource names; with `matchPolicy: Equivalent`, a request that no rule matches as
 * sent is matched again as each other served version of its kind, and the result tells which
 * version the object must be converted to.
 *
 * Criteria are compiled once (selectors parsed); matching checks the rules first, so a request
 * that no rule names costs a few string comparisons and never reads a namespace.
 *
 * @example
 * ```ts
 * const m = ResourceMatcher.compile(policy.spec.matchConstraints, { emptyRulesMatchAll: false });
 * const r = await m.matches(matchRequestOf(attrs), { namespaceLabels, equivalents });
 * if (r.matches) convertObject(attrs.object!, attrs.kind, r.def);
 * ```
 *
 * @module
 */
import {
  type LabelSelector,
  labelSelectorFromObject,
  type LabelSelectorObject,
} from "../../../shared/selectors/label_selector.ts";
import type { KindDef } from "../../registry/generic/kind.ts";
import {
  type EquivalentResources,
  kindOf,
  type MatchRequest,
  resourceOf,
} from "./match_request.ts";
import {
  type GroupVersionKind,
  type GroupVersionResource,
  type NamedAdmissionRule,
  namedRuleMatches,
} from "./rules.ts";

/** Match criteria: a policy's `matchConstraints`, a binding's `matchResources`, a webhook's. */
export interface MatchCriteria {
  namespaceSelector?: LabelSelectorObject | null;
  objectSelector?: LabelSelectorObject | null;
  /** A policy's `resourceRules`, or a webhook's `rules`. */
  resourceRules?: readonly NamedAdmissionRule[];
  excludeResourceRules?: readonly NamedAdmissionRule[];
  /** `Equivalent` (the API default) or `Exact`. */
  matchPolicy?: string;
}

/** Options of {@link ResourceMatcher.compile}. */
export interface CompileOptions {
  /**
   * Whether criteria without rules match every resource (a binding's `matchResources`) or
   * none (a webhook's or a policy's own constraints).
   */
  emptyRulesMatchAll: boolean;
}

/**
 * The labels of a namespace, or undefined when it does not exist. A lookup failure may throw;
 * the matcher reports it as an error result.
 */
export type NamespaceLabels = (
  name: string,
) => Promise<Record<string, string> | undefined> | Record<string, string> | undefined;

/** What matching reads besides the request. */
export interface MatchDeps {
  namespaceLabels: NamespaceLabels;
  /** The served versions of kinds; without it, `Equivalent` behaves as `Exact`. */
  equivalents?: EquivalentResources;
}

/** The outcome: no match, a match naming the version to evaluate in, or an error. */
export type MatchResult =
  | { matches: false; error?: undefined }
  | {
    matches: true;
    /** The served version the request matched as (the request's own, or an equivalent). */
    def: KindDef;
    resource: GroupVersionResource;
    kind: GroupVersionKind;
    error?: undefined;
  }
  /** The criteria or the namespace could not be evaluated (failure policy decides). */
  | { matches: false; error: string };

function isNamespace(req: MatchRequest): boolean {
  const r = req.resource;
  return r.group === "" && r.version === "v1" && r.resource === "namespaces";
}

/** Compiled match criteria. Immutable; compile once per object generation. */
export class ResourceMatcher {
  private constructor(
    readonly namespaceSelector: LabelSelector,
    readonly objectSelector: LabelSelector,
    readonly rules: readonly NamedAdmissionRule[],
    readonly excludeRules: readonly NamedAdmissionRule[],
    readonly equivalent: boolean,
    readonly matchAll: boolean,
    /** A selector that could not be parsed: every match is this error. */
    readonly compileError?: string,
  ) {}

  /** Compiles criteria (absent criteria: selectors match everything). */
  static compile(criteria: MatchCriteria | undefined, opts: CompileOptions): ResourceMatcher {
    const c = criteria ?? {};
    let ns: LabelSelector, obj: LabelSelector, error: string | undefined;
    try {
      ns = labelSelectorFromObject(c.namespaceSelector ?? {});
      obj = labelSelectorFromObject(c.objectSelector ?? {});
    } catch (e) {
      ns = obj = labelSelectorFromObject(null);
      error = `invalid label selector: ${e instanceof Error ? e.message : String(e)}`;
    }
    const rules = c.resourceRules ?? [];
    return new ResourceMatcher(
      ns,
      obj,
      rules,
      c.excludeResourceRules ?? [],
      c.matchPolicy !== "Exact",
      rules.length === 0 && opts.emptyRulesMatchAll,
      error,
    );
  }

  /** Decides whether `req` matches. */
  async matches(req: MatchRequest, deps: MatchDeps): Promise<MatchResult> {
    if (this.compileError) return { matches: false, error: this.compileError };
    const hit = this.#matchRules(req, deps.equivalents);
    if (!hit) return { matches: false };
    if (!this.objectSelectorMatches(req)) return { matches: false };
    try {
      if (!await this.namespaceSelectorMatches(req, deps.namespaceLabels)) {
        return { matches: false };
      }
    } catch (e) {
      return { matches: false, error: e instanceof Error ? e.message : String(e) };
    }
    return { matches: true, ...hit };
  }

  /** The rules alone (excludes, names, equivalents); undefined when none matches. */
  #matchRules(req: MatchRequest, equivalents: EquivalentResources | undefined) {
    if (this.#anyRule(this.excludeRules, req, equivalents)) return undefined;
    if (this.matchAll) return { def: req.def, resource: req.resource, kind: req.kind };
    if (this.rules.some((r) => namedRuleMatches(r, req, req.name))) {
      return { def: req.def, resource: req.resource, kind: req.kind };
    }
    if (!this.equivalent || !equivalents) return undefined;
    for (const def of equivalents.for(req.def, req.subresource)) {
      const as = { ...req, resource: resourceOf(def) };
      if (this.rules.some((r) => namedRuleMatches(r, as, req.name))) {
        return { def, resource: as.resource, kind: kindOf(def, req.subresource) };
      }
    }
    return undefined;
  }

  #anyRule(
    rules: readonly NamedAdmissionRule[],
    req: MatchRequest,
    equivalents: EquivalentResources | undefined,
  ): boolean {
    if (rules.length === 0) return false;
    if (rules.some((r) => namedRuleMatches(r, req, req.name))) return true;
    if (!this.equivalent || !equivalents) return false;
    return equivalents.for(req.def, req.subresource).some((def) => {
      const as = { ...req, resource: resourceOf(def) };
      return rules.some((r) => namedRuleMatches(r, as, req.name));
    });
  }

  /** The object selector against the object's or the old object's labels. */
  objectSelectorMatches(req: MatchRequest): boolean {
    const sel = this.objectSelector;
    if (sel.empty()) return true;
    const test = (o: MatchRequest["object"]) => !!o && sel.matches(o.metadata?.labels ?? {});
    return test(req.object) || test(req.oldObject);
  }

  /**
   * The namespace selector: cluster-scoped objects other than Namespaces always match; a
   * Namespace being created or updated is judged by its own labels; otherwise the labels of
   * the request's namespace (a missing namespace is an error).
   */
  async namespaceSelectorMatches(req: MatchRequest, lookup: NamespaceLabels): Promise<boolean> {
    const sel = this.namespaceSelector;
    const ns = isNamespace(req);
    if (req.namespace === "" && !ns) return true;
    if (sel.empty()) return true;
    if (
      ns && req.subresource === "" && (req.operation === "CREATE" || req.operation === "UPDATE")
    ) {
      return sel.matches(req.object?.metadata?.labels ?? {});
    }
    const name = ns ? req.name : req.namespace;
    const labels = await lookup(name);
    if (labels === undefined) throw new Error(`namespace "${name}" not found`);
    return sel.matches(labels);
  }
}
