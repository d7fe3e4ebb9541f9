/** Shared helpers for the CEL library tests: compile and evaluate through the public API. */
import assert from "node:assert";
import { CelEnvironment } from "../../../../apiserver/cel/mod.ts";
import type { CelAuthorizer, EvalResult } from "../../../../apiserver/cel/mod.ts";

let env: CelEnvironment | undefined;

/** An environment with a dynamic `x` and the authorizer declared. */
export function testEnv(): CelEnvironment {
  return env ??= CelEnvironment.create({ variables: [{ name: "x" }], authorizer: true });
}

/** Compiles (asserting success) and evaluates `expr`. */
export function run(
  expr: string,
  vars: Record<string, unknown> = {},
  costLimit?: number,
): EvalResult {
  const c = testEnv().compile(expr);
  if (!c.ok) assert.fail(`compile ${expr}: ${c.errors[0].detail}`);
  return c.program.evaluate(vars, costLimit === undefined ? {} : { costLimit });
}

/** One table row: an expression and its expected value, or an error substring. */
export interface Row {
  expr: string;
  want?: unknown;
  error?: string;
  vars?: Record<string, unknown>;
}

/** Runs table rows as steps. */
export async function table(t: Deno.TestContext, rows: Row[]): Promise<void> {
  for (const row of rows) {
    await t.step(row.expr, () => {
      const r = run(row.expr, row.vars);
      if (row.error !== undefined) {
        assert.ok(!r.ok, `expected error, got ${Deno.inspect(r.ok && r.value)}`);
        assert.ok(
          r.error.message.includes(row.error),
          `error "${r.error.message}" does not contain "${row.error}"`,
        );
      } else {
        assert.ok(r.ok, r.ok ? "" : r.error.detail);
        assert.deepStrictEqual(r.value, row.want);
      }
    });
  }
}

/** A fake external authorizer: allows `get` on apps/deployments and `/healthz`. */
export const fakeAuthorizer: CelAuthorizer = {
  authorize(a) {
    if (a.user.name === "boom") throw new Error("webhook down");
    if (!a.resourceRequest) {
      return a.path === "/healthz" && a.verb === "get"
        ? { decision: "allow", reason: "" }
        : { decision: "noOpinion", reason: "no rule" };
    }
    const ok = a.apiGroup === "apps" && a.resource === "deployments" && a.verb === "get" &&
      a.user.name === "alice";
    return ok
      ? { decision: "allow", reason: "rbac" }
      : { decision: "noOpinion", reason: "no rule" };
  },
};
