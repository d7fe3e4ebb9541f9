/**
 * The one CEL environment builder: declared variables per context, Kubernetes' options and
 * libraries, compile with type checking and a compile cache.
 *
 * @module
 */
import { Environment } from "@marcbachmann/cel-js";
import type { AstNode, Evaluator } from "./ast.ts";
import { callArgs, callName, receiverOf, walk } from "./ast.ts";
import { toIssue } from "./errors.ts";
import type { CelIssue } from "./errors.ts";
import { estimateCost } from "./estimate.ts";
import { AUTHORIZER_TYPE, registerAuthorizerLibrary } from "./library/authorizer.ts";
import { registerConversionsLibrary } from "./library/conversions.ts";
import { registerListLibrary } from "./library/list.ts";
import { registerOptionalsLibrary } from "./library/optionals.ts";
import { registerQuantityLibrary } from "./library/quantity.ts";
import { compileRe2, Re2SyntaxError } from "./library/re2.ts";
import { regexMatches, registerRegexLibrary } from "./library/regex.ts";
import { registerStringsLibrary } from "./library/strings.ts";
import { registerURLLibrary } from "./library/url.ts";
import { CelProgram, CostTracker, installMatches } from "./program.ts";
import { LruCache } from "./lru_cache.ts";
import { installRangeCheck } from "./range_checks.ts";
import type { RuntimeHook } from "./program.ts";
import { declareSchemaType, toCelValue } from "./values.ts";
import type { CelSchema } from "./values.ts";

/** One declared variable. */
export interface CelVariable {
  /** Variable name (`self`, `object`, `request`, ...). */
  name: string;
  /** A schema: the variable is typed from it (objects become checked types). */
  schema?: CelSchema;
  /** Or a CEL type string (`map<string, dyn>`, `string`); default `dyn`. */
  type?: string;
  /**
   * Escape property names (`__dash__`, `__namespace__`, ...) as for custom resource schemas.
   * Default true; the built-in typed variables (`request`, `user`) use plain names.
   */
  escapeNames?: boolean;
}

/** Options of {@link CelEnvironment.create}. */
export interface CelEnvironmentOptions {
  /** The declared variables. */
  variables: CelVariable[];
  /** Declare the `authorizer` variable (value built with `AuthorizerValue`). */
  authorizer?: boolean;
  /** Reject mixed-type list/map literals (Kubernetes: true, the default). */
  homogeneousAggregateLiterals?: boolean;
  /** Compiled expressions kept per environment (default 1000). */
  compileCacheSize?: number;
}

/** The outcome of compiling: a program or the errors with positions. */
export type CompileResult =
  | { ok: true; program: CelProgram }
  | { ok: false; errors: CelIssue[] };

interface BaseEnv {
  env: Environment;
}

const bases = new Map<string, BaseEnv>();

function baseEnvironment(homogeneous: boolean): BaseEnv {
  const key = String(homogeneous);
  let b = bases.get(key);
  if (!b) {
    const env = new Environment({
      homogeneousAggregateLiterals: homogeneous,
      enableOptionalTypes: true,
      unlistedVariablesAreDyn: false,
    });
    registerConversionsLibrary(env);
    registerStringsLibrary(env);
    registerListLibrary(env);
    registerRegexLibrary(env);
    registerURLLibrary(env);
    registerQuantityLibrary(env);
    registerAuthorizerLibrary(env);
    registerOptionalsLibrary(env);
    env.registerFunction("__celProbe(): bool", () => true, { async: false });
    b = { env };
    bases.set(key, b);
  }
  return b;
}

let typeCounter = 0;

/** A CEL environment for one context; compile expressions with {@link CelEnvironment.compile}. */
export class CelEnvironment {
  readonly #env: Environment;
  readonly #hook: RuntimeHook = { tracker: null };
  readonly #schemas = new Map<string, CelSchema | undefined>();
  readonly #plain = new Set<string>();
  readonly #cache: LruCache<string, CompileResult>;
  /** Declared variable names. */
  readonly variables: readonly string[];

  private constructor(opts: CelEnvironmentOptions) {
    const base = baseEnvironment(opts.homogeneousAggregateLiterals ?? true);
    const env = base.env.clone({ enableOptionalTypes: true });
    const prefix = `celenv${++typeCounter}`;
    const names: string[] = [];
    const declared = new Map<CelSchema, string>();
    for (const v of opts.variables) {
      const type = v.schema
        ? declareSchemaType(env, v.schema, `${prefix}.${v.name}`, declared, v.escapeNames !== false)
        : (v.type ?? "dyn");
      env.registerVariable(v.name, type);
      this.#schemas.set(v.name, v.schema);
      if (v.escapeNames === false) this.#plain.add(v.name);
      names.push(v.name);
    }
    if (opts.authorizer) {
      env.registerVariable("authorizer", AUTHORIZER_TYPE);
      names.push("authorizer");
    }
    this.#env = env;
    this.variables = names;
    this.#cache = new LruCache(opts.compileCacheSize ?? 1000);
    this.#installHook();
  }

  /** Builds an environment; throws only for invalid declarations (a programming error). */
  static create(opts: CelEnvironmentOptions): CelEnvironment {
    return new CelEnvironment(opts);
  }

  #installHook(): void {
    let ev: (Evaluator & { run: Evaluator["run"] }) | undefined;
    const probe = this.#env.parse("__celProbe()");
    const ast = probe.ast as unknown as AstNode;
    const original = ast.evaluate;
    ast.evaluate = function (this: AstNode, e: Evaluator, a: AstNode, c: unknown) {
      ev = e;
      return original.call(this, e, a, c);
    };
    probe.check();
    probe({});
    if (!ev) throw new Error("CEL evaluator hook could not be installed");
    const hook = this.#hook;
    ev.run = function (this: Evaluator, node: AstNode, ctx: unknown): unknown {
      const t: CostTracker | null = hook.tracker;
      if (t === null) return node.evaluate(this, node, ctx);
      return t.run(this, node, ctx);
    };
  }

  /** Converts JSON values of the declared variables to CEL values, once per object. */
  activation(vars: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(vars)) {
      if (v === undefined) continue;
      out[k] = this.#schemas.has(k) ? toCelValue(v, this.#schemas.get(k), !this.#plain.has(k)) : v;
    }
    return out;
  }

  /** Parses and type-checks `expression`; cached per expression text. Never throws. */
  compile(expression: string): CompileResult {
    const hit = this.#cache.get(expression);
    if (hit) return hit;
    const result = this.#compile(expression);
    this.#cache.set(expression, result);
    return result;
  }

  #compile(expression: string): CompileResult {
    let parsed: ReturnType<Environment["parse"]>;
    try {
      parsed = this.#env.parse(expression);
    } catch (e) {
      return { ok: false, errors: [toIssue(e, expression, "parse_error")] };
    }
    const checked = parsed.check();
    if (!checked.valid) {
      return { ok: false, errors: [toIssue(checked.error, expression, "type_error")] };
    }
    const root = parsed.ast as unknown as AstNode;
    const errors: CelIssue[] = [];
    try {
      walk(root, (n) => {
        installRangeCheck(n);
        const name = callName(n);
        if (name === "__celProbe") {
          errors.push(
            toIssue(
              Object.assign(new Error("undeclared reference to '__celProbe'"), { range: n }),
              expression,
              "type_error",
            ),
          );
        }
        if (name !== "matches" && name !== "find" && name !== "findAll") return;
        const args = callArgs(n);
        const pat = receiverOf(n) ? args[0] : args[1];
        if (pat?.op === "value" && typeof pat.args === "string") {
          try {
            compileRe2(pat.args);
          } catch (e) {
            if (!(e instanceof Re2SyntaxError)) throw e;
            errors.push(
              toIssue(
                Object.assign(new Error(e.message), { range: pat }),
                expression,
                "type_error",
              ),
            );
          }
        }
        if (name === "matches") installMatches(n, regexMatches);
      });
    } catch (e) {
      errors.push(toIssue(e, expression, "internal"));
    }
    if (errors.length) return { ok: false, errors };
    const schemas = this.#schemas;
    const program = new CelProgram(
      expression,
      checked.type ?? "dyn",
      parsed as unknown as (ctx: Record<string, unknown>) => unknown,
      root,
      this.#hook,
      () => estimateCost(root, schemas),
    );
    return { ok: true, program };
  }
}
