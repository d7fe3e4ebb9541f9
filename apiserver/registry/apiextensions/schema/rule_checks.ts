/**
 * The CRD-write checks of the CEL rules: each rule and messageExpression compiles, its
 * estimated cost (times how often it may run) stays under the per-expression limit, the
 * costs of the whole schema stay under the per-CRD limit, and `oldSelf` only appears where
 * old and new values can be correlated. Messages are apiextensions-apiserver's.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { forbidden, invalid } from "../../../../shared/api/validation/field_errors.ts";
import { STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from "../../../cel/mod.ts";
import { childPath, indexPath } from "./field_paths.ts";
import { compileRules } from "./rule_compile.ts";
import type { CompiledRule } from "./rule_compile.ts";
import type { RuleSite } from "./schema_rules.ts";

/** Kube's wording of an estimated cost over its limit. */
export function costErrorMessage(name: string, cost: number, limit: number): string {
  const f = cost / limit;
  let factor: string;
  if (f > 100) factor = "more than 100x";
  else if (f < 1.5) factor = `${f.toFixed(6)}x`;
  else factor = `${f.toFixed(1)}x`;
  return `${name} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

interface Observed {
  path: string;
  cost: number;
}

/** Every CEL error of the rule sites, and the per-CRD total check at `rootPath`. */
export function validateRuleSites(sites: RuleSite[], rootPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const observed: Observed[] = [];
  for (const site of sites) {
    const compiled = compileRules(site.schema, site.root);
    compiled.rules.forEach((cr, i) => {
      const rp = indexPath(childPath(site.path, "x-kubernetes-validations"), i);
      errs.push(...ruleErrors(cr, rp, site, observed));
    });
  }
  const total = observed.reduce((a, o) => a + o.cost, 0);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    const expensive = observed
      .filter((o) => o.cost > STATIC_ESTIMATED_CRD_COST_LIMIT / 100)
      .sort((a, b) => b.cost - a.cost)
      .slice(0, 4);
    for (const o of expensive) {
      errs.push(forbidden(
        o.path,
        "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
      ));
    }
    errs.push(forbidden(
      rootPath,
      costErrorMessage(
        "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
        total,
        STATIC_ESTIMATED_CRD_COST_LIMIT,
      ),
    ));
  }
  return errs;
}

function ruleErrors(
  cr: CompiledRule,
  rp: string,
  site: RuleSite,
  observed: Observed[],
): FieldError[] {
  const errs: FieldError[] = [];
  const rulePath = childPath(rp, "rule");
  const msgPath = childPath(rp, "messageExpression");
  if (typeof cr.rule.rule !== "string" || cr.rule.rule.trim() === "") return errs;
  const cost = cr.ruleCost * site.cardinality;
  if (cost > STATIC_ESTIMATED_COST_LIMIT) {
    errs.push(forbidden(
      rulePath,
      costErrorMessage("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT),
    ));
  }
  observed.push({ path: rulePath, cost });
  if (cr.ruleError) errs.push(invalid(rulePath, cr.rule, cr.ruleError));
  if (cr.messageError) errs.push(invalid(msgPath, cr.rule, cr.messageError));
  else if (cr.messageProgram) {
    // kube checks and totals a messageExpression at its own estimate (not times the cardinality)
    const mcost = cr.messageCost;
    if (mcost > STATIC_ESTIMATED_COST_LIMIT) {
      errs.push(forbidden(
        msgPath,
        costErrorMessage("estimated messageExpression cost", mcost, STATIC_ESTIMATED_COST_LIMIT),
      ));
    }
    observed.push({ path: msgPath, cost: mcost });
  }
  if (cr.usesOldSelf) {
    if (site.uncorrelatable !== undefined) {
      errs.push(invalid(
        rulePath,
        cr.rule.rule,
        `oldSelf cannot be used on the uncorrelatable portion of the schema within ${site.uncorrelatable}`,
      ));
    }
  } else if (cr.rule.optionalOldSelf !== undefined) {
    errs.push(invalid(
      childPath(rp, "optionalOldSelf"),
      cr.rule.optionalOldSelf,
      "may not be set if oldSelf is not used in rule",
    ));
  }
  return errs;
}
