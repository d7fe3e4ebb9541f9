/**
 * Compiling the `x-kubernetes-validations` of one schema node: `self` (and `oldSelf`) typed
 * from the node, each rule type checked to a bool, each `messageExpression` to a string, with
 * their estimated costs. Used at CRD write (to report errors) and when a schema is compiled
 * (to evaluate).
 *
 * @module
 */
import type {
  JSONSchemaProps,
  ValidationRule,
} from "../../../../shared/api/apiextensions/v1/types.ts";
import { CelEnvironment, crdValidationEnvironment } from "../../../cel/mod.ts";
import type { CelIssue, CelProgram, CelSchema } from "../../../cel/mod.ts";
import { resolveRuleFieldPath } from "./rule_field_path.ts";
import type { PathSegment } from "./rule_field_path.ts";

/** One compiled rule; `ruleError`/`messageError` hold kube's compile messages. */
export interface CompiledRule {
  rule: ValidationRule;
  program?: CelProgram;
  messageProgram?: CelProgram;
  ruleError?: string;
  messageError?: string;
  usesOldSelf: boolean;
  /** `oldSelf` is an optional (the rule also runs without an old value). */
  optionalOldSelf: boolean;
  fieldPath: PathSegment[];
  /** Worst-case estimated costs (one evaluation). */
  ruleCost: number;
  messageCost: number;
}

/** The compiled rules of one node and the schema `self` is typed from. */
export interface CompiledRules {
  celSchema: CelSchema;
  rules: CompiledRule[];
}

const STRING: JSONSchemaProps = { type: "string" };

/**
 * The schema `self` is typed from. At the resource root (kube's WithTypeAndObjectMeta)
 * `apiVersion` and `kind` are strings and `metadata` holds only `name` and `generateName`.
 */
export function celSchemaOf(schema: JSONSchemaProps, root: boolean): CelSchema {
  if (!root) return schema as unknown as CelSchema;
  const s: JSONSchemaProps = {
    ...schema,
    properties: {
      ...(schema.properties ?? {}),
      apiVersion: STRING,
      kind: STRING,
      metadata: { type: "object", properties: { name: STRING, generateName: STRING } },
    },
  };
  return s as unknown as CelSchema;
}

/** Whether `expr` refers to `oldSelf` (outside string literals). */
export function usesOldSelf(expr: string): boolean {
  const code = expr.replace(
    /'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g,
    "",
  );
  return /(^|[^\w.])oldSelf\b/.test(code);
}

function scalarCelType(s: CelSchema): string {
  if (s["x-kubernetes-int-or-string"] || s["x-kubernetes-preserve-unknown-fields"]) return "dyn";
  switch (s.type) {
    case "integer":
      return "int";
    case "number":
      return "double";
    case "boolean":
      return "bool";
    case "string":
      return s.format ? "dyn" : "string";
  }
  return "dyn";
}

const failed = (prefix: string, e: CelIssue) => `${prefix}compilation failed: ERROR: ${e.detail}`;

/** Compiles the rules of `schema` (`root`: the resource root). */
export function compileRules(schema: JSONSchemaProps, root: boolean): CompiledRules {
  const celSchema = celSchemaOf(schema, root);
  let env: CelEnvironment | undefined, optEnv: CelEnvironment | undefined;
  const rules = (schema["x-kubernetes-validations"] ?? []).map((rule) => {
    const optional = rule.optionalOldSelf === true;
    let e: CelEnvironment;
    try {
      e = optional
        ? optEnv ??= CelEnvironment.create({
          variables: [
            { name: "self", schema: celSchema },
            { name: "oldSelf", type: `optional<${scalarCelType(celSchema)}>` },
          ],
        })
        : env ??= crdValidationEnvironment(celSchema);
    } catch (err) {
      return initFailed(rule, err);
    }
    return compileOne(e, rule, optional, schema);
  });
  return { celSchema, rules };
}

/** A rule whose environment could not be built (a schema CEL cannot type). */
function initFailed(rule: ValidationRule, err: unknown): CompiledRule {
  const msg = err instanceof Error ? err.message : String(err);
  return {
    rule,
    ruleError: `rule compiler initialization error: ${msg}`,
    usesOldSelf: false,
    optionalOldSelf: false,
    fieldPath: [],
    ruleCost: 0,
    messageCost: 0,
  };
}

function compileOne(
  env: CelEnvironment,
  rule: ValidationRule,
  optional: boolean,
  schema: JSONSchemaProps,
): CompiledRule {
  const text = typeof rule.rule === "string" ? rule.rule : "";
  const segs = rule.fieldPath ? resolveRuleFieldPath(schema, rule.fieldPath.trim()) : [];
  const out: CompiledRule = {
    rule,
    usesOldSelf: usesOldSelf(text),
    optionalOldSelf: optional,
    fieldPath: segs instanceof Error ? [] : segs,
    ruleCost: 0,
    messageCost: 0,
  };
  const c = env.compile(text);
  if (!c.ok) out.ruleError = failed("", c.errors[0]);
  else if (c.program.outputType !== "bool") {
    out.ruleError = "cel expression must evaluate to a bool";
  } else {
    out.program = c.program;
    out.ruleCost = c.program.estimateCost().max;
  }
  const mx = typeof rule.messageExpression === "string" ? rule.messageExpression : "";
  if (mx.trim() !== "") {
    const m = env.compile(mx);
    if (!m.ok) out.messageError = failed("messageExpression ", m.errors[0]);
    else if (m.program.outputType !== "string") {
      out.messageError = "messageExpression must evaluate to a string";
    } else {
      out.messageProgram = m.program;
      out.messageCost = m.program.estimateCost().max;
    }
  }
  return out;
}
