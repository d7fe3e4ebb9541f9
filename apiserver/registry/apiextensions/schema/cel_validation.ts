/**
 * Running the `x-kubernetes-validations` rules of a custom resource (apiextensions
 * pkg/apiserver/schema/cel validation.go): every non-null node with rules evaluates them with
 * `self` (and, on update, `oldSelf` where the old value correlates: same property, same map
 * key, same list-map key), inside one per-object cost budget; errors carry the rule's message,
 * messageExpression, reason and fieldPath as Kubernetes renders them.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { CostBudget, Optional, RUNTIME_COST_BUDGET, toCelValue } from "../../../cel/mod.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import { childPath, indexPath, keyPath, rootOr } from "./field_paths.ts";
import { correlator, mapIsCorrelatable } from "./list_values.ts";
import { compileRules } from "./rule_compile.ts";
import type { CompiledRule, CompiledRules } from "./rule_compile.ts";
import { evaluateRule } from "./cel_rule_eval.ts";
import type { RunState } from "./cel_rule_eval.ts";
import { additionalOf, isObject, itemsOf, jsonEqual } from "./schema_nodes.ts";

type Old = { value: unknown } | undefined;

/** A rule that could not be compiled, reported at run time as kube does. */
function compileFailure(at: string, type: string, err: string): FieldError {
  const init = err.startsWith("rule compiler initialization error");
  return invalid(at, type, init ? err : `rule compile error: ${err}`);
}

/** Evaluates the CEL rules of one compiled schema; rules are compiled on first use. */
export class CelRuleValidator {
  readonly #root: JSONSchemaProps;
  readonly #resourceRoot: boolean;
  readonly #compiled = new WeakMap<JSONSchemaProps, CompiledRules>();

  /** Validator of the schema rooted at `root` (by default a resource root: self has metadata). */
  constructor(root: JSONSchemaProps, resourceRoot = true) {
    this.#root = root;
    this.#resourceRoot = resourceRoot;
  }

  /**
   * Every rule error of `obj` (with `old` on update), within the per-object budget. With
   * `ratchet`, rules without `oldSelf` are not run on values equal to their old value; `path`
   * is the field path of `obj` (the resource root: empty, reported as `<nil>`).
   */
  validate(
    obj: unknown,
    old?: unknown,
    ratchet = false,
    budget = RUNTIME_COST_BUDGET,
    path = "",
  ): FieldError[] {
    const st: RunState = { budget: new CostBudget(budget), errs: [], stopped: false, ratchet };
    const o = old === undefined ? undefined : { value: old };
    this.#walk(obj, this.#root, path, o, this.#resourceRoot, st);
    return st.errs;
  }

  #rules(s: JSONSchemaProps, root: boolean): CompiledRules {
    let c = this.#compiled.get(s);
    if (!c) {
      c = compileRules(s, root);
      this.#compiled.set(s, c);
    }
    return c;
  }

  #walk(
    v: unknown,
    s: JSONSchemaProps | undefined,
    at: string,
    old: Old,
    root: boolean,
    st: RunState,
  ): void {
    if (!s || v === null || v === undefined || st.stopped) return;
    // a null old value is no old value (kube: oldSelf is only bound to non-null values)
    if (old !== undefined && (old.value === null || old.value === undefined)) old = undefined;
    if (s["x-kubernetes-validations"]?.length) this.#runRules(v, s, at, old, root, st);
    if (Array.isArray(v)) {
      const items = itemsOf(s);
      // only map lists correlate items for oldSelf (kube's MakeMapList)
      const oldList = old && Array.isArray(old.value) && s["x-kubernetes-list-type"] === "map"
        ? old.value
        : undefined;
      const find = correlator(s, oldList);
      v.forEach((x, i) => {
        const o = find(x);
        this.#walk(x, items, indexPath(at, i), o, false, st);
      });
    } else if (isObject(v)) {
      const ap = additionalOf(s);
      const oldObj = old && isObject(old.value) ? old.value : undefined;
      const mapOld = mapIsCorrelatable(s["x-kubernetes-map-type"]);
      for (const [k, x] of Object.entries(v)) {
        const isProp = !!s.properties && Object.hasOwn(s.properties, k);
        const ps = isProp ? s.properties![k] : ap;
        const o = oldObj && Object.hasOwn(oldObj, k) && (isProp || mapOld)
          ? { value: oldObj[k] }
          : undefined;
        this.#walk(x, ps, isProp ? childPath(at, k) : keyPath(at, k), o, false, st);
      }
    }
  }

  #runRules(
    v: unknown,
    s: JSONSchemaProps,
    at: string,
    old: Old,
    root: boolean,
    st: RunState,
  ): void {
    const compiled = this.#rules(s, root);
    let unchanged: boolean | undefined;
    const isUnchanged = () =>
      unchanged ??= st.ratchet && old !== undefined && jsonEqual(v, old.value);
    let self: unknown, oldSelf: unknown;
    for (const cr of compiled.rules) {
      if (st.stopped) continue;
      if (!cr.program) {
        if (cr.ruleError) st.errs.push(compileFailure(rootOr(at), s.type ?? "", cr.ruleError));
        continue;
      }
      if (cr.usesOldSelf && old === undefined && !cr.optionalOldSelf) continue;
      self ??= toCelValue(v, compiled.celSchema);
      const vars: Record<string, unknown> = { self };
      if (cr.usesOldSelf) {
        if (old !== undefined) oldSelf ??= toCelValue(old.value, compiled.celSchema);
        vars.oldSelf = cr.optionalOldSelf
          ? (old === undefined ? Optional.none() : Optional.of(oldSelf))
          : oldSelf;
      }
      const before = st.errs.length;
      evaluateRule(cr as CompiledRule, vars, rootOr(at), s.type ?? "", st);
      // ratcheting: a failing rule without oldSelf on an unchanged value is not an error
      if (st.errs.length > before && !st.stopped && !cr.usesOldSelf && isUnchanged()) {
        st.errs.length = before;
      }
    }
  }
}
